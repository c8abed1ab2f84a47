"""The fixture the JavaScript tests check static/js/remember.js against, computed here independently with the
standard library's hmac and hashlib: HMAC-DRBG (NIST SP 800-90A, HMAC-SHA-256) known answers, the permanent
responses they drive through the exact integer samplers (rejection sampling, as randomizer.js), and the composed
channel's loss of both layers (ldp.mechanisms.remembered) for history.js's composedLoss.

    python -m tests.ldp.js_waves_fixture        # rewrite tests/js/fixtures/waves.json

tests/ldp/test_js_waves_fixture.py fails when the file differs from what this builds.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
from pathlib import Path
from typing import Any

import ldp
from ldp.mechanisms.remembered import Remembered

PATH = Path(__file__).resolve().parents[1] / "js" / "fixtures" / "waves.json"
TWO_32 = 2**32


def _mac(key: bytes, data: bytes) -> bytes:
    return hmac.new(key, data, hashlib.sha256).digest()


def instantiate(seed: bytes) -> list[bytes]:
    """SP 800-90A 10.1.2.3 (seed material given whole): the state [Key, V] after Update(seed)."""
    key, v = b"\x00" * 32, b"\x01" * 32
    key = _mac(key, v + b"\x00" + seed)
    v = _mac(key, v)
    if seed:
        key = _mac(key, v + b"\x01" + seed)
        v = _mac(key, v)
    return [key, v]


def generate(state: list[bytes], n: int) -> bytes:
    """SP 800-90A 10.1.2.5 without additional input: n bytes, then Update() of the state."""
    key, v = state
    out = b""
    while len(out) < n:
        v = _mac(key, v)
        out += v
    key = _mac(key, v + b"\x00")
    state[:] = [key, _mac(key, v)]
    return out[:n]


def hmac_drbg(entropy: bytes, personalization: bytes, n: int) -> bytes:
    """Instantiate from entropy || personalization (no nonce), generate n bytes."""
    return generate(instantiate(entropy + personalization), n)


# NIST CAVP, HMAC_DRBG.rsp (no reseed), [SHA-256], PredictionResistance = False, COUNT = 0: instantiate from
# EntropyInput || Nonce, generate 128 bytes twice; the second is ReturnedBits.
NIST = {
    "seed": "ca851911349384bffe89de1cbdc46e6831e44d34a4fb935ee285dd14b71a7488" "659ba96c601dc69fc902940805ec0ca8",
    "bytes": 128,
    "returned": "e528e9abf2dece54d47c7e75e5fe302149f817ea9fb4bee6f4199697d04d5b89"
                "d54fbb978a15b5c443c9ec21036d2460b6f73ebad0dc2aba6e624abf07745bc1"
                "07694bb7547bb0995f70de25d6b29e2d3011bb19d27676c07162c8b5ccde0668"
                "961df86803482cb37ed6d5c0bb8d50cf1f50d476aa0458bdaba806f48be9dcb8",
}


def personalization(series: int, lineage: str, value: int, sampler: dict[str, Any]) -> bytes:
    integers = ",".join(f"{name}={sampler[name]}" for name in sorted(sampler))
    return f"ldp-waves/1|series={series}|question={lineage}|value={value}|permanent={integers}".encode()


def permanent_response(secret: bytes, series: int, lineage: str, value: int, sampler: dict[str, Any]) -> Any:
    """The permanent layer's sampler driven by the DRBG's big-endian words; twice the words from the start when
    rejection sampling runs out (64 words first)."""
    count = 64
    while True:
        stream = hmac_drbg(secret, personalization(series, lineage, value, sampler), 4 * count)
        words = iter(int.from_bytes(stream[i:i + 4], "big") for i in range(0, len(stream), 4))
        try:
            return _sample(sampler, value, words)
        except StopIteration:
            count *= 2


def _uniform(m: int, words: Any) -> int:
    limit = TWO_32 - TWO_32 % m
    while True:
        w = next(words)
        if w < limit:
            return w % m


def _sample(sampler: dict[str, Any], value: int, words: Any) -> Any:
    m = sampler["modulus"]
    if sampler["kind"] == "grr":
        u = _uniform(m, words)
        if u < sampler["keep"]:
            return value
        j = (u - sampler["keep"]) // sampler["other"]
        return j if j < value else j + 1
    return [int(_uniform(m, words) < (sampler["one_if_true"] if i == value else sampler["one_if_false"]))
            for i in range(sampler["k"])]


DRBG_CASES = [  # (entropy, personalization, bytes)
    (bytes(range(32)), b"", 32),
    (bytes(range(32)), b"ldp-waves/1|series=1|question=q|value=0|permanent=k=2", 100),
    (b"\xff" * 32, b"x" * 200, 256),
    (hashlib.sha256(b"secret").digest(), "é|ü".encode(), 7),
]
SECRETS = [bytes(range(32)), hashlib.sha256(b"another browser").digest()]
LINEAGE = "0b7c6a52-6a30-4d43-9b64-1f0e1c2d3e4f"


def layers() -> list[tuple[str, ldp.Mechanism, ldp.Mechanism]]:
    return [
        ("qrr 0.8 / 0.5", ldp.QRandomizedResponse("0.8"), ldp.QRandomizedResponse("0.5")),
        ("bitflip 2 / 1", ldp.BitFlip(2.0), ldp.BitFlip(1.0)),
        ("krr k=5 3 / 1", ldp.KaryRR(3.0, 5), ldp.KaryRR(1.0, 5)),
        ("krr k=3 0.5 / 4", ldp.KaryRR(0.5, 3), ldp.KaryRR(4.0, 3)),
        ("sue k=4 2 / 1", ldp.SymmetricUnary(2.0, 4), ldp.SymmetricUnary(1.0, 4)),
        ("oue k=3 1.5 / 1.5", ldp.OptimizedUnary(1.5, 3), ldp.OptimizedUnary(1.5, 3)),
        ("krr k=64 0.05 / 10", ldp.KaryRR(0.05, 64), ldp.KaryRR(10.0, 64)),  # a rare rejection's word counts
    ]


def build() -> dict[str, Any]:
    drbg = [{"entropy": e.hex(), "personalization": p.hex(), "bytes": n, "output": hmac_drbg(e, p, n).hex()}
            for e, p, n in DRBG_CASES]
    permanent, composed = [], []
    for name, first, second in layers():
        sampler = first.sampler()
        for secret in SECRETS:
            for value in range(min(first.k, 3)):
                permanent.append({"name": name, "secret": secret.hex(), "series": 7, "lineage": LINEAGE,
                                  "value": value, "sampler": sampler,
                                  "response": permanent_response(secret, 7, LINEAGE, value, sampler)})
        both = Remembered(first, second)
        composed.append({"name": name, "permanent": sampler, "instant": second.sampler(),
                         "wave_millis": math.ceil(both.wave_epsilon * 1000),
                         "all_waves_millis": math.ceil(both.all_waves_epsilon * 1000)})
    return {"nist": NIST, "drbg": drbg, "permanent": permanent, "composed": composed}


if __name__ == "__main__":
    PATH.write_text(json.dumps(build(), indent=1, sort_keys=True) + "\n")
