import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { webcrypto } from "node:crypto";
import {
  SECRET_KEY,
  answeredEarlier,
  drbgGenerate,
  drbgInstantiate,
  hmacDrbg,
  instantly,
  markAnswered,
  permanentResponse,
  secretOf,
} from "../../static/js/remember.js";
import { millisUp, samplerLoss } from "../../static/js/epsilon.js";
import { composedLoss } from "../../static/js/history.js";
import { wordSource } from "../../static/js/randomizer.js";

// Written by tests/ldp/js_waves_fixture.py with Python's hmac and hashlib (and ldp.waves for the losses).
const fixture = JSON.parse(readFileSync(new URL("./fixtures/waves.json", import.meta.url)));
const bytes = (hex) => Uint8Array.from(hex.match(/../g) || [], (pair) => parseInt(pair, 16));
const hex = (array) => Array.from(array, (b) => b.toString(16).padStart(2, "0")).join("");
const subtle = webcrypto.subtle;

class Storage {
  constructor() { this.items = new Map(); }
  getItem(key) { return this.items.has(key) ? this.items.get(key) : null; }
  setItem(key, value) { this.items.set(key, String(value)); }
  clear() { this.items.clear(); }
}

const random = (array) => webcrypto.getRandomValues(array);

test("the DRBG gives NIST's known answer (CAVP HMAC_DRBG SHA-256, no reseed, count 0: the second generate)", async () => {
  const state = await drbgInstantiate(bytes(fixture.nist.seed), subtle);
  await drbgGenerate(state, fixture.nist.bytes, subtle);
  assert.equal(hex(await drbgGenerate(state, fixture.nist.bytes, subtle)), fixture.nist.returned);
});

test("the DRBG gives the outputs Python's hmac and hashlib compute", async () => {
  assert.ok(fixture.drbg.length >= 4);
  for (const c of fixture.drbg) {
    assert.equal(hex(await hmacDrbg(bytes(c.entropy), bytes(c.personalization), c.bytes, subtle)), c.output);
  }
});

test("permanent responses are the ones Python derives from the same secret and inputs", async () => {
  assert.ok(fixture.permanent.length >= 30);
  for (const c of fixture.permanent) {
    const got = await permanentResponse(bytes(c.secret), c.series, c.lineage, c.value, c.sampler, subtle);
    assert.deepEqual(got, c.response, `${c.name}, value ${c.value}`);
  }
});

test("the same secret and inputs give the same permanent response; another secret an independent one", async () => {
  const sampler = fixture.composed.find((c) => c.name.startsWith("krr k=5")).permanent; // keeps the truth ~ 5/9
  const storage = new Storage();
  const secret = secretOf(storage, random);
  assert.deepEqual(secretOf(storage, random), secret); // kept
  assert.match(storage.getItem(SECRET_KEY), /^[0-9a-f]{64}$/);
  const responses = async (key, count) => Promise.all(Array.from({ length: count },
    (_, i) => permanentResponse(key, 3, `question-${i}`, 2, sampler, subtle)));
  const first = await responses(secret, 200);
  assert.deepEqual(await responses(secretOf(storage, random), 200), first);
  storage.clear(); // a cleared storage: a new secret, so new responses
  const fresh = secretOf(storage, random);
  assert.notDeepEqual(fresh, secret);
  const second = await responses(fresh, 200);
  // Independent: the two agree as often as two independent draws do. P(agree) = p^2 + (k - 1) q^2 with the
  // permanent layer's p and q; over 200 questions, within 5 standard errors.
  const [p, q] = [sampler.keep / sampler.modulus, sampler.other / sampler.modulus];
  const agree = p * p + (sampler.k - 1) * q * q;
  const observed = first.filter((x, i) => x === second[i]).length;
  const se = Math.sqrt(200 * agree * (1 - agree));
  assert.ok(Math.abs(observed - 200 * agree) < 5 * se, `${observed} agreements, expected ${200 * agree}`);
  assert.ok(observed < 200);
});

test("a different answer, question or series draws its own permanent response", async () => {
  const sampler = { kind: "grr", k: 2, modulus: 3, keep: 2, other: 1 }; // 64 draws agree by chance: (5/9)^64
  const secret = bytes("00".repeat(32));
  const draws = async (make) => Promise.all(Array.from({ length: 64 }, (_, i) => make(i)));
  const base = await draws((i) => permanentResponse(secret, 1, `q${i}`, 0, sampler, subtle));
  for (const other of [(i) => permanentResponse(secret, 2, `q${i}`, 0, sampler, subtle),
    (i) => permanentResponse(secret, 1, `r${i}`, 0, sampler, subtle)]) {
    const got = await draws(other);
    assert.ok(got.some((x, i) => x !== base[i]));
  }
  // Another answer: its response is no function of the first's (here: it keeps 1 where the first kept 0).
  const changed = await draws((i) => permanentResponse(secret, 1, `q${i}`, 1, sampler, subtle));
  assert.ok(changed.some((x, i) => x === 1 && base[i] === 0) && changed.some((x, i) => x === 0 && base[i] === 1));
});

test("the instantaneous layer randomizes the permanent response afresh (grr: an index; unary: bit by bit)", () => {
  const grr = { kind: "grr", k: 3, modulus: 4, keep: 2, other: 1 };
  const next = (words) => wordSource((array) => array.set(words.concat(Array(64 - words.length).fill(0))));
  assert.equal(instantly(grr, 2, next([0])), 2); // U = 0 < keep: the permanent response
  assert.equal(instantly(grr, 2, next([2])), 0); // U = 2: the first other option
  const unary = { kind: "unary", k: 3, modulus: 10, one_if_true: 7, one_if_false: 2 };
  // bits [1, 0, 1] with U = 6, 1, 7: 6 < 7 -> 1; 1 < 2 -> 1; 7 < 7 is false -> 0
  assert.deepEqual(instantly(unary, [1, 0, 1], next([6, 1, 7])), [1, 1, 0]);
  assert.throws(() => instantly({ kind: "direct", k: 2 }, 0, next([0])), /does not remember/);
});

test("composedLoss gives ldp.waves' figures for one wave, and the permanent sampler for all waves", () => {
  for (const c of fixture.composed) {
    assert.equal(millisUp(composedLoss(c.permanent, c.instant)), c.wave_millis, c.name);
    assert.equal(millisUp(samplerLoss(c.permanent)), c.all_waves_millis, c.name);
  }
  assert.throws(() => composedLoss(fixture.composed[0].permanent, fixture.composed[4].instant), /two grr/);
});

test("the browser remembers which waves it answered, and says only whether one came earlier", () => {
  const storage = new Storage();
  assert.equal(answeredEarlier(storage, 4, 1), false);
  markAnswered(storage, 4, 2);
  assert.equal(answeredEarlier(storage, 4, 2), false);
  assert.equal(answeredEarlier(storage, 4, 3), true);
  assert.equal(answeredEarlier(storage, 5, 3), false);
  storage.setItem("ldp-waves-answered:6", "not json");
  assert.equal(answeredEarlier(storage, 6, 9), false);
});
