"""The JavaScript tests' waves fixture is what this repository computes now (regenerate:
python -m tests.ldp.js_waves_fixture), and its HMAC-DRBG is the standard's (checked against an independent
statement of SP 800-90A's update and generate)."""

import hashlib
import hmac
import json

from tests.ldp.js_waves_fixture import NIST, PATH, build, generate, hmac_drbg, instantiate


def test_the_fixture_is_current():
    assert json.loads(PATH.read_text()) == build(), "run: python -m tests.ldp.js_waves_fixture"


def test_the_drbg_generates_as_the_standard_says():
    """Two generate calls' worth: one call of n bytes is the prefix of one call of 2n bytes (the V chain), and its
    first block is HMAC(K, V) after instantiation, written out here step by step."""
    entropy, personal = b"e" * 32, b"p"
    k = hmac.new(b"\x00" * 32, b"\x01" * 32 + b"\x00" + entropy + personal, hashlib.sha256).digest()
    v = hmac.new(k, b"\x01" * 32, hashlib.sha256).digest()
    k = hmac.new(k, v + b"\x01" + entropy + personal, hashlib.sha256).digest()
    v = hmac.new(k, v, hashlib.sha256).digest()
    first = hmac.new(k, v, hashlib.sha256).digest()
    assert hmac_drbg(entropy, personal, 32) == first
    assert hmac_drbg(entropy, personal, 64)[:32] == first == hmac_drbg(entropy, personal, 33)[:32]


def test_the_drbg_gives_nists_known_answer():
    state = instantiate(bytes.fromhex(NIST["seed"]))
    generate(state, NIST["bytes"])  # the first call's output is not the answer
    assert generate(state, NIST["bytes"]).hex() == NIST["returned"]
