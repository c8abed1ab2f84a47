"""Mechanisms whose report is one option index: q-randomized response, the bit flip, k-ary RR,
and the direct (not randomized) channel."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from ..stats.estimates import Estimate
from . import exact_q
from . import sampling as sampler_integers
from .base import EPSILON_MAX, EPSILON_MIN, IndexReports, IntArray, Shape, check_epsilon, check_k, settle


class IndexMechanism(IndexReports):
    """Generalized randomized response on k options, from integers a, b, M = a + (k-1) b.

    p = a / M (report the truth); q_other = b / M (report one given other option).
    Browser rule: U uniform in [0, M); U < a keeps the truth, else report the
    ((U - a) div b)-th of the other k - 1 options in increasing order.
    A report is stored as its option index.
    """

    encoding: ClassVar[str] = "index"
    one_of_k: ClassVar[bool] = True
    shape: ClassVar[Shape] = Shape.INDEX
    sampler_kind: ClassVar[str] = "grr"
    sampler_rule: ClassVar[str] = (
        "U uniform in [0, modulus); U < keep reports the true option, otherwise the "
        "((U - keep) div other)-th of the other k - 1 options in increasing order. "
        "p = keep / modulus, q_other = other / modulus.")
    keep: int
    other: int
    modulus: int

    @property
    def p(self) -> float:
        return self.keep / self.modulus

    @property
    def q_other(self) -> float:
        return self.other / self.modulus

    def sampler(self) -> dict[str, Any]:
        return {"kind": self.sampler_kind, "k": self.k, "modulus": self.modulus, "keep": self.keep,
                "other": self.other}

    @classmethod
    def sampler_channel(cls, sampler: dict[str, Any]) -> tuple[int, int, int]:
        return sampler["keep"], sampler["other"], sampler["modulus"]

    @classmethod
    def sampler_epsilon(cls, sampler: dict[str, Any]) -> float:
        """ln(keep / other): the odds of two reports.

        >>> IndexMechanism.sampler_epsilon({"kind": "grr", "k": 2, "modulus": 4, "keep": 3, "other": 1}) == math.log(3)
        True
        """
        return math.log(sampler["keep"] / sampler["other"])

    @classmethod
    def sampler_loss(cls, sampler: dict[str, Any]) -> tuple[Fraction, Fraction]:
        return Fraction(sampler["keep"], sampler["other"]), Fraction(0)

    def randomize(self, values: npt.ArrayLike, rng: np.random.Generator) -> IntArray:
        truth = self._values(values)
        u = rng.integers(0, self.modulus, size=truth.size, dtype=np.int64)
        j = (u - self.keep) // self.other
        other = j + (j >= truth)
        return np.where(u < self.keep, truth, other)

    def counts(self, reports: npt.ArrayLike) -> IntArray:
        return np.bincount(np.asarray(reports), minlength=self.k).astype(np.int64)

    def estimate(self, counts: npt.ArrayLike, n: int, **options: Any) -> Estimate:
        if int(np.sum(counts)) != n:
            raise ValueError("for one-of-k reports the counts must add up to n")
        return super().estimate(counts, n, **options)


@dataclass(frozen=True)
class QRandomizedResponse(IndexMechanism):
    """q-randomized response (yes/no): tell the truth with probability q, else a fair coin.

    p = (1 + q) / 2, q_other = (1 - q) / 2, epsilon = ln((1 + q) / (1 - q)).
    q is a decimal ("0.5") or a fraction ("2/3"), kept exactly (`ldp.mechanisms.exact_q`); p is then the exact
    fraction a / M whenever its denominator fits in 32 bits (forced response with 1/6 forced yes and 1/6
    forced no is q = 2/3: p = 5/6).

    >>> m = QRandomizedResponse("0.5")
    >>> m.sampler()
    {'kind': 'grr', 'k': 2, 'modulus': 4, 'keep': 3, 'other': 1}
    >>> m.p, m.q_other, round(m.effective_epsilon, 6)
    (0.75, 0.25, 1.098612)
    >>> QRandomizedResponse("2/3").sampler(), QRandomizedResponse("2/3").to_dict()
    ({'kind': 'grr', 'k': 2, 'modulus': 6, 'keep': 5, 'other': 1}, {'mechanism': 'qrr', 'q': '2/3'})
    """

    name: ClassVar[str] = "qrr"
    parameter: ClassVar[str | None] = "q"
    keys: ClassVar[frozenset[str]] = frozenset({"q"})
    label: ClassVar[str] = "q-randomized response"
    yes_no: ClassVar[bool] = True
    truth_probability: Fraction
    k: int = field(default=2, init=False)
    keep: int = field(init=False, repr=False)
    other: int = field(init=False, repr=False)
    modulus: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        q = exact_q.read(self.truth_probability, "q")
        if not (0 < q < 1):
            raise ValueError(f"q must lie strictly between 0 and 1, got {q}")
        eps = math.log((1 + q) / (1 - q))
        if not (EPSILON_MIN <= eps <= EPSILON_MAX):
            raise ValueError(
                f"q = {exact_q.text(q)} gives epsilon {eps:.4g}, outside [{EPSILON_MIN}, {EPSILON_MAX}]"
            )
        a, m = sampler_integers.decimal_half_plus(q)
        settle(self, truth_probability=q, keep=a, other=m - a, modulus=m)

    @property
    def epsilon(self) -> float:
        q = self.truth_probability
        return math.log((1 + q) / (1 - q))

    def to_dict(self) -> dict[str, Any]:
        return {"mechanism": self.name, "q": exact_q.text(self.truth_probability)}

    def describe(self) -> dict[str, Any]:
        """Adds q exactly ("2/3") and as a decimal, for a reader who wants either.

        >>> d = QRandomizedResponse("2/3").describe()
        >>> d["q_exact"], round(d["q_decimal"], 6), d["p_exact"], d["q_other_exact"]
        ('2/3', 0.666667, '5/6', '1/6')
        """
        return {**super().describe(), "q_exact": exact_q.text(self.truth_probability),
                "q_decimal": float(self.truth_probability)}


@dataclass(frozen=True)
class BitFlip(IndexMechanism):
    """Epsilon bit flip (yes/no): keep the bit with probability e^eps / (1 + e^eps).

    The same channel as q-RR with q = tanh(eps / 2). Integers: M = 2^32,
    a = floor(M e^eps / (1 + e^eps)), effective eps = ln(a / (M - a)) <= eps.

    >>> m = BitFlip(1.0)
    >>> m.effective_epsilon <= 1.0, round(m.p, 6), round(m.q_equivalent, 6)
    (True, 0.731059, 0.462117)
    """

    name: ClassVar[str] = "bitflip"
    label: ClassVar[str] = "epsilon bit flip"
    yes_no: ClassVar[bool] = True
    keys: ClassVar[frozenset[str]] = frozenset({"epsilon"})
    epsilon: float
    k: int = field(default=2, init=False)
    keep: int = field(init=False, repr=False)
    other: int = field(init=False, repr=False)
    modulus: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        eps = check_epsilon(self.epsilon)
        a, m = sampler_integers.binary_keep(eps)
        settle(self, epsilon=eps, keep=a, other=m - a, modulus=m)

    def to_dict(self) -> dict[str, Any]:
        return {"mechanism": self.name, "epsilon": self.epsilon}


@dataclass(frozen=True)
class KaryRR(IndexMechanism):
    """k-ary (generalized) randomized response: one report among k options.

    p = e^eps / (e^eps + k - 1), q_other = 1 / (e^eps + k - 1). Integers: b = floor(2^32 / (e^eps + k - 1)),
    a = floor(b e^eps), M = a + (k - 1) b; effective eps = ln(a / b) <= eps.

    >>> m = KaryRR(1.0, 4)
    >>> m.encode(3), m.slots(3), m.q_equivalent is None
    (3, (3,), True)
    """

    name: ClassVar[str] = "krr"
    label: ClassVar[str] = "k-ary randomized response"
    epsilon: float
    k: int
    keep: int = field(init=False, repr=False)
    other: int = field(init=False, repr=False)
    modulus: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        eps = check_epsilon(self.epsilon)
        k = check_k(self.k)
        a, b, m = sampler_integers.kary_keep_other(eps, k)
        settle(self, epsilon=eps, k=k, keep=a, other=b, modulus=m)

    def to_dict(self) -> dict[str, Any]:
        return {"mechanism": self.name, "epsilon": self.epsilon, "k": self.k}


@dataclass(frozen=True)
class Direct(IndexMechanism):
    """A direct question: the answer is sent as given (the identity channel, not randomized).

    p = 1, q_other = 0, so the estimate is the observed fraction c_j / n with an ordinary
    binomial (Wilson) interval, and epsilon is infinite: a direct answer has no deniability.
    `randomized` is False; `survey_epsilon` and `check_budget` count randomized questions only.
    A yes/no question asked directly is Direct(2) with option 1 = yes.

    >>> m = Direct(3)
    >>> m.sampler(), m.p, m.q_other, m.effective_epsilon, m.randomized
    ({'kind': 'direct', 'k': 3}, 1.0, 0.0, inf, False)
    >>> m.randomize([2, 0, 1], np.random.default_rng(0)).tolist()
    [2, 0, 1]
    >>> m.estimate([5, 3, 2], 10).estimate
    (0.5, 0.3, 0.2)
    """

    name: ClassVar[str] = "direct"
    parameter: ClassVar[str | None] = None
    label: ClassVar[str] = "direct (sent as given)"
    sampler_rule: ClassVar[str] = "No randomization: the browser sends the answer as given. p = 1, q_other = 0."
    randomized: ClassVar[bool] = False
    sampler_kind: ClassVar[str] = "direct"
    shape: ClassVar[Shape] = Shape.DIRECT
    codebook_formula: ClassVar[str | None] = (
        "a question with \"randomized\": false is not randomized (its answer is sent as given): "
        "p = 1, q_other = 0, so pi_hat_j = c_j / n with an ordinary binomial interval; its "
        "effective_epsilon is null (infinite) and epsilon_total leaves it out")
    keys: ClassVar[frozenset[str]] = frozenset({"k"})
    k: int
    keep: int = field(default=1, init=False, repr=False)
    other: int = field(default=0, init=False, repr=False)
    modulus: int = field(default=1, init=False, repr=False)

    def __post_init__(self) -> None:
        settle(self, k=check_k(self.k))

    @property
    def epsilon(self) -> float:
        return math.inf

    def sampler(self) -> dict[str, Any]:
        return {"kind": self.sampler_kind, "k": self.k}

    @classmethod
    def sampler_channel(cls, sampler: dict[str, Any]) -> tuple[int, int, int]:
        return 1, 0, 1

    @classmethod
    def sampler_epsilon(cls, sampler: dict[str, Any]) -> float:
        """Infinite: a direct answer is not randomized."""
        return math.inf

    @classmethod
    def sampler_loss(cls, sampler: dict[str, Any]) -> tuple[Fraction, Fraction]:
        raise ValueError("a direct question is not randomized: it has no privacy loss to round")

    def randomize(self, values: npt.ArrayLike, rng: np.random.Generator) -> IntArray:
        """The identity: the reports are the true values (`rng` is not used)."""
        return self._values(values).copy()

    def to_dict(self) -> dict[str, Any]:
        return {"mechanism": self.name, "k": self.k}

