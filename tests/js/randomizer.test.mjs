import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  wordSource,
  cryptoSource,
  uniformBelow,
  randomizeAnswer,
  validateSampler,
  bernoulliExp,
  discreteLaplace,
  discreteLaplaceAttempt,
} from "../../static/js/randomizer.js";

const TWO_32 = 2 ** 32;

/** nextWord() that returns the given words in order and counts how many were consumed. */
function feed(words) {
  let i = 0;
  const next = () => {
    if (i >= words.length) throw new Error("test word feed exhausted");
    return words[i++];
  };
  next.used = () => i;
  return next;
}

/** nextWord() that always returns w (for enumerating U = w when w < M). */
const constant = (w) => () => w;

// ---- word sources ---------------------------------------------------------

test("wordSource hands out the words of successive getRandomValues calls in order", () => {
  let counter = 0;
  const calls = [];
  const next = wordSource((arr) => {
    assert.ok(arr instanceof Uint32Array);
    calls.push(arr.length);
    for (let i = 0; i < arr.length; i++) arr[i] = counter++;
    return arr;
  });
  const got = Array.from({ length: 200 }, () => next());
  assert.deepEqual(got, Array.from({ length: 200 }, (_, i) => i));
  assert.equal(calls.reduce((s, n) => s + n, 0), counter);
  assert.ok(calls.length >= 1);
});

test("wordSource returns full-range uint32 values", () => {
  const next = wordSource((arr) => arr.fill(TWO_32 - 1));
  assert.equal(next(), TWO_32 - 1);
});

test("cryptoSource uses Web Crypto and yields uint32 words", () => {
  const next = cryptoSource();
  for (let i = 0; i < 300; i++) {
    const w = next();
    assert.ok(Number.isInteger(w) && w >= 0 && w < TWO_32);
  }
  let bound = null;
  const fake = {
    getRandomValues(arr) {
      bound = this;
      return arr.fill(7);
    },
  };
  assert.equal(cryptoSource(fake)(), 7);
  assert.equal(bound, fake, "getRandomValues must be bound to its crypto object");
});

test("cryptoSource throws a clear error when Web Crypto is missing", () => {
  const msg = /Web Crypto \(crypto\.getRandomValues\) is not available/;
  assert.throws(() => cryptoSource(null), msg);
  assert.throws(() => cryptoSource({}), msg);
  assert.throws(() => cryptoSource({ getRandomValues: 1 }), msg);
});

test("cryptoSource() throws when globalThis.crypto is missing", () => {
  const saved = Object.getOwnPropertyDescriptor(globalThis, "crypto");
  Object.defineProperty(globalThis, "crypto", { value: undefined, configurable: true, writable: true });
  try {
    assert.throws(() => cryptoSource(), /Web Crypto \(crypto\.getRandomValues\) is not available/);
    assert.throws(() => cryptoSource(undefined), /is not available/);
  } finally {
    if (saved) Object.defineProperty(globalThis, "crypto", saved);
    else delete globalThis.crypto;
  }
  assert.equal(typeof cryptoSource()(), "number");
});

// ---- uniformBelow ---------------------------------------------------------

test("uniformBelow rejects biased words for M = 3 and uses the next word", () => {
  // limit = 3 * floor(2^32 / 3) = 4294967295, so only the word 4294967295 is rejected.
  let next = feed([4294967295, 4294967294]);
  assert.equal(uniformBelow(3, next), 4294967294 % 3);
  assert.equal(next.used(), 2);

  next = feed([4294967295, 4294967295, 4294967295, 5]);
  assert.equal(uniformBelow(3, next), 2);
  assert.equal(next.used(), 4);

  next = feed([4294967294]);
  assert.equal(uniformBelow(3, next), 4294967294 % 3);
  assert.equal(next.used(), 1);
});

test("uniformBelow rejection limit = M * floor(2^32 / M) for several M", () => {
  for (const m of [3, 5, 7, 10, 1000, 2 ** 31 + 1, TWO_32 - 1]) {
    const limit = m * Math.floor(TWO_32 / m);
    // limit - 1 accepted with one word
    let next = feed([limit - 1]);
    assert.equal(uniformBelow(m, next), (limit - 1) % m);
    assert.equal(next.used(), 1);
    if (limit < TWO_32) {
      // limit and the top word are rejected
      next = feed([limit, TWO_32 - 1, 1]);
      assert.equal(uniformBelow(m, next), 1 % m);
      assert.equal(next.used(), 3);
    }
  }
});

