"""The privacy map of the multi-select, 1-bit mean and discrete Laplace samplers, from the published integers.

For small k and small grids every pair of allowed true answers and every report is enumerated; the
probability of each report is computed exactly (Fractions) by following the sampler rule on its
integers, never from ldp's formulas. The largest ratio must stay within e^(claimed epsilon), equal it
(the claim is the true loss, not more), and the claim must not exceed the configured epsilon (decided
with 200-digit decimals, independently of ldp.mechanisms.sampling).
"""

from __future__ import annotations

import itertools
import math
from decimal import Decimal, localcontext
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ldp
from ldp.mechanisms import registry
from ldp.offline.cells import report_probabilities

EPSILONS = [ldp.EPSILON_MIN, 0.3, math.log(3), 2.0, 5.0, ldp.EPSILON_MAX]
SETTINGS = settings(max_examples=150, deadline=None, database=None, derandomize=True)


def ln(ratio: Fraction) -> Decimal:
    with localcontext() as context:
        context.prec = 200
        return (Decimal(ratio.numerator) / Decimal(ratio.denominator)).ln()


def at_most_configured(ratio: Fraction, epsilon: float) -> bool:
    """ln(ratio) <= epsilon; at 200 digits a tie would need agreement to 1e-190."""
    return ln(ratio) <= Decimal(epsilon)


def check_claim(max_ratio: Fraction, m) -> None:
    true_loss = ln(max_ratio)
    assert at_most_configured(max_ratio, m.epsilon), f"{m}: true loss {true_loss} above configured {m.epsilon}"
    assert m.effective_epsilon <= m.epsilon
    # The claim is the true loss (to float precision): never below it, and not above it either.
    assert abs(Decimal(m.effective_epsilon) - true_loss) <= Decimal(1e-13) * max(1, true_loss)


# --- multi-select ------------------------------------------------------------------------------


def multiselect_report_probability(sampler: dict, truth: tuple[int, ...], report: tuple[int, ...]) -> Fraction:
    """Bits independent, each equal to the truth when U < keep, U uniform in [0, M)."""
    keep, modulus = sampler["keep"], sampler["modulus"]
    probability = Fraction(1)
    for true_bit, reported in zip(truth, report, strict=True):
        probability *= Fraction(keep if reported == true_bit else modulus - keep, modulus)
    return probability


@pytest.mark.parametrize("epsilon", [0.05, math.log(3), 4.0, 10.0])
@pytest.mark.parametrize("k, at_most", [(k, m) for k in (2, 3, 4, 5) for m in (None, *range(1, k))])
def test_multiselect_ratio_over_every_pair_of_answers_and_report_is_the_claim(k, at_most, epsilon):
    m = ldp.MultiSelect(epsilon, k, at_most)
    sampler = m.sampler()
    limit = k if at_most is None else at_most
    answers = [bits for bits in itertools.product((0, 1), repeat=k) if sum(bits) <= limit]
    reports = list(itertools.product((0, 1), repeat=k))
    table = {x: [multiselect_report_probability(sampler, x, y) for y in reports] for x in answers}
    for x in answers:
        assert sum(table[x]) == 1
    max_ratio = max(a / b for x in answers for x2 in answers if x != x2
                    for a, b in zip(table[x], table[x2], strict=True))
    check_claim(max_ratio, m)
    # d is the largest Hamming distance between allowed answers, and every bit costs ln(keep / (M - keep)).
    d = max(sum(a != b for a, b in zip(x, x2, strict=True)) for x, x2 in itertools.combinations(answers, 2))
    assert d == (k if at_most is None else min(k, 2 * at_most)) == m.hamming
    assert max_ratio == Fraction(m.keep, m.modulus - m.keep) ** d


@SETTINGS
@given(epsilon=st.floats(min_value=ldp.EPSILON_MIN, max_value=ldp.EPSILON_MAX), k=st.integers(2, ldp.K_MAX),
       at_most=st.one_of(st.none(), st.integers(1, ldp.K_MAX - 1)))
def test_multiselect_keep_is_the_largest_within_epsilon_over_d_bits(epsilon, k, at_most):
    at_most = None if at_most is None or at_most >= k else at_most
    m = ldp.MultiSelect(epsilon, k, at_most)
    d = k if at_most is None else min(k, 2 * at_most)
    assert m.modulus == 2**32 and m.modulus // 2 < m.keep < m.modulus
    assert at_most_configured(Fraction(m.keep, m.modulus - m.keep) ** d, epsilon)
    assert not at_most_configured(Fraction(m.keep + 1, m.modulus - m.keep - 1) ** d, epsilon)
    assert m.effective_epsilon <= epsilon
    assert m.effective_epsilon == pytest.approx(float(d * ln(Fraction(m.keep, m.modulus - m.keep))), rel=1e-12)


# --- 1-bit mean --------------------------------------------------------------------------------


