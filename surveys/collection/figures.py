"""What a question's mechanism means for a respondent, as the admin shows it.

One place computes the figures (all by `ldp`) and words them: the admin's "What it means"
line under a saved question and the live figures endpoint the admin's script asks while an
admin types (so no privacy formula is ever written in JavaScript).

Some figures only some mechanisms have (`particular`):

- multi-select: each box's bit is flipped at a per-bit epsilon e_b; two answers differ in at most
  d boxes (d = k, or min(k, 2m) with at most m ticks), so the question costs d e_b. Both are shown.
- a numeric mean: the worst-case variance of one report under each mechanism for a mean (the 1-bit
  mean, discrete Laplace) at this epsilon and range (`ldp.means.numeric.per_report_variance`), saying which
  is lower, and the respondents for a margin of 5% of the range on the mean.
- one of k options: which randomized channel for one of k (k-RR, SUE, OUE) varies least (`lowest_variance`).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import ldp
import ldp.means.numeric
import ldp.planning.sizes
from ldp.mechanisms import exact_q
from ldp.planning.rounding import Loss, loss_of

from .kinds import mechanism_names

MARGIN = 0.05  # the planner's margin: ±5 points at 95% confidence
CONFIDENCE = 0.95
# Guidance, not a rule: the per-question epsilon up to which privacy reads as strong, then moderate.
STRONG, MODERATE = 1.0, 3.0
GUIDANCE = gettext_lazy("Guidance: a question with ε ≤ 1 gives strong privacy, ε ≤ 3 moderate, "
                        "above 3 weak (a report then shifts the odds by more than 20:1).")


def strength(epsilon: float) -> str:
    """"strong", "moderate" or "weak" (see GUIDANCE)."""
    return "strong" if epsilon <= STRONG else "moderate" if epsilon <= MODERATE else "weak"


def describe(mechanism: ldp.Mechanism, fitting: tuple[str, ...] = ()) -> dict[str, Any]:
    """The figures of one mechanism: effective epsilon, q of q-RR with the same channel (yes/no
    only), the odds factor, the best guess from one report (%), respondents for ±5 points.

    A direct question (not randomized) has no epsilon, odds, best guess or strength (all None:
    JSON null, never Infinity) and is outside the survey's budget. A remembered question: `remembered`."""
    if (layers := ldp.mechanisms.remembered.layers_of(mechanism)) is not None:
        return remembered(mechanism, layers)
    if not mechanism.randomized:
        figures: dict[str, Any] = {
            "mechanism": mechanism.name, "k": mechanism.k, "randomized": False, "epsilon": None,
            "q_equivalent": None, "q_exact": None, "odds": None, "best_guess": None,
            "respondents": ldp.respondents_needed(mechanism, MARGIN), "strength": None,
        }
        # xgettext:no-python-format  (a str.format string: its "%" is a percent sign)
        figures["summary"] = _("not randomized: sent as given, with no deniability; not counted in the "
                               "survey's privacy budget; {respondents} respondents for ±5 points at 95%").format(
            respondents=f"{figures['respondents']:,}")
        return figures
    epsilon = mechanism.effective_epsilon
    figures = {
        "mechanism": mechanism.name,
        "k": mechanism.k,
        "randomized": True,
        "epsilon": epsilon,
        "q_equivalent": mechanism.q_equivalent,
        "q_exact": mechanism.describe().get("q_exact"),  # q-RR: q as configured, exactly
        "odds": ldp.odds_factor(epsilon),
        "best_guess": 100 * ldp.best_guess(epsilon),
        "respondents": ldp.respondents_needed(mechanism, MARGIN) if not mechanism.estimates_mean else None,
        "strength": strength(epsilon),
    }
    figures.update(particular(mechanism, MARGIN))
    figures.update(lowest_variance(mechanism, fitting))  # `fitting`: the kind's mechanisms
    loss = loss_of(mechanism.sampler())  # what the summary says: rounded up from the integers, never to nearest
    figures["shown"] = {"epsilon": str(loss.epsilon_up(4)), "odds": str(loss.odds_up(2)),
                        "guess": str(loss.guess_up(1))}
    # Exact, so the page's running total is the saved one (total_shown), not a sum of rounded floats.
    figures["loss"] = {"ratio": str(loss.ratio), "rational": str(loss.rational)}
    figures["summary"] = summary(figures) + particular_summary(figures) + advice(figures)
    return figures