test("uniformBelow with M = 2^32 rejects nothing; M = 1 always gives 0", () => {
  for (const w of [0, 1, 2 ** 31, TWO_32 - 2, TWO_32 - 1]) {
    const next = feed([w]);
    assert.equal(uniformBelow(TWO_32, next), w);
    assert.equal(next.used(), 1);
  }
  const next = feed([TWO_32 - 1, 12345]);
  assert.equal(uniformBelow(1, next), 0);
  assert.equal(next.used(), 1);
});

test("uniformBelow is exactly uniform over whole periods of words", () => {
  for (const m of [3, 5, 7, 10]) {
    const counts = new Array(m).fill(0);
    let w = 0;
    const next = () => w++;
    for (let n = 0; n < m * 1000; n++) counts[uniformBelow(m, next)]++;
    assert.equal(w, m * 1000, "no word below the limit is rejected");
    assert.deepEqual(counts, new Array(m).fill(1000));
  }
  // the top partial period (words >= limit) is never used
  for (const m of [3, 5, 7, 10]) {
    const limit = m * Math.floor(TWO_32 / m);
    for (let w = limit; w < TWO_32; w++) {
      assert.throws(() => uniformBelow(m, feed([w])), /exhausted/);
    }
  }
});

test("uniformBelow validates its modulus and the words", () => {
  for (const bad of [0, -1, 1.5, TWO_32 + 1, NaN, Infinity, "3", null, undefined]) {
    assert.throws(() => uniformBelow(bad, constant(0)), /modulus/);
  }
  for (const badWord of [-1, TWO_32, 0.5, NaN, undefined]) {
    assert.throws(() => uniformBelow(3, constant(badWord)), /non-uint32/);
  }
});

// ---- grr ------------------------------------------------------------------

test("grr yes/no known answers: words 0,1,2 keep, 3 flips", () => {
  const s = { kind: "grr", k: 2, modulus: 4, keep: 3, other: 1 };
  for (const truth of [0, 1]) {
    const next = feed([0, 1, 2, 3]);
    const got = [0, 1, 2, 3].map(() => randomizeAnswer(s, truth, next));
    assert.deepEqual(got, [truth, truth, truth, 1 - truth]);
    assert.equal(next.used(), 4);
  }
});

test("grr k = 4 maps j to the j-th other option, skipping the truth", () => {
  // keep = 5, other = 2: U in [0,5) keeps; U = 5 + 2j + {0,1} reports option j of the others.
  const s = { kind: "grr", k: 4, modulus: 11, keep: 5, other: 2 };
  const others = { 0: [1, 2, 3], 1: [0, 2, 3], 2: [0, 1, 3], 3: [0, 1, 2] };
  for (let truth = 0; truth < 4; truth++) {
    for (let u = 0; u < 5; u++) assert.equal(randomizeAnswer(s, truth, constant(u)), truth);
    for (let j = 0; j < 3; j++) {
      for (const off of [0, 1]) {
        const u = 5 + 2 * j + off;
        assert.equal(randomizeAnswer(s, truth, constant(u)), others[truth][j], `truth ${truth} U ${u}`);
      }
    }
  }
});

test("grr: exhaustive counts over every U equal keep / other exactly", () => {
  const samplers = [
    { kind: "grr", k: 3, modulus: 7, keep: 3, other: 2 },
    { kind: "grr", k: 2, modulus: 4, keep: 3, other: 1 },
    { kind: "grr", k: 5, modulus: 17, keep: 5, other: 3 },
  ];
  for (const s of samplers) {
    for (let truth = 0; truth < s.k; truth++) {
      const counts = new Array(s.k).fill(0);
      for (let u = 0; u < s.modulus; u++) {
        const next = feed([u]);
        counts[randomizeAnswer(s, truth, next)]++;
        assert.equal(next.used(), 1);
      }
      const expected = Array.from({ length: s.k }, (_, i) => (i === truth ? s.keep : s.other));
      assert.deepEqual(counts, expected);
    }
  }
});

