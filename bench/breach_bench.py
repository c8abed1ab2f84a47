"""Benchmark of the breach figures (docs/privacy.md, "What a stolen database reveals"): a simulated survey with
planted true answers, its reports randomized by each mechanism's own `randomize`, and attacks on the reports.

    python bench/breach_bench.py              # 100,000 respondents per question
    python bench/breach_bench.py --n 2000     # quick

For each question (every mechanism, a prior each) and for a whole record of two questions with correlated
answers, it prints the stated accuracy (`ldp.disclosure`: sum over reports of max over answers of
pi(x) P(r | x)) and the accuracy each attack achieved on the planted truths, with its Wilson interval:

- bayes: the answer maximizing pi(x) P(r | x), the likelihoods written here from the sampler's integers;
- report: the report taken as the answer (unary: a random set bit, or a random option when none is set; the
  1-bit mean: 0 or the top of the grid; discrete Laplace: the report clipped to the grid);
- ml: the answer maximizing P(r | x), the prior ignored;
- prior: the most likely answer, the report ignored (the baseline).

The intervals are simultaneous at 95% over the questions (Bonferroni). A row ends "ok" when bayes's interval
holds the stated accuracy and no attack's lies wholly above it; the last line counts them.
Not a test: it prints figures. Only numpy and ldp are needed.
"""

from __future__ import annotations

import argparse
import math
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import ldp  # noqa: E402
from ldp.disclosure import breach, record_breach, subsets_prior  # noqa: E402
from ldp.stats.intervals import wilson  # noqa: E402

Array = npt.NDArray[np.float64]


def peaked(size: int) -> list[Fraction]:
    weights = [1 + min(x, size - 1 - x) for x in range(size)]
    return [Fraction(w, sum(weights)) for w in weights]


QUESTIONS = [
    ("qrr q=1/2", ldp.QRandomizedResponse(Fraction(1, 2)), [Fraction(7, 10), Fraction(3, 10)]),
    ("bitflip eps=2", ldp.BitFlip(2.0), [Fraction(1, 2), Fraction(1, 2)]),
    ("krr eps=1 k=4", ldp.KaryRR(1.0, 4), [Fraction(4, 10), Fraction(3, 10), Fraction(2, 10), Fraction(1, 10)]),
    ("sue eps=2 k=4", ldp.SymmetricUnary(2.0, 4), [Fraction(4, 10), Fraction(3, 10), Fraction(2, 10), Fraction(1, 10)]),
    ("oue eps=2 k=5", ldp.OptimizedUnary(2.0, 5), [Fraction(1, 5)] * 5),
    ("multiselect eps=2 k=3", ldp.MultiSelect(2.0, 3),
     subsets_prior([Fraction(1, 2), Fraction(1, 5), Fraction(7, 10)])),
    ("onebit eps=1 0..5", ldp.OneBitMean(1.0, "0", "5", "1"), peaked(6)),
    ("dlaplace eps=2 0..10", ldp.DiscreteLaplace(2.0, "0", "10", "1"), peaked(11)),
    ("direct k=3", ldp.Direct(3), [Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)]),
]
JOINT: dict[tuple[int, ...], Fraction] = {
    (0, 0): Fraction(3, 10), (0, 1): Fraction(1, 10), (0, 2): Fraction(1, 20),
    (1, 0): Fraction(1, 20), (1, 1): Fraction(1, 10), (1, 2): Fraction(2, 5)}
RECORD = (ldp.QRandomizedResponse(Fraction(1, 2)), ldp.KaryRR(1.0, 3), JOINT)


def likelihoods(mechanism: ldp.Mechanism, reports: npt.NDArray[np.int64]) -> Array:
    """(respondents x answers) P(report | answer), up to a factor per respondent, from the sampler's integers."""
    if isinstance(mechanism, ldp.DiscreteLaplace):  # a^|r - i|; the clamped ends carry a common factor
        a = math.exp(-mechanism.scale_den / mechanism.scale_num)
        return np.asarray(a ** np.abs(reports[:, None] - np.arange(mechanism.steps + 1)[None, :]), dtype=float)
    a, b, m = mechanism.channel()
    p, q = a / m, b / m
    if isinstance(mechanism, ldp.OneBitMean):
        one = q + np.arange(mechanism.steps + 1) / mechanism.steps * (p - q)
        return np.where(reports[:, None] == 1, one[None, :], 1 - one[None, :])
    if isinstance(mechanism, ldp.MultiSelect):  # reports as bitmasks; p^(k - d) (1 - p)^d
        subsets = np.arange(1 << mechanism.k)
        differ = np.bitwise_count(reports[:, None] ^ subsets[None, :]).astype(np.int64)
        return np.asarray(p ** (mechanism.k - differ) * (1 - p) ** differ, dtype=float)
    if mechanism.unary:  # Q0(y) dropped: p / q where the bit is set, (1 - p) / (1 - q) where not
        bits = (reports[:, None] >> np.arange(mechanism.k)[None, :]) & 1
        return np.where(bits == 1, p / q, (1 - p) / (1 - q))
    return np.where(reports[:, None] == np.arange(mechanism.k)[None, :], p, q)