def remembered(mechanism: ldp.Mechanism, layers: ldp.mechanisms.remembered.Remembered) -> dict[str, Any]:
    """A question that remembers its randomization across waves: its instantaneous layer's figures (what the browser
    draws each wave and the budget counts), but the respondents of its reports as every reader debiases them, through
    both layers composed (the estimates and the dashboard plan with the same), and both layers' losses beside."""
    figures = describe(layers.instant)
    figures["respondents"] = ldp.respondents_needed(mechanism, MARGIN)
    figures["wave_epsilon"] = layers.wave_epsilon
    figures["permanent_epsilon"] = layers.permanent.effective_epsilon
    figures["summary"] = summary(figures) + _(
        "; remembered across waves through a permanent layer of ε = {permanent}: the respondents are for reports "
        "read through both layers, and one wave costs at most ε = {wave}").format(
        permanent=str(loss_of(layers.permanent.sampler()).epsilon_up(4)),
        wave=f"{math.ceil(layers.wave_epsilon * 10000) / 10000:.4f}")
    return figures


LOSS = re.compile(r"(\d{1,4000}(?:/[1-9]\d{0,3999})?);(\d{1,4000}(?:/[1-9]\d{0,3999})?)")


def total_shown(tokens: list[str]) -> str:
    """The total epsilon of questions given by their figures' "loss" (as "RATIO;RATIONAL"), as the saved
    survey shows it: the exact losses added (sequential composition), rounded up to 4 decimals. ValueError
    for a token that is not a loss.

    >>> total_shown(["3;0", "3;0"]), total_shown([])
    ('2.1973', '0.0000')
    """
    losses = [Loss(Fraction(m[1]), Fraction(m[2])) for m in map(LOSS.fullmatch, tokens) if m]
    if len(losses) < len(tokens) or any(loss.ratio < 1 for loss in losses):
        raise ValueError("not a loss")
    return str(sum(losses, Loss()).epsilon_up(4))


def summary(figures: dict[str, Any]) -> str:
    """The figures in one line of words (plain text: the caller escapes it); epsilon, odds and the
    best guess as `figures["shown"]` gives them, rounded up."""
    shown = figures["shown"]
    q = "" if figures["q_equivalent"] is None else f" (q = {figures['q_equivalent']:.4f})"
    if figures.get("q_exact"):  # q-RR: q as configured, exactly, and p = (1 + q)/2, which the browser samples exactly
        exact = Fraction(figures["q_exact"])
        q = f" (q = {exact_q.shown(exact)}, p = {exact_q.half_plus(exact)})"
    strengths = {"strong": _("strong"), "moderate": _("moderate"), "weak": _("weak")}
    if figures["respondents"] is None:  # a numeric mean: its planner is in units of the question
        # xgettext:no-python-format  (a str.format string: its "%" is a percent sign)
        return _("ε = {epsilon}; a report shifts the odds between any two answers at most {odds}:1; a guess from "
                 "one report is right at most {guess}% of the time ({strength} privacy)").format(
            epsilon=shown["epsilon"], odds=shown["odds"], guess=shown["guess"], strength=strengths[figures["strength"]])
    # xgettext:no-python-format  (a str.format string: its "%" is a percent sign)
    return _("ε = {epsilon}{q}; a report shifts the odds at most {odds}:1; {respondents} respondents for "
             "±5 points at 95%; a guess from one report is right at most {guess}% of the time "
             "({strength} privacy)").format(
        epsilon=shown["epsilon"], q=q, odds=shown["odds"], respondents=f"{figures['respondents']:,}",
        guess=shown["guess"],
        strength=strengths[figures["strength"]],
    )


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
    found = ldp.means.numeric.per_report_variance(mechanism.to_dict()["epsilon"], lo, hi, step)
    return {name: float(variance) for name, variance in found.items()}


