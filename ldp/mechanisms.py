"""The LDP mechanisms: immutable values that carry their privacy cost.

Every mechanism is defined by integers (see `exact`): the channel probabilities p (report
the truth / a 1-bit where the truth is) and q (report a given other option / a 1-bit
elsewhere) are those integers' fractions, so the browser, the simulation and the
debiasing all use one channel. `epsilon` is the configured value; `effective_epsilon`,
computed from the integers, is never larger and is the one to report.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import ClassVar

import numpy as np

from . import exact
from .estimates import Estimate, debias

EPSILON_MIN = 0.05  # below this answers are almost pure noise
EPSILON_MAX = 10.0  # above this there is no meaningful deniability left
K_MAX = 64


class Mechanism:
    """Shared behaviour; subclasses set `name`, `k` and the sampler integers."""

    name: ClassVar[str]
    label: ClassVar[str]
    k: int

    @property
    def p(self) -> float:
        raise NotImplementedError

    @property
    def q(self) -> float:
        raise NotImplementedError

    @property
    def effective_epsilon(self) -> float:
        raise NotImplementedError

    def sampler(self) -> dict:
        raise NotImplementedError

    def to_dict(self) -> dict:
        raise NotImplementedError

    def randomize(self, values, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def counts(self, reports) -> np.ndarray:
        raise NotImplementedError

    def estimate(self, counts, n: int, **options) -> Estimate:
        """Debiased estimates; options: confidence, interval ('wilson'|'exact'), simultaneous."""
        if np.ndim(counts) != 1 or len(counts) != self.k:
            raise ValueError(f"counts must have one entry per option ({self.k})")
        return debias(counts, n, self.p, self.q, **options)

    def variance(self, pi, n: int) -> np.ndarray:
        """Var(pi_hat_j) = lambda_j (1 - lambda_j) / (n (p - q)^2), lambda_j = q + pi_j (p - q)."""
        lam = self.q + np.asarray(pi, dtype=float) * (self.p - self.q)
        return lam * (1.0 - lam) / (n * (self.p - self.q) ** 2)

    def _values(self, values) -> np.ndarray:
        values = np.asarray(values)
        if values.ndim != 1 or not np.issubdtype(values.dtype, np.integer):
            raise ValueError("true values must be a flat array of integer option indexes")
        if values.size and (values.min() < 0 or values.max() >= self.k):
            raise ValueError(f"true values must lie in [0, {self.k})")
        return values.astype(np.int64, copy=False)


def _settle(mechanism, **values) -> None:
    """Set a frozen dataclass's checked and derived fields, once, in __post_init__."""
    for name, value in values.items():
        object.__setattr__(mechanism, name, value)


def _check_epsilon(epsilon) -> float:
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)):
        raise TypeError("epsilon must be a number")
    epsilon = float(epsilon)
    if not (EPSILON_MIN <= epsilon <= EPSILON_MAX):
        raise ValueError(f"epsilon must lie in [{EPSILON_MIN}, {EPSILON_MAX}], got {epsilon}")
    return epsilon


def _check_k(k, minimum: int = 2) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError("k must be an integer")
    if not (minimum <= k <= K_MAX):
        raise ValueError(f"k must lie in [{minimum}, {K_MAX}], got {k}")
    return int(k)


class _Kary(Mechanism):
    """Generalized randomized response channel on k options, from integers a, b, M = a + (k-1) b.

    P(report = truth) = p = a / M; P(report = a given other option) = q = b / M.
    Browser rule: U uniform in [0, M); U < a keeps the truth, else report the
    ((U - a) div b)-th of the other k - 1 options in increasing order.
    """

    keep: int
    other: int
    modulus: int

    @property
    def p(self) -> float:
        return self.keep / self.modulus

    @property
    def q(self) -> float:
        return self.other / self.modulus

    @property
    def effective_epsilon(self) -> float:
        """eps = ln(p / q) = ln(a / b)."""
        return math.log(self.keep / self.other)

    def sampler(self) -> dict:
        return {"kind": "grr", "k": self.k, "modulus": self.modulus,
                "keep": self.keep, "other": self.other}

    def randomize(self, values, rng: np.random.Generator) -> np.ndarray:
        values = self._values(values)
        u = rng.integers(0, self.modulus, size=values.size, dtype=np.int64)
        j = (u - self.keep) // self.other
        other = j + (j >= values)
        return np.where(u < self.keep, values, other)

    def counts(self, reports) -> np.ndarray:
        return np.bincount(np.asarray(reports), minlength=self.k)

    def estimate(self, counts, n: int, **options) -> Estimate:
        if int(np.sum(counts)) != n:
            raise ValueError("for one-of-k reports the counts must add up to n")
        return super().estimate(counts, n, **options)