test("grr: forced response q = 2/3 (the server's sampler for it) reports yes given yes exactly 5 in 6", () => {
  // tests/collection/test_exact_q.py: the definition API sends exactly these integers for q = 2/3.
  const s = { kind: "grr", k: 2, modulus: 6, keep: 5, other: 1 };
  for (const [truth, yes] of [[1, 5], [0, 1]]) {
    let reported = 0;
    for (let u = 0; u < s.modulus; u++) reported += randomizeAnswer(s, truth, feed([u]));
    assert.equal(reported, yes); // of 6 equally likely U: P(yes | yes) = 5/6, P(yes | no) = 1/6
  }
  // Every accepted word is one of these U, each floor(2^32 / 6) times; the rest are rejected.
  assert.equal(uniformBelow(6, feed([6 * Math.floor(TWO_32 / 6) - 1])), 5);
  assert.equal(uniformBelow(6, feed([6 * Math.floor(TWO_32 / 6), 0])), 0);
});

test("grr with modulus 2^32 (epsilon bit flip) uses words directly", () => {
  const keep = 3000000000;
  const s = { kind: "grr", k: 2, modulus: TWO_32, keep, other: TWO_32 - keep };
  assert.equal(randomizeAnswer(s, 1, feed([keep - 1])), 1);
  assert.equal(randomizeAnswer(s, 1, feed([keep])), 0);
  assert.equal(randomizeAnswer(s, 0, feed([TWO_32 - 1])), 1);
});

test("grr skips rejected words", () => {
  // M = 7: limit = 7 * floor(2^32 / 7) = 4294967292; words 4294967292.. are rejected.
  const s = { kind: "grr", k: 3, modulus: 7, keep: 3, other: 2 };
  const next = feed([4294967292, TWO_32 - 1, 6]);
  assert.equal(randomizeAnswer(s, 0, next), 2); // U = 6 -> j = 1 -> option 2
  assert.equal(next.used(), 3);
});

// ---- unary ----------------------------------------------------------------

test("unary known answers: per-bit thresholds and exactly k words per answer", () => {
  const s = { kind: "unary", k: 4, modulus: 10, one_if_true: 7, one_if_false: 2 };
  // truth = 2: threshold 2,2,7,2
  let next = feed([1, 2, 6, 9]);
  assert.deepEqual(randomizeAnswer(s, 2, next), [1, 0, 1, 0]);
  assert.equal(next.used(), 4);
  next = feed([0, 0, 7, 0]);
  assert.deepEqual(randomizeAnswer(s, 2, next), [1, 1, 0, 1]);
  assert.equal(next.used(), 4);
  // truth = 0: bit 0 uses one_if_true
  next = feed([6, 6, 1, 2, 7, 1, 1, 1]);
  assert.deepEqual(randomizeAnswer(s, 0, next), [1, 0, 1, 0]);
  assert.deepEqual(randomizeAnswer(s, 0, next), [0, 1, 1, 1]);
  assert.equal(next.used(), 8);
});

test("unary skips rejected words bit by bit", () => {
  // M = 10: limit = 4294967290; words >= limit are rejected.
  const s = { kind: "unary", k: 2, modulus: 10, one_if_true: 7, one_if_false: 2 };
  const next = feed([4294967290, 1, TWO_32 - 1, 4294967295, 8]);
  assert.deepEqual(randomizeAnswer(s, 1, next), [1, 0]);
  assert.equal(next.used(), 5);
});

test("unary: exhaustive counts per bit over every U equal the thresholds", () => {
  const samplers = [
    { kind: "unary", k: 3, modulus: 5, one_if_true: 3, one_if_false: 1 },
    { kind: "unary", k: 4, modulus: 7, one_if_true: 4, one_if_false: 2 },
  ];
  for (const s of samplers) {
    for (let truth = 0; truth < s.k; truth++) {
      const ones = new Array(s.k).fill(0);
      // enumerate all M^k tuples (U_0, ..., U_{k-1})
      const total = s.modulus ** s.k;
      for (let code = 0; code < total; code++) {
        const words = [];
        for (let i = 0, c = code; i < s.k; i++, c = Math.floor(c / s.modulus)) words.push(c % s.modulus);
        const next = feed(words);
        const bits = randomizeAnswer(s, truth, next);
        assert.equal(next.used(), s.k);
        assert.equal(bits.length, s.k);
        bits.forEach((b, i) => {
          assert.ok(b === 0 || b === 1);
          ones[i] += b;
        });
      }
      const per = total / s.modulus; // tuples per value of one coordinate
      const expected = Array.from({ length: s.k }, (_, i) =>
        (i === truth ? s.one_if_true : s.one_if_false) * per);
      assert.deepEqual(ones, expected);
    }
  }
});

