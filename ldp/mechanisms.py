"""The mechanisms by name: building them from a name and parameters, and back.

| name    | question     | p (per bit for unary)   | q_other (per bit)     | epsilon            |
|---------|--------------|-------------------------|-----------------------|--------------------|
| qrr     | yes/no       | (1 + q) / 2             | (1 - q) / 2           | ln((1+q)/(1-q))    |
| bitflip | yes/no       | e^eps / (1 + e^eps)     | 1 / (1 + e^eps)       | eps                |
| krr     | one of k     | e^eps / (e^eps + k - 1) | 1 / (e^eps + k - 1)   | eps                |
| sue     | one of k     | e^(eps/2)/(e^(eps/2)+1) | 1 / (e^(eps/2) + 1)   | eps                |
| oue     | one of k     | 1 / 2                   | 1 / (e^eps + 1)       | eps                |
| direct  | one of k     | 1                       | 0                     | infinite           |

`direct` is the identity channel (not randomized): a question whose answer is sent as given.
It takes only k (k = 2 for a yes/no question, option 1 = yes), is not in YES_NO, and is not
counted by `survey_epsilon`/`check_budget` (see `ldp.accounting`).

Each is exact: see `ldp.exact` for the integers the browser samples and `Mechanism` for what
every one of them offers.
"""

from __future__ import annotations

from typing import Any

from .index import BitFlip, Direct, IndexMechanism, KaryRR, QRandomizedResponse
from .mechanism import EPSILON_MAX, EPSILON_MIN, K_MAX, Mechanism, ReportError, epsilon_from_q, q_from_epsilon
from .unary import OptimizedUnary, SymmetricUnary, UnaryMechanism

MECHANISMS: dict[str, type[Mechanism]] = {
    cls.name: cls for cls in (QRandomizedResponse, BitFlip, KaryRR, SymmetricUnary, OptimizedUnary, Direct)}
YES_NO = frozenset(name for name, cls in MECHANISMS.items() if cls.yes_no)


def from_dict(data: Any) -> Mechanism:
    """Inverse of `Mechanism.to_dict`; rejects unknown names and unexpected keys.

    >>> from_dict({"mechanism": "krr", "epsilon": 1.0, "k": 3}) == KaryRR(1.0, 3)
    True
    """
    if not isinstance(data, dict) or data.get("mechanism") not in MECHANISMS:
        raise ValueError(f"mechanism must be one of {sorted(MECHANISMS)}")
    name = data["mechanism"]
    expected = {"qrr": {"q"}, "bitflip": {"epsilon"}, "direct": {"k"}}.get(name, {"epsilon", "k"})
    keys = set(data) - {"mechanism"}
    if keys != expected:
        raise ValueError(f"{name} takes exactly {sorted(expected)}, got {sorted(keys)}")
    if name == "qrr":
        return QRandomizedResponse(data["q"])
    return MECHANISMS[name](**{key: data[key] for key in expected})


def make(name: str, *, k: int = 2, q: Any = None, epsilon: float | None = None) -> Mechanism:
    """Build a mechanism by name: qrr takes q, direct neither, the others epsilon; krr/sue/oue/direct take k.

    >>> make("qrr", q="0.5").to_dict()
    {'mechanism': 'qrr', 'q': '0.5'}
    >>> make("direct", k=3).to_dict()
    {'mechanism': 'direct', 'k': 3}
    """
    if name not in MECHANISMS:
        raise ValueError(f"mechanism must be one of {sorted(MECHANISMS)}, got {name!r}")
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
    return MECHANISMS[name](epsilon, k)  # type: ignore[call-arg]


__all__ = [
    "EPSILON_MAX", "EPSILON_MIN", "K_MAX", "MECHANISMS", "YES_NO", "BitFlip", "Direct", "IndexMechanism", "KaryRR",
    "Mechanism", "OptimizedUnary", "QRandomizedResponse", "ReportError", "SymmetricUnary", "UnaryMechanism",
    "epsilon_from_q", "from_dict", "make", "q_from_epsilon",
]
