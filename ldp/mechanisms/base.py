"""What every mechanism is: an immutable value that carries its privacy map and describes itself.

Like an OpenDP measurement, a mechanism is built together with its privacy map: each class says
what loss its published sampler's integers give (`sampler_epsilon`, exactly as `sampler_loss`) and
which channel they make (`sampler_channel`), so no other module switches on its name. It also says
what it means to the app (`one_of_k`, `estimates_mean`, `mean_interval`, `keeps_bits`, ...).

A mechanism is defined by integers (see `ldp.mechanisms.sampling`): its channel is
    p       = P(report = truth)                 (unary: P(bit j = 1 | truth j)),
    q_other = P(report = one given other option) (unary: P(bit j = 1 | truth is not j)),
both fractions of those integers, so the browser, the simulation and the debiasing all use one
channel. `epsilon` is the configured value; `effective_epsilon`, computed from the integers, is
never larger and is the one to report.

A report travels as JSON (`encoding` "index": one option index; "bits": one bit per option) and is
stored as one non-negative integer (`encode`/`decode`; for bits, a bitmask with bit j = option j).
The counters a stored value increments are its `slots`: the option for an index, the set bits
for unary reports.
"""

from __future__ import annotations

import math
from enum import Enum
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import numpy.typing as npt

from ..stats.estimates import Estimate, debias

if TYPE_CHECKING:
    from ..sequences.fractions import Sequence

EPSILON_MIN = 0.05  # below this answers are almost pure noise
EPSILON_MAX = 10.0  # above this there is no meaningful deniability left
K_MAX = 64

IntArray = npt.NDArray[np.int64]


def q_from_epsilon(epsilon: float) -> float:
    """The q of q-randomized response with the same channel: q = tanh(eps / 2).

    >>> round(q_from_epsilon(math.log(3)), 12)
    0.5
    """
    return math.tanh(epsilon / 2.0)


def epsilon_from_q(q: float) -> float:
    """epsilon = ln((1 + q) / (1 - q)) = 2 artanh(q)."""
    return math.log((1 + q) / (1 - q))


class Shape(Enum):
    """What one report is: the one thing a reader asks a mechanism about its reports (match on it exhaustively,
    never on a combination of `encoding`, `one_of_k`, `estimates_mean` and `randomized`, which it implies)."""

    INDEX = "index"  # one of k options, randomized (q-RR, the bit flip, k-RR): encoding "index"
    DIRECT = "direct"  # one of k options sent as given (not randomized): encoding "index"
    BITS = "bits"  # one of k options as k randomized bits (SUE, OUE): encoding "bits", one_of_k
    TICKS = "ticks"  # any subset of k options as k randomized bits (multi-select): encoding "bits"
    MEAN_BIT = "mean_bit"  # one randomized bit whose rate gives a numeric mean (the 1-bit mean): encoding "index"
    LAPLACE = "laplace"  # a numeric grid index plus discrete Laplace noise: encoding "integer"
    NUMBER = "number"  # a numeric grid index sent as given (not randomized): encoding "integer"


class ReportError(ValueError):
    """A report that this mechanism could not have produced; the message says what it must be."""