@dataclass(frozen=True)
class QRandomizedResponse(_Kary):
    """q-randomized response (yes/no): tell the truth with probability q, else a fair coin.

    p = (1 + q) / 2, q_other = (1 - q) / 2, epsilon = ln((1 + q) / (1 - q)).
    q is a decimal (e.g. "0.5"); p is then an exact fraction a / M.
    """

    name: ClassVar[str] = "qrr"
    label: ClassVar[str] = "q-randomized response"
    truth_probability: Fraction
    k: int = field(default=2, init=False)
    keep: int = field(init=False, repr=False)
    other: int = field(init=False, repr=False)
    modulus: int = field(init=False, repr=False)

    def __post_init__(self):
        q = _decimal_fraction(self.truth_probability, "q")
        if not (0 < q < 1):
            raise ValueError(f"q must lie strictly between 0 and 1, got {q}")
        eps = math.log((1 + q) / (1 - q))
        if not (EPSILON_MIN <= eps <= EPSILON_MAX):
            raise ValueError(
                f"q = {float(q)} gives epsilon {eps:.4g}, outside [{EPSILON_MIN}, {EPSILON_MAX}]"
            )
        a, m = exact.decimal_half_plus(q)
        _settle(self, truth_probability=q, keep=a, other=m - a, modulus=m)

    @property
    def epsilon(self) -> float:
        q = self.truth_probability
        return math.log((1 + q) / (1 - q))

    def to_dict(self) -> dict:
        return {"mechanism": self.name, "q": _decimal_text(self.truth_probability)}


@dataclass(frozen=True)
class BitFlip(_Kary):
    """Epsilon bit flip (yes/no): keep the bit with probability e^eps / (1 + e^eps).

    The same channel as q-RR with q = tanh(eps / 2). Integers: M = 2^32,
    a = floor(M e^eps / (1 + e^eps)), effective eps = ln(a / (M - a)) <= eps.
    """

    name: ClassVar[str] = "bitflip"
    label: ClassVar[str] = "epsilon bit flip"
    epsilon: float
    k: int = field(default=2, init=False)
    keep: int = field(init=False, repr=False)
    other: int = field(init=False, repr=False)
    modulus: int = field(init=False, repr=False)

    def __post_init__(self):
        eps = _check_epsilon(self.epsilon)
        a, m = exact.binary_keep(eps)
        _settle(self, epsilon=eps, keep=a, other=m - a, modulus=m)

    def to_dict(self) -> dict:
        return {"mechanism": self.name, "epsilon": self.epsilon}


@dataclass(frozen=True)
class KaryRR(_Kary):
    """k-ary (generalized) randomized response: one report among k options.

    p = e^eps / (e^eps + k - 1), q = 1 / (e^eps + k - 1). Integers: b = floor(2^32 / (e^eps + k - 1)),
    a = floor(b e^eps), M = a + (k - 1) b; effective eps = ln(a / b) <= eps.
    """

    name: ClassVar[str] = "krr"
    label: ClassVar[str] = "k-ary randomized response"
    epsilon: float
    k: int
    keep: int = field(init=False, repr=False)
    other: int = field(init=False, repr=False)
    modulus: int = field(init=False, repr=False)

    def __post_init__(self):
        eps = _check_epsilon(self.epsilon)
        k = _check_k(self.k)
        a, b, m = exact.kary_keep_other(eps, k)
        _settle(self, epsilon=eps, k=k, keep=a, other=b, modulus=m)

    def to_dict(self) -> dict:
        return {"mechanism": self.name, "epsilon": self.epsilon, "k": self.k}


class _Unary(Mechanism):
    """Unary encoding: the truth becomes a one-hot vector of k bits, each bit flipped independently.

    P(bit = 1 | bit was 1) = p = a1 / M, P(bit = 1 | bit was 0) = q = a0 / M,
    epsilon = ln(p (1 - q) / (q (1 - p))). A report is k bits; the counts are the number of
    1s per bit, each out of n.
    """

    one_if_true: int
    one_if_false: int
    modulus: int

    @property
    def p(self) -> float:
        return self.one_if_true / self.modulus

    @property
    def q(self) -> float:
        return self.one_if_false / self.modulus

    @property
    def effective_epsilon(self) -> float:
        a1, a0, m = self.one_if_true, self.one_if_false, self.modulus
        return math.log(a1 * (m - a0) / (a0 * (m - a1)))

    def sampler(self) -> dict:
        return {"kind": "unary", "k": self.k, "modulus": self.modulus,
                "one_if_true": self.one_if_true, "one_if_false": self.one_if_false}

    def randomize(self, values, rng: np.random.Generator) -> np.ndarray:
        """An (n, k) array of 0/1 bits."""
        values = self._values(values)
        dtype = np.uint32 if self.modulus <= 2**32 else np.int64
        u = rng.integers(0, self.modulus, size=(values.size, self.k), dtype=dtype)
        bits = (u < self.one_if_false).astype(np.uint8)
        rows = np.arange(values.size)
        bits[rows, values] = u[rows, values] < self.one_if_true
        return bits

    def counts(self, reports) -> np.ndarray:
        return np.asarray(reports).reshape(-1, self.k).sum(axis=0, dtype=np.int64)

    def to_dict(self) -> dict:
        return {"mechanism": self.name, "epsilon": self.epsilon, "k": self.k}


