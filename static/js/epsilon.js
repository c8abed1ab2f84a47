// The privacy loss of the integers the browser will actually use, decided exactly (BigInt),
// never read from the server's words. Pure ES module: no DOM, no network.
//
// A sampler's loss is ln(num / den) + p / q with integers: ln(keep / other) for grr,
// ln(a1 (M - a0) / (a0 (M - a1))) for unary bits, d ln(keep / (M - keep)) for multi-select
// (d = the most bits two allowed answers differ in), ln(keep / (M - keep)) for the 1-bit mean,
// steps * scale_den / scale_num for discrete Laplace (as ldp.registry.sampler_epsilon). A direct
// question is not randomized: it has no loss to count and none is counted.
// "loss <= m / 1000" is decided by comparing num / den with e^(m / 1000 - p / q), bracketed by
// lower and upper bounds 2^-192 apart; a case inside the bracket counts as "above" (the side
// of more privacy), and a loss that is exactly rational (discrete Laplace) is compared exactly.

export const PER_QUESTION_MAX_MILLIS = 10000; // epsilon 10 per question, as ldp.EPSILON_MAX
const BITS = 192n;
const ONE = 1n << BITS;

const big = (x) => BigInt(x);

/** Most bits two multi-select answers differ in: k, or min(k, 2 at_most) (ldp.sampler_integers.hamming). */
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

/**
 * The loss of one wave of a remembered question: the instantaneous sampler applied to the permanent one's
 * response, composed exactly (both grr, or both unary, with the same k). grr: p = a1 a2 + (k-1) b1 b2 and
 * q_other = a1 b2 + b1 a2 + (k-2) b1 b2 over M1 M2, loss ln(p / q_other); unary, per bit: p = t1 t2 + (M1 - t1) f2,
 * q = f1 t2 + (M1 - f1) f2 over D = M1 M2, loss ln(p (D - q) / ((D - p) q)).
 */
export function composedLoss(permanent, instant) {
  if (permanent.kind !== instant.kind || permanent.k !== instant.k || !["grr", "unary"].includes(instant.kind)) {
    throw new Error("a remembered question takes two grr or two unary samplers with the same k");
  }
  const k = big(instant.k);
  if (instant.kind === "grr") {
    const [a1, b1, a2, b2] = [permanent.keep, permanent.other, instant.keep, instant.other].map(big);
    return { num: a1 * a2 + (k - 1n) * b1 * b2, den: a1 * b2 + b1 * a2 + (k - 2n) * b1 * b2, p: 0n, q: 1n };
  }
  const [m1, t1, f1] = [permanent.modulus, permanent.one_if_true, permanent.one_if_false].map(big);
  const [m2, t2, f2] = [instant.modulus, instant.one_if_true, instant.one_if_false].map(big);
  const d = m1 * m2;
  const p = t1 * t2 + (m1 - t1) * f2;
  const q = f1 * t2 + (m1 - f1) * f2;
  return { num: p * (d - q), den: (d - p) * q, p: 0n, q: 1n };
}

// Waves enumerated exactly up to these many per permanent layer (about 30 ms a question at most, measured in Node);
// beyond, the permanent layer's own loss, which bounds any number of them (every report is a randomization of the
// one permanent response).
const ENUMERATED_WAVES = { grr: 6, unary: 12 };

const larger = (a, b) => (b === null || a.num * b.den > b.num * a.den ? a : b);

