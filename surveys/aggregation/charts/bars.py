"""Geometry of the server-rendered SVG bar charts (templates/aggregation/_chart.html, _daily.html).

No chart library and no script: the numbers here become plain SVG attributes, and the
look comes from classes in static/css/app.css (the CSP forbids inline styles). Estimates:
one row per option, its label and post-processed value on top (the estimate clipped to
[0, 1], which the bar shows too), and a whisker for the confidence interval. Progress: one
bar per day of responses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.utils.translation import gettext as _

from surveys.localized import point

from ..results.progress import Day
from ..results.service import QuestionResult

WIDTH = 400  # viewBox units; the chart scales to its container, so keep the text large
LEFT, RIGHT = 8, 392
ROW = 48
TOP = 4
AXIS = 28
LABEL_CHARS = 44


@dataclass(frozen=True)
class Bar:
    label: str
    value_text: str
    text_y: int
    bar_y: int
    bar_width: float
    whisker_y: int
    whisker_low: float
    whisker_high: float
    cap_top: int
    cap_bottom: int


@dataclass(frozen=True)
class Tick:
    x: float
    text: str
    anchor: str  # SVG text-anchor, so the end labels stay inside the chart


@dataclass(frozen=True)
class Frame:
    """What every chart's SVG frame needs: its id, words for screen readers, size and axis."""

    id: str
    title: str
    description: str
    width: int
    height: int
    left: int
    right: int
    axis_y: int
    ticks: list[Tick]


@dataclass(frozen=True)
class Chart(Frame):
    bar_height: int
    bars: list[Bar]


TICK_CHAR = 8  # a tick's character at most this wide (12px text; digits are about 7): where a label may end


def fitting_anchor(at: float, text: str) -> str:
    """A tick label's text-anchor: centred on its tick, unless half of it would pass an edge of the chart (the
    browser clips what lies outside the viewBox: "100" read "10"); then it ends, or starts, at its tick."""
    half = TICK_CHAR * len(text) / 2
    if at + half > WIDTH:
        return "end"
    return "start" if at - half < 0 else "middle"


def x(fraction: float) -> float:
    return round(LEFT + (RIGHT - LEFT) * min(1.0, max(0.0, fraction)), 2)


def percent_ticks() -> list[Tick]:
    """0%, 25%, ... 100% along the axis, the end labels kept inside the chart."""
    return [Tick(x(t / 4), f"{t * 25}%", {0: "start", 4: "end"}.get(t, "middle")) for t in range(5)]


def percent(value: float) -> str:
    return "–" if not math.isfinite(value) else point(f"{value * 100:.1f}%".replace("-", "−"))


def estimate_chart(result: QuestionResult) -> Chart | None:
    """A bar chart of one question's clipped estimates with interval whiskers; None before any report."""
    if result.n == 0:
        return None
    level = point(f"{result.level * 100:g}%")
    bars, words = [], []
    for i, row in enumerate(result.rows):
        top = TOP + i * ROW
        interval = _("%(low)s to %(high)s") % {"low": percent(row.ci_low), "high": percent(row.ci_high)}
        label = row.label if len(row.label) <= LABEL_CHARS else row.label[:LABEL_CHARS - 1] + "…"
        bars.append(Bar(
            label=label, value_text=f"{percent(row.clipped)} ({interval})", text_y=top + 14, bar_y=top + 20,
            bar_width=round(x(row.clipped) - LEFT, 2), whisker_y=top + 29, whisker_low=x(row.ci_low),
            whisker_high=x(row.ci_high), cap_top=top + 23, cap_bottom=top + 35,
        ))
        words.append(_("%(label)s: %(value)s, %(level)s interval %(interval)s") % {
            "label": row.label, "value": percent(row.clipped), "level": level, "interval": interval})
    height = TOP + len(bars) * ROW + AXIS
    axis_y = TOP + len(bars) * ROW + 4
    return Chart(
        id=f"chart-{result.question.id}",
        title=_("Estimated share of each answer to question %(order)s") % {"order": result.question.order},
        description=_description(result, level) + "; ".join(words) + ".",
        width=WIDTH, height=height, left=LEFT, right=RIGHT, axis_y=axis_y, bar_height=18, bars=bars,
        ticks=percent_ticks(),
    )


DAILY_HEIGHT = 72  # plot area of the per-day chart, viewBox units
DAILY_TOP = 18


@dataclass(frozen=True)
class DayBar:
    x: float
    y: float
    width: float
    height: float
    title: str  # a tooltip and the words for this bar


@dataclass(frozen=True)
class DailyChart(Frame):
    top_y: int
    peak_text: str
    bars: list[DayBar]


def _description(result: QuestionResult, level: str) -> str:
    if result.anytime:
        return _("Bars and figures show the estimate clipped to 0–100%% (post-processed), whiskers the %(level)s "
                 "interval valid however often you look (confidence sequence), from %(n)s reports. ") % {
                     "level": level, "n": result.n}
    return _("Bars and figures show the estimate clipped to 0–100%% (post-processed), whiskers the "
             "%(level)s confidence interval, from %(n)s reports. ") % {"level": level, "n": result.n}


def daily_chart(days: list[Day], chart_id: str = "chart-daily") -> DailyChart | None:
    """Responses per day as bars (the tallest day fills the height); None without any day."""
    if not days:
        return None
    peak = max(day.responses for day in days) or 1
    slot = (RIGHT - LEFT) / len(days)
    axis_y = DAILY_TOP + DAILY_HEIGHT
    bars = []
    for i, day in enumerate(days):
        height = round(DAILY_HEIGHT * day.responses / peak, 2)
        bars.append(DayBar(x=round(LEFT + i * slot + slot * 0.15, 2), y=round(axis_y - height, 2),
                           width=round(slot * 0.7, 2), height=height,
                           title=_("%(day)s: %(n)s") % {"day": day.day.isoformat(), "n": day.responses}))
    words = "; ".join(bar.title for bar, day in zip(bars, days, strict=True) if day.responses)
    total = sum(day.responses for day in days)
    first, last = days[0].day.isoformat(), days[-1].day.isoformat()
    return DailyChart(
        id=chart_id, title=_("Responses per day, %(first)s to %(last)s") % {"first": first, "last": last},
        description=_("%(total)s responses in these %(count)s days; days with responses: %(words)s.") % {
            "total": total, "count": len(days), "words": words or _("none")},
        width=WIDTH, height=axis_y + AXIS, left=LEFT, right=RIGHT, axis_y=axis_y, top_y=DAILY_TOP,
        peak_text=_("%(n)s a day") % {"n": peak}, bars=bars,
        ticks=[Tick(LEFT, first, "start"), Tick(RIGHT, last, "end")],
    )
