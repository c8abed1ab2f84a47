"""The synthetic rows' quality, stated: for every 1- and 2-way marginal, the largest difference between the rows'
share and the debiased estimate (`ldp.stats.estimates.debias` for one variable, `ldp.joint.tables` for a pair, both
unbiased and
through the exact channel), against that estimate's own standard error; and warnings where the rows cannot be
trusted: too few responses for the planner's rule (`ldp.planning.sizes`, worst case, at `margin` and 95%), a pair never
answered together.

The cells compared are the reports' counters: an option of a one-of-k question, an option's box of a multi-select
(ticked by that share), a 1-bit mean's rounded bit. The counts come from the table of code pairs the model was fitted
to (a code is a report, or a pattern of bits, whose counters it determines). A variable with no per-value debiased
estimate (discrete Laplace: its report estimates a mean), or whose codes lump reports (a unary question of more
than `channels.PATTERN_K` options), is left out, with a note.

A warning is a code with its values (`QualityWarning`), not a sentence: the command line prints its English
(`ENGLISH`), the app says it in the reader's language (surveys.aggregation.synthetic.words, a sentence per code).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from ..joint.tables import rate_moments
from ..mechanisms.base import Mechanism
from ..planning.sizes import joint_respondents_needed, respondents_needed
from ..stats.estimates import debias
from . import Synthetic, channels, pairs, weighted
from .questions import Variable

FloatArray = npt.NDArray[np.float64]
MARGIN = 0.05


# Every warning `quality` gives, its English (the command line's): a code added here needs the app's sentence too.
ENGLISH = {
    "not_compared": "no debiased table to compare for {names}",
    "too_few": "{name}: {n} responses, fewer than the {needed} the planner needs for ±{margin:g} at 95%",
    "never_together": "{a} and {b} were never answered together: their rows' relation is the model's guess",
    "pair_too_few": "{a} and {b}: {n} responses answering both, fewer than the {needed} the planner needs for "
                    "±{margin:g} on every cell at 95%",
}


@dataclass(frozen=True)
class QualityWarning:
    """Where the rows cannot be trusted: a code of `ENGLISH` and the values its sentence names."""

    code: str
    values: dict[str, Any]

    def __post_init__(self) -> None:
        if self.code not in ENGLISH:
            raise ValueError(f"no sentence for the warning {self.code!r}")

    @property
    def text(self) -> str:
        return ENGLISH[self.code].format(**self.values)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "values": self.values, "text": self.text}


@dataclass(frozen=True)
class Marginal:
    """One marginal: its variables, the responses behind its estimate, and at its worst cell the rows' share, the
    debiased estimate, that estimate's standard error and the difference in standard errors."""

    variables: tuple[str, ...]
    n: int
    cell: tuple[int, ...]
    synthetic: float
    estimate: float
    std_error: float
    ratio: float


@dataclass(frozen=True)
class Quality:
    marginals: list[Marginal]
    warnings: list[QualityWarning] = field(default_factory=list)

    @property
    def largest(self) -> float:
        """The largest difference of any marginal, in its estimate's standard errors (0 without any)."""
        return max((m.ratio for m in self.marginals), default=0.0)

    def to_dict(self) -> dict[str, Any]:
        return {"marginals": [m.__dict__ | {"variables": list(m.variables), "cell": list(m.cell)}
                              for m in self.marginals], "warnings": [w.to_dict() for w in self.warnings],
                "largest": self.largest}


def _bits(count: int, k: int) -> FloatArray:
    return ((np.arange(count)[:, None] >> np.arange(k)[None, :]) & 1).astype(float)


def code_slots(variable: Variable) -> FloatArray | None:
    """The counters each code fills (codes x counters), None where a code does not determine them."""
    codes = variable.channel.shape[0]
    if variable.bits is None:
        return np.eye(codes)
    if variable.subsets is None and variable.bits_k > channels.PATTERN_K:
        return None
    return _bits(codes, variable.bits_k)


def _slots(variable: Variable) -> FloatArray:
    found = code_slots(variable)
    assert found is not None  # a variable compared has them
    return found


def value_slots(variable: Variable) -> FloatArray:
    """The counters each true value fills (values x counters): its option, or a subset's boxes."""
    if variable.subsets is not None:
        return _bits(variable.k, variable.bits_k)
    return np.eye(variable.k)


