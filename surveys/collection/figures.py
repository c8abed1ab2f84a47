"""What a question's mechanism means for a respondent, as the admin shows it.

One place computes the figures (all by `ldp`) and words them: the admin's "What it means"
line under a saved question and the live figures endpoint the admin's script asks while an
admin types (so no privacy formula is ever written in JavaScript).
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import ldp
from ldp.rounding import Loss, loss_of

from . import question_figures
from .question_figures import MEANS

MARGIN = 0.05  # the planner's margin: ±5 points at 95% confidence
# Guidance, not a rule: the per-question epsilon up to which privacy reads as strong, then moderate.
STRONG, MODERATE = 1.0, 3.0
GUIDANCE = gettext_lazy("Guidance: a question with ε ≤ 1 gives strong privacy, ε ≤ 3 moderate, "
                        "above 3 weak (a report then shifts the odds by more than 20:1).")


def strength(epsilon: float) -> str:
    """"strong", "moderate" or "weak" (see GUIDANCE)."""
    return "strong" if epsilon <= STRONG else "moderate" if epsilon <= MODERATE else "weak"


def of(mechanism: ldp.Mechanism, fitting: tuple[str, ...] = ()) -> dict[str, Any]:
    """The figures of one mechanism: effective epsilon, q of q-RR with the same channel (yes/no
    only), the odds factor, the best guess from one report (%), respondents for ±5 points.

    A direct question (not randomized) has no epsilon, odds, best guess or strength (all None:
    JSON null, never Infinity) and is outside the survey's budget."""
    if not mechanism.randomized:
        figures: dict[str, Any] = {
            "mechanism": mechanism.name, "k": mechanism.k, "randomized": False, "epsilon": None,
            "q_equivalent": None, "odds": None, "best_guess": None,
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
        "odds": ldp.odds_factor(epsilon),
        "best_guess": 100 * ldp.best_guess(epsilon),
        "respondents": ldp.respondents_needed(mechanism, MARGIN) if mechanism.name not in MEANS else None,
        "strength": strength(epsilon),
    }
    figures.update(question_figures.of(mechanism, MARGIN))
    figures.update(question_figures.lowest_variance(mechanism, fitting))  # `fitting`: the kind's mechanisms
    loss = loss_of(mechanism.sampler())  # what the summary says: rounded up from the integers, never to nearest
    figures["shown"] = {"epsilon": str(loss.epsilon_up(4)), "odds": str(loss.odds_up(2)),
                        "guess": str(loss.guess_up(1))}
    # Exact, so the page's running total is the saved one (total_shown), not a sum of rounded floats.
    figures["loss"] = {"ratio": str(loss.ratio), "rational": str(loss.rational)}
    figures["summary"] = summary(figures) + question_figures.summary(figures) + question_figures.advice(figures)
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