class Mechanism:
    """Shared behaviour; subclasses set `name`, `label`, `k` and the sampler integers."""

    name: ClassVar[str]
    label: ClassVar[str]
    encoding: ClassVar[str]  # "index", "bits" or "integer": how a report travels
    shape: ClassVar[Shape]  # what a report is (`Shape`)
    sampler_rule: ClassVar[str]  # how a browser samples from `sampler()`, in words
    yes_no: ClassVar[bool] = False  # a yes/no question's mechanism (k = 2, value 1 = yes)
    randomized: ClassVar[bool] = True  # False only for `Direct`: sent as given, infinite epsilon
    parameter: ClassVar[str | None] = "epsilon"  # the one privacy parameter it is configured by ("q", or none)
    estimates_mean: ClassVar[bool] = False  # its reports estimate a numeric question's mean (`ldp.mechanisms.grid`)
    one_of_k: ClassVar[bool] = False  # its report is one answer of k options (yes/no, choice, levels, bins)
    keeps_bits: ClassVar[bool] = False  # its sampler keeps each bit with probability keep / modulus, else flips it
    mean_interval: ClassVar[str | None] = None  # the interval of its mean ("wilson", "normal"); estimates_mean only
    has_mean_sequence: ClassVar[bool] = False  # its mean has a confidence sequence (`GridMechanism.mean_sequence`)
    codebook_formula: ClassVar[str | None] = None  # for a codebook: how its reports are read, beyond debiasing
    sampler_kind: ClassVar[str]  # its published sampler's "kind": how `ldp.mechanisms.registry` finds it
    keys: ClassVar[frozenset[str]] = frozenset({"epsilon", "k"})  # what `to_dict` holds beside "mechanism"
    k: int

    # --- the privacy map: what a published sampler's integers give ------------------------

    @classmethod
    def sampler_channel(cls, sampler: dict[str, Any]) -> tuple[int, int, int]:
        """(a, b, M) with p = a / M and q_other = b / M for a sampler of this kind."""
        raise NotImplementedError

    @classmethod
    def sampler_epsilon(cls, sampler: dict[str, Any]) -> float:
        """The epsilon a sampler of this kind gives, from its integers (infinite: not randomized)."""
        raise NotImplementedError

    @classmethod
    def sampler_loss(cls, sampler: dict[str, Any]) -> tuple[Fraction, Fraction]:
        """The same loss exactly, as (ratio, rational): loss = ln(ratio) + rational, integers only.

        ValueError for a mechanism that is not randomized (it has no finite loss)."""
        raise NotImplementedError

    def channel(self) -> tuple[int, int, int]:
        """`sampler_channel` of this mechanism's own sampler."""
        return self.sampler_channel(self.sampler())

    def privacy_loss(self) -> float:
        """`sampler_epsilon` of this mechanism's own sampler: its privacy map applied to its integers."""
        return self.sampler_epsilon(self.sampler())

    # --- the channel, from the sampler integers -------------------------------------------

    def sampler(self) -> dict[str, Any]:
        raise NotImplementedError

    @property
    def p(self) -> float:
        """P(report = truth); for unary encodings P(bit j = 1 | truth j)."""
        raise NotImplementedError

    @property
    def q_other(self) -> float:
        """P(report = one given other option); for unary encodings P(bit j = 1 | truth not j)."""
        raise NotImplementedError

    @property
    def effective_epsilon(self) -> float:
        return self.privacy_loss()

    @property
    def unary(self) -> bool:
        return self.encoding == "bits"

    @property
    def q_equivalent(self) -> float | None:
        """Yes/no only: the q of q-randomized response with this channel, tanh(effective eps / 2)."""
        return q_from_epsilon(self.effective_epsilon) if self.yes_no else None

    def to_dict(self) -> dict[str, Any]:
        """The configured parameters; `from_dict` is its inverse."""
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        """Everything a reader of the reports needs: the one description APIs and codebooks show.

        >>> from ldp import QRandomizedResponse
        >>> d = QRandomizedResponse("0.5").describe()
        >>> d["parameters"], d["p_exact"], d["q_other_exact"], d["encoding"]
        ({'mechanism': 'qrr', 'q': '0.5'}, '3/4', '1/4', 'index')
        >>> round(d["effective_epsilon"], 4), round(d["q_equivalent"], 12)
        (1.0986, 0.5)
        """
        sampler = self.sampler()
        p, q_other, modulus = self.sampler_channel(sampler)
        return {
            "name": self.name,
            "label": self.label,
            "parameters": self.to_dict(),
            "effective_epsilon": self.effective_epsilon,
            "q_equivalent": self.q_equivalent,
            "p": self.p,
            "q_other": self.q_other,
            "p_exact": f"{p}/{modulus}",
            "q_other_exact": f"{q_other}/{modulus}",
            "sampler": sampler,
            "sampler_rule": self.sampler_rule,
            "encoding": self.encoding,
        }

    # --- reports ---------------------------------------------------------------------------

    def encode(self, report: Any) -> int:
        """The stored integer of a report as sent in JSON; ReportError if it is not one."""
        raise NotImplementedError

    def decode(self, value: int) -> int | list[int]:
        """Inverse of `encode`."""
        raise NotImplementedError

    def slots(self, value: int) -> tuple[int, ...]:
        """The per-option counters a stored value increments."""
        raise NotImplementedError

    def encode_many(self, reports: npt.ArrayLike) -> IntArray:
        """`encode` for the output of `randomize`: one stored integer per respondent."""
        raise NotImplementedError

    def tally(self, values: npt.ArrayLike, counts: npt.ArrayLike) -> IntArray:
        """Per-option counts from distinct stored values and how often each occurred.

        ValueError if a value is outside what this mechanism stores."""
        raise NotImplementedError

    def randomize(self, values: npt.ArrayLike, rng: np.random.Generator) -> npt.NDArray[Any]:
        raise NotImplementedError

    def counts(self, reports: npt.ArrayLike) -> IntArray:
        raise NotImplementedError

    # --- estimates -------------------------------------------------------------------------

    def estimate(self, counts: npt.ArrayLike, n: int, **options: Any) -> Estimate:
        """Debiased estimates; options: confidence, interval ('wilson'|'exact'), simultaneous."""
        if np.ndim(counts) != 1 or len(counts) != self.k:  # type: ignore[arg-type]
            raise ValueError(f"counts must have one entry per option ({self.k})")
        return debias(counts, n, self.p, self.q_other, **options)

    def variance(self, pi: npt.ArrayLike, n: int) -> npt.NDArray[np.float64]:
        """Var(pi_hat_j) = lambda_j (1 - lambda_j) / (n (p - q_other)^2), lambda_j = q_other + pi_j (p - q_other)."""
        p, q = self.p, self.q_other
        lam = q + np.asarray(pi, dtype=float) * (p - q)
        return np.asarray(lam * (1.0 - lam) / (n * (p - q) ** 2), dtype=float)

    def mean_sequence(self, n: npt.ArrayLike, sums: npt.ArrayLike, *, confidence: float = 0.95,
                      planned: int | None = None) -> Sequence:
        """A mean's confidence sequence in units at each look, from the cumulative sum of the reports as sent among
        the first n (`GridMechanism.report_sum`); ValueError where there is none (`has_mean_sequence`)."""
        raise ValueError(f"{self.name} has no confidence sequence for its mean")

    def report_range(self) -> tuple[int, int]:
        """The smallest and largest report as sent: an option index, a bit of a unary encoding."""
        return 0, 1 if self.encoding == "bits" else self.k - 1

    def _values(self, values: npt.ArrayLike) -> IntArray:
        array = np.asarray(values)
        if array.ndim != 1 or not np.issubdtype(array.dtype, np.integer):
            raise ValueError("true values must be a flat array of integer option indexes")
        if array.size and (array.min() < 0 or array.max() >= self.k):
            raise ValueError(f"true values must lie in [0, {self.k})")
        return array.astype(np.int64, copy=False)