def onebit_report_probability(sampler: dict, truth: int, report: int) -> Fraction:
    """Enumerate U1 in [0, steps): bit = [U1 < truth]; kept with keep / M."""
    steps, keep, modulus = sampler["steps"], sampler["keep"], sampler["modulus"]
    total = Fraction(0)
    for u1 in range(steps):
        bit = int(u1 < truth)
        total += Fraction(keep if bit == report else modulus - keep, modulus)
    return total / steps


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("lo, hi, step", [("0", "1", "1"), ("0", "4", "1"), ("-1", "1", "0.5"), ("1", "7", "1")])
def test_onebit_ratio_over_every_pair_of_grid_values_and_report_is_the_claim(lo, hi, step, epsilon):
    m = ldp.OneBitMean(epsilon, lo, hi, step)
    sampler = m.sampler()
    table = {i: [onebit_report_probability(sampler, i, y) for y in (0, 1)] for i in range(m.steps + 1)}
    assert all(sum(row) == 1 for row in table.values())
    max_ratio = max(table[i][y] / table[j][y] for i in table for j in table for y in (0, 1))
    check_claim(max_ratio, m)
    assert max_ratio == Fraction(m.keep, m.modulus - m.keep)  # the two ends of the range


# --- discrete Laplace ----------------------------------------------------------------------------


def laplace_exponent(steps: int, bound: int, truth: int, report: int) -> int:
    """P(report | truth) = K_report a^e with K depending on the report only: the interior reports have
    K = (1 - a) / (1 + a) and e = |report - truth|; the clamped ends collect a geometric tail,
    K = 1 / (1 + a) and e = bound + truth (report -bound) or steps + bound - truth (report steps + bound)."""
    if report == -bound:
        return bound + truth
    if report == steps + bound:
        return steps + bound - truth
    return abs(report - truth)


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("steps", [1, 2, 3, 5])
def test_dlaplace_ratio_over_every_pair_of_grid_values_and_report_in_the_window_is_the_claim(steps, epsilon):
    m = ldp.DiscreteLaplace(epsilon, "0", str(steps), "1")
    sampler = m.sampler()
    t, s, bound = sampler["scale_num"], sampler["scale_den"], sampler["bound"]
    assert 1 <= t <= 2**32 and 1 <= s <= 2**32
    assert Fraction(steps * s, t) <= Fraction(epsilon)  # exact: a float is a rational
    worst = max(laplace_exponent(steps, bound, j, r) - laplace_exponent(steps, bound, i, r)
                for i in range(steps + 1) for j in range(steps + 1) for r in range(-bound, steps + bound + 1))
    # P(r | i) / P(r | j) = a^(e_i - e_j) <= exp(worst s / t): the true loss is worst * s / t.
    assert worst == steps
    true_loss = Fraction(worst * s, t)
    assert true_loss <= Fraction(epsilon)
    assert m.effective_epsilon == float(true_loss) <= epsilon


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("steps", [1, 3])
def test_dlaplace_published_pmf_ratios_stay_within_the_claim(steps, epsilon):
    """The same bound on the audit's expected distribution (floats, cells of single reports near the grid)."""
    m = ldp.DiscreteLaplace(epsilon, "0", str(steps), "1")
    rows = [report_probabilities(m.sampler(), i) for i in range(steps + 1)]
    for row in rows:
        assert math.fsum(row) == pytest.approx(1.0, abs=1e-12)
    ratios = [a / b for r1 in rows for r2 in rows for a, b in zip(r1, r2, strict=True) if a > 1e-250 and b > 1e-250]
    assert max(ratios) <= math.exp(m.effective_epsilon) * (1 + 1e-9)


@SETTINGS
@given(epsilon=st.floats(min_value=ldp.EPSILON_MIN, max_value=ldp.EPSILON_MAX),
       steps=st.integers(1, ldp.mechanisms.grid.STEPS_MAX))
def test_dlaplace_scale_is_exact_and_as_close_to_epsilon_as_32_bit_integers_allow(epsilon, steps):
    m = ldp.DiscreteLaplace(epsilon, "0", str(steps), "1")
    t, s = m.scale_num, m.scale_den
    assert Fraction(steps * s, t) <= Fraction(epsilon)
    assert m.effective_epsilon <= epsilon
    # Tight: the loss of precision is far below what a display shows.
    assert m.effective_epsilon == pytest.approx(epsilon, rel=1e-6)
    # The clamp bound: the clamp moves the mean by less than 2^-60 steps, and no less bound would do.
    x = Decimal(s) / Decimal(t)
    with localcontext() as context:
        context.prec = 60
        a = (-x).exp()

        def excess(bound):
            return 2 * a ** (bound + 1) / (1 - a * a)

        assert excess(m.bound) < Decimal(2) ** -60
        assert m.bound == 0 or excess(m.bound - 1) >= Decimal(2) ** -60
    assert m.steps + 2 * m.bound < 2**53  # reports stay exact JavaScript numbers


def test_sampler_epsilon_of_multiselect_onebit_and_dlaplace_comes_from_their_integers():
    m = 2**32
    keep = 3 * 2**30
    assert registry.sampler_epsilon({"kind": "multiselect", "k": 5, "at_most": 2, "modulus": m, "keep": keep}) \
        == pytest.approx(4 * math.log(3))
    assert registry.sampler_epsilon({"kind": "onebit", "steps": 9, "modulus": m, "keep": keep}) == pytest.approx(
        math.log(3))
    assert registry.sampler_epsilon({"kind": "dlaplace", "steps": 3, "scale_num": 7, "scale_den": 2, "bound": 50}) \
        == 6 / 7
    assert registry.sampler_channel({"kind": "onebit", "steps": 9, "modulus": m, "keep": keep}) == (keep, m - keep, m)