def debiased_pair(a: Variable, b: Variable, codes: FloatArray) -> tuple[FloatArray, FloatArray, int]:
    """The unbiased table of a pair's counters (`ldp.joint.tables`) from its code pairs' counts, its standard errors,
    and
    the responses answering both."""
    slots_a, slots_b = code_slots(a), code_slots(b)
    assert slots_a is not None and slots_b is not None
    n = int(round(codes.sum()))
    pairs = slots_a.T @ codes @ slots_b
    a_counts, b_counts = slots_a.T @ codes.sum(axis=1), slots_b.T @ codes.sum(axis=0)
    moments = rate_moments(cast(Mechanism, a), cast(Mechanism, b), pairs / n, a_counts / n, b_counts / n, n)
    return moments.pi, np.sqrt(moments.var / n), n


def debiased_one(variable: Variable) -> tuple[FloatArray, FloatArray, int]:
    """The unbiased shares of a variable's counters (`ldp.stats.estimates.debias`), their standard errors, and n."""
    slots = code_slots(variable)
    assert slots is not None
    codes = np.bincount(variable.codes[variable.present], minlength=variable.channel.shape[0])
    n = int(codes.sum())
    found = debias(np.rint(slots.T @ codes).astype(np.int64), max(n, 1), variable.p, variable.q_other)
    return np.asarray(found.estimate), np.asarray(found.std_error), n


def _worst(names: tuple[str, ...], n: int, shares: FloatArray, estimate: FloatArray, std_error: FloatArray,
           rounding: float) -> Marginal:
    # A share with a standard error of 0 (a direct question's empty option, a margin's share fixed by the raking):
    # one response's worth stands for it, or the rows' rounding where larger (`rounding`: the draw rounds each
    # class's count of a value to a whole row, up to one row per class).
    ratio = np.abs(shares - estimate) / np.maximum(std_error, max(1.0 / max(n, 1), rounding))
    cell = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    return Marginal(names, n, tuple(int(c) for c in cell), float(shares[cell]), float(estimate[cell]),
                    float(std_error[cell]), float(ratio[cell]))


def quality(made: Synthetic, margin: float = MARGIN) -> Quality:
    """Every 1- and 2-way marginal of the counters compared (module docstring), with the warnings; rows fitted to
    weighted reports against the weighted estimates and their standard errors (`ldp.synthetic.weighted`)."""
    variables, values, rows, model = made.variables, made.values, made.rows, made.model
    rounding = model.weights.size / max(rows, 1)
    usable = [i for i, v in enumerate(variables) if v.debiased and code_slots(v) is not None]
    marginals: list[Marginal] = []
    warnings: list[QualityWarning] = []
    skipped = [v.name for i, v in enumerate(variables) if i not in usable]
    if skipped:
        warnings.append(QualityWarning("not_compared", {"names": ", ".join(skipped)}))
    for i in usable:
        v = variables[i]
        estimate, std_error, n = (debiased_one(v) if made.weighting is None or model.by_cell is None else
                                  weighted.estimate_one(v, _slots(v), model.by_cell.ones[i], made.weighting))
        shares = value_slots(v).T @ (np.bincount(values[i], minlength=v.k) / rows)
        marginals.append(_worst((v.name,), n, shares, estimate, std_error, rounding))
        needed = respondents_needed(cast(Mechanism, v), margin) if v.p > v.q_other else 0
        if n < needed:
            warnings.append(QualityWarning("too_few", {"name": v.name, "n": n, "needed": needed,
                                                       "margin": margin}))
    drawn = pairs.pair_tables(values, [v.k for v in variables])  # the rows' pair tables, in few passes
    for x, i in enumerate(usable):
        for j in usable[x + 1:]:
            a, b = variables[i], variables[j]
            codes = model.counts[model.codes[i], model.codes[j]]
            if codes.sum() == 0:
                warnings.append(QualityWarning("never_together", {"a": a.name, "b": b.name}))
                continue
            estimate, std_error, n = (
                debiased_pair(a, b, codes) if made.weighting is None or model.by_cell is None else
                weighted.estimate_pair(a, b, _slots(a), _slots(b), model.by_cell.pairs[i, j], made.weighting))
            table = drawn[i, j] / rows
            shares = value_slots(a).T @ table @ value_slots(b)
            marginals.append(_worst((a.name, b.name), n, shares, estimate, std_error, rounding))
            needed = joint_respondents_needed(cast(Mechanism, a), cast(Mechanism, b), margin)
            if n < needed:
                warnings.append(QualityWarning("pair_too_few", {"a": a.name, "b": b.name, "n": n,
                                                                "needed": needed, "margin": margin}))
    return Quality(marginals, warnings)
