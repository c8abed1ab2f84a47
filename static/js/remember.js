// Remembered randomization across the waves of a series (RAPPOR's permanent and instantaneous layers; see
// docs/privacy.md). Pure ES module: storage and Web Crypto are passed in, no DOM, no network.
// A secret of this browser's own (32 random bytes in localStorage, never sent) seeds an HMAC-DRBG (NIST SP
// 800-90A, HMAC-SHA-256 via crypto.subtle) per series, question lineage, true answer and permanent sampler; its
// output words drive the exact integer sampler of the permanent layer (randomizer.js: rejection sampling, no
// floats), so the same secret and inputs always give the same permanent response, and a cleared storage a new,
// independent one. Each wave then randomizes that permanent response afresh with crypto.getRandomValues.
import { answeredKey as surveyKey, keyOf as pendingKey, sentKey } from "./pending.js";
import { randomizeAnswer, uniformBelow, validateSampler } from "./randomizer.js";

export const SECRET_KEY = "ldp-waves-secret";
const answeredKey = (series) => `ldp-waves-answered:${series}`;
const WORDS_FIRST = 64;
const WORDS_MAX = 4096; // 16 KiB, within SP 800-90A's 64 KiB per request
const exhausted = new Error("the DRBG's words ran out");

const concat = (parts) => {
  const arrays = parts.map((part) => (part instanceof Uint8Array ? part : Uint8Array.from(part)));
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return out;
};

async function hmac(subtle, key, parts) {
  const imported = await subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await subtle.sign("HMAC", imported, concat(parts)));
}

/** HMAC-DRBG with HMAC-SHA-256 (SP 800-90A 10.1.2.3), seed material given whole: the state {key, v}. */
export async function drbgInstantiate(seed, subtle = globalThis.crypto.subtle) {
  let key = new Uint8Array(32);
  let v = new Uint8Array(32).fill(1);
  key = await hmac(subtle, key, [v, [0], seed]); // Update(seed)
  v = await hmac(subtle, key, [v]);
  if (seed.length) {
    key = await hmac(subtle, key, [v, [1], seed]);
    v = await hmac(subtle, key, [v]);
  }
  return { key, v };
}

/** SP 800-90A 10.1.2.5 without additional input: `n` bytes, then Update() of the state. */
export async function drbgGenerate(state, n, subtle = globalThis.crypto.subtle) {
  const out = new Uint8Array(n);
  for (let filled = 0; filled < n; filled += 32) {
    state.v = await hmac(subtle, state.key, [state.v]);
    out.set(state.v.subarray(0, Math.min(32, n - filled)), filled);
  }
  state.key = await hmac(subtle, state.key, [state.v, [0]]);
  state.v = await hmac(subtle, state.key, [state.v]);
  return out;
}

/** Instantiated from entropy || personalization (no nonce), one generate of `n` bytes. */
export async function hmacDrbg(entropy, personalization, n, subtle = globalThis.crypto.subtle) {
  return drbgGenerate(await drbgInstantiate(concat([entropy, personalization]), subtle), n, subtle);
}

/** Big-endian uint32 words of the bytes (a multiple of 4). */
export function wordsOf(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: bytes.byteLength / 4 }, (_, i) => view.getUint32(4 * i, false));
}

/** What the DRBG is personalized with: the series, the question's lineage, the true answer and the permanent
 * layer's integers (a changed permanent layer starts afresh). */
export function personalization(series, lineage, value, sampler) {
  const integers = Object.keys(sampler).sort().map((name) => `${name}=${sampler[name]}`).join(",");
  return new TextEncoder().encode(`ldp-waves/1|series=${series}|question=${lineage}|value=${value}|permanent=${integers}`);
}

/**
 * The permanent randomized response to `value`: the permanent sampler driven by the DRBG's words. Rejection
 * sampling may ask for more words than were made: then twice as many are made from the start (the first ones
 * are the same), so the result depends on the inputs alone.
 */
export async function permanentResponse(secret, series, lineage, value, sampler, subtle = globalThis.crypto.subtle) {
  validateSampler(sampler);
  const seed = personalization(series, lineage, value, sampler);
  for (let count = WORDS_FIRST; ; count *= 2) {
    const words = wordsOf(await hmacDrbg(secret, seed, 4 * count, subtle));
    let next = 0;
    const nextWord = () => {
      if (next >= words.length) throw exhausted;
      return words[next++];
    };
    try {
      return randomizeAnswer(sampler, value, nextWord);
    } catch (error) {
      if (error !== exhausted || count >= WORDS_MAX) throw error;
    }
  }
}

/** This wave's report: the instantaneous layer applied to the permanent response (an index; bits one by one). */
export function instantly(sampler, permanent, nextWord) {
  validateSampler(sampler);
  if (sampler.kind === "grr") return randomizeAnswer(sampler, permanent, nextWord);
  if (sampler.kind !== "unary") throw new Error(`a ${sampler.kind} sampler does not remember`);
  if (!Array.isArray(permanent) || permanent.length !== sampler.k) throw new Error("a permanent response of k bits");
  const threshold = (bit) => (bit === 1 ? sampler.one_if_true : sampler.one_if_false);
  return permanent.map((bit) => (uniformBelow(sampler.modulus, nextWord) < threshold(bit) ? 1 : 0));
}

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
const fromHex = (text) => Uint8Array.from(text.match(/../g), (pair) => parseInt(pair, 16));

/** The browser's secret (32 bytes), made with `getRandomValues` and kept in `storage` the first time. */
export function secretOf(storage, getRandomValues) {
  const kept = storage.getItem(SECRET_KEY);
  if (kept && /^[0-9a-f]{64}$/.test(kept)) return fromHex(kept);
  const made = new Uint8Array(32);
  getRandomValues(made);
  storage.setItem(SECRET_KEY, hex(made));
  return made;
}

/** Whether this browser answered a wave of `series` before `wave` (it keeps the numbers, nothing else). */
export function answeredEarlier(storage, series, wave) {
  return waves(storage, series).some((earlier) => earlier < wave);
}

/**
 * Which of `others` ({wave, slug, version}: the series' other waves) this browser answered, by what it keeps: the
 * wave's number (answered as a wave of `series`), the survey's marks (answered, also before the survey became a wave
 * of a series: by any link, or by its open link as browsers kept it before the first mark), or a payload of it kept
 * unconfirmed (the server may have it all the same).
 */
export function answeredWaves(storage, series, others) {
  const numbers = waves(storage, series);
  const marked = (slug) => storage.getItem(surveyKey(slug)) === "1" || storage.getItem(sentKey(slug)) === "1";
  return others.filter((other) => numbers.includes(other.wave) || marked(other.slug)
    || storage.getItem(pendingKey(other.slug, other.version)) !== null);
}

export function markAnswered(storage, series, wave) {
  const kept = waves(storage, series);
  if (!kept.includes(wave)) storage.setItem(answeredKey(series), JSON.stringify([...kept, wave]));
}

function waves(storage, series) {
  try {
    const kept = JSON.parse(storage.getItem(answeredKey(series)) || "[]");
    return Array.isArray(kept) ? kept.filter(Number.isSafeInteger) : [];
  } catch {
    return [];
  }
}
