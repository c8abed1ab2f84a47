"""The mechanisms by name: building them from a name and parameters, and back.

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
numeric histograms over bins); NUMERIC those for a numeric question's mean (`ldp.grid`).

`direct` is the identity channel (not randomized): a question whose answer is sent as given;
`direct_number` is the same for a number on lo..hi by step (`ldp.direct_number`).
It takes only k (k = 2 for a yes/no question, option 1 = yes), is not in YES_NO, and is not
counted by `survey_epsilon`/`check_budget` (see `ldp.accounting`).

Each is exact: see `ldp.exact` for the integers the browser samples and `Mechanism` for what
every one of them offers.
"""

from __future__ import annotations

from typing import Any

from .direct_number import DirectNumber
from .dlaplace import DiscreteLaplace
from .grid import GridMechanism
from .index import BitFlip, Direct, IndexMechanism, KaryRR, QRandomizedResponse
from .mechanism import EPSILON_MAX, EPSILON_MIN, K_MAX, Mechanism, ReportError, epsilon_from_q, q_from_epsilon
from .multiselect import MultiSelect
from .onebit import OneBitMean
from .unary import OptimizedUnary, SymmetricUnary, UnaryMechanism

MECHANISMS: dict[str, type[Mechanism]] = {
    cls.name: cls for cls in (QRandomizedResponse, BitFlip, KaryRR, SymmetricUnary, OptimizedUnary, Direct,
                              MultiSelect, OneBitMean, DiscreteLaplace, DirectNumber)}
YES_NO = frozenset(name for name, cls in MECHANISMS.items() if cls.yes_no)
ONE_OF_K = frozenset({"qrr", "bitflip", "krr", "sue", "oue", "direct"})
NUMERIC = frozenset(name for name, cls in MECHANISMS.items() if cls.estimates_mean)
_KEYS = {"qrr": {"q"}, "bitflip": {"epsilon"}, "direct": {"k"}, "multiselect": {"epsilon", "k", "at_most"},
         "onebit": {"epsilon", "lo", "hi", "step"}, "dlaplace": {"epsilon", "lo", "hi", "step"},
         "direct_number": {"lo", "hi", "step"}}


def from_dict(data: Any) -> Mechanism:
    """Inverse of `Mechanism.to_dict`; rejects unknown names and unexpected keys.

    >>> from_dict({"mechanism": "krr", "epsilon": 1.0, "k": 3}) == KaryRR(1.0, 3)
    True
    >>> from_dict({"mechanism": "onebit", "epsilon": 1.0, "lo": "0", "hi": "10", "step": "0.5"}).steps
    20
    """
    if not isinstance(data, dict) or data.get("mechanism") not in MECHANISMS:
        raise ValueError(f"mechanism must be one of {sorted(MECHANISMS)}")
    name = data["mechanism"]
    expected = _KEYS.get(name, {"epsilon", "k"})
    keys = set(data) - {"mechanism"}
    if keys != expected:
        raise ValueError(f"{name} takes exactly {sorted(expected)}, got {sorted(keys)}")
    if name == "qrr":
        return QRandomizedResponse(data["q"])
    return MECHANISMS[name](**{key: data[key] for key in expected})


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
    grid = {"lo": lo, "hi": hi, "step": step}
    _check_extras(name, at_most, grid)
    if name in NUMERIC:
        return _numeric(name, q, epsilon, grid)
    if name == "direct":
        if q is not None or epsilon is not None:
            raise ValueError("direct takes neither q nor epsilon: it is not randomized")
        return Direct(k)
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
    if name == "multiselect":
        return MultiSelect(epsilon, k, at_most)
    return MECHANISMS[name](epsilon, k)  # type: ignore[call-arg]


def _check_extras(name: str, at_most: int | None, grid: dict[str, Any]) -> None:
    if at_most is not None and name != "multiselect":
        raise ValueError(f"{name} takes no at_most (multiselect only)")
    if name not in NUMERIC and any(value is not None for value in grid.values()):
        raise ValueError(f"{name} takes no lo, hi or step (onebit and dlaplace only)")


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
    "OptimizedUnary", "QRandomizedResponse", "ReportError", "SymmetricUnary", "UnaryMechanism", "epsilon_from_q",
    "from_dict", "make", "q_from_epsilon",
]
