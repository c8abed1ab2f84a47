// The privacy loss of the integers the browser will actually use, decided exactly (BigInt),
// never read from the server's words. Pure ES module: no DOM, no network.
//
// A sampler's loss is ln(num / den) + p / q with integers: ln(keep / other) for grr,
// ln(a1 (M - a0) / (a0 (M - a1))) for unary bits, d ln(keep / (M - keep)) for multi-select
// (d = the most bits two allowed answers differ in), ln(keep / (M - keep)) for the 1-bit mean,
// steps * scale_den / scale_num for discrete Laplace (as ldp.mechanisms.registry.sampler_epsilon). A direct
// question is not randomized: it has no loss to count and none is counted.
// "loss <= m / 1000" is decided by comparing num / den with e^(m / 1000 - p / q), bracketed by
// lower and upper bounds 2^-192 apart; a case inside the bracket counts as "above" (the side
// of more privacy), and a loss that is exactly rational (discrete Laplace) is compared exactly.

export const PER_QUESTION_MAX_MILLIS = 10000; // epsilon 10 per question, as ldp.EPSILON_MAX
const BITS = 192n;
const ONE = 1n << BITS;

const big = (x) => BigInt(x);

/** Most bits two multi-select answers differ in: k, or min(k, 2 at_most) (ldp.mechanisms.sampling.hamming). */
export function hamming(k, atMost) {
  return atMost === null || atMost === undefined ? k : Math.min(k, 2 * atMost);
}

/** {num, den, p, q} (BigInt) with loss = ln(num / den) + p / q; null for a direct question. */
export function samplerLoss(sampler) {
  const { kind } = sampler;
  if (kind === "direct") return null;
  if (kind === "grr") return { num: big(sampler.keep), den: big(sampler.other), p: 0n, q: 1n };
  if (kind === "unary") {
    const [a1, a0, m] = [big(sampler.one_if_true), big(sampler.one_if_false), big(sampler.modulus)];
    return { num: a1 * (m - a0), den: a0 * (m - a1), p: 0n, q: 1n };
  }
  if (kind === "multiselect" || kind === "onebit") {
    const d = big(kind === "multiselect" ? hamming(sampler.k, sampler.at_most) : 1);
    const keep = big(sampler.keep);
    return { num: keep ** d, den: (big(sampler.modulus) - keep) ** d, p: 0n, q: 1n };
  }
  if (kind === "dlaplace") {
    return { num: 1n, den: 1n, p: big(sampler.steps) * big(sampler.scale_den), q: big(sampler.scale_num) };
  }
  throw new Error(`unknown sampler kind: ${JSON.stringify(kind)}`);
}

/** The loss of several samplers together (sequential composition: the sum). */
export function totalLoss(losses) {
  return losses.reduce((sum, x) => ({ num: sum.num * x.num, den: sum.den * x.den,
    p: sum.p * x.q + x.p * sum.q, q: sum.q * x.q }), { num: 1n, den: 1n, p: 0n, q: 1n });
}

const ceilDiv = (a, b) => -((-a) / b);

/** [lower, upper] bounds of e^(p / q) * 2^192 for 0 <= p / q, as BigInt. */
export function expBounds(p, q) {
  let halvings = 0n; // z = p / (q 2^h) <= 1/2: Taylor terms then shrink by half at least
  while (2n * p > (q << halvings)) halvings++;
  const d = q << halvings;
  let [termLo, termHi, lo, hi] = [ONE, ONE, ONE, ONE];
  for (let n = 1n; termHi > 0n; n++) {
    termLo = (termLo * p) / (d * n);
    termHi = ceilDiv(termHi * p, d * n);
    lo += termLo;
    hi += termHi;
    if (termHi <= 1n) break;
  }
  hi += 2n; // what the series leaves out after a term <= 1, with terms at least halving: < 2
  for (let i = 0n; i < halvings; i++) {
    lo = (lo * lo) >> BITS;
    hi = ceilDiv(hi * hi, ONE);
  }
  return [lo, hi];
}

/** Whether loss <= m / 1000, decided from the integers; uncertain cases count as above. */
export function lossAtMost(loss, millis) {
  const { num, den, p, q } = loss;
  const yNum = big(millis) * q - 1000n * p; // y = m / 1000 - p / q = yNum / (1000 q)
  const yDen = 1000n * q;
  if (num === den || yNum === 0n) return num <= den ? yNum >= 0n : false; // exactly: no e^y, or e^0 = 1
  if (num < den) throw new Error("a loss below zero is not a sampler's");
  if (yNum < 0n) return false; // e^y < 1 < num / den
  const [lower] = expBounds(yNum, yDen);
  return num * ONE <= den * lower;
}

function estimate(loss) {
  const ln = (x) => {
    const shift = Math.max(x.toString(2).length - 60, 0);
    return Math.log(Number(x >> big(shift))) + shift * Math.LN2;
  };
  return ln(loss.num) - ln(loss.den) + Number(loss.p) / Number(loss.q);
}

/** The loss rounded up to thousandths: the smallest m with loss <= m / 1000. */
export function millisUp(loss) {
  let m = Math.max(Math.ceil(estimate(loss) * 1000), 0);
  while (m > 0 && lossAtMost(loss, m - 1)) m--;
  while (!lossAtMost(loss, m)) m++;
  return m;
}

/** m / 1000 as text with three decimals: 1099 -> "1.099". */
export function millisText(m) {
  return `${Math.floor(m / 1000)}.${String(m % 1000).padStart(3, "0")}`;
}

/**
 * m / 1000 with three decimals and the page's decimal separator (`separator`, "," in Spanish, French
 * and Arabic as the server writes its figures): millisText's digits, only the separator changes.
 */
export function localMillisText(m, separator = ".") {
  return millisText(m).replace(".", separator);
}

/** A stated epsilon (a float) as the page states it: rounded up to thousandths. */
export function statedMillis(epsilon) {
  return Math.ceil(epsilon * 1000);
}

/**
 * Check a survey's samplers against its stated total: {millis} (the total, rounded up), or
 * {problem: "question", index, millis} (a question above 10) or {problem: "total", millis, stated}.
 * `index` is the position in `samplers`; direct samplers count for nothing.
 */
export function checkSurvey(samplers, statedEpsilon) {
  const losses = [];
  for (const [index, sampler] of samplers.entries()) {
    const loss = samplerLoss(sampler);
    if (loss === null) continue;
    if (!lossAtMost(loss, PER_QUESTION_MAX_MILLIS)) {
      const millis = Math.max(Math.ceil(estimate(loss) * 1000), PER_QUESTION_MAX_MILLIS + 1); // above 10 anyway
      return { problem: "question", index, millis };
    }
    losses.push(loss);
  }
  const total = totalLoss(losses);
  const stated = statedMillis(statedEpsilon);
  const millis = millisUp(total);
  if (!(Number.isFinite(statedEpsilon) && millis <= stated)) return { problem: "total", millis, stated };
  return { millis };
}
