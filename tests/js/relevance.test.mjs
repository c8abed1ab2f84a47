import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { holds, parse } from "../../static/js/relevance.js";

// The same table tests/collection/test_relevance.py reads: the two parsers agree case by case.
const cases = JSON.parse(readFileSync(new URL("./fixtures/relevance.json", import.meta.url)));

test("every condition of the shared table gives what the server's parser gives", () => {
  assert.ok(cases.holds.length > 50);
  for (const { expression, values, holds: expected } of cases.holds) {
    assert.equal(holds(parse(expression), values), expected, `${expression} with ${JSON.stringify(values)}`);
  }
});

test("every malformed condition of the shared table is refused with words", () => {
  for (const expression of cases.refused) {
    assert.throws(() => parse(expression), (error) => error instanceof Error && error.message.length > 0, expression);
  }
});

test("parsing never evaluates: a condition is read by the page's own parser, not by eval", () => {
  const source = readFileSync(new URL("../../static/js/relevance.js", import.meta.url), "utf8");
  assert.ok(!/\beval\s*\(|\bFunction\s*\(/.test(source));
});