// ---- direct (not randomized) ------------------------------------------------

/** nextWord() that fails the test if it is ever called. */
const noWords = () => {
  throw new Error("a direct question must draw no random word");
};

test("direct sends every true answer as given and draws no random word", () => {
  for (const k of [2, 3, 7, 32]) {
    const sampler = { kind: "direct", k };
    assert.equal(validateSampler(sampler), sampler);
    for (let truth = 0; truth < k; truth++) {
      assert.equal(randomizeAnswer(sampler, truth, noWords), truth);
    }
  }
});

test("direct leaves the word stream untouched for the questions after it", () => {
  const words = feed([0, 3]);
  const grr = { kind: "grr", k: 2, modulus: 4, keep: 3, other: 1 };
  assert.equal(randomizeAnswer(grr, 1, words), 1); // U = 0 keeps the truth
  assert.equal(randomizeAnswer({ kind: "direct", k: 3 }, 2, words), 2);
  assert.equal(words.used(), 1);
  assert.equal(randomizeAnswer(grr, 1, words), 0); // U = 3 flips: the next word is still the second
});

test("direct refuses bad samplers and answers like the others", () => {
  const bad = [
    { kind: "direct" },
    { kind: "direct", k: 1 },
    { kind: "direct", k: 2.5 },
    { kind: "direct", k: "3" },
    { kind: "direct", k: TWO_32 + 1 },
    { kind: "direct", k: 3, modulus: 4, keep: 3, other: 1 }, // integers: a randomizer in disguise
    { kind: "Direct", k: 3 },
  ];
  for (const s of bad) {
    assert.throws(() => validateSampler(s), Error, JSON.stringify(s));
    assert.throws(() => randomizeAnswer(s, 0, noWords), Error, JSON.stringify(s));
  }
  for (const truth of [-1, 3, 1.5, "1", null, undefined, NaN, true]) {
    assert.throws(() => randomizeAnswer({ kind: "direct", k: 3 }, truth, noWords), /answer must be an integer/);
  }
});

test("a number sent as given (ldp.DirectNumber: direct over steps + 1 grid indexes) is its exact grid index", () => {
  // Age 18 to 99 by 1 (k = 82), and the largest grid, 10^6 steps: every index as given, no word drawn.
  for (const k of [82, 1000001]) {
    const sampler = { kind: "direct", k };
    assert.equal(validateSampler(sampler), sampler);
    for (const truth of [0, 1, Math.floor(k / 2), k - 1]) assert.equal(randomizeAnswer(sampler, truth, noWords), truth);
    assert.throws(() => randomizeAnswer(sampler, k, noWords), /answer must be an integer/); // hi + step: off the grid
  }
});

// ---- validation -----------------------------------------------------------

test("validateSampler accepts good samplers", () => {
  const g = { kind: "grr", k: 3, modulus: 7, keep: 3, other: 2 };
  const u = { kind: "unary", k: 3, modulus: 5, one_if_true: 3, one_if_false: 1 };
  assert.equal(validateSampler(g), g);
  assert.equal(validateSampler(u), u);
  validateSampler({ kind: "grr", k: 2, modulus: TWO_32, keep: 3000000000, other: TWO_32 - 3000000000 });
});

