// Skip logic in the browser: a question's `relevant` condition (XLSForm's syntax over ${name} references to
// direct questions) read by a small parser of its own (the CSP forbids eval and Function) and evaluated as
// XLSForm compares values. surveys/collection/relevance.py is the server's twin; both are tested on
// tests/js/fixtures/relevance.json. A value is a number, a string (a choice's name) or null (not asked).
// The page feature "conditions" (surveys.collection.integrity.FEATURES): loaded only by a survey with a condition,
// it leaves followConditions in features.js for respond.js.
import { provide } from "./features.js";
const TOKEN = /\s*(?:(-?\d+(?:\.\d+)?|-?\.\d+)|('[^']*'|"[^"]*")|\$\{([^}]*)\}|(!=|<=|>=|=|<|>|\(|\)|,)|([A-Za-z_][A-Za-z0-9_-]*))/y;
const COMPARISONS = ["=", "!=", "<", "<=", ">", ">="];
const KINDS = ["number", "string", "ref", "op", "word"];

function tokens(text) {
  const found = [];
  const source = text.trim();
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < source.length) {
    const at = TOKEN.lastIndex;
    const match = TOKEN.exec(source);
    if (!match || TOKEN.lastIndex === at) throw new Error(`cannot read “${source.slice(at).trim().slice(0, 20)}”`);
    const i = match.slice(1).findIndex((group) => group !== undefined);
    found.push([KINDS[i], match[i + 1]]);
    while (TOKEN.lastIndex < source.length && /\s/.test(source[TOKEN.lastIndex])) TOKEN.lastIndex += 1;
  }
  return found;
}

/** The expression as a tree ({op, args}); throws an Error saying what is wrong. */
export function parse(text) {
  const list = tokens(text);
  if (!list.length) throw new Error("the condition is empty");
  let at = 0;
  const peek = () => list[at] || ["end", ""];
  const is = (kind, word) => peek()[0] === kind && peek()[1] === word;
  const take = (kind, word) => {
    const [k, t] = peek();
    if (k !== kind || (word !== undefined && t !== word)) throw new Error(`expected ${word || kind}, found “${t}”`);
    at += 1;
    return t;
  };
  const reference = () => {
    const name = take("ref");
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name)) throw new Error(`“\${${name}}” is not a question's name`);
    return { op: "ref", args: [name] };
  };
  function operand() {
    const [kind, t] = peek();
    if (kind === "number") { at += 1; return { op: "num", args: [Number(t)] }; }
    if (kind === "string") { at += 1; return { op: "str", args: [t.slice(1, -1)] }; }
    if (kind === "ref") return reference();
    if (kind === "op" && t === "(") {
      at += 1;
      const node = disjunction();
      take("op", ")");
      return node;
    }
    if (kind === "word" && (t === "not" || t === "selected")) {
      at += 1;
      take("op", "(");
      let node;
      if (t === "not") node = { op: "not", args: [disjunction()] };
      else {
        const ref = reference();
        take("op", ",");
        node = { op: "selected", args: [ref, take("string").slice(1, -1)] };
      }
      take("op", ")");
      return node;
    }
    throw new Error(kind === "word" ? `unknown word “${t}”` : `expected a value, found “${t}”`);
  }
  function comparison() {
    let node = operand();
    const [kind, t] = peek();
    if (kind === "op" && COMPARISONS.includes(t)) {
      at += 1;
      node = { op: t, args: [node, operand()] };
      if (peek()[0] === "op" && COMPARISONS.includes(peek()[1])) throw new Error("comparisons cannot be chained");
    }
    return node;
  }
  function conjunction() {
    let node = comparison();
    while (is("word", "and")) { at += 1; node = { op: "and", args: [node, comparison()] }; }
    return node;
  }
  function disjunction() {
    let node = conjunction();
    while (is("word", "or")) { at += 1; node = { op: "or", args: [node, conjunction()] }; }
    return node;
  }
  const node = disjunction();
  if (at < list.length) throw new Error(`unexpected “${list[at][1]}”`);
  return node;
}

const text = (value) => (value === null || value === undefined ? "" : typeof value === "boolean" ? String(value)
  : String(value));
function number(value) { // XPath's number(): NaN for an empty or non-numeric string
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  const t = text(value).trim();
  return /^-?(\d+(\.\d*)?|\.\d+)$/.test(t) ? Number(t) : NaN;
}
const truth = (value) => (typeof value === "boolean" ? value : typeof value === "number"
  ? value !== 0 && !Number.isNaN(value) : text(value) !== "");

function evaluate(node, values) {
  const [a, b] = node.args;
  switch (node.op) {
    case "num": case "str": return a;
    case "ref": return Object.hasOwn(values, a) ? values[a] : null;
    case "not": return !truth(evaluate(a, values));
    case "and": return truth(evaluate(a, values)) && truth(evaluate(b, values));
    case "or": return truth(evaluate(a, values)) || truth(evaluate(b, values));
    case "selected": return text(evaluate(a, values)).split(/\s+/).includes(b);
    default: {
      const [left, right] = [evaluate(a, values), evaluate(b, values)];
      if (node.op === "=" || node.op === "!=") {
        const numeric = ["number", "boolean"].includes(typeof left) || ["number", "boolean"].includes(typeof right);
        const equal = numeric ? number(left) === number(right) : text(left) === text(right);
        return node.op === "=" ? equal : !equal;
      }
      const [x, y] = [number(left), number(right)];
      if (Number.isNaN(x) || Number.isNaN(y)) return false;
      return { "<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y }[node.op];
    }
  }
}

/** Whether the condition (a tree from `parse`) holds for these answers (a name missing or null: not asked). */
export const holds = (node, values) => truth(evaluate(node, values));

// A direct question's value as conditions compare it: its chosen option's name, its number, or null.
function valueOf(question, fieldset) {
  if (question.choices) {
    const chosen = fieldset.querySelector("input[type=radio]:checked");
    return chosen ? question.choices[Number(chosen.dataset.option)] : null;
  }
  const typed = fieldset.querySelector("input[data-answer=number]").value.trim();
  return Number.isNaN(number(typed)) ? null : number(typed);
}

/**
 * The page's skip logic: each question with a condition is shown only while it holds for the direct answers
 * above it, re-judged as they change. Returns `asked(question)`: whether it is shown (a hidden one is neither
 * read nor sent).
 */
export function followConditions(root, questions) {
  const conditional = questions.filter((q) => q.relevant).map((q) => [q, parse(q.relevant)]);
  const fieldsetOf = (q) => root.querySelector(`fieldset[data-question="${q.id}"]`);
  const shown = new Map();
  function judge() {
    const values = {};
    for (const q of questions) {
      const rule = conditional.find(([c]) => c === q);
      const visible = !rule || holds(rule[1], values); // only earlier questions are referred to
      shown.set(q.id, visible);
      const fieldset = fieldsetOf(q);
      if (fieldset) fieldset.hidden = !visible;
      if (q.choices || q.direct_number) values[q.key] = visible && fieldset ? valueOf(q, fieldset) : null;
    }
  }
  if (conditional.length) {
    root.addEventListener("change", judge);
    root.addEventListener("input", judge);
  }
  judge();
  return (q) => shown.get(q.id) !== false;
}

provide("conditions", followConditions);
