"""The trend chart's geometry (surveys.aggregation.charts.trends): one strip per option, a mark per wave with
reports at its clipped estimate and a bar for its interval, hollow where the wave's randomization differed, and
every figure in words."""

from __future__ import annotations

import ldp
from ldp.waves.pairs import WaveChannel
from surveys.aggregation.charts.bars import Tick
from surveys.aggregation.charts.trends import Level, Mark, Strip, TrendChart, trend_chart
from surveys.aggregation.waves.series import Point, Trend
from surveys.collection.plan import PlannedQuestion

QRR = ldp.QRandomizedResponse("0.5")
QUESTION = PlannedQuestion(id=7, order=2, text="Smoked?", kind="yes_no", options=("No", "Yes"), mechanism=QRR)


def point(wave, counts, n, same=True):
    return Point(wave, QRR.estimate(counts, n), QRR, None, WaveChannel.of(QRR), same)


def test_it_draws_a_strip_per_option_and_a_mark_per_wave_with_reports():
    points = [point(1, [60, 40], 100), point(2, [0, 0], 0), point(3, [100, 0], 100, same=False)]
    chart = trend_chart(Trend(QUESTION, points, None, 1, 3, ()))
    one, three = points[0].estimate, points[2].estimate

    def y(top, value):
        return round(top + 24 + 64 * (1 - min(1.0, max(0.0, value))), 2)

    xs = {1: round(44 + 344 / 3 * 0.5, 2), 2: round(44 + 344 / 3 * 1.5, 2), 3: round(44 + 344 / 3 * 2.5, 2)}
    strips = []
    for j, label in enumerate(("No", "Yes")):
        top = 100 * j
        marks = [Mark(xs[1], y(top, one.clipped[j]), y(top, one.ci_low[j]), y(top, one.ci_high[j]), True),
                 Mark(xs[3], y(top, three.clipped[j]), y(top, three.ci_low[j]), y(top, three.ci_high[j]), False)]
        strips.append(Strip(label, top + 16, [Level(y(top, 0.0), "0%"), Level(y(top, 0.5), "50%"),
                                              Level(y(top, 1.0), "100%")], marks,
                            " ".join(f"{m.x},{m.y}" for m in marks)))

    def words(j):
        return "; ".join(f"wave {w} {e.clipped[j] * 100:.1f}% ({e.ci_low[j] * 100:.1f}% to {e.ci_high[j] * 100:.1f}%)"
                         for w, e in ((1, one), (3, three)))

    assert chart == TrendChart(
        id="trend-7", title="Estimated share of each answer to question 2, wave by wave",
        description=("Marks show each wave's estimate clipped to 0–100%, bars its 95% interval; hollow marks, a wave "
                     f"whose randomization differed. No: {words(0)}. Yes: {words(1)}."),
        width=400, height=224, left=44, right=388, label_x=40, axis_y=200, strips=strips,
        ticks=[Tick(xs[w], f"wave {w}", "middle") for w in (1, 2, 3)])
    assert three.clipped[0] == 1.0 and three.estimate[0] > 1.0  # the mark is clipped, the figure unbiased


def test_no_wave_with_reports_draws_no_chart():
    assert trend_chart(Trend(QUESTION, [point(1, [0, 0], 0)], None, 0, 0, ())) is None
