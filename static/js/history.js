// The privacy loss of the waves of a series a browser answered, decided exactly from the integers (epsilon.js's
// BigInt losses): one wave of a remembered question (its two layers composed), the waves sharing a permanent layer
// (enumerated), a browser's whole history. Pure ES module: no DOM, no network. Only a wave's page loads it (waves.js).
import { samplerLoss, totalLoss } from "./epsilon.js";

const big = (x) => BigInt(x);

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