@dataclass(frozen=True)
class SymmetricUnary(_Unary):
    """Symmetric unary encoding (SUE, basic RAPPOR): each bit kept with e^(eps/2) / (e^(eps/2) + 1).

    p = e^(eps/2) / (e^(eps/2) + 1), q = 1 - p. Integers: a1 = floor(2^32 p), a0 = 2^32 - a1.
    """

    name: ClassVar[str] = "sue"
    label: ClassVar[str] = "symmetric unary encoding"
    epsilon: float
    k: int
    one_if_true: int = field(init=False, repr=False)
    one_if_false: int = field(init=False, repr=False)
    modulus: int = field(init=False, repr=False)

    def __post_init__(self):
        eps = _check_epsilon(self.epsilon)
        k = _check_k(self.k)
        a, m = exact.binary_keep(eps / 2.0)
        _settle(self, epsilon=eps, k=k, one_if_true=a, one_if_false=m - a, modulus=m)


@dataclass(frozen=True)
class OptimizedUnary(_Unary):
    """Optimized unary encoding (OUE; Wang et al. 2017): p = 1/2, q = 1 / (e^eps + 1).

    Integers: M = 2^32, a1 = M / 2, a0 = ceil(M / (e^eps + 1)); effective eps = ln((M - a0) / a0).
    """

    name: ClassVar[str] = "oue"
    label: ClassVar[str] = "optimized unary encoding"
    epsilon: float
    k: int
    one_if_true: int = field(init=False, repr=False)
    one_if_false: int = field(init=False, repr=False)
    modulus: int = field(init=False, repr=False)

    def __post_init__(self):
        eps = _check_epsilon(self.epsilon)
        k = _check_k(self.k)
        a1, a0, m = exact.oue_false_one(eps)
        _settle(self, epsilon=eps, k=k, one_if_true=a1, one_if_false=a0, modulus=m)


MECHANISMS = {cls.name: cls for cls in
              (QRandomizedResponse, BitFlip, KaryRR, SymmetricUnary, OptimizedUnary)}
YES_NO = frozenset({"qrr", "bitflip"})


def from_dict(data: dict) -> Mechanism:
    """Inverse of `Mechanism.to_dict`; rejects unknown names and unexpected keys."""
    if not isinstance(data, dict) or data.get("mechanism") not in MECHANISMS:
        raise ValueError(f"mechanism must be one of {sorted(MECHANISMS)}")
    name = data["mechanism"]
    expected = {"qrr": {"q"}, "bitflip": {"epsilon"}}.get(name, {"epsilon", "k"})
    keys = set(data) - {"mechanism"}
    if keys != expected:
        raise ValueError(f"{name} takes exactly {sorted(expected)}, got {sorted(keys)}")
    if name == "qrr":
        return QRandomizedResponse(data["q"])
    return MECHANISMS[name](**{key: data[key] for key in expected})


def make(name: str, *, k: int = 2, q=None, epsilon=None) -> Mechanism:
    """Build a mechanism by name: qrr takes q, the others epsilon; krr/sue/oue take k."""
    if name not in MECHANISMS:
        raise ValueError(f"mechanism must be one of {sorted(MECHANISMS)}, got {name!r}")
    if name == "qrr":
        if q is None or epsilon is not None:
            raise ValueError("qrr takes q, not epsilon")
        return QRandomizedResponse(q)
    if epsilon is None or q is not None:
        raise ValueError(f"{name} takes epsilon, not q")
    if name == "bitflip":
        if k != 2:
            raise ValueError("bitflip is for yes/no questions (k = 2)")
        return BitFlip(epsilon)
    return MECHANISMS[name](epsilon, k)


def q_from_epsilon(epsilon: float) -> float:
    """The q of q-randomized response with the same channel: q = tanh(eps / 2)."""
    return math.tanh(epsilon / 2.0)


def epsilon_from_q(q: float) -> float:
    """epsilon = ln((1 + q) / (1 - q)) = 2 artanh(q)."""
    return math.log((1 + q) / (1 - q))


def _decimal_fraction(value, name: str) -> Fraction:
    """Read q exactly as written: "0.5", "1/3", Decimal, Fraction or a float's shortest repr."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a number")
    if isinstance(value, Fraction):
        return value
    try:
        return Fraction(str(value))
    except (ValueError, ZeroDivisionError, OverflowError):
        raise ValueError(f"{name} must be a finite decimal number or fraction, got {value!r}") from None


def _decimal_text(value: Fraction) -> str:
    """Shortest decimal text of a fraction with a power-of-ten-friendly denominator."""
    text = format(Decimal(value.numerator) / Decimal(value.denominator), "f")
    if Fraction(Decimal(text)) != value:
        return f"{value.numerator}/{value.denominator}"
    return text
