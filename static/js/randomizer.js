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

const STEPS_MAX = 1000000;
const K_MAX = 64;
const FIELDS = {
  grr: ["k", "modulus", "keep", "other"],
  unary: ["k", "modulus", "one_if_true", "one_if_false"],
  direct: ["k"],
  multiselect: ["k", "modulus", "keep"],
  onebit: ["steps", "modulus", "keep"],
  dlaplace: ["steps", "scale_num", "scale_den", "bound"],
};

/**
 * Check a sampler; throws Error describing the first problem. Returns the sampler.
 * grr:    {kind, k >= 2, modulus M <= 2^32, keep A, other B} with 1 <= B < A, M = A + (k-1)*B.
 * unary:  {kind, k >= 2, modulus M <= 2^32, one_if_true A1, one_if_false A0} with 0 < A0 < A1 < M.
 * direct: {kind, k >= 2} and nothing else: a question that is not randomized (sent as given).
 * multiselect: {kind, 2 <= k <= 64, at_most (null or 1 <= at_most < k), modulus M <= 2^32, keep} with M/2 < keep < M.
 * onebit: {kind, 1 <= steps <= 10^6, modulus M <= 2^32, keep} with M/2 < keep < M (lo, hi, step: display only).
 * dlaplace: {kind, 1 <= steps <= 10^6, 1 <= scale_num, scale_den <= 2^32, bound >= 0}.
 */
export function validateSampler(sampler) {
  if (sampler === null || typeof sampler !== "object") throw new Error("sampler must be an object");
  const { kind, k, modulus: m } = sampler;
  const fields = Object.hasOwn(FIELDS, kind) ? FIELDS[kind] : null;
  if (!fields) throw new Error(`unknown sampler kind: ${JSON.stringify(kind)}`);
  for (const f of fields) {
    const v = sampler[f];
    if (!isInt(v) || v < 0 || v > TWO_32) {
      throw new Error(`${kind} sampler: ${f} must be an integer in [0, 2^32], got ${JSON.stringify(v)}`);
    }
  }
  if (fields.includes("k") && k < 2) throw new Error(`${kind} sampler: k must be >= 2, got ${k}`);
  if (fields.includes("steps") && !(1 <= sampler.steps && sampler.steps <= STEPS_MAX)) {
    throw new Error(`${kind} sampler: steps must lie in [1, ${STEPS_MAX}], got ${sampler.steps}`);
  }
  if (fields.includes("keep") && kind !== "grr" && !(m < 2 * sampler.keep && sampler.keep < m)) {
    throw new Error(`${kind} sampler: need modulus / 2 < keep < modulus, got keep=${sampler.keep} modulus=${m}`);
  }
  if (kind === "direct") {
    const extra = Object.keys(sampler).filter((f) => f !== "kind" && f !== "k");
    if (extra.length) throw new Error(`direct sampler: takes only kind and k, got ${extra.join(", ")}`);
  } else if (kind === "grr") {
    const { keep: a, other: b } = sampler;
    if (!(1 <= b && b < a)) throw new Error(`grr sampler: need 1 <= other < keep, got keep=${a} other=${b}`);
    if (m !== a + (k - 1) * b) throw new Error(`grr sampler: modulus ${m} != keep + (k-1)*other`);
  } else if (kind === "unary") {
    const { one_if_true: a1, one_if_false: a0 } = sampler;
    if (!(0 < a0 && a0 < a1 && a1 < m)) {
      throw new Error(`unary sampler: need 0 < one_if_false < one_if_true < modulus, got ${a0}, ${a1}, ${m}`);
    }
  } else if (kind === "multiselect") {
    const atMost = sampler.at_most;
    if (k > K_MAX) throw new Error(`multiselect sampler: k must be <= ${K_MAX}, got ${k}`);
    if (atMost !== null && !(isInt(atMost) && 1 <= atMost && atMost < k)) {
      throw new Error(`multiselect sampler: at_most must be null or an integer in [1, k), got ${JSON.stringify(atMost)}`);
    }
  } else if (kind === "dlaplace") {
    const { scale_num: t, scale_den: s, steps, bound } = sampler;
    if (!(t >= 1 && s >= 1)) throw new Error(`dlaplace sampler: scale_num and scale_den must be >= 1, got ${t}, ${s}`);
    if (!isInt(steps + 2 * bound)) throw new Error("dlaplace sampler: steps + 2 * bound must be a safe integer");
  }
  return sampler;
}

/** Bernoulli(num / den) for integers 0 <= num, 1 <= den <= 2^32; no word is drawn when the answer is certain. */
function bernoulli(num, den, uniform) {
  if (num <= 0) return false;
  if (num >= den) return true;
  return uniform(den) < num;
}

/**
 * Bernoulli(exp(-num / den)) for integers 0 <= num <= den <= 2^32, exactly
 * (Canonne, Kamath & Steinke 2020, Algorithm 1): K = 1; while Bernoulli(gamma / K): K = K + 1; return K odd.
 * Bernoulli(gamma / K) is drawn as Bernoulli(num / den) and Bernoulli(1 / K) (independent; their product is
 * gamma / K), so every uniform is below at most 2^32 (K beyond 2^32 has probability below 1 / (2^32)!).
 * `uniform(m)` returns a uniform integer in [0, m). Exported for tests.
 */
export function bernoulliExp(num, den, uniform) {
  let k = 1;
  while (bernoulli(num, den, uniform) && (k === 1 || uniform(k) === 0)) k++;
  return k % 2 === 1;
}