test("validateSampler and randomizeAnswer reject bad samplers", () => {
  const g = { kind: "grr", k: 3, modulus: 7, keep: 3, other: 2 };
  const u = { kind: "unary", k: 3, modulus: 5, one_if_true: 3, one_if_false: 1 };
  const bad = [
    null,
    undefined,
    42,
    "grr",
    { ...g, kind: "oue" },
    { ...g, kind: undefined },
    { ...g, k: 1, modulus: 3 },
    { ...g, k: 2.5 },
    { ...g, k: "3" },
    { ...g, modulus: 8 },                     // M != A + (K-1) B
    { ...g, keep: 2, other: 2, modulus: 6 },  // B not < A
    { ...g, other: 0, modulus: 3 },           // B < 1
    { ...g, keep: undefined },
    { ...g, keep: 3.5, modulus: 7.5 },
    { kind: "grr", k: 2, modulus: TWO_32 + 2, keep: TWO_32, other: 2 }, // > 2^32
    { ...u, k: 1 },
    { ...u, one_if_false: 0 },
    { ...u, one_if_false: 3 },                // A0 not < A1
    { ...u, one_if_true: 5 },                 // A1 not < M
    { ...u, modulus: undefined },
    { ...u, one_if_true: NaN },
    { ...u, modulus: TWO_32 + 1 },
  ];
  for (const s of bad) {
    assert.throws(() => validateSampler(s), Error, JSON.stringify(s));
    assert.throws(() => randomizeAnswer(s, 0, constant(0)), Error, JSON.stringify(s));
  }
});

test("randomizeAnswer rejects bad answers and word sources", () => {
  const g = { kind: "grr", k: 3, modulus: 7, keep: 3, other: 2 };
  const u = { kind: "unary", k: 3, modulus: 5, one_if_true: 3, one_if_false: 1 };
  for (const s of [g, u]) {
    for (const truth of [-1, 3, 1.5, "1", null, undefined, NaN, true]) {
      assert.throws(() => randomizeAnswer(s, truth, constant(0)), /answer must be an integer/);
    }
    assert.throws(() => randomizeAnswer(s, 0, undefined), /nextWord/);
  }
});

// ---- guards ---------------------------------------------------------------