def as_report(mechanism: ldp.Mechanism, reports: npt.NDArray[np.int64],
              rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """The naive attack: the report read as the answer."""
    if isinstance(mechanism, ldp.DiscreteLaplace):
        return np.clip(reports, 0, mechanism.steps)
    if isinstance(mechanism, ldp.OneBitMean):
        return reports * mechanism.steps
    if mechanism.unary and not isinstance(mechanism, ldp.MultiSelect):
        bits = (reports[:, None] >> np.arange(mechanism.k)[None, :]) & 1
        noise = rng.random(bits.shape) + bits  # a random set bit wins; none set: a random option
        return np.argmax(noise, axis=1)
    return reports


def simulate(mechanism: ldp.Mechanism, prior: list[Fraction], n: int,
             rng: np.random.Generator) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(planted true answers, stored reports as integers: an index, a bitmask, a bit or r)."""
    truth = rng.choice(len(prior), size=n, p=np.asarray(prior, dtype=float))
    if isinstance(mechanism, ldp.MultiSelect):
        bits = (truth[:, None] >> np.arange(mechanism.k)[None, :]) & 1
        return truth, mechanism.encode_many(mechanism.randomize(bits, rng))
    raw = mechanism.randomize(truth, rng)
    return truth, (np.asarray(raw, dtype=np.int64) if isinstance(mechanism, ldp.DiscreteLaplace)
                   else mechanism.encode_many(raw))


def row(name: str, stated: float, hits: dict[str, int], n: int, confidence: float) -> bool:
    intervals = {attack: wilson(count, n, confidence) for attack, count in hits.items()}
    ok = intervals["bayes"][0] <= stated <= intervals["bayes"][1] and all(
        low <= stated for low, _ in intervals.values())
    cells = "  ".join(f"{hits[attack] / n:.4f} [{low:.4f}, {high:.4f}]" for attack, (low, high) in intervals.items())
    print(f"{name:<24} {stated:.4f}   {cells}   {'ok' if ok else 'OUTSIDE'}")
    return ok


def question(name: str, mechanism: ldp.Mechanism, prior: list[Fraction], n: int, rng: np.random.Generator,
             confidence: float) -> bool:
    truth, reports = simulate(mechanism, prior, n, rng)
    weights = likelihoods(mechanism, reports)
    guesses = {
        "bayes": np.argmax(weights * np.asarray(prior, dtype=float)[None, :], axis=1),
        "report": as_report(mechanism, reports, rng),
        "ml": np.argmax(weights, axis=1),
        "prior": np.full(n, int(np.argmax(np.asarray(prior, dtype=float)))),
    }
    hits = {attack: int(np.sum(guess == truth)) for attack, guess in guesses.items()}
    return row(name, breach(mechanism, prior).attacker_accuracy, hits, n, confidence)


def record(n: int, rng: np.random.Generator, confidence: float) -> bool:
    """Both answers guessed at once: the combination maximizing pi(x) P1(r1 | x1) P2(r2 | x2), the reports read
    as answers, the combination maximizing the likelihoods alone, and the most likely combination."""
    first, second, joint = RECORD
    cells = sorted(joint)
    drawn = rng.choice(len(cells), size=n, p=[float(joint[cell]) for cell in cells])
    truth = np.asarray(cells)[drawn]
    reports = [m.encode_many(m.randomize(truth[:, i], rng)) for i, m in enumerate((first, second))]
    weights = [likelihoods(m, r) for m, r in zip((first, second), reports, strict=True)]
    likely = np.stack([weights[0][:, cell[0]] * weights[1][:, cell[1]] for cell in cells], axis=1)
    shares = np.asarray([float(joint[cell]) for cell in cells])
    guesses = {"bayes": np.asarray(cells)[np.argmax(likely * shares[None, :], axis=1)],
               "report": np.stack(reports, axis=1), "ml": np.asarray(cells)[np.argmax(likely, axis=1)],
               "prior": np.tile(max(cells, key=joint.__getitem__), (n, 1))}
    hits = {attack: int(np.sum(np.all(guess == truth, axis=1))) for attack, guess in guesses.items()}
    return row("record qrr + krr", record_breach([first, second], joint).attacker_accuracy, hits, n, confidence)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="respondents per question")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    confidence = 1 - 0.05 / (len(QUESTIONS) + 1)
    print(f"{args.n} respondents per question; Wilson intervals at {confidence:.4f} each (95% together)")
    print(f"{'question':<24} {'stated':<8} {'bayes':<25} {'report':<25} {'ml':<25} {'prior'}")
    ok = [question(name, mechanism, prior, args.n, rng, confidence) for name, mechanism, prior in QUESTIONS]
    ok.append(record(args.n, rng, confidence))
    print(f"{sum(ok)} of {len(ok)} rows ok: the Bayes attack achieves the stated accuracy, no attack beats it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
