// A numeric histogram's bins as the page finds them: binOf maps a grid index to the bin whose lower edge
// (a grid index) is the last one at most it; the server reads that bin's report.
import { test } from "node:test";
import assert from "node:assert/strict";
import { binOf } from "../../static/js/grid.js";

test("binOf: the last bin whose lower edge is at most the index, edges included", () => {
  assert.deepEqual([0, 17, 18, 64, 65, 120].map((index) => binOf([0, 18, 65], index)), [0, 0, 1, 1, 2, 2]);
});
