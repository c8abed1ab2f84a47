"""Unary encodings: the truth becomes a one-hot vector of k bits, each bit randomized independently."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar, cast

import numpy as np
import numpy.typing as npt

from . import sampling as sampler_integers
from .base import IntArray, Mechanism, ReportError, Shape, as_int_array, check_epsilon, check_k, is_int, settle


class UnaryMechanism(Mechanism):
    """P(bit = 1 | bit was 1) = p = a1 / M, P(bit = 1 | bit was 0) = q_other = a0 / M,
    epsilon = ln(p (1 - q_other) / (q_other (1 - p))). A report is k bits, stored as a bitmask
    (bit j = option j); the counts are the number of 1s per bit, each out of n.
    """

    encoding: ClassVar[str] = "bits"
    one_of_k: ClassVar[bool] = True
    shape: ClassVar[Shape] = Shape.BITS
    sampler_kind: ClassVar[str] = "unary"
    sampler_rule: ClassVar[str] = (
        "A one-hot vector of k bits; each bit independently reported as 1 with probability "
        "one_if_true / modulus where the truth is, one_if_false / modulus elsewhere. "
        "p = one_if_true / modulus, q_other = one_if_false / modulus.")
    epsilon: float
    one_if_true: int
    one_if_false: int
    modulus: int

    @property
    def p(self) -> float:
        return self.one_if_true / self.modulus

    @property
    def q_other(self) -> float:
        return self.one_if_false / self.modulus

    def sampler(self) -> dict[str, Any]:
        return {"kind": self.sampler_kind, "k": self.k, "modulus": self.modulus,
                "one_if_true": self.one_if_true, "one_if_false": self.one_if_false}

    @classmethod
    def sampler_channel(cls, sampler: dict[str, Any]) -> tuple[int, int, int]:
        return sampler["one_if_true"], sampler["one_if_false"], sampler["modulus"]

    @classmethod
    def sampler_epsilon(cls, sampler: dict[str, Any]) -> float:
        """ln(a1 (M - a0) / (a0 (M - a1))): two answers differ in two bits."""
        a1, a0, m = cls.sampler_channel(sampler)
        return math.log(a1 * (m - a0) / (a0 * (m - a1)))

    @classmethod
    def sampler_loss(cls, sampler: dict[str, Any]) -> tuple[Fraction, Fraction]:
        a1, a0, m = cls.sampler_channel(sampler)
        return Fraction(a1 * (m - a0), a0 * (m - a1)), Fraction(0)

    def encode(self, report: Any) -> int:
        """A list of k bits as a bitmask.

        >>> OptimizedUnary(1.0, 4).encode([0, 1, 0, 1])
        10
        """
        if not (isinstance(report, list) and len(report) == self.k
                and all(is_int(bit) and bit in (0, 1) for bit in report)):
            raise ReportError(f"must be a list of {self.k} bits (0 or 1)")
        return sum(int(bit) << j for j, bit in enumerate(report))

    def decode(self, value: int) -> list[int]:
        """Inverse of `encode`.

        >>> OptimizedUnary(1.0, 4).decode(10)
        [0, 1, 0, 1]
        """
        return [(value >> j) & 1 for j in range(self.k)]

    def slots(self, value: int) -> tuple[int, ...]:
        return tuple(j for j in range(self.k) if (value >> j) & 1)

    def encode_many(self, reports: npt.ArrayLike) -> IntArray:
        bits = np.asarray(reports, dtype=np.int64).reshape(-1, self.k)
        return bits @ (np.int64(1) << np.arange(self.k, dtype=np.int64))

    def tally(self, values: npt.ArrayLike, counts: npt.ArrayLike) -> IntArray:
        values, counts = as_int_array(values), as_int_array(counts)
        if values.size and (values.min() < 0 or values.max() >= (1 << self.k)):
            raise ValueError("reports outside the question's options")
        bits = (values[:, None] >> np.arange(self.k, dtype=np.int64)) & 1
        return np.asarray(counts @ bits, dtype=np.int64)

    def randomize(self, values: npt.ArrayLike, rng: np.random.Generator) -> npt.NDArray[np.uint8]:
        """An (n, k) array of 0/1 bits."""
        truth = self._values(values)
        dtype = np.uint32 if self.modulus <= 2**32 else np.int64
        u = rng.integers(0, self.modulus, size=(truth.size, self.k), dtype=dtype)
        bits = (u < self.one_if_false).astype(np.uint8)
        rows = np.arange(truth.size)
        bits[rows, truth] = u[rows, truth] < self.one_if_true
        return bits

    def counts(self, reports: npt.ArrayLike) -> IntArray:
        # numpy types sum() of an array of unknown dtype as Any; dtype=np.int64 makes it an int64 array
        return cast(IntArray, np.asarray(reports).reshape(-1, self.k).sum(axis=0, dtype=np.int64))

    def to_dict(self) -> dict[str, Any]:
        return {"mechanism": self.name, "epsilon": self.epsilon, "k": self.k}


@dataclass(frozen=True)
class _ConfiguredUnary(UnaryMechanism):
    """A unary encoding configured by epsilon and k; subclasses say which integers that gives."""

    epsilon: float
    k: int
    one_if_true: int = field(init=False, repr=False)
    one_if_false: int = field(init=False, repr=False)
    modulus: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        eps = check_epsilon(self.epsilon)
        k = check_k(self.k)
        a1, a0, m = self.integers(eps)
        settle(self, epsilon=eps, k=k, one_if_true=a1, one_if_false=a0, modulus=m)

    @staticmethod
    def integers(epsilon: float) -> tuple[int, int, int]:
        """(one_if_true, one_if_false, modulus) for `epsilon`."""
        raise NotImplementedError


@dataclass(frozen=True)
class SymmetricUnary(_ConfiguredUnary):
    """Symmetric unary encoding (SUE, basic RAPPOR): each bit kept with e^(eps/2) / (e^(eps/2) + 1).

    p = e^(eps/2) / (e^(eps/2) + 1), q_other = 1 - p. Integers: a1 = floor(2^32 p), a0 = 2^32 - a1.
    """

    name: ClassVar[str] = "sue"
    label: ClassVar[str] = "symmetric unary encoding"

    @staticmethod
    def integers(epsilon: float) -> tuple[int, int, int]:
        a, m = sampler_integers.binary_keep(epsilon / 2.0)
        return a, m - a, m


@dataclass(frozen=True)
class OptimizedUnary(_ConfiguredUnary):
    """Optimized unary encoding (OUE; Wang et al. 2017): p = 1/2, q_other = 1 / (e^eps + 1).

    Integers: M = 2^32, a1 = M / 2, a0 = ceil(M / (e^eps + 1)); effective eps = ln((M - a0) / a0).
    """

    name: ClassVar[str] = "oue"
    label: ClassVar[str] = "optimized unary encoding"

    @staticmethod
    def integers(epsilon: float) -> tuple[int, int, int]:
        return sampler_integers.oue_false_one(epsilon)