def lowest_variance(mechanism: ldp.Mechanism, fitting: tuple[str, ...]) -> dict[str, Any]:
    """Of the one-of-k channels that fit the question (k-RR, SUE, OUE), the one whose estimates vary least at
    this epsilon and k: the mean over options of Var(pi_hat_j) for one report at the uniform answer pi_j = 1/k
    (k-RR wins below about k = 3 e^eps + 2, OUE above). Empty when there is no choice to make."""
    names = [name for name in fitting if _compared(ldp.MECHANISMS[name])]
    if mechanism.name not in names or len(names) < 2:
        return {}
    epsilon, k = mechanism.to_dict()["epsilon"], mechanism.k
    found = {name: float(ldp.make(name, epsilon=epsilon, k=k).variance([1 / k] * k, 1).mean()) for name in names}
    best = min(found, key=found.__getitem__)
    return {"lowest_variance_mechanism": best, "variance_ratio": found[mechanism.name] / found[best]}


def _compared(cls: type[ldp.Mechanism]) -> bool:
    """A channel for one of k options configured by epsilon and k (k-RR, SUE, OUE): the ones `lowest_variance`
    compares (not yes/no's, which have k = 2, nor a direct question's)."""
    return cls.shape in (ldp.Shape.INDEX, ldp.Shape.BITS) and not cls.yes_no


def particular(mechanism: ldp.Mechanism, margin: float) -> dict[str, Any]:
    """The figures particular to `mechanism` (none for the others); `margin` as a fraction of the range."""
    if mechanism.shape is ldp.Shape.TICKS:
        per_bit = per_bit_epsilon(mechanism)
        return {"per_bit_epsilon": per_bit, "differing_bits": round(mechanism.effective_epsilon / per_bit),
                "at_most": mechanism.to_dict()["at_most"]}
    if mechanism.estimates_mean:
        lo, hi, _step = scale_of(mechanism)
        found = variances(mechanism)
        units = margin * float(hi - lo)
        return {"variances": found, "lower_variance": min(found, key=found.__getitem__), "mean_margin": units,
                "mean_respondents": ldp.planning.sizes.mean_respondents_needed(mechanism, units, CONFIDENCE)}
    return {}


def advice(figures: dict[str, Any]) -> str:
    """`lowest_variance`'s figures in words (empty when there is no advice)."""
    best = figures.get("lowest_variance_mechanism")
    if best is None:
        return ""
    channel = ldp.MECHANISMS[best]
    if figures["variance_ratio"] <= 1:
        return _(". Lowest variance at this ε and number of options: this mechanism")
    why = (_("with few options, reporting the answer itself keeps the most of it") if channel.encoding == "index" else
           _("with many options, one bit per option keeps more of each answer than reporting one option"))
    return _(". Lower variance at this ε and number of options: {best}, {ratio} times less ({why})").format(
        best=mechanism_names.prose(best), ratio=f"{figures['variance_ratio']:.2f}", why=why)


def particular_summary(figures: dict[str, Any]) -> str:
    """The words for `particular`'s figures, to follow the common summary (empty when there are none)."""
    if "per_bit_epsilon" in figures:
        return _("; each box is flipped at ε = {bit} per box and two answers differ in at most {d} boxes, so the "
                 "question costs {d} × {bit}").format(bit=f"{figures['per_bit_epsilon']:.4f}",
                                                       d=figures["differing_bits"])
    if "variances" in figures:
        v = figures["variances"]
        onebit, dlaplace = (v[name] for name in ldp.means.numeric.COMPARED)
        lower = mechanism_names.prose(figures["lower_variance"])
        # xgettext:no-python-format  (a str.format string: its "%" is a percent sign)
        return _("; {respondents} respondents for ±{margin} (5% of the range) on the mean at 95%; variance of one "
                 "report: 1-bit mean {onebit}, discrete Laplace {dlaplace}: {lower} is lower at this ε and "
                 "range").format(respondents=f"{figures['mean_respondents']:,}", margin=f"{figures['mean_margin']:g}",
                                 onebit=f"{onebit:,.1f}", dlaplace=f"{dlaplace:,.1f}", lower=lower)
    return ""
