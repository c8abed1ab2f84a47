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
ONE_OF_K = ("krr", "sue", "oue")  # the channels for one of k options, compared by lowest_variance
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


def lowest_variance(mechanism: ldp.Mechanism, fitting: tuple[str, ...]) -> dict[str, Any]:
    """Of the one-of-k channels that fit the question (k-RR, SUE, OUE), the one whose estimates vary least at
    this epsilon and k: the mean over options of Var(pi_hat_j) for one report at the uniform answer pi_j = 1/k
    (k-RR wins below about k = 3 e^eps + 2, OUE above). Empty when there is no choice to make."""
    names = [name for name in fitting if name in ONE_OF_K]
    if mechanism.name not in names or len(names) < 2:
        return {}
    epsilon, k = mechanism.to_dict()["epsilon"], mechanism.k
    found = {name: float(ldp.make(name, epsilon=epsilon, k=k).variance([1 / k] * k, 1).mean()) for name in names}
    best = min(found, key=found.__getitem__)
    return {"lowest_variance_mechanism": best, "variance_ratio": found[mechanism.name] / found[best]}


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


def advice(figures: dict[str, Any]) -> str:
    """`lowest_variance`'s figures in words (empty when there is no advice)."""
    best = figures.get("lowest_variance_mechanism")
    if best is None:
        return ""
    names = {"krr": _("k-ary randomized response"), "sue": _("the symmetric unary encoding"),
             "oue": _("the optimized unary encoding")}
    if figures["variance_ratio"] <= 1:
        return _(". Lowest variance at this ε and number of options: this mechanism")
    why = (_("with few options, reporting the answer itself keeps the most of it") if best == "krr" else
           _("with many options, one bit per option keeps more of each answer than reporting one option"))
    return _(". Lower variance at this ε and number of options: {best}, {ratio} times less ({why})").format(
        best=names[best], ratio=f"{figures['variance_ratio']:.2f}", why=why)


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
