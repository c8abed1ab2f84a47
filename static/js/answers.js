// Reading one question's true answer from its inputs, by kind, and saying what a report means.
// True answers stay in memory: they are read here, randomized by the caller, and never posted.
// Pure DOM reading: no network, no randomness.
import { binOf, gridIndex, valueAt } from "./grid.js";

export const fill = (text, values) => text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? values[name] : whole));

/** The inputs of a question's fieldset. */
export function inputs(fieldset, type) {
  return Array.from(fieldset.querySelectorAll(`input[type=${type}]`));
}

/**
 * A numeric answer's problem in words, or "" when it is on the grid (or not typed yet, unless
 * `required`). Checked before anything is randomized.
 */
export function numberProblem(question, input, text, required) {
  const typed = input.value.trim();
  if (!typed) return input.validity.badInput || required ? text.number : "";
  const found = gridIndex(typed, question.scale);
  if (found.problem === "number") return text.number;
  if (found.problem === "range") return fill(text.range, question.scale);
  if (found.problem === "grid") return fill(text.grid, { ...question.scale, below: found.below, above: found.above });
  return "";
}

/**
 * A multi-select's ticks after box `changed` was ticked or unticked (ticks: one boolean per option):
 * an exclusive option ("None of these") ticked unticks every other box, and another ticked unticks
 * the exclusive ones. Unticking changes nothing else.
 */
export function afterTick(ticks, changed, exclusive = []) {
  if (!ticks[changed]) return ticks;
  if (exclusive.includes(changed)) return ticks.map((_, i) => i === changed);
  return ticks.map((on, i) => on && !exclusive.includes(i));
}

/** A multi-select's problem in words, from its ticks: an exclusive option with others, or more than its limit. */
export function ticksProblem(question, ticks, text) {
  const exclusive = question.exclusive || [];
  const alone = exclusive.find((i) => ticks[i]);
  if (alone !== undefined && ticks.filter(Boolean).length > 1) return fill(text.exclusive, { option: question.options[alone] });
  const ticked = ticks.filter(Boolean).length;
  return question.at_most !== null && question.at_most !== undefined && ticked > question.at_most
    ? fill(text.too_many, { m: question.at_most }) : "";
}

/** A multi-select's ticks as the page shows them: one boolean per option. */
export const ticksOf = (fieldset) => inputs(fieldset, "checkbox").map((box) => box.checked);

/**
 * The true answer as the question's sampler takes it: an option index (yes/no, single choice,
 * ordinal levels), a list of k bits (multi-select), a grid index (a numeric mean) or its bin (a
 * numeric histogram); or {problem} in words with the input to focus. `question.answer` is how its
 * kind is answered (surveys/collection/kinds): "ticks", "number", or one radio.
 */
export function readAnswer(question, fieldset, text) {
  if (question.answer === "ticks") {
    const boxes = inputs(fieldset, "checkbox");
    const problem = ticksProblem(question, ticksOf(fieldset), text);
    return problem ? { problem, focus: boxes[0] } : { answer: boxes.map((box) => (box.checked ? 1 : 0)) };
  }
  if (question.answer === "number") {
    const input = fieldset.querySelector("input[data-answer=number]");
    const problem = numberProblem(question, input, text, true);
    if (problem) return { problem, focus: input };
    const { index } = gridIndex(input.value.trim(), question.scale);
    return { answer: question.edges ? binOf(question.edges, index) : index };
  }
  const radios = inputs(fieldset, "radio");
  const chosen = radios.findIndex((radio) => radio.checked);
  return chosen < 0 ? { problem: text.choose, focus: radios[0] } : { answer: chosen };
}

/** A report in words, for the receipt: the options marked, the bit, the noisy number, or the option. */
export function describeReport(question, report, text, none) {
  if (Array.isArray(report)) {
    const on = question.options.filter((_, i) => report[i] === 1);
    return on.length ? on.map((label) => `“${label}”`).join(", ") : question.answer === "ticks" ? text.no_box : none;
  }
  if (question.sampler.kind === "onebit") {
    return fill(text.bit, { bit: report, end: report === 1 ? question.scale.hi : question.scale.lo });
  }
  // A grid index: noisy (discrete Laplace) or the answer itself (a number sent as given).
  if (question.sampler.kind === "dlaplace" || (question.scale && question.sampler.kind === "direct")) {
    return valueAt(question.scale, report);
  }
  return `“${question.options[report]}”`;
}
