"""Geometry of the server-rendered SVG bar charts (templates/aggregation/_chart.html).

No chart library and no script: the numbers here become plain SVG attributes, and the
look comes from classes in static/css/app.css (the CSP forbids inline styles). One row
per option: its label on top, a bar for the estimate clipped to [0, 1], and a whisker
for the confidence interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .results import QuestionResult

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
class Chart:
    id: str
    title: str
    description: str
    width: int
    height: int
    left: int
    right: int
    axis_y: int
    bar_height: int
    bars: list[Bar]
    ticks: list[Tick]


def x(fraction: float) -> float:
    return round(LEFT + (RIGHT - LEFT) * min(1.0, max(0.0, fraction)), 2)


def percent(value: float) -> str:
    return "–" if not math.isfinite(value) else f"{value * 100:.1f}%".replace("-", "−")


def estimate_chart(result: QuestionResult) -> Chart | None:
    """A bar chart of one question's estimates with interval whiskers; None before any report."""
    if result.n == 0:
        return None
    level = f"{result.level * 100:g}%"
    bars, words = [], []
    for i, row in enumerate(result.rows):
        top = TOP + i * ROW
        interval = f"{percent(row.ci_low)} to {percent(row.ci_high)}"
        label = row.label if len(row.label) <= LABEL_CHARS else row.label[:LABEL_CHARS - 1] + "…"
        bars.append(Bar(
            label=label, value_text=f"{percent(row.estimate)} ({interval})", text_y=top + 14, bar_y=top + 20,
            bar_width=round(x(row.clipped) - LEFT, 2), whisker_y=top + 29, whisker_low=x(row.ci_low),
            whisker_high=x(row.ci_high), cap_top=top + 23, cap_bottom=top + 35,
        ))
        words.append(f"{row.label}: {percent(row.estimate)}, {level} interval {interval}")
    height = TOP + len(bars) * ROW + AXIS
    axis_y = TOP + len(bars) * ROW + 4
    return Chart(
        id=f"chart-{result.question.id}",
        title=f"Estimated share of each answer to question {result.question.order}",
        description=(f"Bars show the debiased estimate clipped to 0–100%, whiskers the {level} "
                     f"confidence interval, from {result.n} reports. " + "; ".join(words) + "."),
        width=WIDTH, height=height, left=LEFT, right=RIGHT, axis_y=axis_y, bar_height=18, bars=bars,
        ticks=[Tick(x(t / 4), f"{t * 25}%", {0: "start", 4: "end"}.get(t, "middle")) for t in range(5)],
    )
