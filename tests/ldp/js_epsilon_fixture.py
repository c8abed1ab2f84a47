"""The fixture the JavaScript tests check static/js/epsilon.js against: samplers of every randomized
kind over many epsilons, each with `ldp.mechanisms.registry.sampler_epsilon` and `ldp.planning.rounding` rounded up to
thousandths (what the browser must compute from the integers), plus samplers with forged integers.

    python -m tests.ldp.js_epsilon_fixture        # rewrite tests/js/fixtures/epsilon.json

tests/ldp/test_js_epsilon_fixture.py fails when the file differs from what this builds.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import ldp
from ldp.planning.rounding import loss_of

PATH = Path(__file__).resolve().parents[1] / "js" / "fixtures" / "epsilon.json"
EPSILONS = (0.05, 0.1, 0.3, 0.5, math.log(2), 1.0, 1.1, math.log(3), 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 7.5, 10.0)


def samplers() -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    for eps in EPSILONS:
        found += [(f"bitflip eps={eps}", ldp.BitFlip(eps).sampler())]
        found += [(f"krr k={k} eps={eps}", ldp.KaryRR(eps, k).sampler()) for k in (3, 5, 12, 64)]
        found += [(f"sue k={k} eps={eps}", ldp.SymmetricUnary(eps, k).sampler()) for k in (2, 6)]
        found += [(f"oue k={k} eps={eps}", ldp.OptimizedUnary(eps, k).sampler()) for k in (3, 20)]
        found += [(f"multiselect k={k} at_most={m} eps={eps}", ldp.MultiSelect(eps, k, m).sampler())
                  for k, m in ((4, None), (5, 2), (12, None), (64, 3))]
        found += [(f"onebit eps={eps}", ldp.OneBitMean(eps, "0", "10", "1").sampler())]
        found += [(f"dlaplace steps={hi} eps={eps}", ldp.DiscreteLaplace(eps, "0", hi, "1").sampler())
                  for hi in ("1", "10", "1000")]
    found += [(f"qrr q={q}", ldp.QRandomizedResponse(q).sampler()) for q in ("0.1", "0.5", "0.75", "0.9")]
    forged = [("forged krr keep 2^32-2 other 1", {"kind": "grr", "k": 2, "modulus": 2**32 - 1,
                                                   "keep": 2**32 - 2, "other": 1}),
              ("forged unary", {"kind": "unary", "k": 2, "modulus": 2**32, "one_if_true": 2**32 - 1,
                                "one_if_false": 1}),
              ("dlaplace exactly 1", {"kind": "dlaplace", "steps": 10, "scale_num": 10, "scale_den": 1, "bound": 5})]
    return found + forged


def build() -> dict[str, Any]:
    cases = [{"name": name, "sampler": sampler, "epsilon": ldp.mechanisms.registry.sampler_epsilon(sampler),
              "millis_up": int(loss_of(sampler).epsilon_up(3) * 1000)} for name, sampler in samplers()]
    return {"generated_by": "python -m tests.ldp.js_epsilon_fixture", "cases": cases}


def main() -> None:
    PATH.write_text(json.dumps(build(), indent=1) + "\n")


if __name__ == "__main__":
    main()
