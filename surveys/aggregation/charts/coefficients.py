"""A model's forest plot as server-rendered SVG (templates/aggregation/_forest_chart.html; no script and no
inline style, the look is in static/css/app.css): one row per term but the intercept, a dot at the estimate
and a whisker for its interval, against a line at no effect. Odds ratios (logistic) on a logarithmic axis
around 1; a linear model's coefficients on a plain axis around 0. Ends beyond the axis are clipped to it, and
the words (the chart's description) give every figure exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from django.utils.translation import gettext as _

from surveys.localized import point

from ..regression.fitting import FittedModel
from ..regression.questions import LOGISTIC
from .bars import LEFT, RIGHT, WIDTH, Frame, Tick, fitting_anchor

ROW = 44
TOP = 4
AXIS = 28
LABEL_CHARS = 52
OR_LIMITS = (0.01, 100.0)  # the log axis never spans more than this
OR_TICKS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100)


@dataclass(frozen=True)
class ForestRow:
    label: str
    value_text: str
    text_y: int
    whisker_y: int
    dot_x: float
    whisker_low: float
    whisker_high: float
    cap_top: int
    cap_bottom: int


@dataclass(frozen=True)
class ForestChart(Frame):
    rows: list[ForestRow]
    null_x: float  # the line of no effect (odds ratio 1, coefficient 0)


def number(value: float) -> str:
    return "–" if not math.isfinite(value) else point(f"{value:.3g}".replace("-", "−"))


def forest_chart(found: FittedModel) -> ForestChart | None:
    """None for an intercept-only model (nothing to plot)."""
    if len(found.terms) < 2:
        return None
    logistic = found.kind == LOGISTIC
    if logistic and found.odds_ratio and found.odds_ratio_low and found.odds_ratio_high:
        values, lows, highs = found.odds_ratio, found.odds_ratio_low, found.odds_ratio_high
    else:
        values, lows, highs = found.estimate, found.ci_low, found.ci_high
    low = min(lows[1:] + ((1.0,) if logistic else (0.0,)))
    high = max(highs[1:] + ((1.0,) if logistic else (0.0,)))
    place, ticks = _log_axis(low, high) if logistic else _plain_axis(low, high)
    level = point(f"{found.confidence * 100:g}%")
    rows, words = [], []
    for i in range(1, len(found.terms)):
        top = TOP + (i - 1) * ROW
        label = found.terms[i].label
        interval = _("%(low)s to %(high)s") % {"low": number(lows[i]), "high": number(highs[i])}
        rows.append(ForestRow(
            label=label if len(label) <= LABEL_CHARS else label[:LABEL_CHARS - 1] + "…",
            value_text=f"{number(values[i])} ({interval})", text_y=top + 14, whisker_y=top + 27,
            dot_x=place(values[i]), whisker_low=place(lows[i]), whisker_high=place(highs[i]), cap_top=top + 21,
            cap_bottom=top + 33))
        words.append(_("%(label)s: %(value)s, %(level)s interval %(interval)s") % {
            "label": label, "value": number(values[i]), "level": level, "interval": interval})
    axis_y = TOP + len(rows) * ROW + 4
    title = (_("Odds ratios of modelling question %(order)s") if logistic
             else _("Coefficients of modelling question %(order)s")) % {"order": found.outcome.order}
    what = (_("Dots show each odds ratio on a logarithmic scale, whiskers its %(level)s interval, the line the odds "
              "ratio 1 (no association); ") if logistic else
            _("Dots show each coefficient, whiskers its %(level)s interval, the line 0 (no association); "))
    return ForestChart(
        id=f"chart-model-{found.outcome.id}", title=title,
        description=what % {"level": level} + "; ".join(words) + ".", width=WIDTH, height=axis_y + AXIS,
        left=LEFT, right=RIGHT, axis_y=axis_y, ticks=ticks, rows=rows, null_x=place(1.0 if logistic else 0.0))


def _log_axis(low: float, high: float) -> tuple[Callable[[float], float], list[Tick]]:
    lo = math.log(max(OR_LIMITS[0], min(low, 1 / 1.5)))
    hi = math.log(min(OR_LIMITS[1], max(high, 1.5)))

    def place(value: float) -> float:
        at = math.log(value) if value > 0 else -math.inf
        return round(LEFT + (RIGHT - LEFT) * (min(hi, max(lo, at)) - lo) / (hi - lo), 2)

    shown = [t for t in OR_TICKS if lo - 1e-9 <= math.log(t) <= hi + 1e-9]
    return place, [Tick(place(t), point(f"{t:g}"), fitting_anchor(place(t), point(f"{t:g}"))) for t in shown]


def _plain_axis(low: float, high: float) -> tuple[Callable[[float], float], list[Tick]]:
    span = max(high - low, 1e-9)
    lo, hi = low - 0.05 * span, high + 0.05 * span

    def place(value: float) -> float:
        value = value if math.isfinite(value) else (hi if value > 0 else lo)
        return round(LEFT + (RIGHT - LEFT) * (min(hi, max(lo, value)) - lo) / (hi - lo), 2)

    ends = {low: "start", 0.0: "middle", high: "end"}  # the ends and 0 (inside them: the line of no effect)
    return place, [Tick(place(t), number(t), anchor) for t, anchor in sorted(ends.items())]
