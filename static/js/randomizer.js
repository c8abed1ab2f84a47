// Exact client-side randomizers for local differential privacy (see docs/privacy.md).
// Pure ES module: no DOM, no network, no non-crypto PRNG, no floating point in sampling.
// Every quantity is an integer <= 2^32, so plain Numbers hold them exactly.

const TWO_32 = 2 ** 32;
const BATCH = 64;

/**
 * Turn a getRandomValues-like function into nextWord() -> uint32.
 * Words are fetched BATCH (64) at a time with getRandomValues(new Uint32Array(64))
 * and handed out in array order, so a fake source that fills arrays from a list
 * yields exactly that list, in order.
 */
export function wordSource(getRandomValues) {
  if (typeof getRandomValues !== "function") {
    throw new Error("wordSource needs a getRandomValues function");
  }
  let buffer = new Uint32Array(0);
  let next = 0;
  return function nextWord() {
    if (next >= buffer.length) {
      buffer = new Uint32Array(BATCH);
      getRandomValues(buffer);
      next = 0;
    }
    return buffer[next++];
  };
}

/** nextWord() backed by Web Crypto: wordSource(crypto.getRandomValues.bind(crypto)). */
export function cryptoSource(cryptoObj = globalThis.crypto) {
  if (!cryptoObj || typeof cryptoObj.getRandomValues !== "function") {
    throw new Error(
      "Web Crypto (crypto.getRandomValues) is not available; answers cannot be randomized safely"
    );
  }
  return wordSource(cryptoObj.getRandomValues.bind(cryptoObj));
}

const isInt = (x) => Number.isSafeInteger(x);

/**
 * Uniform integer U in [0, m), 1 <= m <= 2^32, by rejection:
 * limit = m * floor(2^32 / m) = 2^32 - (2^32 mod m); draw w until w < limit; U = w mod m.
 */
export function uniformBelow(m, nextWord) {
  if (!isInt(m) || m < 1 || m > TWO_32) {
    throw new Error(`uniformBelow: modulus must be an integer in [1, 2^32], got ${m}`);
  }
  const limit = TWO_32 - (TWO_32 % m);
  for (;;) {
    const w = nextWord();
    if (!isInt(w) || w < 0 || w >= TWO_32) {
      throw new Error(`uniformBelow: word source returned a non-uint32 value: ${w}`);
    }
    if (w < limit) return w % m;
  }
}

/**
 * Check a sampler; throws Error describing the first problem. Returns the sampler.
 * grr:    {kind, k >= 2, modulus M <= 2^32, keep A, other B} with 1 <= B < A, M = A + (k-1)*B.
 * unary:  {kind, k >= 2, modulus M <= 2^32, one_if_true A1, one_if_false A0} with 0 < A0 < A1 < M.
 * direct: {kind, k >= 2} and nothing else: a question that is not randomized (sent as given).
 */
export function validateSampler(sampler) {
  if (sampler === null || typeof sampler !== "object") throw new Error("sampler must be an object");
  const { kind, k, modulus: m } = sampler;
  const fields = kind === "grr" ? ["k", "modulus", "keep", "other"]
    : kind === "unary" ? ["k", "modulus", "one_if_true", "one_if_false"]
    : kind === "direct" ? ["k"] : null;
  if (!fields) throw new Error(`unknown sampler kind: ${JSON.stringify(kind)}`);
  for (const f of fields) {
    const v = sampler[f];
    if (!isInt(v) || v < 0 || v > TWO_32) {
      throw new Error(`${kind} sampler: ${f} must be an integer in [0, 2^32], got ${JSON.stringify(v)}`);
    }
  }
  if (k < 2) throw new Error(`${kind} sampler: k must be >= 2, got ${k}`);
  if (kind === "direct") {
    const extra = Object.keys(sampler).filter((f) => f !== "kind" && f !== "k");
    if (extra.length) throw new Error(`direct sampler: takes only kind and k, got ${extra.join(", ")}`);
  } else if (kind === "grr") {
    const { keep: a, other: b } = sampler;
    if (!(1 <= b && b < a)) throw new Error(`grr sampler: need 1 <= other < keep, got keep=${a} other=${b}`);
    if (m !== a + (k - 1) * b) throw new Error(`grr sampler: modulus ${m} != keep + (k-1)*other`);
  } else {
    const { one_if_true: a1, one_if_false: a0 } = sampler;
    if (!(0 < a0 && a0 < a1 && a1 < m)) {
      throw new Error(`unary sampler: need 0 < one_if_false < one_if_true < modulus, got ${a0}, ${a1}, ${m}`);
    }
  }
  return sampler;
}

/**
 * Randomize the true answer (integer in [0, k)).
 * grr:    U = uniformBelow(M); U < A -> truth; else j = (U - A) div B, report j < truth ? j : j + 1.
 * unary:  for i = 0..k-1 in order, U_i = uniformBelow(M); bit i = U_i < (i === truth ? A1 : A0).
 * direct: the identity: the truth itself, and no random word is drawn (not randomized).
 */
export function randomizeAnswer(sampler, truth, nextWord) {
  validateSampler(sampler);
  if (!isInt(truth) || truth < 0 || truth >= sampler.k) {
    throw new Error(`answer must be an integer in [0, ${sampler.k}), got ${JSON.stringify(truth)}`);
  }
  if (typeof nextWord !== "function") throw new Error("randomizeAnswer needs a nextWord function");
  if (sampler.kind === "direct") return truth; // sent as given
  const m = sampler.modulus;
  if (sampler.kind === "grr") {
    const { keep: a, other: b } = sampler;
    const u = uniformBelow(m, nextWord);
    if (u < a) return truth;
    const r = u - a;
    const j = (r - (r % b)) / b; // exact integer division
    return j < truth ? j : j + 1;
  }
  const bits = [];
  for (let i = 0; i < sampler.k; i++) {
    const threshold = i === truth ? sampler.one_if_true : sampler.one_if_false;
    bits.push(uniformBelow(m, nextWord) < threshold ? 1 : 0);
  }
  return bits;
}
