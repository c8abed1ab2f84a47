"""The admin's figures that only some mechanisms have, computed by `ldp` and worded here.

- multi-select: each box's bit is flipped at a per-bit epsilon e_b; two answers differ in at most
  d boxes (d = k, or min(k, 2m) with at most m ticks), so the question costs d e_b. Both are shown.
- a numeric mean: the worst-case variance of one report under the 1-bit mean and under discrete
  Laplace at this epsilon and range (`ldp.numeric.per_report_variance`), saying which is lower,
  and the respondents for a margin of 5% of the range on the mean.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _

import ldp
import ldp.numeric
import ldp.planning

MEANS = frozenset({"onebit", "dlaplace"})  # a numeric question asked for its mean
CONFIDENCE = 0.95
VARIANCE_NAMES = {"onebit": "1-bit mean", "dlaplace": "discrete Laplace"}


def per_bit_epsilon(mechanism: ldp.Mechanism) -> float:
    """A multi-select's epsilon per box, from its sampler's integers: ln(keep / (M - keep))."""
    sampler = mechanism.sampler()
    return math.log(sampler["keep"] / (sampler["modulus"] - sampler["keep"]))


def scale_of(mechanism: ldp.Mechanism) -> tuple[Decimal, Decimal, Decimal]:
    """A numeric mean's lo, hi and step, as its parameters say them (decimal strings)."""
    parameters = mechanism.to_dict()
    return Decimal(parameters["lo"]), Decimal(parameters["hi"]), Decimal(parameters["step"])


def variances(mechanism: ldp.Mechanism) -> dict[str, float]:
    """Worst-case variance of one report under each numeric-mean mechanism, at this question's epsilon and range."""
    lo, hi, step = scale_of(mechanism)
    found = ldp.numeric.per_report_variance(mechanism.to_dict()["epsilon"], lo, hi, step)
    return {name: float(found[name]) for name in VARIANCE_NAMES}


def of(mechanism: ldp.Mechanism, margin: float) -> dict[str, Any]:
    """The figures particular to `mechanism` (none for the others); `margin` as a fraction of the range."""
    if mechanism.name == "multiselect":
        per_bit = per_bit_epsilon(mechanism)
        return {"per_bit_epsilon": per_bit, "differing_bits": round(mechanism.effective_epsilon / per_bit),
                "at_most": mechanism.to_dict()["at_most"]}
    if mechanism.name in MEANS:
        lo, hi, _step = scale_of(mechanism)
        found = variances(mechanism)
        units = margin * float(hi - lo)
        return {"variances": found, "lower_variance": min(found, key=found.__getitem__), "mean_margin": units,
                "mean_respondents": ldp.planning.mean_respondents_needed(mechanism, units, CONFIDENCE)}
    return {}


def summary(figures: dict[str, Any]) -> str:
    """The words for `of`'s figures, to follow the common summary (empty when there are none)."""
    if "per_bit_epsilon" in figures:
        return _("; each box is flipped at ε = {bit} per box and two answers differ in at most {d} boxes, so the "
                 "question costs {d} × {bit}").format(bit=f"{figures['per_bit_epsilon']:.4f}",
                                                       d=figures["differing_bits"])
    if "variances" in figures:
        v = figures["variances"]
        lower = {"onebit": _("the 1-bit mean"), "dlaplace": _("discrete Laplace")}[figures["lower_variance"]]
        # xgettext:no-python-format  (a str.format string: its "%" is a percent sign)
        return _("; {respondents} respondents for ±{margin} (5% of the range) on the mean at 95%; variance of one "
                 "report: 1-bit mean {onebit}, discrete Laplace {dlaplace}: {lower} is lower at this ε and "
                 "range").format(respondents=f"{figures['mean_respondents']:,}", margin=f"{figures['mean_margin']:g}",
                                 onebit=f"{v['onebit']:,.1f}", dlaplace=f"{v['dlaplace']:,.1f}", lower=lower)
    return ""
