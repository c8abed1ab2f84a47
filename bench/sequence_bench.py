"""Benchmark of ldp's confidence sequences (docs/statistics.md, "Intervals valid at any time").

    python bench/sequence_bench.py            # 10^5 reports, a look after each
    python bench/sequence_bench.py --quick    # 10^4 reports

Prints two tables:

1. Width at 95% for a yes/no q-RR question (q = 2/3, report rate 831 / 2,435, the public data set's) at
   n = 10^3, 2,435, 10^4, 10^5: the sequence planned for n and planned for 2,435, the fixed-n Wilson
   interval, nprr 0.1.4's Hoeffding sequence (its closed form), and the ratios to the fixed-n width.
2. CPU time of `ldp.stream_sequence` with a look after every report, per mechanism (all options), next to
   the fixed-n Wilson interval of one option (`ldp.stats.intervals.wilson`, one call per look), and the ratio.

Not a test: it prints figures. Only numpy and ldp are needed.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import ldp  # noqa: E402
from ldp.stats.intervals import wilson  # noqa: E402

QRR = ldp.make("qrr", q="0.6666666667")
RATE = 831 / 2435


def nprr_hoeffding_width(n: int, r: float, alpha: float) -> float:
    """nprr.dpcs.nprr_hoeffding_cs at t = n, unclipped (its width does not depend on the data)."""
    i = np.arange(1, n + 1)
    lam = np.minimum(1.0, np.sqrt(8 * math.log(2 / alpha) / (i * np.log(i + 1))))
    return float(2 * (math.log(2 / alpha) + np.sum(lam**2) / 8) / (r * np.sum(lam)))


def widths() -> None:
    print("n        sequence(n)  sequence(2435)  fixed-n   nprr-Hoeffding  ratio(n)  ratio(2435)")
    for n in (10**3, 2435, 10**4, 10**5):
        yes = round(RATE * n)
        fixed = QRR.estimate([n - yes, yes], n)
        fixed_width = fixed.ci_high[1] - fixed.ci_low[1]
        planned = [ldp.fraction_sequence(QRR, [n], [[n - yes, yes]], planned=size) for size in (n, 2435)]
        width = [float(s.ci_high[0, 1] - s.ci_low[0, 1]) for s in planned]
        hoeffding = nprr_hoeffding_width(n, 2 / 3, 0.05)
        print(f"{n:<8} {width[0]:<12.4f} {width[1]:<15.4f} {fixed_width:<9.4f} {hoeffding:<15.4f} "
              f"{width[0] / fixed_width:<9.3f} {width[1] / fixed_width:.3f}")


def timings(n: int) -> None:
    rng = np.random.default_rng(1)
    cases = [("qrr", QRR, rng.integers(0, 2, n)), ("oue k=4", ldp.OptimizedUnary(1.0, 4), rng.integers(0, 4, n)),
             ("dlaplace", ldp.DiscreteLaplace(1.0, "0", "10", "1"), rng.integers(0, 11, n))]
    print(f"\nCPU seconds for {n} looks (one per report)")
    print("mechanism  sequence  wilson(1 option)  ratio")
    for name, mechanism, truth in cases:
        reports = mechanism.randomize(truth, rng)
        start = time.process_time()
        ldp.stream_sequence(mechanism, reports)
        sequence = time.process_time() - start
        ones = np.cumsum(reports if reports.ndim == 1 else reports[:, 0])
        start = time.process_time()
        for t in range(1, n + 1):
            wilson(int(min(ones[t - 1], t)) if name != "dlaplace" else t // 2, t, 0.95)
        fixed = time.process_time() - start
        print(f"{name:<10} {sequence:<9.2f} {fixed:<17.2f} {sequence / fixed:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    widths()
    timings(10**4 if args.quick else 10**5)


if __name__ == "__main__":
    main()
