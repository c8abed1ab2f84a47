"""q as an exact fraction: forced response with 1/6 forced yes and 1/6 forced no is q = 2/3, and the browser's
integers sample P(yes | yes) = 5/6 exactly; a q the integers cannot carry is refused where it is typed."""

import subprocess
import sys
from fractions import Fraction

import pytest

import ldp
from ldp.mechanisms import exact_q
from ldp.mechanisms.sampling import WORD


def browser_report_counts(sampler, truth):
    """How many of the modulus's equally likely values of U give each report, by the browser's rule
    (static/js/randomizer.js): U < keep keeps the truth, else the ((U - keep) div other)-th other option.
    Each U is equally likely: of the 2^32 words, the first modulus * floor(2^32 / modulus) are taken mod
    modulus (floor(2^32 / modulus) words each), the rest rejected."""
    k, keep, other, modulus = sampler["k"], sampler["keep"], sampler["other"], sampler["modulus"]
    assert keep + (k - 1) * other == modulus <= WORD
    others = [j for j in range(k) if j != truth]
    counts = [0] * k
    for u in range(modulus):
        counts[truth if u < keep else others[(u - keep) // other]] += WORD // modulus
    return counts


def test_forced_response_two_thirds_gives_yes_given_yes_exactly_five_sixths():
    sampler = ldp.QRandomizedResponse("2/3").sampler()
    accepted = (WORD // sampler["modulus"]) * sampler["modulus"]
    yes_given_yes = browser_report_counts(sampler, truth=1)
    yes_given_no = browser_report_counts(sampler, truth=0)
    assert Fraction(yes_given_yes[1], accepted) == Fraction(5, 6)
    assert Fraction(yes_given_no[1], accepted) == Fraction(1, 6)
    # The decimal the six-place column stored made it 0.8333335: more than the design's epsilon (ln 5).
    six_places = ldp.QRandomizedResponse("0.666667").sampler()
    assert Fraction(browser_report_counts(six_places, 1)[1], (WORD // six_places["modulus"]) * six_places["modulus"]) \
        == Fraction(8333335, 10**7)


@pytest.mark.parametrize("q, typed", [
    (Fraction(2, 3), "2/3"), (Fraction(1, 2), "0.5"), (Fraction(1, 7), "1/7"), (Fraction(5, 8), "0.625"),
    (Fraction(123456789, 10**9), "0.123456789"), (Fraction(1_500_000_001, 3_000_000_001), "1500000001/3000000001"),
])
def test_q_is_written_as_typed_and_read_back_exactly(q, typed):
    assert exact_q.text(q) == typed
    assert exact_q.read(typed) == q
    assert ldp.QRandomizedResponse(typed).to_dict() == {"mechanism": "qrr", "q": typed}


@pytest.mark.parametrize("typed, q", [("0.500000", Fraction(1, 2)), (" 2/3 ", Fraction(2, 3)), ("4/6", Fraction(2, 3)),
                                      ("6.25e-1", Fraction(5, 8))])
def test_other_spellings_of_the_same_q_read_the_same(typed, q):
    assert exact_q.read(typed) == q


@pytest.mark.parametrize("typed", ["2/3", "1/3", "0.1234567", "0.123456789", "1500000001/3000000001",
                                   "1073741825/2147483648"])
def test_a_carried_q_makes_p_exactly_one_plus_q_over_two(typed):
    q = exact_q.typed(typed)
    m = ldp.QRandomizedResponse(q)
    assert (Fraction(m.keep, m.modulus), Fraction(m.other, m.modulus)) == ((1 + q) / 2, (1 - q) / 2)


def test_the_limit_is_a_denominator_of_two_to_the_32_exactly():
    assert (1 + Fraction(1, 2**31)) / 2 == Fraction(2**31 + 1, 2**32)  # the largest denominator allowed
    assert exact_q.carried(Fraction(1, 2**31))
    assert not exact_q.carried(Fraction(1, 2**32 + 1))  # (1 + q)/2 = (2^32 + 2) / (2 (2^32 + 1)): 2^32 + 1
    assert not exact_q.carried(Fraction(1, 5_000_000_001))


@pytest.mark.parametrize("typed", ["1/5000000001", "0.1234567890123", "1/4294967297"])
def test_a_q_the_integers_cannot_carry_is_refused_naming_it(typed):
    with pytest.raises(ValueError, match=r"^q = .* cannot be sampled exactly"):
        exact_q.typed(typed)


@pytest.mark.parametrize("typed", ["abc", "1/0", "nan", "inf", ""])
def test_what_is_no_number_is_refused_naming_q(typed):
    with pytest.raises(ValueError, match="^q must be"):
        exact_q.read(typed)


def test_a_swapped_fraction_is_no_probability():
    with pytest.raises(ValueError, match="q must lie strictly between 0 and 1"):
        ldp.QRandomizedResponse("3/2")


def test_the_description_shows_q_exactly_and_as_a_decimal():
    described = ldp.QRandomizedResponse("2/3").describe()
    assert {key: described[key] for key in ("parameters", "q_exact", "q_decimal", "p_exact", "q_other_exact")} == {
        "parameters": {"mechanism": "qrr", "q": "2/3"}, "q_exact": "2/3", "q_decimal": 2 / 3, "p_exact": "5/6",
        "q_other_exact": "1/6"}
    assert exact_q.shown(Fraction(2, 3)) == "2/3 ≈ 0.666667"
    assert exact_q.shown(Fraction(1, 2)) == "0.5"


def run(*arguments):
    return subprocess.run([sys.executable, "-m", "ldp", *arguments], capture_output=True, text=True, check=False)


def test_the_command_line_takes_a_fraction_and_refuses_one_it_cannot_sample():
    simulate = ("simulate", "--mechanism", "qrr", "--truth", "0.3", "--n", "50", "--reps", "1", "--seed", "1")
    assert run(*simulate, "--q", "2/3").returncode == 0
    refused = run(*simulate, "--q", "1/5000000001")
    assert refused.returncode == 2
    assert "argument --q: q = 1/5000000001 cannot be sampled exactly" in refused.stderr