/**
 * Z with P(Z = z) proportional to exp(-|z| s / t), exactly, for integers 1 <= t, s <= 2^32
 * (Canonne, Kamath & Steinke 2020, Algorithm 2): attempts (`discreteLaplaceAttempt`) until one is accepted.
 * |Z| is capped at `cap` (a safe integer), which changes nothing once the report is clamped. Exported for tests.
 */
export function discreteLaplace(t, s, uniform, cap = Number.MAX_SAFE_INTEGER) {
  for (;;) {
    const z = discreteLaplaceAttempt(t, s, uniform, cap);
    if (z !== null) return z;
  }
}

/**
 * One attempt of Algorithm 2, null when rejected: U uniform in [0, t), rejected unless Bernoulli(exp(-U / t));
 * V counts successes of Bernoulli(exp(-1)) before the first failure; X = U + t V is geometric with ratio
 * exp(-1 / t), Y = floor(X / s) geometric with ratio exp(-s / t); a fair sign B, rejecting B = 1 with Y = 0
 * (so that 0 is not counted twice). BigInt keeps U + t V exact whatever V. Exported for tests.
 */
export function discreteLaplaceAttempt(t, s, uniform, cap = Number.MAX_SAFE_INTEGER) {
  const u = uniform(t);
  if (!bernoulliExp(u, t, uniform)) return null;
  let v = 0;
  while (bernoulliExp(1, 1, uniform)) v++;
  let y = (BigInt(u) + BigInt(t) * BigInt(v)) / BigInt(s);
  const negative = uniform(2) === 1;
  if (negative && y === 0n) return null;
  if (y > BigInt(cap)) y = BigInt(cap);
  return negative ? -Number(y) : Number(y);
}

function checkGridIndex(sampler, truth) {
  if (!isInt(truth) || truth < 0 || truth > sampler.steps) {
    throw new Error(`answer must be an integer grid index in [0, ${sampler.steps}], got ${JSON.stringify(truth)}`);
  }
}

function checkBits(sampler, truth) {
  if (!Array.isArray(truth) || truth.length !== sampler.k || !truth.every((b) => b === 0 || b === 1)) {
    throw new Error(`answer must be a list of ${sampler.k} bits (0 or 1), got ${JSON.stringify(truth)}`);
  }
  const ones = truth.reduce((sum, b) => sum + b, 0);
  if (sampler.at_most !== null && ones > sampler.at_most) {
    throw new Error(`answer ticks ${ones} options, more than the ${sampler.at_most} allowed`);
  }
}

/**
 * Randomize the true answer: an option index in [0, k) (grr, unary, direct), a list of k bits
 * (multiselect), or a grid index in [0, steps] (onebit, dlaplace). One function for every kind.
 * grr:    U = uniformBelow(M); U < A -> truth; else j = (U - A) div B, report j < truth ? j : j + 1.
 * unary:  for i = 0..k-1 in order, U_i = uniformBelow(M); bit i = U_i < (i === truth ? A1 : A0).
 * direct: the identity: the truth itself, and no random word is drawn (not randomized).
 * multiselect: refuses more than at_most ones; for j = 0..k-1 in order, U_j = uniformBelow(M);
 *         bit j = U_j < keep ? truth[j] : 1 - truth[j]. Returns the k bits.
 * onebit: U1 = uniformBelow(steps); bit = U1 < truth; U2 = uniformBelow(M); U2 < keep ? bit : 1 - bit.
 * dlaplace: r = truth + discreteLaplace(scale_num, scale_den), clamped to [-bound, steps + bound].
 */
export function randomizeAnswer(sampler, truth, nextWord) {
  validateSampler(sampler);
  const { kind } = sampler;
  if (kind === "multiselect") checkBits(sampler, truth);
  else if (kind === "onebit" || kind === "dlaplace") checkGridIndex(sampler, truth);
  else if (!isInt(truth) || truth < 0 || truth >= sampler.k) {
    throw new Error(`answer must be an integer in [0, ${sampler.k}), got ${JSON.stringify(truth)}`);
  }
  if (typeof nextWord !== "function") throw new Error("randomizeAnswer needs a nextWord function");
  if (sampler.kind === "direct") return truth; // sent as given
  const m = sampler.modulus;
  const uniform = (modulus) => uniformBelow(modulus, nextWord);
  if (sampler.kind === "grr") {
    const { keep: a, other: b } = sampler;
    const u = uniformBelow(m, nextWord);
    if (u < a) return truth;
    const r = u - a;
    const j = (r - (r % b)) / b; // exact integer division
    return j < truth ? j : j + 1;
  }
  if (kind === "multiselect") return truth.map((bit) => (uniform(m) < sampler.keep ? bit : 1 - bit));
  if (kind === "onebit") {
    const bit = uniform(sampler.steps) < truth ? 1 : 0;
    return uniform(m) < sampler.keep ? bit : 1 - bit;
  }
  if (kind === "dlaplace") {
    const { steps, bound } = sampler;
    const r = truth + discreteLaplace(sampler.scale_num, sampler.scale_den, uniform, steps + bound + 1);
    return r < -bound ? -bound : r > steps + bound ? steps + bound : r;
  }
  const bits = [];
  for (let i = 0; i < sampler.k; i++) {
    const threshold = i === truth ? sampler.one_if_true : sampler.one_if_false;
    bits.push(uniformBelow(m, nextWord) < threshold ? 1 : 0);
  }
  return bits;
}
