"""Benchmark of ldp's models: the channel logistic fit and raking at survey sizes up to 10^6 rows.

    python bench/model_bench.py            # 10^6 rows, 10 covariates, median of 3 runs
    python bench/model_bench.py --quick    # 10^5 rows

Prints, for each size, the time of `ldp.regression.logistic.fit` (both starts, observed and OPG covariance, the
likelihood-ratio test), of a raking to two margins with the linearization variance of one weighted
fraction, and of one bare numpy pass of the same size in the same run (X' diag(w) X, the fit's unit of
work), with the ratios. Target: the fit well under 5 s at 10^6 rows and 10 covariates. Not a test.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import ldp  # noqa: E402
from ldp.regression import logistic  # noqa: E402
from ldp.weighting.estimates import weighted_fractions  # noqa: E402
from ldp.weighting.raking import margin, rake  # noqa: E402


def timed(run: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n, covariates, repeats = (10**5, 10, 3) if args.quick else (10**6, 10, 3)
    rng = np.random.default_rng(0)
    x = np.column_stack([np.ones(n), rng.normal(size=(n, covariates))])
    beta = np.r_[-0.5, rng.normal(0, 0.3, covariates)]
    mechanism = ldp.BitFlip(1.0)
    y = mechanism.randomize((rng.random(n) < 1 / (1 + np.exp(-x @ beta))).astype(np.int64), rng).astype(float)
    sex = rng.choice(["f", "m"], size=n, p=[0.6, 0.4])
    region = rng.choice(["n", "s", "e", "w"], size=n, p=[0.4, 0.3, 0.2, 0.1])
    shares = ({"f": 0.5, "m": 0.5}, {"n": 0.25, "s": 0.25, "e": 0.25, "w": 0.25})

    def bare() -> object:
        return (x * y[:, None]).T @ x

    def fit() -> object:
        found = logistic.fit(y, x, mechanism.p, mechanism.q_other)
        assert found.converged, found.messages
        return found

    def raked() -> object:
        design = rake([margin("sex", sex, shares[0]), margin("region", region, shares[1])])
        return weighted_fractions(mechanism, y.astype(np.int64), design)

    unit = timed(bare, repeats)
    print(f"n = {n}, {covariates} covariates + intercept, median of {repeats}")
    print(f"{'step':<44} {'seconds':>8} {'x bare pass':>12}")
    print(f"{'bare pass: X diag(w) X':<44} {unit:>8.3f} {1.0:>12.1f}")
    for label, run in (("logistic.fit (two starts, both covariances)", fit),
                       ("rake to 2 margins + weighted fraction", raked)):
        seconds = timed(run, repeats)
        print(f"{label:<44} {seconds:>8.3f} {seconds / unit:>12.1f}")


if __name__ == "__main__":
    main()
