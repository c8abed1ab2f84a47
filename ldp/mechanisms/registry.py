"""The mechanisms by name and by sampler kind: building them from a name and parameters, and back,
and the privacy map of a published sampler (each class's own, looked up by the sampler's kind).

| name    | question     | p (per bit for unary)   | q_other (per bit)     | epsilon            |
|---------|--------------|-------------------------|-----------------------|--------------------|
| qrr     | yes/no       | (1 + q) / 2             | (1 - q) / 2           | ln((1+q)/(1-q))    |
| bitflip | yes/no       | e^eps / (1 + e^eps)     | 1 / (1 + e^eps)       | eps                |
| krr     | one of k     | e^eps / (e^eps + k - 1) | 1 / (e^eps + k - 1)   | eps                |
| sue     | one of k     | e^(eps/2)/(e^(eps/2)+1) | 1 / (e^(eps/2) + 1)   | eps                |
| oue     | one of k     | 1 / 2                   | 1 / (e^eps + 1)       | eps                |
| direct  | one of k     | 1                       | 0                     | infinite           |
| multiselect | any subset of k (at most m) | e^(e/d)/(1+e^(e/d)) | 1 - p      | eps, d = k or min(k, 2m) |
| onebit  | numeric mean | e^eps / (1 + e^eps)     | 1 / (1 + e^eps)       | eps                |
| dlaplace | numeric mean | P(Z = z) proportional to e^(-|z| eps / steps)  |  | eps           |
| direct_number | numeric mean | 1                 | 0                     | infinite           |

ONE_OF_K names the mechanisms whose answer is one of k options (yes/no, single choice, ordinal levels,
numeric histograms over bins); NUMERIC those for a numeric question's mean (`ldp.mechanisms.grid`).

`direct` is the identity channel (not randomized): a question whose answer is sent as given;
`direct_number` is the same for a number on lo..hi by step (`ldp.mechanisms.direct_number`, whose sampler is direct's).
It takes only k (k = 2 for a yes/no question, option 1 = yes), is not in YES_NO, and is not
counted by `survey_epsilon`/`check_budget` (see `ldp.planning.budget`).

Each is exact: see `ldp.mechanisms.sampling` for the integers the browser samples and `Mechanism` for what
every one of them offers, its privacy map included. Every set above is a property each class declares
(`yes_no`, `one_of_k`, `estimates_mean`); this module only collects them.
"""

from __future__ import annotations

import math  # noqa: F401  (the doctests use it)
from fractions import Fraction
from typing import Any

from .base import EPSILON_MAX, EPSILON_MIN, K_MAX, Mechanism, ReportError, Shape, epsilon_from_q, q_from_epsilon
from .direct_number import DirectNumber
from .dlaplace import DiscreteLaplace
from .grid import GridMechanism
from .index import BitFlip, Direct, IndexMechanism, KaryRR, QRandomizedResponse
from .multiselect import MultiSelect
from .onebit import OneBitMean
from .remembered import Composed, Remembered
from .unary import OptimizedUnary, SymmetricUnary, UnaryMechanism

MECHANISMS: dict[str, type[Mechanism]] = {
    cls.name: cls for cls in (QRandomizedResponse, BitFlip, KaryRR, SymmetricUnary, OptimizedUnary, Direct,
                              MultiSelect, OneBitMean, DiscreteLaplace, DirectNumber)}
YES_NO = frozenset(name for name, cls in MECHANISMS.items() if cls.yes_no)
ONE_OF_K = frozenset(name for name, cls in MECHANISMS.items() if cls.one_of_k)
NUMERIC = frozenset(name for name, cls in MECHANISMS.items() if cls.estimates_mean)
# The class whose privacy map reads a published sampler, by the sampler's "kind" (several mechanisms
# share one: q-RR, the bit flip and k-RR publish "grr"; SUE and OUE "unary").
SAMPLER_KINDS: dict[str, type[Mechanism]] = {
    cls.sampler_kind: cls for cls in (IndexMechanism, UnaryMechanism, Direct, MultiSelect, OneBitMean, DiscreteLaplace)}