/** The largest ratio over the report sequences of a grr group, for truths 0 and 1 (every pair alike by symmetry). */
function grrGroup(permanent, instants) {
  const [a1, b1, k] = [big(permanent.keep), big(permanent.other), permanent.k];
  const layers = instants.map((instant) => [big(instant.keep), big(instant.other)]);
  const y = [];
  let best = null;
  const weight = (b) => y.reduce((w, label, i) => w * (label === b ? layers[i][0] : layers[i][1]), 1n);
  const consider = (others) => {
    // Options that no report names weigh the same for both truths: other^n each.
    const unnamed = big(k - 2 - others) * weight(-1);
    let shared = unnamed;
    for (let b = 2; b < 2 + others; b++) shared += weight(b);
    const [t0, t1] = [weight(0), weight(1)];
    best = larger({ num: a1 * t0 + b1 * (t1 + shared), den: a1 * t1 + b1 * (t0 + shared) }, best);
  };
  // Reports as 0 (truth), 1 (the other truth), or others numbered in order of appearance: the ratio depends on
  // which reports are equal, not on which other option they name.
  const visit = (i, others) => {
    if (i === layers.length) return consider(others);
    for (let label = 0; label <= 2 + others && label < k; label++) {
      y[i] = label;
      visit(i + 1, label === 2 + others ? others + 1 : others);
    }
  };
  visit(0, 0);
  return best;
}

/** The same for a unary group: the bit the first truth sets and the bit the second sets, each at its largest. */
function unaryGroup(permanent, instants) {
  const [m1, t1, f1] = [permanent.modulus, permanent.one_if_true, permanent.one_if_false].map(big);
  const layers = instants.map((instant) => [instant.modulus, instant.one_if_true, instant.one_if_false].map(big));
  const n = layers.length;
  const bitRatio = (high, low) => { // max over a bit's reports of P(reports | bit high) / P(reports | bit low)
    let best = null;
    for (let mask = 0; mask < 2 ** n; mask++) {
      const given = (b) => layers.reduce((w, [m, t, f], i) => {
        const one = b === 1 ? t : f;
        return w * ((mask >> i) & 1 ? one : m - one);
      }, 1n);
      const [g1, g0] = [given(1), given(0)];
      const of = (truth) => (truth ? t1 * g1 + (m1 - t1) * g0 : f1 * g1 + (m1 - f1) * g0);
      best = larger({ num: of(high), den: of(low) }, best);
    }
    return best;
  };
  const [up, down] = [bitRatio(true, false), bitRatio(false, true)];
  return { num: up.num * down.num, den: up.den * down.den };
}

/**
 * The loss of the waves of one question that share a permanent layer (the browser keeps one permanent response per
 * answer and permanent sampler), each with its own instantaneous sampler, as long as the answer stays the same:
 * the largest ratio of the probability of all their reports together under one answer and another, enumerated
 * exactly (one wave: composedLoss). Past ENUMERATED_WAVES, the permanent layer's loss (an upper bound).
 */
export function rememberedLoss(permanent, instants) {
  for (const instant of instants) composedLoss(permanent, instant); // the same kind and k, or it throws
  if (instants.length > ENUMERATED_WAVES[permanent.kind]) return samplerLoss(permanent);
  const key = JSON.stringify([permanent, instants]); // questions alike are worked out once
  if (!enumerated.has(key)) {
    const { num, den } = (permanent.kind === "grr" ? grrGroup : unaryGroup)(permanent, instants);
    enumerated.set(key, { num, den, p: 0n, q: 1n });
  }
  return enumerated.get(key);
}

const enumerated = new Map();

const samplerKey = (sampler) => JSON.stringify(Object.keys(sampler).sort().map((name) => [name, sampler[name]]));

/**
 * What the waves a browser answered cost together, as long as its answers stay the same: `waves` is a list of
 * waves, each a list of questions {lineage, sampler, permanent} (permanent: the permanent layer's sampler, or null
 * when the wave randomizes the question afresh). Per question (lineage), a wave randomized afresh adds its loss; the
 * waves sharing a permanent layer add their loss together (rememberedLoss); questions add up.
 */
export function historyLoss(waves) {
  const losses = [];
  const groups = new Map();
  for (const wave of waves) {
    for (const { lineage, sampler, permanent } of wave) {
      if (!permanent) {
        const loss = samplerLoss(sampler);
        if (loss) losses.push(loss);
        continue;
      }
      const key = `${lineage}|${samplerKey(permanent)}`;
      if (!groups.has(key)) groups.set(key, { permanent, instants: [] });
      groups.get(key).instants.push(sampler);
    }
  }
  for (const { permanent, instants } of groups.values()) losses.push(rememberedLoss(permanent, instants));
  return totalLoss(losses);
}
