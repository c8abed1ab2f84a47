"""Benchmark of synthetic respondents (`ldp.synthetic`, issue 43): a survey of 30 questions of every kind at
10^6 responses, the time to fit the model and draw as many rows, and the time of its quality report.

    python bench/synthetic_bench.py                   # 30 questions, 10^6 responses
    python bench/synthetic_bench.py --n 2000 --questions 10

The answers depend on one another through a shared normal factor; each is randomized by its mechanism and given
as report cells as `python -m ldp synthesize` reads them. Goal: within a minute. Not a test: it prints figures.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ldp import make  # noqa: E402
from ldp.mechanisms.base import Mechanism  # noqa: E402
from ldp.synthetic import synthesize  # noqa: E402
from ldp.synthetic.quality import quality  # noqa: E402

KINDS: list[dict[str, Any]] = [
    {"name": "qrr", "q": "0.5"}, {"name": "bitflip", "epsilon": 1.5}, {"name": "krr", "epsilon": 1.0, "k": 4},
    {"name": "sue", "epsilon": 2.0, "k": 4}, {"name": "oue", "epsilon": 2.0, "k": 5}, {"name": "direct", "k": 3},
    {"name": "multiselect", "epsilon": 2.0, "k": 3}, {"name": "onebit", "epsilon": 1.0, "lo": "0", "hi": "10",
                                                                 "step": "1"},
    {"name": "dlaplace", "epsilon": 1.0, "lo": "0", "hi": "10", "step": "1"}, {"name": "krr", "epsilon": 2.0, "k": 6},
]


def cells_of(mechanism: Mechanism, score: npt.NDArray[np.float64], rng: np.random.Generator) -> npt.NDArray[np.str_]:
    """True answers that rise with the score, randomized, as text cells."""
    rank = (np.argsort(np.argsort(score)) / score.size)
    if mechanism.name == "multiselect":
        truth = (rank[:, None] > np.array([0.3, 0.5, 0.7])[None, :]).astype(np.uint8)
    elif mechanism.name in ("onebit", "dlaplace"):
        truth = np.minimum((rank * 11).astype(np.int64), 10)
    else:
        truth = np.minimum((rank * mechanism.k).astype(np.int64), mechanism.k - 1)
    reports = mechanism.randomize(truth, rng) if mechanism.randomized else truth
    if reports.ndim == 2:
        k = reports.shape[1]
        return (reports.astype(np.uint32) + 48).view(f"<U{k}").reshape(-1)
    return np.asarray(reports).astype(str)


def survey(n: int, questions: int, seed: int) -> list[tuple[str, Mechanism, npt.NDArray[np.str_]]]:
    rng = np.random.default_rng(seed)
    factor = rng.normal(size=n)
    found = []
    for j in range(questions):
        kind = dict(KINDS[j % len(KINDS)])
        mechanism = make(kind.pop("name"), **kind)
        found.append((f"q{j + 1}", mechanism, cells_of(mechanism, factor + rng.normal(size=n), rng)))
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=10**6)
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    reports = survey(args.n, args.questions, args.seed)
    start = time.perf_counter()
    made = synthesize(reports, seed=args.seed)
    fitted = time.perf_counter() - start
    start = time.perf_counter()
    stated = quality(made)
    checked = time.perf_counter() - start
    print(f"{args.questions} questions ({len(made.variables)} variables), {args.n} responses, {made.rows} rows")
    print(f"synthesize: {fitted:.1f} s (goal: 60 s)")
    print(f"quality report: {checked:.1f} s, largest difference {stated.largest:.2f} standard errors, "
          f"{len(stated.warnings)} warnings")


if __name__ == "__main__":
    main()