def by_sampler(sampler: dict[str, Any]) -> type[Mechanism]:
    """The class whose privacy map reads this sampler; ValueError for an unknown kind."""
    kind = sampler.get("kind") if isinstance(sampler, dict) else None
    if kind not in SAMPLER_KINDS:
        raise ValueError(f"a sampler's kind must be one of {sorted(SAMPLER_KINDS)}, got {kind!r}")
    return SAMPLER_KINDS[kind]


def sampler_channel(sampler: dict[str, Any]) -> tuple[int, int, int]:
    """(a, b, M) with p = a / M and q_other = b / M for a published sampler: keep and other
    (index reports), or one_if_true and one_if_false (unary bits), keep and M - keep (multi-select
    bits, the 1-bit mean's bit); (1, 0, 1) for a direct question. A discrete Laplace report has no
    such pair (ValueError)."""
    return by_sampler(sampler).sampler_channel(sampler)


def sampler_epsilon(sampler: dict[str, Any]) -> float:
    """The epsilon a sampler's integers give: ln(keep / other) for index reports (the odds of
    two reports), ln(a1 (M - a0) / (a0 (M - a1))) for unary bits (two bits differ per pair of answers);
    d ln(keep / (M - keep)) for multi-select (d = `hamming`), ln(keep / (M - keep)) for the 1-bit mean,
    steps * scale_den / scale_num for discrete Laplace; infinite for a direct question (not randomized).

    >>> sampler_epsilon({"kind": "grr", "k": 2, "modulus": 4, "keep": 3, "other": 1}) == math.log(3)
    True
    >>> sampler_epsilon({"kind": "dlaplace", "steps": 10, "scale_num": 20, "scale_den": 1, "bound": 900})
    0.5
    """
    return by_sampler(sampler).sampler_epsilon(sampler)


def sampler_loss(sampler: dict[str, Any]) -> tuple[Fraction, Fraction]:
    """The same loss exactly, as (ratio, rational) with loss = ln(ratio) + rational; ValueError for a
    direct question (not randomized)."""
    return by_sampler(sampler).sampler_loss(sampler)


def from_dict(data: Any) -> Mechanism:
    """Inverse of `Mechanism.to_dict`; rejects unknown names and unexpected keys.

    >>> from_dict({"mechanism": "krr", "epsilon": 1.0, "k": 3}) == KaryRR(1.0, 3)
    True
    >>> from_dict({"mechanism": "onebit", "epsilon": 1.0, "lo": "0", "hi": "10", "step": "0.5"}).steps
    20
    >>> from_dict({"mechanism": "krr", "epsilon": 1.0, "k": 3, "permanent": {"mechanism": "krr", "epsilon": 3.0,
    ...                                                                     "k": 3}}).to_dict()["permanent"]
    {'mechanism': 'krr', 'epsilon': 3.0, 'k': 3}
    """
    if not isinstance(data, dict) or data.get("mechanism") not in MECHANISMS:
        raise ValueError(f"mechanism must be one of {sorted(MECHANISMS)}")
    if "permanent" in data:  # a wave's remembered question: its instantaneous layer with the permanent one
        rest = {key: value for key, value in data.items() if key != "permanent"}
        return Composed(Remembered(permanent=from_dict(data["permanent"]), instant=from_dict(rest)))
    name = data["mechanism"]
    cls = MECHANISMS[name]
    keys = set(data) - {"mechanism"}
    if keys != cls.keys:
        raise ValueError(f"{name} takes exactly {sorted(cls.keys)}, got {sorted(keys)}")
    if cls is QRandomizedResponse:  # its field is truth_probability; the dict says q
        return QRandomizedResponse(data["q"])
    return cls(**{key: data[key] for key in cls.keys})