test("module source has no Math.random and no CommonJS", () => {
  const src = readFileSync(new URL("../../static/js/randomizer.js", import.meta.url), "utf8");
  assert.ok(!src.includes("Math.random"), "Math.random must not be used");
  assert.ok(!/\brequire\s*\(|module\.exports|\bexports\./.test(src), "must be a pure ES module");
  assert.ok(/^export function randomizeAnswer\b/m.test(src));
});

// ==== multi-select, 1-bit mean, discrete Laplace (issue 13) ===================

const FIXTURE = JSON.parse(readFileSync(new URL("./fixtures/samplers.json", import.meta.url), "utf8"));

/** A deterministic word stream (xoshiro128** seeded by splitmix32): uint32 words, reproducible per seed. */
function seededWords(seed) {
  let x = seed >>> 0;
  const split = () => {
    x = (x + 0x9e3779b9) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  const s = [split(), split(), split(), split()];
  return () => {
    const result = Math.imul(((Math.imul(s[1], 5) << 7) | (Math.imul(s[1], 5) >>> 25)), 9) >>> 0;
    const t = (s[1] << 9) >>> 0;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t;
    s[3] = ((s[3] << 11) | (s[3] >>> 21)) >>> 0;
    s[0] >>>= 0; s[1] >>>= 0; s[2] >>>= 0;
    return result;
  };
}

/** Every tuple of `length` values below `m` (for exhaustive enumeration of the uniforms). */
function* tuples(m, length) {
  const total = m ** length;
  for (let code = 0; code < total; code++) {
    const out = [];
    for (let i = 0, c = code; i < length; i++, c = Math.floor(c / m)) out.push(c % m);
    yield out;
  }
}

const reportValue = (report) => (Array.isArray(report) ? report.reduce((v, bit, j) => v + bit * 2 ** j, 0) : report);

// ---- multiselect ----------------------------------------------------------------

test("multiselect keeps bit j when U_j < keep, flips it otherwise, one word per bit in order", () => {
  const s = { kind: "multiselect", k: 4, at_most: null, modulus: 10, keep: 7 };
  const next = feed([0, 6, 7, 9, 3, 8, 2, 7]);
  assert.deepEqual(randomizeAnswer(s, [1, 0, 1, 0], next), [1, 0, 0, 1]);
  assert.deepEqual(randomizeAnswer(s, [0, 0, 0, 0], next), [0, 1, 0, 1]);
  assert.equal(next.used(), 8);
});

test("multiselect: exhaustive counts over every tuple of U equal keep^agree (M - keep)^flipped", () => {
  const s = { kind: "multiselect", k: 3, at_most: 2, modulus: 7, keep: 5 };
  for (const truth of [[0, 0, 0], [1, 0, 0], [0, 1, 1], [1, 0, 1]]) {
    const counts = new Map();
    for (const words of tuples(7, 3)) {
      const next = feed(words);
      const value = reportValue(randomizeAnswer(s, truth, next));
      assert.equal(next.used(), 3);
      counts.set(value, (counts.get(value) || 0) + 1);
    }
    for (let pattern = 0; pattern < 8; pattern++) {
      let flipped = 0;
      for (let j = 0; j < 3; j++) flipped += ((pattern >> j) & 1) !== truth[j] ? 1 : 0;
      assert.equal(counts.get(pattern) || 0, 5 ** (3 - flipped) * 2 ** flipped, `truth ${truth} pattern ${pattern}`);
    }
  }
});

test("multiselect refuses an answer with more than at_most ticks, and anything but k bits", () => {
  const s = { kind: "multiselect", k: 4, at_most: 2, modulus: 2 ** 32, keep: 3 * 2 ** 30 };
  assert.throws(() => randomizeAnswer(s, [1, 1, 1, 0], constant(0)), /more than the 2 allowed/);
  assert.equal(randomizeAnswer(s, [1, 1, 0, 0], constant(0)).length, 4);
  for (const bad of [[1, 0, 0], [1, 0, 0, 0, 0], [2, 0, 0, 0], [true, 0, 0, 0], [0.5, 0, 0, 0], 3, null, "1010"]) {
    assert.throws(() => randomizeAnswer(s, bad, constant(0)), /list of 4 bits/, JSON.stringify(bad));
  }
  const any = { ...s, at_most: null };
  assert.equal(randomizeAnswer(any, [1, 1, 1, 1], constant(0)).length, 4);
});

// ---- onebit ---------------------------------------------------------------------

test("onebit: exhaustive counts over every (U1, U2) equal i keep + (N - i)(M - keep) for report 1", () => {
  const s = { kind: "onebit", steps: 5, modulus: 10, keep: 7, lo: "0", hi: "5", step: "1" };
  for (let i = 0; i <= 5; i++) {
    let ones = 0;
    for (let u1 = 0; u1 < 5; u1++) {
      for (let u2 = 0; u2 < 10; u2++) {
        const next = feed([u1, u2]);
        ones += randomizeAnswer(s, i, next);
        assert.equal(next.used(), 2, "U1 then U2: two uniforms per answer");
      }
    }
    assert.equal(ones, i * 7 + (5 - i) * 3, `truth ${i}`);
  }
});

test("onebit rounds up exactly when U1 < i: the ends never round away", () => {
  const s = { kind: "onebit", steps: 4, modulus: 2 ** 32, keep: 2 ** 32 - 1, lo: "0", hi: "1", step: "0.25" };
  for (let u1 = 0; u1 < 4; u1++) {
    assert.equal(randomizeAnswer(s, 0, feed([u1, 0])), 0);
    assert.equal(randomizeAnswer(s, 4, feed([u1, 0])), 1);
    assert.equal(randomizeAnswer(s, 2, feed([u1, 0])), u1 < 2 ? 1 : 0);
    assert.equal(randomizeAnswer(s, 2, feed([u1, 2 ** 32 - 1])), u1 < 2 ? 0 : 1); // the flip
  }
  for (const bad of [-1, 5, 1.5, "2", null, true]) {
    assert.throws(() => randomizeAnswer(s, bad, constant(0)), /grid index in \[0, 4\]/);
  }
});

// ---- discrete Laplace -------------------------------------------------------------

/** Every sequence of uniform outcomes a function can ask for, with its probability, down to `threshold`:
 * the exact law of the function's result, up to `unresolved`, the mass of the sequences cut off. */
function enumerateUniforms(fn, threshold) {
  const STOP = Symbol("stop");
  const results = new Map();
  let unresolved = 0;
  const stack = [[[], 1]];
  while (stack.length) {
    const [prefix, probability] = stack.pop();
    let i = 0;
    let branch = 0;
    const uniform = (m) => {
      if (i < prefix.length) return prefix[i++];
      branch = m;
      throw STOP;
    };
    let outcome;
    try {
      outcome = fn(uniform);
    } catch (error) {
      if (error !== STOP) throw error;
      if (probability / branch < threshold) unresolved += probability;
      else for (let v = 0; v < branch; v++) stack.push([[...prefix, v], probability / branch]);
      continue;
    }
    results.set(outcome, (results.get(outcome) || 0) + probability);
  }
  return { results, unresolved };
}

test("bernoulliExp(num, den) is exactly Bernoulli(exp(-num / den))", () => {
  for (const [num, den] of [[0, 1], [1, 1], [1, 2], [2, 3], [3, 7], [5, 5], [0, 9]]) {
    const { results, unresolved } = enumerateUniforms((u) => bernoulliExp(num, den, u), 1e-12);
    const p = results.get(true) || 0;
    const exact = Math.exp(-num / den);
    assert.ok(unresolved < 1e-6, `${num}/${den}: ${unresolved} unresolved`);
    assert.ok(p - 1e-12 <= exact && exact <= p + unresolved + 1e-12, `${num}/${den}: ${p} vs ${exact}`);
  }
});

test("one attempt of the discrete Laplace sampler has the two-sided geometric law once accepted", () => {
  for (const [t, s] of [[1, 1], [2, 1], [3, 2], [1, 3]]) {
    const { results, unresolved } = enumerateUniforms((u) => discreteLaplaceAttempt(t, s, u), 1e-9);
    const rejected = results.get(null) || 0;
    const a = Math.exp(-s / t);
    assert.ok(unresolved < 1e-3, `t=${t} s=${s}: ${unresolved} unresolved`);
    for (let z = -6; z <= 6; z++) {
      const found = results.get(z) || 0;
      const pmf = ((1 - a) / (1 + a)) * a ** Math.abs(z);
      // P(z | accepted) lies between found / (1 - rejected) and (found + U) / (1 - rejected - U).
      const low = found / (1 - rejected);
      const high = (found + unresolved) / (1 - rejected - unresolved);
      assert.ok(low - 1e-12 <= pmf && pmf <= high + 1e-12, `t=${t} s=${s} z=${z}: ${low}..${high} vs ${pmf}`);
    }
  }
});

test("discrete Laplace known answers: a rejected attempt (sign - with Y = 0) restarts", () => {
  // t = s = 1: U = 0 (one word), D = 1 (no word), V: Bernoulli(e^-1) draws uniform(2) at K = 2: odd word stops -> V = 0.
  let next = feed([7, 1, 0]);
  assert.equal(discreteLaplace(1, 1, (m) => uniformBelow(m, next)), 0);
  assert.equal(next.used(), 3);
  next = feed([7, 1, 1, 7, 1, 0]); // first attempt: sign word 1 with Y = 0 -> rejected
  assert.equal(discreteLaplace(1, 1, (m) => uniformBelow(m, next)), 0);
  assert.equal(next.used(), 6);
  // V = 1: K = 2 even word continues, K = 3 word % 3 = 1 stops at odd K -> success; then K = 2 odd word -> V stops.
  next = feed([7, 0, 1, 1, 1]);
  assert.equal(discreteLaplace(1, 1, (m) => uniformBelow(m, next)), -1);
  assert.equal(next.used(), 5);
});

test("dlaplace reports are the truth plus noise, clamped to [-bound, steps + bound]", () => {
  const s = { kind: "dlaplace", steps: 10, scale_num: 1000, scale_den: 1, bound: 2, lo: "0", hi: "10", step: "1" };
  const next = seededWords(3);
  const seen = new Set();
  for (let i = 0; i < 2000; i++) {
    const r = randomizeAnswer(s, 5, next);
    assert.ok(Number.isSafeInteger(r) && r >= -2 && r <= 12, `${r}`);
    seen.add(r);
  }
  assert.ok(seen.has(-2) && seen.has(12), "the scale far exceeds the range, so both clamps are hit");
  for (const bad of [-1, 11, 2.5, "3"]) assert.throws(() => randomizeAnswer(s, bad, next), /grid index/);
});

// ---- the samplers against the Python specification ----------------------------------------------

for (const c of FIXTURE.cases) {
  test(`matches ldp's published distribution: ${c.name}`, () => {
    const next = seededWords(c.name.length * 7919 + c.draws);
    if (c.ones_between) {
      const ones = new Array(c.sampler.k).fill(0);
      for (let i = 0; i < c.draws; i++) randomizeAnswer(c.sampler, c.truth, next).forEach((b, j) => { ones[j] += b; });
      ones.forEach((count, j) => {
        const [low, high] = c.ones_between[j];
        assert.ok(low <= count && count <= high, `bit ${j}: ${count} ones, expected ${low}..${high}`);
      });
      return;
    }
    const counts = new Array(c.expected.length).fill(0);
    for (let i = 0; i < c.draws; i++) {
      const value = reportValue(randomizeAnswer(c.sampler, c.truth, next));
      let cell = 0;
      while (cell + 1 < c.edges.length - 1 && c.edges[cell + 1] <= value) cell++;
      assert.ok(c.edges[0] <= value && value < c.edges[c.edges.length - 1], `report ${value} out of range`);
      counts[cell]++;
    }
    // G = 2 sum O ln(O / E) is chi-square with cells - 1 degrees of freedom; the critical value is scipy's.
    let g = 0;
    counts.forEach((observed, j) => { if (observed) g += 2 * observed * Math.log(observed / (c.expected[j] * c.draws)); });
    assert.ok(g <= c.critical, `G = ${g.toFixed(2)} > ${c.critical.toFixed(2)} over ${counts.length} cells`);
  });
}

test("the G-test has power: a sampler that forgets to reject -0 fails it", () => {
  const c = FIXTURE.cases.find((x) => x.name === "dlaplace eps=6 scale 1/3");
  const next = seededWords(11);
  const uniform = (m) => uniformBelow(m, next);
  const counts = new Array(c.expected.length).fill(0);
  for (let i = 0; i < c.draws; i++) {
    const u = uniform(1); // t = 1, s = 3
    if (!bernoulliExp(u, 1, uniform)) { i--; continue; }
    let v = 0;
    while (bernoulliExp(1, 1, uniform)) v++;
    const y = Math.floor((u + v) / 3);
    const value = c.truth + (uniform(2) === 1 ? -y : y); // no rejection of B = 1, Y = 0
    let cell = 0;
    while (cell + 1 < c.edges.length - 1 && c.edges[cell + 1] <= value) cell++;
    counts[cell]++;
  }
  let g = 0;
  counts.forEach((observed, j) => { if (observed) g += 2 * observed * Math.log(observed / (c.expected[j] * c.draws)); });
  assert.ok(g > c.critical, `G = ${g}`);
});

// ---- validation and guards -----------------------------------------------------------------------

test("validateSampler accepts the published multi-select and grid samplers and refuses broken ones", () => {
  for (const c of FIXTURE.cases) assert.equal(validateSampler(c.sampler), c.sampler);
  const m = { kind: "multiselect", k: 4, at_most: null, modulus: 2 ** 32, keep: 3 * 2 ** 30 };
  const o = { kind: "onebit", steps: 10, modulus: 2 ** 32, keep: 3 * 2 ** 30, lo: "0", hi: "10", step: "1" };
  const d = { kind: "dlaplace", steps: 10, scale_num: 10, scale_den: 1, bound: 439, lo: "0", hi: "10", step: "1" };
  const bad = [
    { ...m, k: 1 }, { ...m, k: 65 }, { ...m, at_most: 0 }, { ...m, at_most: 4 }, { ...m, at_most: undefined },
    { ...m, at_most: 1.5 }, { ...m, keep: 2 ** 31 }, { ...m, keep: 2 ** 32 }, { ...m, modulus: 2 ** 32 + 1 },
    { ...o, steps: 0 }, { ...o, steps: 1000001 }, { ...o, steps: 2.5 }, { ...o, keep: 1 }, { ...o, modulus: undefined },
    { ...d, scale_num: 0 }, { ...d, scale_den: 0 }, { ...d, scale_den: 2 ** 32 + 1 }, { ...d, bound: -1 },
    { ...d, bound: 1.5 }, { ...d, steps: 0 }, { ...d, kind: "laplace" },
  ];
  for (const s of bad) {
    assert.throws(() => validateSampler(s), Error, JSON.stringify(s));
    assert.throws(() => randomizeAnswer(s, 0, constant(0)), Error, JSON.stringify(s));
  }
});

test("module source uses no Math at all: no floating-point helpers anywhere in sampling", () => {
  const src = readFileSync(new URL("../../static/js/randomizer.js", import.meta.url), "utf8");
  assert.ok(!/\bMath\./.test(src), "Math.* (random, log, exp, floor) must not be used");
  assert.ok(!/parseFloat|Number\.EPSILON|toFixed/.test(src));
});
