"""The one rule for too few respondents, and its warning, for every place that shows an estimate.

The rule: a figure from n respondents is too few while n is below the planner's respondents for the chosen
margin at the figure's interval level, worst case (`QuestionResult.needed`: fixed-n or valid at any time, as
the intervals shown; `CrossTab.needed`: a joint cell's). Below it the randomization dominates: an estimate can
lie far outside 0-100% and its interval span almost everything.

How each place applies it (one rule, two presentations, never a figure without the reason):
- every section of the dashboard (the questions' results, the cross-tab, the break-down's tables and the trends
  across waves) withholds a figure below the planner's size and says why, in the same words (a chart is read at
  a glance), unless the researcher asks for pilot figures (`ResultOptions.pilot`, "Show pilot figures"): then
  every section shows them, each marked as a pilot figure, with its warning and its intervals clipped to what is
  possible (0-100%);
- every other place gives the figure with the warning beside it: the estimates API and the cross-tab API
  (`too_few`, `warning`), estimates.csv and crosstab.csv (the same two columns), the dashboard's cross-tab and
  break-down (a notice on each table) and the generated R and Python scripts (a warning line per question and a
  `too_few` column), which apply the same planner to the fixed-n intervals they compute. Withholding there would
  cut a download or an analysis silently; a researcher who pools surveys may need the figure, and now gets it
  with the reason not to read it alone.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from ldp.means import numeric
from surveys.collection.plan import PlannedQuestion


def too_few(n: int, needed: int) -> bool:
    """Whether n respondents are fewer than the planner's `needed` for the chosen margin and level."""
    return n < needed


def question_warning(n: int, needed: int, margin: str, level: str, randomized: bool = True) -> str | None:
    """The warning beside a question's estimates, or None with enough respondents. `margin` and `level`
    as the dashboard writes them ("±5.0 points", "95%"). A question sent as given has no randomization to
    dominate: its warning says only that its intervals are wide."""
    if not too_few(n, needed):
        return None
    if not randomized:
        return _("Too few respondents: %(n)s of the %(needed)s needed for %(margin)s at %(level)s. These answers are "
                 "not randomized, but with so few of them the interval is wide.") % {
            "n": n, "needed": needed, "margin": margin, "level": level}
    return _("Too few respondents: %(n)s of the %(needed)s needed for %(margin)s at %(level)s. The "
             "randomization dominates: an estimate can lie far from the truth and its interval span almost "
             "everything.") % {
        "n": n, "needed": needed, "margin": margin, "level": level}


def crosstab_warning(n: int, needed: int, margin: str, level: str) -> str | None:
    """The warning beside a cross-tab (or a break-down table), or None with enough responses answering both."""
    if not too_few(n, needed):
        return None
    return _("Too few responses answering both: %(n)s of the %(needed)s needed for %(margin)s on every cell at "
             "%(level)s. The randomization of two answers at once dominates: these estimates can lie far from "
             "the truth and their intervals are wide.") % {
        "n": n, "needed": needed, "margin": margin, "level": level}


def waves_warning(waves: list[int], needed: int, margin: str, level: str) -> str | None:
    """The warning beside a question's trend across waves when some wave has fewer respondents than the planner's
    `needed` (the same planner as the question's own results), or None."""
    if not waves:
        return None
    return _("Too few respondents in wave %(waves)s: fewer than the %(needed)s needed for %(margin)s at %(level)s. "
             "The randomization dominates: an estimate can lie far from the truth and its interval span almost "
             "everything.") % {"waves": ", ".join(map(str, waves)), "needed": needed, "margin": margin,
                                "level": level}


def mean_variance(question: PlannedQuestion) -> float | None:
    """A numeric mean's worst-case variance per report (its units squared), which the generated scripts
    need to apply the rule themselves (`means.needed` from it); None for every other question."""
    return numeric.worst_mean_variance(question.mechanism) if question.mean else None  # type: ignore[arg-type]
