"""Benchmark of ldp: simulation speed, estimation cost, and the variance formula's accuracy.

    python bench/ldp_bench.py            # 10^6 respondents, median of 5 runs
    python bench/ldp_bench.py --quick    # 10^5 respondents, median of 3 runs, 1/4 of the MSE surveys

Prints three tables:

1. randomize + counts + estimate for n simulated respondents, per mechanism and k, next to a
   bare numpy pass of the same size in the same run (rng.integers(0, k, n) + np.bincount), and
   the ratio. Unary encodings (sue, oue) inherently draw k numbers per respondent, so they are
   also compared with a bare pass of n*k draws. Target: within 5x of the bare pass.
2. estimate() from counts alone at k = 2 and k = 50, for small and large n: O(k), independent of n.
3. The empirical MSE of the unbiased estimate over many simulated surveys divided by the
   formula's variance summed over options (target 0.9-1.1).
4. Multi-select and numeric mechanisms (multiselect, onebit, dlaplace): randomize + histogram/counts + estimate
   for n respondents next to a bare numpy pass drawing the same random numbers and reducing them to
   the same statistic. Target: within 2x.

Not a test: it prints figures. Only numpy and ldp are needed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import cast

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import ldp  # noqa: E402
from ldp.mechanisms.base import IntArray  # noqa: E402
from ldp.mechanisms.registry import IndexMechanism, UnaryMechanism  # noqa: E402

EPSILON = 1.0
TARGET_RATIO = 5.0


def mechanisms_for(k: int) -> list[ldp.Mechanism]:
    found: list[ldp.Mechanism] = []
    if k == 2:
        # q is decimal text, which __post_init__ reads exactly (the field is typed as the Fraction it becomes)
        found += [ldp.QRandomizedResponse("0.5"), ldp.BitFlip(EPSILON)]  # type: ignore[arg-type]
    found += [ldp.KaryRR(EPSILON, k), ldp.SymmetricUnary(EPSILON, k), ldp.OptimizedUnary(EPSILON, k)]
    return found


def label(m: ldp.Mechanism) -> str:
    # Every concrete mechanism has an epsilon (a field; qrr's is a property), but Mechanism declares none.
    return "qrr(q=0.5)" if m.name == "qrr" else f"{m.name}(eps={m.epsilon:g})"  # type: ignore[attr-defined]


def median_time(function: Callable[[], object], runs: int) -> float:
    times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def simulate_once(m: ldp.Mechanism, values: IntArray, rng: np.random.Generator, n: int) -> ldp.Estimate:
    counts = m.counts(m.randomize(values, rng))
    return m.estimate(counts, n)


def bare_pass(rng: np.random.Generator, k: int, draws: int) -> npt.NDArray[np.intp]:
    return np.bincount(rng.integers(0, k, draws), minlength=k)


def unary_uint32_candidate(m: UnaryMechanism, values: IntArray, rng: np.random.Generator) -> npt.NDArray[np.bool_]:
    """A candidate unary randomize (not in ldp): the same per-bit rule U < a (a = one_if_true
    on the answer's bit, one_if_false elsewhere) with U drawn as raw uint32 words (exact when
    the modulus is 2**32, as for sue and oue), no (n, k) threshold matrix and bool bits."""
    assert m.modulus == 2**32
    u = rng.integers(0, 2**32, size=(values.size, m.k), dtype=np.uint32)
    bits = u < np.uint32(m.one_if_false)
    rows = np.arange(values.size)
    bits[rows, values] = u[rows, values] < np.uint32(m.one_if_true)
    return bits


def kary_uint32_candidate(m: IndexMechanism, values: IntArray, rng: np.random.Generator) -> npt.NDArray[np.uint8]:
    """A candidate one-of-k randomize (not in ldp): the same browser rule (U < a keeps the
    answer, else the ((U - a) div b)-th other option) in uint32/uint8 arithmetic (M <= 2**32,
    k <= 64) instead of int64."""
    u = rng.integers(0, m.modulus, size=values.size, dtype=np.uint32)
    a = np.uint32(m.keep)
    j = ((np.maximum(u, a) - a) // np.uint32(m.other)).astype(np.uint8)
    v = values.astype(np.uint8)
    j += j >= v
    return np.where(u < a, v, j)


def interleaved_medians(functions: dict[str, Callable[[], object]], runs: int) -> dict[str, float]:
    """Median time of each function, timed in turn within every run, so that all of them see
    the same machine conditions (the ratios stay meaningful on a busy machine)."""
    times: dict[str, list[float]] = {name: [] for name in functions}
    for _ in range(runs):
        for name, function in functions.items():
            start = time.perf_counter()
            function()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def speed_table(n: int, runs: int, seed: int) -> list[tuple[int, ldp.Mechanism, dict[str, float]]]:
    rng = np.random.default_rng(seed)
    print(f"\n1. randomize + counts + estimate, n = {n:,} respondents, epsilon = {EPSILON:g}, "
          f"median of {runs} interleaved runs (seconds)")
    print("   bare(n) = rng.integers(0, k, n) + np.bincount;  bare(n*k) = the same with n*k draws.")
    print("   Unary encodings (sue, oue) inherently need k draws per respondent, so their fair")
    print("   comparison is ratio(n*k); k-RR, qrr and bitflip need one draw, ratio(n) applies.")
    header = (f"   {'k':>3} {'mechanism':<16} {'ldp':>9} {'bare(n)':>9} {'ratio(n)':>9} "
              f"{'bare(n*k)':>10} {'ratio(n*k)':>10}  {'within 5x':>9}")
    print(header)
    print("   " + "-" * (len(header) - 3))
    rows = []
    for k in (2, 5, 50):
        values = rng.integers(0, k, n)
        for m in mechanisms_for(k):
            unary = m.name in ("sue", "oue")
            functions = {"ldp": lambda: simulate_once(m, values, rng, n), "bare": lambda: bare_pass(rng, k, n)}
            if unary:
                functions["bare_nk"] = lambda: bare_pass(rng, k, n * k)
            t = interleaved_medians(functions, runs)
            fair = t["ldp"] / (t["bare_nk"] if unary else t["bare"])
            rows.append((k, m, t))
            nk_text = f"{t['bare_nk']:10.4f} {t['ldp'] / t['bare_nk']:10.2f}" if unary else f"{'':>10} {'':>10}"
            print(f"   {k:>3} {label(m):<16} {t['ldp']:9.4f} {t['bare']:9.4f} {t['ldp'] / t['bare']:9.2f} "
                  f"{nk_text}  {'yes' if fair <= TARGET_RATIO else 'NO':>9}")
    return rows


def candidate_table(n: int, runs: int, seed: int) -> None:
    rng = np.random.default_rng(seed + 1)
    print("\n   For comparison: randomize() + counts() alone, ldp against candidate implementations of")
    print("   the same rule in uint32 arithmetic (NOT in ldp; see kary_uint32_candidate and")
    print(f"   unary_uint32_candidate), n = {n:,}, seconds; 'bare' is bare(n) for krr, bare(n*k) for oue:")
    print(f"   {'k':>3} {'mechanism':<16} {'ldp':>9} {'candidate':>10} {'bare':>9} {'ldp/bare':>9} "
          f"{'cand/bare':>10}")
    for name, k in (("krr", 2), ("krr", 50), ("oue", 5), ("oue", 50)):
        values = rng.integers(0, k, n)
        m = ldp.make(name, k=k, epsilon=EPSILON)
        if name == "krr":
            krr = cast(IndexMechanism, m)  # make("krr") builds a KaryRR
            candidate = lambda: np.bincount(kary_uint32_candidate(krr, values, rng), minlength=k)  # noqa: E731
            bare = lambda: bare_pass(rng, k, n)  # noqa: E731
        else:
            oue = cast(UnaryMechanism, m)  # make("oue") builds an OptimizedUnary
            candidate = lambda: unary_uint32_candidate(oue, values, rng).sum(axis=0, dtype=np.int64)  # noqa: E731
            bare = lambda: bare_pass(rng, k, n * k)  # noqa: E731
        t = interleaved_medians({"ldp": lambda: m.counts(m.randomize(values, rng)), "candidate": candidate,
                                 "bare": bare}, runs)
        print(f"   {k:>3} {label(m):<16} {t['ldp']:9.4f} {t['candidate']:10.4f} {t['bare']:9.4f} "
              f"{t['ldp'] / t['bare']:9.2f} {t['candidate'] / t['bare']:10.2f}")


def estimation_table(seed: int) -> None:
    rng = np.random.default_rng(seed + 2)
    print("\n2. estimate() from counts alone (default 'wilson' interval), median per call (milliseconds)")
    print(f"   {'mechanism':<16} {'k':>3} {'n = 10^4':>10} {'n = 10^6':>10} {'n = 10^8':>10}")
    for name in ("krr", "oue"):
        for k in (2, 50):
            m = ldp.make(name, k=k, epsilon=EPSILON)
            cells = []
            for n in (10**4, 10**6, 10**8):
                lam = np.full(k, 1 / k) if name == "krr" else np.full(k, m.q_other + (m.p - m.q_other) / k)
                counts = rng.multinomial(n, lam) if name == "krr" else rng.binomial(n, lam)
                reps = 200
                took = median_time(lambda: [m.estimate(counts, n) for _ in range(reps)], 3) / reps
                cells.append(f"{1000 * took:10.3f}")
            print(f"   {label(m):<16} {k:>3} " + " ".join(cells))
    print("   Time grows with k (one interval per option) and does not depend on n.")


def mse_table(n: int, reps_at_k: dict[int, int], seed: int) -> None:
    rng = np.random.default_rng(seed + 3)
    surveys = ", ".join(f"k = {k}: {r:,}" for k, r in reps_at_k.items())
    print(f"\n3. empirical MSE of the unbiased estimate / formula variance summed over options "
          f"(n = {n:,}; surveys per cell {surveys}; target 0.9 - 1.1)")
    print("   Small k needs more surveys: at k = 2 the two estimates move together, so the summed")
    print("   squared error is a 1-degree-of-freedom chi-square with relative SD sqrt(2).")
    print("   Counts are drawn directly: multinomial(n, lambda) for one-of-k reports and")
    print("   binomial(n, lambda_j) per bit for unary, which is what randomize() of n i.i.d.")
    print("   answers produces; lambda_j = q + pi_j (p - q); pi_j proportional to 1/(j+1).")
    print(f"   {'k':>3} {'mechanism':<16} {'MSE':>12} {'sum Var':>12} {'ratio':>7} {'+-2SE':>7}  {'ok':>3}")
    for k, reps in reps_at_k.items():
        pi = 1 / np.arange(1, k + 1)
        pi /= pi.sum()
        for m in mechanisms_for(k):
            lam = m.q_other + pi * (m.p - m.q_other)
            if m.name in ("sue", "oue"):
                counts = rng.binomial(n, lam, size=(reps, k))
            else:
                counts = rng.multinomial(n, lam / lam.sum(), size=reps)
            estimates = np.array([m.estimate(c, n).estimate for c in counts])
            squared = ((estimates - pi) ** 2).sum(axis=1)
            formula = float(m.variance(pi, n).sum())
            ratio = squared.mean() / formula
            two_se = 2 * squared.std(ddof=1) / np.sqrt(reps) / formula
            ok = "yes" if 0.9 <= ratio <= 1.1 else "NO"
            print(f"   {k:>3} {label(m):<16} {squared.mean():12.4e} {formula:12.4e} {ratio:7.3f} "
                  f"{two_se:7.3f}  {ok:>3}")


QTYPES_TARGET = 2.0


def ticks_and_numbers_table(n: int, runs: int, seed: int) -> list[tuple[str, float]]:
    """Table 4: multi-select and numeric mechanisms against bare numpy passes of the same draws."""
    rng = np.random.default_rng(seed + 4)
    print(f"\n4. multi-select and numeric mechanisms: randomize + histogram/counts + estimate, n = {n:,}, "
          f"epsilon = {EPSILON:g}, median of {runs} interleaved runs (seconds)")
    print("   bare: the same draws in plain numpy reduced to the same statistic (multiselect: n*k uint32 words")
    print("   compared with keep, summed per option; onebit: two draws per respondent, xor, mean; dlaplace:")
    print("   two geometric draws per respondent, mean and variance).")
    print(f"   {'mechanism':<28} {'ldp':>9} {'bare':>9} {'ratio':>7}  {'within 2x':>9}")
    multi = ldp.MultiSelect(EPSILON, 8, at_most=3)
    ticks = (rng.integers(0, 8, (n, 3))[:, :, None] == np.arange(8)).any(axis=1).astype(np.uint8)  # <= 3 ticks
    onebit = ldp.OneBitMean(EPSILON, "0", "100", "1")
    laplace = ldp.DiscreteLaplace(EPSILON, "0", "100", "1")
    index = rng.integers(0, 101, n)
    success = -np.expm1(-laplace.scale_den / laplace.scale_num)

    def bare_multi() -> object:
        return (rng.integers(0, 2**32, size=ticks.shape, dtype=np.uint32) < multi.keep).sum(axis=0)

    def bare_onebit() -> object:
        bit = rng.integers(0, 100, n) < index
        return (bit ^ (rng.integers(0, 2**32, n, dtype=np.uint32) >= onebit.keep)).mean()

    def bare_laplace() -> object:
        r = index + rng.geometric(success, n) - rng.geometric(success, n)
        return r.mean(), r.var()

    cases: list[tuple[str, Callable[[], object], Callable[[], object]]] = [
        ("multiselect(k=8, at_most=3)", lambda: multi.estimate(multi.counts(multi.randomize(ticks, rng)), n),
         bare_multi),
        ("onebit(0..100 step 1)", lambda: onebit.estimate_mean(*onebit.histogram(onebit.randomize(index, rng))),
         bare_onebit),
        ("dlaplace(0..100 step 1)", lambda: laplace.estimate_mean(*laplace.histogram(laplace.randomize(index, rng))),
         bare_laplace),
    ]
    ratios = []
    for name, ours, bare in cases:
        t = interleaved_medians({"ldp": ours, "bare": bare}, runs)
        ratio = t["ldp"] / t["bare"]
        ratios.append((name, ratio))
        verdict = "yes" if ratio <= QTYPES_TARGET else "NO"
        print(f"   {name:<28} {t['ldp']:9.4f} {t['bare']:9.4f} {ratio:7.2f}  {verdict:>9}")
    return ratios


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^5 respondents, fewer runs and reps")
    parser.add_argument("--n", type=int, default=None, help="respondents for table 1 (default 10^6)")
    parser.add_argument("--runs", type=int, default=None, help="timed runs per cell (default 5)")
    parser.add_argument("--seed", type=int, default=20240611)
    parser.add_argument("--ticks-and-numbers", action="store_true",
                        help="only table 4 (multi-select and numeric mechanisms)")
    args = parser.parse_args(argv)
    n = args.n or (10**5 if args.quick else 10**6)
    runs = args.runs or (3 if args.quick else 5)
    mse_n = 10**4
    mse_reps = {2: 8000, 5: 4000, 50: 2000}
    if args.quick:
        mse_reps = {k: r // 4 for k, r in mse_reps.items()}
    print(f"ldp benchmark: numpy {np.__version__}, Python {sys.version.split()[0]}")
    if args.ticks_and_numbers:
        ticks_and_numbers_table(n, runs, args.seed)
        return 0
    speed_table(n, runs, args.seed)
    candidate_table(n, runs, args.seed)
    estimation_table(args.seed)
    mse_table(mse_n, mse_reps, args.seed)
    ticks_and_numbers_table(n, runs, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
