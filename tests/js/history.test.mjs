import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { millisUp, samplerLoss } from "../../static/js/epsilon.js";
import { composedLoss, historyLoss, rememberedLoss } from "../../static/js/history.js";
import { markSurveyAnswered, sentKey } from "../../static/js/pending.js";
import { answeredWaves, markAnswered } from "../../static/js/remember.js";

// Written by tests/ldp/js_history_fixture.py, which enumerates every permanent response and report of every wave.
const fixture = JSON.parse(readFileSync(new URL("./fixtures/history.json", import.meta.url)));

class Storage {
  constructor() { this.items = new Map(); }
  getItem(key) { return this.items.has(key) ? this.items.get(key) : null; }
  setItem(key, value) { this.items.set(key, String(value)); }
}

for (const c of fixture.cases) {
  test(`the waves' total is the largest log-ratio of all their reports, enumerated: ${c.name}`, () => {
    assert.equal(millisUp(historyLoss(c.waves)), c.unchanged_millis);
  });
  if (c.changed_millis !== undefined) {
    test(`an answer changed between waves costs at most the total again per different answer: ${c.name}`, () => {
      assert.ok(c.changed_millis <= c.waves.length * millisUp(historyLoss(c.waves)));
    });
  }
}

test("the history of a pre-series wave and a remembered one counts the pre-series wave afresh", () => {
  const c = fixture.cases.find((found) => found.name.startsWith("a wave made before its series"));
  const thisWaveOnly = millisUp(historyLoss(c.waves.slice(1)));
  assert.ok(millisUp(historyLoss(c.waves)) > thisWaveOnly);
});

test("one wave of a permanent layer is the layers composed, and many never cost more than the permanent layer", () => {
  const permanent = { kind: "grr", k: 3, keep: 6, other: 2, modulus: 10 };
  const instant = { kind: "grr", k: 3, keep: 8, other: 1, modulus: 10 };
  assert.deepEqual(rememberedLoss(permanent, [instant]), composedLoss(permanent, instant));
  const bound = millisUp(samplerLoss(permanent));
  let before = 0;
  for (let n = 1; n <= 9; n++) { // past 6 waves nothing is enumerated: the permanent layer's loss then
    const millis = millisUp(rememberedLoss(permanent, Array(n).fill(instant)));
    assert.ok(before <= millis && millis <= bound, `${n} waves: ${millis}`);
    before = millis;
  }
  assert.equal(before, bound);
});

test("a remembered question of another kind or k is refused", () => {
  const permanent = { kind: "grr", k: 3, keep: 6, other: 2, modulus: 10 };
  assert.throws(() => rememberedLoss(permanent, [{ kind: "grr", k: 2, keep: 3, other: 1, modulus: 4 }]));
});

test("the waves a browser answered: by number as waves, by sent mark or kept payload as surveys", () => {
  const storage = new Storage();
  const others = [{ wave: 1, slug: "monthly", version: "v1" }, { wave: 2, slug: "monthly-wave-2", version: "v2" },
    { wave: 3, slug: "monthly-wave-3", version: "v3" }, { wave: 4, slug: "monthly-wave-4", version: "v4" },
    { wave: 5, slug: "monthly-wave-5", version: "v5" }];
  assert.deepEqual(answeredWaves(storage, 7, others), []);
  storage.setItem(sentKey("monthly"), "1"); // answered by its open link before the series existed
  markAnswered(storage, 7, 3);
  markAnswered(storage, 8, 2); // another series' wave 2
  storage.setItem("ldp-survey-pending:monthly-wave-4:v4", "{}"); // sent, never confirmed
  storage.setItem("ldp-survey-pending:monthly-wave-2:old", "{}"); // another version: not this wave's
  markSurveyAnswered(storage, "monthly-wave-5"); // by an invitation: no sent mark
  assert.deepEqual(answeredWaves(storage, 7, others).map((wave) => wave.wave), [1, 3, 4, 5]);
});
