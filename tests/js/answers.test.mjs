// A multi-select's exclusive options ("None of these"), as the page applies them to the ticks before
// anything is randomized: afterTick (what one tick does to the others) and ticksProblem (the refusal
// of an answer that still ticks an exclusive option with others, and of too many ticks).
import { test } from "node:test";
import assert from "node:assert/strict";
import { afterTick, describeReport, ticksProblem } from "../../static/js/answers.js";

const text = { too_many: "Please tick at most {m} boxes.", exclusive: "“{option}” is ticked alone." };
// Tobacco, Alcohol, Cannabis, None of these (exclusive), Prefer not to say (exclusive).
const question = {
  options: ["Tobacco", "Alcohol", "Cannabis", "None of these", "Prefer not to say"],
  exclusive: [3, 4],
  at_most: null,
};
const T = true;
const F = false;

test("ticking an exclusive option unticks every other box", () => {
  assert.deepEqual(afterTick([T, T, F, T, F], 3, question.exclusive), [F, F, F, T, F]); // the ticks after the click
});

test("ticking one exclusive option unticks another exclusive one", () => {
  assert.deepEqual(afterTick([F, F, F, T, T], 4, question.exclusive), [F, F, F, F, T]);
});

test("ticking another option unticks the exclusive ones and keeps the other ticks", () => {
  // Alcohol and "None of these" (an earlier state the page would not have left), then Cannabis ticked.
  assert.deepEqual(afterTick([F, T, T, T, F], 2, question.exclusive), [F, T, T, F, F]);
});

test("unticking changes nothing else, and without exclusive options a tick is only itself", () => {
  assert.deepEqual(afterTick([T, F, F, F, F], 1, question.exclusive), [T, F, F, F, F]);
  assert.deepEqual(afterTick([T, F, F, T, F], 1, []), [T, F, F, T, F]);
  assert.deepEqual(afterTick([T, F, F, T, F], 1), [T, F, F, T, F]);
});

test("every answer reachable by ticks alone is one exclusive option or other options only", () => {
  // From every answer the page can show (no exclusive option with another box), every click: the result
  // never ticks an exclusive option with another box either.
  const allowed = (ticks) => !question.exclusive.some((i) => ticks[i]) || ticks.filter(Boolean).length === 1;
  for (let state = 0; state < 32; state += 1) {
    for (let box = 0; box < 5; box += 1) {
      const before = [0, 1, 2, 3, 4].map((i) => Boolean(state & (1 << i)));
      if (!allowed(before)) continue;
      const clicked = before.map((on, i) => (i === box ? !on : on));
      const after = afterTick(clicked, box, question.exclusive);
      assert.ok(allowed(after), JSON.stringify({ before, box, after }));
      assert.equal(after[box], clicked[box]); // the box clicked is as the respondent left it
    }
  }
});

test("an exclusive option ticked with others is refused in words naming it; alone or absent it is not", () => {
  assert.equal(ticksProblem(question, [T, F, F, T, F], text), "“None of these” is ticked alone.");
  assert.equal(ticksProblem(question, [F, F, F, F, T], text), "");
  assert.equal(ticksProblem(question, [F, F, F, T, T], text), "“None of these” is ticked alone.");
  assert.equal(ticksProblem(question, [F, F, F, T, F], text), "");
  assert.equal(ticksProblem(question, [T, T, T, F, F], text), "");
  assert.equal(ticksProblem(question, [F, F, F, F, F], text), "");
});

test("the at-most limit still counts, and a question without exclusive options is unchanged", () => {
  const limited = { ...question, at_most: 2 };
  assert.equal(ticksProblem(limited, [T, T, T, F, F], text), "Please tick at most 2 boxes.");
  assert.equal(ticksProblem(limited, [T, T, F, F, F], text), "");
  const plain = { options: ["A", "B", "C"], at_most: 1 };
  assert.equal(ticksProblem(plain, [T, T, F], text), "Please tick at most 1 boxes.");
  assert.equal(ticksProblem(plain, [T, F, F], text), "");
});

test("the receipt shows a number sent as given as the number itself, and a noisy one as its noisy value", () => {
  const scale = { lo: "0", hi: "10", step: "0.5" };
  const direct = { kind: "numeric", options: ["0 to 4.5", "5 to 10"], scale, sampler: { kind: "direct", k: 21 } };
  assert.equal(describeReport(direct, 0, {}, "none"), "0");
  assert.equal(describeReport(direct, 7, {}, "none"), "3.5");
  assert.equal(describeReport(direct, 20, {}, "none"), "10");
  const noisy = { ...direct, sampler: { kind: "dlaplace", steps: 20, scale_num: 20, scale_den: 1, bound: 9 } };
  assert.equal(describeReport(noisy, -2, {}, "none"), "-1");
  const choice = { kind: "single_choice", options: ["North", "South"], sampler: { kind: "direct", k: 2 } };
  assert.equal(describeReport(choice, 1, {}, "none"), "“South”");
});
