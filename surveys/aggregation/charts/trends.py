"""Geometry of a question's trend across waves (templates/aggregation/_trend.html): server-rendered SVG, no script.

One strip per option: 0% at its foot, 100% at its head, one mark per wave with reports at the estimate clipped to
0-100% and a bar for its interval, the marks joined by a line. A wave whose reports were made with another
mechanism than this wave's gets a hollow mark (its interval is its own: the estimates still compare). The words
for screen readers give every figure. Classes in static/css/app.css (the CSP forbids inline styles).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

from surveys.localized import point

from ..waves.series import Trend
from .bars import LABEL_CHARS, WIDTH, Frame, Tick, percent

LEFT, RIGHT = 44, 388  # the plot; the percent labels sit left of it
LABEL_X = 40
STRIP = 100  # one option's strip: its label, then the plot
PLOT_TOP, PLOT = 24, 64  # the plot's head below the strip's top, and its height
AXIS = 24


@dataclass(frozen=True)
class Mark:
    x: float
    y: float
    low_y: float
    high_y: float
    same: bool  # made with this wave's mechanism


@dataclass(frozen=True)
class Level:
    y: float
    text: str


@dataclass(frozen=True)
class Strip:
    label: str
    text_y: int
    levels: list[Level]  # 0%, 50%, 100%
    marks: list[Mark]
    line: str  # the polyline's points


@dataclass(frozen=True)
class TrendChart(Frame):  # its ticks name the waves
    label_x: int
    strips: list[Strip]


def _y(top: int, fraction: float) -> float:
    return round(top + PLOT_TOP + PLOT * (1 - min(1.0, max(0.0, fraction))), 2)


def trend_chart(trend: Trend) -> TrendChart | None:
    """The trend of one question across the waves with reports; None with fewer than one."""
    points = [p for p in trend.points if p.n]
    if not points:
        return None
    waves = [p.wave for p in trend.points]
    slot = (RIGHT - LEFT) / len(waves)
    xs = {wave: round(LEFT + slot * (i + 0.5), 2) for i, wave in enumerate(waves)}
    strips, words = [], []
    level = point(f"{trend.points[0].estimate.confidence * 100:g}%")
    for j, label in enumerate(trend.question.options):
        top = j * STRIP
        marks = [Mark(xs[p.wave], _y(top, p.estimate.clipped[j]), _y(top, p.estimate.ci_low[j]),
                      _y(top, p.estimate.ci_high[j]), p.same) for p in points]
        strips.append(Strip(
            label=label if len(label) <= LABEL_CHARS else label[:LABEL_CHARS - 1] + "…", text_y=top + 16,
            levels=[Level(_y(top, f), f"{int(f * 100)}%") for f in (0.0, 0.5, 1.0)], marks=marks,
            line=" ".join(f"{m.x},{m.y}" for m in marks)))
        words.append(_("%(label)s: %(waves)s") % {"label": label, "waves": "; ".join(
            _("wave %(wave)s %(value)s (%(low)s to %(high)s)") % {
                "wave": p.wave, "value": percent(p.estimate.clipped[j]), "low": percent(p.estimate.ci_low[j]),
                "high": percent(p.estimate.ci_high[j])} for p in points)})
    axis_y = len(strips) * STRIP
    return TrendChart(
        id=f"trend-{trend.question.id}",
        title=_("Estimated share of each answer to question %(order)s, wave by wave") % {
            "order": trend.question.order},
        description=_("Marks show each wave's estimate clipped to 0–100%%, bars its %(level)s interval; hollow "
                      "marks, a wave whose randomization differed. ") % {"level": level}
        + ". ".join(words) + ".",
        width=WIDTH, height=axis_y + AXIS, left=LEFT, right=RIGHT, label_x=LABEL_X, axis_y=axis_y,
        strips=strips, ticks=[Tick(xs[wave], _("wave %(wave)s") % {"wave": wave}, "middle") for wave in waves],
    )
