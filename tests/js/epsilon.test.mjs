import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  checkSurvey, expBounds, localMillisText, lossAtMost, millisText, millisUp, samplerLoss, statedMillis, totalLoss,
} from "../../static/js/epsilon.js";

const fixture = JSON.parse(readFileSync(new URL("./fixtures/epsilon.json", import.meta.url)));

test("the loss of every fixture sampler rounds up to the thousandths Python computes", () => {
  assert.ok(fixture.cases.length > 250);
  for (const { name, sampler, millis_up: expected } of fixture.cases) {
    assert.equal(millisUp(samplerLoss(sampler)), expected, name);
  }
});

test("the rounded-up loss is never below sampler_epsilon and above it by less than a thousandth", () => {
  for (const { name, sampler, epsilon } of fixture.cases) {
    const m = millisUp(samplerLoss(sampler));
    assert.ok(m / 1000 >= epsilon - 1e-12 && m / 1000 - epsilon < 0.001 + 1e-12, `${name}: ${m} vs ${epsilon}`);
  }
});

test("a loss is at most its rounded-up figure and above the thousandth below it", () => {
  for (const { name, sampler, millis_up: m } of fixture.cases) {
    const loss = samplerLoss(sampler);
    assert.ok(lossAtMost(loss, m), name);
    assert.ok(!lossAtMost(loss, m - 1), name);
  }
});

test("e^x is bracketed tightly: e^1 lies between the bounds", () => {
  const [lo, hi] = expBounds(1n, 1n);
  const scale = 2 ** 192;
  assert.ok(Number(lo) / scale <= Math.E && Math.E <= Number(hi) / scale);
  assert.ok(hi - lo < 1n << 16n);
});

test("an exactly rational loss (discrete Laplace at epsilon 1) is at most 1.000, not above it", () => {
  const loss = samplerLoss({ kind: "dlaplace", steps: 10, scale_num: 10, scale_den: 1, bound: 5 });
  assert.ok(lossAtMost(loss, 1000));
  assert.ok(!lossAtMost(loss, 999));
});

test("a direct question has no loss and counts for nothing", () => {
  assert.equal(samplerLoss({ kind: "direct", k: 3 }), null);
  assert.equal(samplerLoss({ kind: "direct", k: 82 }), null); // a number sent as given (ldp.DirectNumber)
  const grr = fixture.cases.find((c) => c.name === "krr k=3 eps=1.0").sampler;
  assert.deepEqual(checkSurvey([{ kind: "direct", k: 3 }, grr], 1.0), { millis: 1000 });
});

test("a survey's samplers pass when their total is within the stated total", () => {
  const pick = (name) => fixture.cases.find((c) => c.name === name).sampler;
  const samplers = [pick("bitflip eps=1.1"), pick("oue k=3 eps=0.5"), pick("dlaplace steps=10 eps=1.0")];
  const result = checkSurvey(samplers, 2.6);
  assert.deepEqual(result, { millis: 2600 });
  assert.equal(millisUp(totalLoss(samplers.map(samplerLoss))), 2600);
});

test("integers above the stated total are refused, with the figure they allow", () => {
  const pick = (name) => fixture.cases.find((c) => c.name === name).sampler;
  const result = checkSurvey([pick("bitflip eps=2.0"), pick("krr k=5 eps=2.0")], 3.5);
  assert.deepEqual(result, { problem: "total", millis: 4000, stated: 3500 });
});

test("integers above 10 for one question are refused whatever the stated total", () => {
  const forged = fixture.cases.find((c) => c.name === "forged krr keep 2^32-2 other 1").sampler;
  const result = checkSurvey([{ kind: "direct", k: 2 }, forged], 100);
  assert.equal(result.problem, "question");
  assert.equal(result.index, 1);
  assert.ok(result.millis >= 22180);
  const unary = fixture.cases.find((c) => c.name === "forged unary").sampler;
  assert.equal(checkSurvey([unary], 100).problem, "question");
  const laplace = { kind: "dlaplace", steps: 1000000, scale_num: 1, scale_den: 4294967296, bound: 0 };
  assert.equal(checkSurvey([laplace], 100).problem, "question");
});

test("exactly 10 for a question passes, a hair above it does not", () => {
  const ten = { kind: "dlaplace", steps: 10, scale_num: 1, scale_den: 1, bound: 0 };
  assert.deepEqual(checkSurvey([ten], 10), { millis: 10000 });
  const above = { kind: "dlaplace", steps: 10000001, scale_num: 1000000, scale_den: 1, bound: 0 };
  assert.equal(checkSurvey([above], 100).problem, "question");
});

test("a missing stated total refuses", () => {
  const grr = fixture.cases.find((c) => c.name === "krr k=3 eps=1.0").sampler;
  assert.equal(checkSurvey([grr], undefined).problem, "total");
});

test("stated totals round up to thousandths and figures print with three decimals", () => {
  assert.equal(statedMillis(1.0986122886681098), 1099);
  assert.equal(statedMillis(2), 2000);
  assert.equal(millisText(1099), "1.099");
  assert.equal(millisText(22181), "22.181");
  assert.equal(millisText(50), "0.050");
});

test("figures print in the page's language: only the decimal separator changes, never the digits", () => {
  assert.equal(localMillisText(1099), "1.099");
  assert.equal(localMillisText(1099, ","), "1,099");
  assert.equal(localMillisText(50, ","), "0,050");
  for (let m = 0; m < 30000; m += 7) assert.equal(localMillisText(m, ",").replace(",", "."), millisText(m));
});
