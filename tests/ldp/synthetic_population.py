"""A planted population for the synthetic-respondents tests: strongly dependent questions of every kind, randomized
by their mechanisms, with the true answers kept to compare against.

A common normal factor z drives every answer (so the dependence is not a tree), the multi-select's boxes are
nested (ticking the third implies the second), and the outcome y follows a logistic model in two of the other
questions: logit P(y = 1) = -0.5 + 1.5 [b = yes] - 1.0 [region = 2] (SLOPES).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ldp import make
from ldp.mechanisms.base import Mechanism

SLOPES = {"b": 1.5, "region": -1.0}
INTERCEPT = -0.5
SPECS = {
    "region": {"name": "direct", "k": 3},
    "b": {"name": "qrr", "q": "2/3"},
    "c": {"name": "bitflip", "epsilon": 2.0},
    "d": {"name": "krr", "epsilon": 2.0, "k": 4},
    "e": {"name": "sue", "epsilon": 3.0, "k": 3},
    "f": {"name": "oue", "epsilon": 3.0, "k": 4},
    "g": {"name": "multiselect", "epsilon": 3.0, "k": 3, "at_most": 2},
    "h": {"name": "onebit", "epsilon": 2.0, "lo": "0", "hi": "10", "step": "1"},
    "i": {"name": "dlaplace", "epsilon": 2.0, "lo": "0", "hi": "10", "step": "1"},
    "y": {"name": "bitflip", "epsilon": 2.5},
}
SPEC_TEXT = ";".join(f"{column}=" + ":".join([spec["name"], *(f"{key}={value}" for key, value in spec.items()
                                                               if key != "name")])
                     for column, spec in SPECS.items())


@dataclass
class Population:
    truth: dict[str, npt.NDArray[np.int64]]  # multi-select: the subsets' bitmasks
    cells: dict[str, npt.NDArray[np.str_]]
    mechanisms: dict[str, Mechanism]

    def reports(self) -> list[tuple[str, Mechanism, npt.NDArray[np.str_]]]:
        return [(column, self.mechanisms[column], self.cells[column]) for column in SPECS]


def _levels(score: npt.NDArray[np.float64], cuts: list[float]) -> npt.NDArray[np.int64]:
    return np.searchsorted(np.asarray(cuts), score).astype(np.int64)


def planted(n: int, seed: int) -> Population:
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)

    def noisy(scale: float = 0.6) -> npt.NDArray[np.float64]:
        return z + scale * rng.normal(size=n)

    truth = {
        "region": _levels(noisy(), [-0.6, 0.6]),
        "b": (noisy() > 0.2).astype(np.int64),
        "c": (noisy() > -0.3).astype(np.int64),
        "d": _levels(noisy(), [-0.8, 0.0, 0.8]),
        "e": _levels(noisy(), [-0.4, 0.5]),
        "f": _levels(noisy(), [-1.0, -0.2, 0.7]),
        "h": np.clip(np.round(5 + 2.5 * noisy()), 0, 10).astype(np.int64),
        "i": np.clip(np.round(5 - 2.5 * noisy()), 0, 10).astype(np.int64),
    }
    ticks = np.searchsorted(np.array([-0.5, 0.7]), noisy())  # 0, 1 or 2 nested boxes, then the third box alone
    third = (rng.random(n) < 0.3) & (ticks < 2)
    truth["g"] = ((ticks >= 1) * 1 + (ticks >= 2) * 2 + third * 4).astype(np.int64)
    logit = INTERCEPT + SLOPES["b"] * truth["b"] + SLOPES["region"] * (truth["region"] == 2)
    truth["y"] = (rng.random(n) < 1.0 / (1.0 + np.exp(-logit))).astype(np.int64)
    mechanisms = {}
    for column, spec in SPECS.items():
        arguments = {key: value for key, value in spec.items() if key != "name"}
        mechanisms[column] = make(str(spec["name"]), **arguments)  # type: ignore[arg-type]
    cells = {column: _cells(mechanisms[column], truth[column], rng) for column in SPECS}
    return Population(truth, cells, mechanisms)


def _cells(mechanism: Mechanism, truth: npt.NDArray[np.int64], rng: np.random.Generator) -> npt.NDArray[np.str_]:
    if mechanism.name == "multiselect":
        truth = ((truth[:, None] >> np.arange(mechanism.k)) & 1).astype(np.uint8)
    reports = mechanism.randomize(truth, rng) if mechanism.randomized else truth
    if np.ndim(reports) == 2:
        return (np.asarray(reports).astype(np.uint32) + 48).view(f"<U{reports.shape[1]}").reshape(-1)
    return np.asarray(reports).astype(str)
