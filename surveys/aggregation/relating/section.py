"""The dashboard's "relating answers" part: the cross-tab picker and its results, the conditional
fractions as grouped bars (server-rendered SVG, templates/aggregation/_conditional_chart.html, no
script and no inline style: the look is in static/css/app.css), and the break-down of every
question by one question's answers. The numbers all come from the cross-tab service. A table whose pairs are
being counted in the background (surveys.aggregation.relating.pair_counting) is a notice in its place, and
the page asks again by itself (the dashboard's Refresh header).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from surveys.collection.models import Survey
from surveys.collection.plan import SurveyPlan
from surveys.localized import point

from ..charts.bars import LEFT, RIGHT, WIDTH, Bar, Frame, percent, percent_ticks, x
from ..params import BadParameter, ResultOptions
from . import crosstab, pair_counting

GROUP = 26  # a group's heading row, viewBox units
ROW = 44  # one bar: its label line, then the bar with its whisker
TOP = 4
AXIS = 28
LABEL_CHARS = 44


@dataclass(frozen=True)
class ConditionalBar(Bar):
    bounded: bool  # false: the denominator's interval reaches 0, the fraction is not determined


@dataclass(frozen=True)
class BarGroup:
    label: str
    y: int
    bars: list[ConditionalBar]


@dataclass(frozen=True)
class ConditionalChart(Frame):
    bar_height: int
    groups: list[BarGroup]


def _short(label: str) -> str:
    return label if len(label) <= LABEL_CHARS else label[:LABEL_CHARS - 1] + "…"


def conditional_chart(table: crosstab.CrossTab) -> ConditionalChart | None:
    """Each answer of B within each answer of A: bars of P(B = b | A = a) clipped to [0, 1], whiskers
    for Fieller's interval. None before any response answered both."""
    cond = table.b_given_a
    if cond is None:
        return None
    level = point(f"{table.confidence * 100:g}%")
    groups, words, top = [], [], TOP
    for i, group_label in enumerate(table.a.options):
        bars, heading = [], top + GROUP - 8
        top += GROUP
        for j, label in enumerate(table.b.options):
            value, low, high = cond.estimate[i][j], cond.ci_low[i][j], cond.ci_high[i][j]
            shown = min(1.0, max(0.0, value)) if math.isfinite(value) else 0.0
            if cond.bounded[i]:
                interval = _("%(low)s to %(high)s") % {"low": percent(low), "high": percent(high)}
            else:
                interval = _("not determined")
            value_text = percent(shown) if math.isfinite(value) else "–"
            bars.append(ConditionalBar(
                label=_short(label), value_text=f"{value_text} ({interval})",
                text_y=top + 14, bar_y=top + 19, bar_width=round(x(shown) - LEFT, 2), whisker_y=top + 27,
                whisker_low=x(low), whisker_high=x(high), cap_top=top + 21, cap_bottom=top + 33,
                bounded=cond.bounded[i]))
            words.append(_("%(b)s given %(a)s: %(value)s, %(level)s interval %(interval)s") % {
                "b": label, "a": group_label, "value": value_text, "level": level,
                "interval": interval})
            top += ROW
        groups.append(BarGroup(label=_short(group_label), y=heading, bars=bars))
    axis_y = top + 4
    return ConditionalChart(
        id=f"chart-conditional-{table.a.id}-{table.b.id}",
        title=_("Answers to question %(b)s within each answer to question %(a)s") % {
            "b": table.b.order, "a": table.a.order},
        description=_("Bars and figures show the estimated share clipped to 0–100%%, whiskers the %(level)s "
                      "interval, from %(n)s responses with both answers. ") % {"level": level, "n": table.n}
        + "; ".join(words) + ".",
        width=WIDTH, height=axis_y + AXIS, left=LEFT, right=RIGHT, axis_y=axis_y, bar_height=16, groups=groups,
        ticks=percent_ticks(),
    )


@dataclass(frozen=True)
class GroupCell:
    estimate: float
    ci_low: float
    ci_high: float
    bounded: bool


@dataclass(frozen=True)
class BreakDownTable:
    """One other question Q: rows Q's answers, columns G's answers, cells P(Q = q | G = g)."""

    table: crosstab.CrossTab
    rows: list[tuple[str, list[GroupCell]]]


def break_down_tables(found: crosstab.BreakDown) -> list[BreakDownTable]:
    tables = []
    for table in found.tables:
        cond = table.b_given_a
        rows = []
        for j, label in enumerate(table.b.options):
            cells = [] if cond is None else [
                GroupCell(cond.estimate[i][j], cond.ci_low[i][j], cond.ci_high[i][j], cond.bounded[i])
                for i in range(len(table.a.options))]
            rows.append((label, cells))
        tables.append(BreakDownTable(table=table, rows=rows))
    return tables


def context(survey: Survey, options: ResultOptions, current: SurveyPlan) -> dict[str, Any]:
    """What the dashboard's relating part shows; a refused a, b or by is `relate_problem` (a 400)."""
    choices = [q for q in current if q.relatable]  # a numeric mean has no answers to relate
    found: dict[str, Any] = {"relate_problem": None, "crosstab": None, "conditional_chart": None,
                             "break_down": None, "break_down_tables": [], "question_choices": choices,
                             "crosstab_counting": None, "break_down_counting": None,
                             "picked_a": options.a or (choices[0].id if choices else None),
                             "picked_b": options.b or (choices[1].id if len(choices) > 1 else None),
                             "picked_by": options.by,
                             "relate_excluded": ", ".join(str(q.order) for q in current if not q.relatable)}
    deadline = time.monotonic() + pair_counting.WAIT  # one wait for the page's counts, not one per table
    try:
        if options.a is not None or options.b is not None:
            try:
                table = crosstab.crosstab(survey, options, current, deadline - time.monotonic())
                found.update(crosstab=table, conditional_chart=conditional_chart(table))
            except pair_counting.Counting as counting:
                found["crosstab_counting"] = counting
        if options.by is not None:
            try:
                down = crosstab.break_down(survey, options, current, deadline - time.monotonic())
                found.update(break_down=down, break_down_tables=break_down_tables(down))
            except pair_counting.Counting as counting:
                found["break_down_counting"] = counting
    except BadParameter as error:
        found["relate_problem"] = error
    return found


def counting(found: dict[str, Any]) -> bool:
    """Whether a table of the relating part is being counted in the background (the page refreshes)."""
    return bool(found["crosstab_counting"] or found["break_down_counting"])