def make(name: str, *, k: int = 2, q: Any = None, epsilon: float | None = None, at_most: int | None = None,
         lo: Any = None, hi: Any = None, step: Any = None) -> Mechanism:
    """Build a mechanism by name: qrr takes q, direct neither, the others epsilon; krr/sue/oue/direct and
    multiselect take k (multiselect also at_most, None for any subset); onebit and dlaplace take lo, hi, step.

    >>> make("qrr", q="0.5").to_dict()
    {'mechanism': 'qrr', 'q': '0.5'}
    >>> make("direct", k=3).to_dict()
    {'mechanism': 'direct', 'k': 3}
    >>> make("dlaplace", epsilon=1.0, lo="0", hi="10", step="1").to_dict()
    {'mechanism': 'dlaplace', 'epsilon': 1.0, 'lo': '0', 'hi': '10', 'step': '1'}
    """
    if name not in MECHANISMS:
        raise ValueError(f"mechanism must be one of {sorted(MECHANISMS)}, got {name!r}")
    cls = MECHANISMS[name]
    grid = {"lo": lo, "hi": hi, "step": step}
    _check_extras(cls, at_most, grid)
    if cls.estimates_mean:
        return _numeric(name, q, epsilon, grid)
    if cls.parameter is None:
        if q is not None or epsilon is not None:
            raise ValueError(f"{name} takes neither q nor epsilon: it is not randomized")
        return cls(k)  # type: ignore[call-arg]
    if cls.parameter == "q":
        if q is None or epsilon is not None:
            raise ValueError(f"{name} takes q, not epsilon")
        return cls(q)  # type: ignore[call-arg]
    if epsilon is None or q is not None:
        raise ValueError(f"{name} takes epsilon, not q")
    if "k" not in cls.keys:  # a yes/no mechanism configured by epsilon alone
        if k != 2:
            raise ValueError(f"{name} is for yes/no questions (k = 2)")
        return cls(epsilon)  # type: ignore[call-arg]
    if "at_most" in cls.keys:
        return cls(epsilon, k, at_most)  # type: ignore[call-arg]
    return cls(epsilon, k)  # type: ignore[call-arg]


def _check_extras(cls: type[Mechanism], at_most: int | None, grid: dict[str, Any]) -> None:
    if at_most is not None and "at_most" not in cls.keys:
        raise ValueError(f"{cls.name} takes no at_most (multiselect only)")
    if not cls.estimates_mean and any(value is not None for value in grid.values()):
        raise ValueError(f"{cls.name} takes no lo, hi or step (onebit and dlaplace only)")


def _numeric(name: str, q: Any, epsilon: float | None, grid: dict[str, Any]) -> Mechanism:
    missing = [key for key, value in grid.items() if value is None]
    if not MECHANISMS[name].randomized:  # direct_number
        if missing or q is not None or epsilon is not None:
            raise ValueError(f"{name} takes lo, hi and step, neither q nor epsilon: it is not randomized")
        return MECHANISMS[name](**grid)
    if missing or q is not None or epsilon is None:
        raise ValueError(f"{name} takes epsilon, lo, hi and step, not q" + (f"; missing {missing}" if missing else ""))
    return MECHANISMS[name](epsilon, **grid)  # type: ignore[call-arg]


__all__ = [
    "EPSILON_MAX", "EPSILON_MIN", "K_MAX", "MECHANISMS", "NUMERIC", "ONE_OF_K", "YES_NO", "BitFlip", "Direct",
    "DirectNumber",
    "DiscreteLaplace", "GridMechanism", "IndexMechanism", "KaryRR", "Mechanism", "MultiSelect", "OneBitMean",
    "OptimizedUnary", "QRandomizedResponse", "ReportError", "SAMPLER_KINDS", "Shape", "SymmetricUnary",
    "UnaryMechanism",
    "by_sampler", "epsilon_from_q", "from_dict", "make", "q_from_epsilon", "sampler_channel", "sampler_epsilon",
    "sampler_loss",
]
