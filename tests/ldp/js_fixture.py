"""The fixture the JavaScript tests check static/js/randomizer.js against: ldp's own samplers and the
report distribution ldp publishes for them (`ldp.offline.cells`), cut into cells for a G-test.

    python -m tests.ldp.js_fixture        # rewrite tests/js/fixtures/samplers.json

tests/ldp/test_js_fixture.py fails when the file differs from what this builds, so the JavaScript is
always tested against the current Python specification.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scipy import stats

import ldp
from ldp.offline.cells import JOINT_BITS_MAX_K, report_edges, report_probabilities

PATH = Path(__file__).resolve().parents[1] / "js" / "fixtures" / "samplers.json"
ALPHA = 1e-4  # family-wise: the chance a faithful sampler fails any case, for a random word stream
MIN_EXPECTED = 5.0


def cases() -> list[tuple[str, dict[str, Any], int, int]]:
    """(name, sampler, truth as ldp.offline.cells takes it, draws)."""
    laplace = ldp.DiscreteLaplace(1.0, "0", "10", "1").sampler()
    return [
        ("multiselect k=4 eps=2", ldp.MultiSelect(2.0, 4).sampler(), 0b0101, 100_000),
        ("multiselect k=4 eps=2 none ticked", ldp.MultiSelect(2.0, 4).sampler(), 0, 100_000),
        ("multiselect k=5 at_most=2 eps=3", ldp.MultiSelect(3.0, 5, at_most=2).sampler(), 0b00011, 100_000),
        ("multiselect k=12 eps=4 (bits)", ldp.MultiSelect(4.0, 12).sampler(), 0b100000000101, 50_000),
        ("onebit eps=1 at lo", ldp.OneBitMean(1.0, "0", "10", "1").sampler(), 0, 100_000),
        ("onebit eps=1 inside", ldp.OneBitMean(1.0, "0", "10", "1").sampler(), 3, 100_000),
        ("onebit eps=1 at hi", ldp.OneBitMean(1.0, "0", "10", "1").sampler(), 10, 100_000),
        ("onebit eps=0.5 seven steps", ldp.OneBitMean(0.5, "-1", "2.5", "0.5").sampler(), 4, 100_000),
        ("dlaplace eps=1 scale 10", laplace, 3, 100_000),
        ("dlaplace eps=6 scale 1/3", ldp.DiscreteLaplace(6.0, "0", "2", "1").sampler(), 0, 100_000),
        ("dlaplace eps=0.7 scale near 2^32 / 1e9", ldp.DiscreteLaplace(0.7, "0", "3", "1").sampler(), 2, 100_000),
        ("dlaplace eps=2 5000 steps", ldp.DiscreteLaplace(2.0, "0", "5000", "1").sampler(), 2500, 50_000),
        ("dlaplace eps=0.05 scale 20000", ldp.DiscreteLaplace(0.05, "0", "1000", "1").sampler(), 0, 50_000),
        ("dlaplace clamped hard (bound 3)", {**laplace, "bound": 3}, 1, 100_000),
    ]


def merged(edges: list[int], probabilities: list[float], draws: int) -> tuple[list[int], list[float]]:
    """Adjacent cells joined until each expects at least MIN_EXPECTED reports (the G-test's chi-square law)."""
    out_edges, out_probabilities = [edges[0]], []
    running = 0.0
    for high, probability in zip(edges[1:], probabilities, strict=True):
        running += probability
        if running * draws >= MIN_EXPECTED:
            out_edges.append(high)
            out_probabilities.append(running)
            running = 0.0
    if running:  # the remainder joins the last cell
        out_edges[-1] = edges[-1]
        out_probabilities[-1] += running
    return out_edges, out_probabilities


def js_truth(sampler: dict[str, Any], truth: int) -> int | list[int]:
    return [(truth >> j) & 1 for j in range(sampler["k"])] if sampler["kind"] == "multiselect" else truth


def build() -> dict[str, Any]:
    found = []
    family = len(cases())
    for name, sampler, truth, draws in cases():
        case: dict[str, Any] = {"name": name, "sampler": sampler, "truth": js_truth(sampler, truth), "draws": draws}
        # Past JOINT_BITS_MAX_K bits, the JavaScript tests count each bit (the joint test is ldp.offline.audit's)
        bits = sampler["kind"] == "multiselect" and sampler["k"] > JOINT_BITS_MAX_K
        probabilities = report_probabilities(sampler, truth, bits=bits)
        if bits:
            level = ALPHA / (2 * family * sampler["k"])
            case["ones_between"] = [[int(stats.binom.ppf(level, draws, p)), int(stats.binom.isf(level, draws, p))]
                                    for p in probabilities]
        else:
            edges, expected = merged(report_edges(sampler), probabilities, draws)
            case |= {"edges": edges, "expected": expected,
                     "critical": float(stats.chi2.isf(ALPHA / family, len(expected) - 1))}
        found.append(case)
    return {"generated_by": "python -m tests.ldp.js_fixture", "alpha": ALPHA, "cases": found}


def main() -> None:
    PATH.parent.mkdir(exist_ok=True)
    PATH.write_text(json.dumps(build(), indent=1) + "\n")


if __name__ == "__main__":
    main()