class IndexReports(Mechanism):
    """The report codec of mechanisms whose report is one index in [0, k): stored as itself and
    counted in its own slot."""

    report_rule: ClassVar[str] = "an option index from 0 to {last}"  # what a report must be

    def encode(self, report: Any) -> int:
        if not (is_int(report) and 0 <= report < self.k):
            raise ReportError("must be " + self.report_rule.format(last=self.k - 1))
        return int(report)

    def decode(self, value: int) -> int:
        return int(value)

    def slots(self, value: int) -> tuple[int, ...]:
        return (value,)

    def encode_many(self, reports: npt.ArrayLike) -> IntArray:
        return as_int_array(reports)

    def tally(self, values: npt.ArrayLike, counts: npt.ArrayLike) -> IntArray:
        values, counts = as_int_array(values), as_int_array(counts)
        if values.size and (values.min() < 0 or values.max() >= self.k):
            raise ValueError("reports outside the question's options")
        return np.bincount(values, weights=counts, minlength=self.k).astype(np.int64)


def settle(mechanism: object, **values: Any) -> None:
    """Set a frozen dataclass's checked and derived fields, once, in __post_init__."""
    for name, value in values.items():
        object.__setattr__(mechanism, name, value)


def check_epsilon(epsilon: object) -> float:
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)):
        raise TypeError("epsilon must be a number")
    epsilon = float(epsilon)
    if not (EPSILON_MIN <= epsilon <= EPSILON_MAX):
        raise ValueError(f"epsilon must lie in [{EPSILON_MIN}, {EPSILON_MAX}], got {epsilon}")
    return epsilon


def check_k(k: object, minimum: int = 2) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError("k must be an integer")
    if not (minimum <= k <= K_MAX):
        raise ValueError(f"k must lie in [{minimum}, {K_MAX}], got {k}")
    return int(k)


def is_int(value: object) -> bool:
    """A JSON integer (booleans are not)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def as_int_array(values: npt.ArrayLike) -> IntArray:
    return np.asarray(values, dtype=np.int64).reshape(-1)

