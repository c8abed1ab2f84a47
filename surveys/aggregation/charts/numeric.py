"""Server-rendered SVG for numeric and ordinal questions' results: a mean with its interval whiskers on the question's
own scale (a numeric mean, an ordinal mean score), and a histogram of a numeric question's bins
(templates/aggregation/_mean_chart.html, _histogram.html). As in `charts`: plain SVG attributes, no
script, no inline style (the look is in static/css/app.css), a title and a description for screen readers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.utils.translation import gettext as _

from surveys.localized import point

from ..results.service import QuestionResult
from ..templatetags.results_format import figures
from .bars import AXIS, LEFT, RIGHT, WIDTH, Frame, Tick, estimate_chart, percent

MEAN_HEIGHT = 56  # plot area of the mean chart
HISTOGRAM_HEIGHT = 160  # plot area of the histogram
TOP = 24
LABEL_PX = 6.5  # roughly one character of a 11px label


def number(value: float) -> str:
    """A mean or an end of a scale, short: 4 significant digits, a true minus sign."""
    return "–" if not math.isfinite(value) else point(f"{value:.4g}".replace("-", "−"))


@dataclass(frozen=True)
class MeanChart(Frame):
    mean_x: float
    low_x: float
    high_x: float
    marker_y: int
    value_text: str


def mean_range(result: QuestionResult) -> tuple[float, float]:
    """Where a mean can lie: lo..hi, or the scored levels' lowest and highest score."""
    if result.question.scale is not None and result.is_mean:
        return float(result.question.scale.lo), float(result.question.scale.hi)
    scores = [float(score) for score in result.question.scores if score is not None]
    return min(scores), max(scores)


def mean_chart(result: QuestionResult) -> MeanChart | None:
    """The mean (a dot) and its interval (whiskers) on the question's scale; None without an estimate."""
    mean = result.mean
    if mean is None or result.n == 0 or not math.isfinite(mean.mean):
        return None
    low, high = mean_range(result)
    span = high - low or 1.0

    def at(value: float) -> float:
        return round(LEFT + (RIGHT - LEFT) * min(1.0, max(0.0, (value - low) / span)), 2)

    level = point(f"{mean.confidence * 100:g}%")
    what = _("mean") if result.is_mean else _("mean score")
    shown, low_text, high_text = figures(mean.mean, mean.ci_low, mean.ci_high)  # one number of decimals
    value_text = _("%(what)s %(mean)s (%(level)s interval %(low)s to %(high)s)") % {
        "what": what, "mean": shown, "level": level, "low": low_text, "high": high_text}
    interval = _("%(low)s to %(high)s") % {"low": low_text, "high": high_text}
    axis_y = TOP + MEAN_HEIGHT - 16
    middle = (low + high) / 2
    return MeanChart(
        id=f"chart-mean-{result.question.id}",
        title=_("Estimated %(what)s of question %(order)s") % {"what": what, "order": result.question.order},
        description=(_("The dot shows the weighted estimate, the whiskers its %(level)s interval, on the scale from "
                       "%(low)s to %(high)s, from %(n)s reports: %(value)s.") if result.weighted else
                     _("The dot shows the unbiased estimate, the whiskers its %(level)s interval, on the scale "
                       "from %(low)s to %(high)s, from %(n)s reports: %(value)s.")) % {
            "level": level, "low": number(low), "high": number(high), "n": result.n, "value": value_text},
        width=WIDTH, height=axis_y + AXIS, left=LEFT, right=RIGHT, axis_y=axis_y,
        ticks=[Tick(at(low), number(low), "start"), Tick(at(middle), number(middle), "middle"),
               Tick(at(high), number(high), "end")],
        mean_x=at(mean.mean), low_x=at(mean.ci_low), high_x=at(mean.ci_high), marker_y=TOP + 12,
        # Drawn like a bar's: the figure and its interval, no words, so it fits at any width in any
        # language (the sentence is in the description and the paragraph beside the chart).
        value_text=f"{shown} ({interval})",
    )


@dataclass(frozen=True)
class Column:
    label: str
    x: float
    width: float
    y: float
    height: float
    whisker_x: float
    whisker_top: float
    whisker_bottom: float
    label_x: float
    title: str


@dataclass(frozen=True)
class Histogram(Frame):
    top_y: int
    top_text: str
    columns: list[Column]


def _ceiling(value: float) -> float:
    """The histogram's top: the next 10% above `value` (at least 10%, at most 100%)."""
    return min(1.0, max(0.1, math.ceil(value * 10 - 1e-9) / 10))


def histogram(result: QuestionResult) -> Histogram | None:
    """One column per bin: the estimate clipped to [0, 1], whiskers for its interval; None before any report."""
    rows = result.rows
    if result.n == 0 or not rows:
        return None
    top = _ceiling(max(max(row.ci_high for row in rows), max(row.clipped for row in rows)))
    axis_y = TOP + HISTOGRAM_HEIGHT
    slot = (RIGHT - LEFT) / len(rows)
    chars = max(3, int(slot / LABEL_PX))
    level = point(f"{result.level * 100:g}%")

    def y(fraction: float) -> float:
        return round(axis_y - HISTOGRAM_HEIGHT * min(1.0, max(0.0, fraction / top)), 2)

    columns = []
    for i, row in enumerate(rows):
        x0 = LEFT + i * slot
        label = row.label if len(row.label) <= chars else row.label[:chars - 1] + "…"
        title = _("%(label)s: %(value)s, %(level)s interval %(low)s to %(high)s") % {
            "label": row.label, "value": percent(row.clipped), "level": level, "low": percent(row.ci_low),
            "high": percent(row.ci_high)}
        columns.append(Column(label=label, x=round(x0 + slot * 0.12, 2), width=round(slot * 0.76, 2),
                              y=y(row.clipped), height=round(axis_y - y(row.clipped), 2),
                              whisker_x=round(x0 + slot / 2, 2), whisker_top=y(row.ci_high),
                              whisker_bottom=y(row.ci_low), label_x=round(x0 + slot / 2, 2), title=title))
    return Histogram(
        id=f"chart-histogram-{result.question.id}",
        title=_("Estimated share of answers in each range of question %(order)s") % {"order": result.question.order},
        description=(_("Columns show the estimate clipped to 0–100%% (post-processed), whiskers the %(level)s "
                       "interval valid however often you look (confidence sequence), from %(n)s reports. ")
                     if result.anytime else
                     _("Columns show the estimate clipped to 0–100%% (post-processed), whiskers the %(level)s "
                       "confidence interval, from %(n)s reports. ")) % {"level": level, "n": result.n}
        + "; ".join(column.title for column in columns) + ".",
        width=WIDTH, height=axis_y + AXIS, left=LEFT, right=RIGHT, axis_y=axis_y, top_y=TOP,
        top_text=percent(top), columns=columns, ticks=[],
    )


def charts_of(result: QuestionResult, pilot: bool = False) -> tuple[object | None, MeanChart | None]:
    """(the chart of its fractions: bars, or columns for a histogram; its mean chart) for a question whose
    estimates are shown (enough respondents, or pilot figures asked for); neither before (its words are the
    figures)."""
    if not (result.enough or pilot):
        return None, None
    if result.is_mean:
        return None, mean_chart(result)
    bars = histogram(result) if result.question.histogram else estimate_chart(result)
    return bars, mean_chart(result) if result.mean is not None else None
