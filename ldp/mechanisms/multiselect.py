"""Multi-select questions ("tick all that apply"): k options, the answer is any subset of them,
or at most `at_most` of them.

The browser sends every one of the k bits (a skipped bit would itself be a signal), each kept with
probability p = keep / M and flipped otherwise, independently, in order 0..k-1, M = 2^32.

Privacy: for true answers x, x' (bit vectors) and any report y, each bit where x and x' agree has the
same probability under both, and each bit where they differ contributes p / (1 - p) or its inverse, so
    P(y | x) / P(y | x') <= (p / (1 - p))^|x xor x'| <= (keep / (M - keep))^d,
with d the largest Hamming distance between two allowed answers: d = k for any subset, and
d = min(k, 2 at_most) when at most `at_most` may be ticked (|x xor x'| <= |x| + |x'|), both attained.
So each bit gets the per-bit epsilon e_b = epsilon / d and the mechanism costs d e_b = epsilon:
keep is the largest integer with (keep / (M - keep))^d <= e^epsilon, decided exactly
(`sampler_integers.power_keep`), and effective epsilon = d ln(keep / (M - keep)).

Estimate: bit j is 1 with probability lambda_j = q + pi_j (p - q) (q = 1 - p), pi_j the fraction who
ticked option j, so the per-option fractions debias like unary bits (`ldp.stats.estimates.debias`); they need
not add up to 1 (ignore `Estimate.simplex`, which assumes one answer per respondent).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from . import sampling as sampler_integers
from .base import Shape, check_epsilon, check_k, is_int, settle
from .unary import UnaryMechanism


@dataclass(frozen=True)
class MultiSelect(UnaryMechanism):
    """Every bit of a multi-select answer kept with keep / M, flipped otherwise (see the module docstring).

    >>> m = MultiSelect(2.0, 5, at_most=2)
    >>> m.hamming, round(m.per_bit_epsilon, 6), m.effective_epsilon <= 2.0
    (4, 0.5, True)
    >>> m.encode([1, 0, 0, 1, 0]), m.slots(9)
    (9, (0, 3))
    """

    name: ClassVar[str] = "multiselect"
    label: ClassVar[str] = "multi-select (every bit randomized)"
    one_of_k: ClassVar[bool] = False
    keeps_bits: ClassVar[bool] = True
    shape: ClassVar[Shape] = Shape.TICKS
    sampler_kind: ClassVar[str] = "multiselect"
    keys: ClassVar[frozenset[str]] = frozenset({"epsilon", "k", "at_most"})
    codebook_formula: ClassVar[str | None] = (
        "multi-select: bit j is the option-j box, kept with p = keep / modulus and flipped otherwise; "
        "c_j = reports with bit j set, pi_hat_j = (c_j / n - q_other) / (p - q_other) as above, the "
        "fraction who ticked option j (these need not add up to 1)")
    sampler_rule: ClassVar[str] = (
        "The true answer is k bits with at most at_most ones (any number if at_most is null); "
        "for bits j = 0..k-1 in order, U_j uniform in [0, modulus): report bit j = the true bit if "
        "U_j < keep, else its flip. p = keep / modulus, q_other = 1 - p.")
    epsilon: float
    k: int
    at_most: int | None = None
    keep: int = field(init=False, repr=False)
    one_if_true: int = field(init=False, repr=False)
    one_if_false: int = field(init=False, repr=False)
    modulus: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        eps = check_epsilon(self.epsilon)
        k = check_k(self.k)
        at_most = self.at_most
        if at_most is not None:
            if not is_int(at_most):
                raise TypeError("at_most must be an integer or None")
            if not 1 <= at_most < k:
                raise ValueError(f"at_most must lie in [1, {k - 1}] (None allows any subset), got {at_most}")
            at_most = int(at_most)
        keep, modulus = sampler_integers.power_keep(eps, sampler_integers.hamming(k, at_most))
        settle(self, epsilon=eps, k=k, at_most=at_most, keep=keep, one_if_true=keep, one_if_false=modulus - keep,
               modulus=modulus)

    @property
    def hamming(self) -> int:
        """d: the most bits two allowed answers differ in."""
        return sampler_integers.hamming(self.k, self.at_most)

    @property
    def per_bit_epsilon(self) -> float:
        """ln(keep / (M - keep)), at most epsilon / d."""
        return math.log(self.keep / (self.modulus - self.keep))

    @property
    def effective_epsilon(self) -> float:
        # Exactly <= epsilon (power_keep); min() keeps a float log's last ulp from showing more.
        return min(super().effective_epsilon, self.epsilon)

    @classmethod
    def sampler_channel(cls, sampler: dict[str, Any]) -> tuple[int, int, int]:
        return sampler["keep"], sampler["modulus"] - sampler["keep"], sampler["modulus"]

    @classmethod
    def sampler_epsilon(cls, sampler: dict[str, Any]) -> float:
        """d ln(keep / (M - keep)), d = `sampler_integers.hamming`: every bit two answers differ in costs."""
        keep, m = sampler["keep"], sampler["modulus"]
        return sampler_integers.hamming(sampler["k"], sampler["at_most"]) * math.log(keep / (m - keep))

    @classmethod
    def sampler_loss(cls, sampler: dict[str, Any]) -> tuple[Fraction, Fraction]:
        keep, m = sampler["keep"], sampler["modulus"]
        return Fraction(keep, m - keep) ** sampler_integers.hamming(sampler["k"], sampler["at_most"]), Fraction(0)

    def sampler(self) -> dict[str, Any]:
        return {"kind": self.sampler_kind, "k": self.k, "at_most": self.at_most, "modulus": self.modulus,
                "keep": self.keep}

    def to_dict(self) -> dict[str, Any]:
        return {"mechanism": self.name, "epsilon": self.epsilon, "k": self.k, "at_most": self.at_most}

    def describe(self) -> dict[str, Any]:
        """`Mechanism.describe` with the per-bit epsilon and d, the bits two answers can differ in
        (effective epsilon = hamming_d * per_bit_epsilon), and at_most.

        >>> d = MultiSelect(1.0, 4).describe()
        >>> d["hamming_d"], round(d["per_bit_epsilon"] * d["hamming_d"], 6), d["at_most"]
        (4, 1.0, None)
        """
        return {**super().describe(), "per_bit_epsilon": self.per_bit_epsilon, "hamming_d": self.hamming,
                "at_most": self.at_most}

    def truth_bits(self, values: npt.ArrayLike) -> npt.NDArray[np.uint8]:
        """Check true answers: an (n, k) array of 0/1 with at most `at_most` ones per row."""
        bits = np.asarray(values)
        if bits.ndim != 2 or bits.shape[1] != self.k or not (np.issubdtype(bits.dtype, np.integer)
                                                              or bits.dtype == np.bool_):
            raise ValueError(f"true answers must be an (n, {self.k}) array of 0/1 bits")
        if bits.size and (bits.min() < 0 or bits.max() > 1):
            raise ValueError("true answers must be bits (0 or 1)")
        if self.at_most is not None and bits.size and int(bits.sum(axis=1).max()) > self.at_most:
            raise ValueError(f"a true answer ticks more than at_most = {self.at_most} options")
        return bits.astype(np.uint8, copy=False)

    def randomize(self, values: npt.ArrayLike, rng: np.random.Generator) -> npt.NDArray[np.uint8]:
        """An (n, k) array of reported bits: each true bit kept when U < keep, U uniform in [0, M)."""
        truth = self.truth_bits(values)
        u = rng.integers(0, self.modulus, size=truth.shape, dtype=np.uint32 if self.modulus <= 2**32 else np.int64)
        return truth ^ (u >= self.keep).view(np.uint8)
