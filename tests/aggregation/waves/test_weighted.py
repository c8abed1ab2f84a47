"""Weighted results across waves (surveys.aggregation.waves.series with weighted=true): each wave raked to its own
margins exactly as its own dashboard weights it, the change between two waves of different respondents with the
two weighted variances added (checked against R's survey package), and the weighted change of waves that share
respondents with the largest variance any correlation allows, (se1 + se2)^2, said in the API, the CSV and the page.

About 20 CPU-s on one core: each test stores two waves of several hundred responses (the raking and R's check
need samples whose weights vary), and the R test starts Rscript."""

from __future__ import annotations

import csv
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from django.urls import reverse

from ldp.waves.pairs import INDEPENDENT, UNKNOWN, between
from surveys.aggregation.api.serializers import WeightsSerializer
from surveys.aggregation.models import PopulationMargin
from surveys.aggregation.params import BadParameter, ResultOptions
from surveys.aggregation.results import service as results
from surveys.aggregation.views import waves as wave_views
from surveys.aggregation.waves import series as waves
from surveys.collection.models import Response
from tests.aggregation.weighted_series_support import MARGINS, answer_waves, weighted_series
from tests.conftest import login

SCRIPT = Path(__file__).resolve().parents[1] / "r" / "weighted_waves.R"
FIGURES = ("n", "estimate", "std_error", "ci_low", "ci_high")
FIXED = ("Fixed by the weighting: in both waves the responses are raked to this question's population margins, so "
         "each wave's weighted figures are its margins' shares and the change is theirs, with no sampling error to "
         "give an interval or a test.")


@pytest.fixture
def series(owner):
    surveys = weighted_series(owner)
    return surveys, answer_waves(surveys, [400, 300], seed=31)


def trend_of(found, order):
    return next(trend for trend in found.trends if trend.question.order == order)


def section(html: str) -> str:
    """The dashboard's waves section."""
    start = html.index('<section class="across-waves"')
    return html[start:html.index("</section>\n", html.index("Not compared across waves", start))]


def figures(estimate):
    return tuple(getattr(estimate, name) for name in FIGURES)


def test_each_wave_is_weighted_to_its_own_margins_as_its_own_dashboard_weights_it(owner, series):
    surveys, _ = series
    found = waves.series_results(surveys[1], owner, ResultOptions(confidence=0.9, weighted=True))
    unweighted = waves.series_results(surveys[1], owner, ResultOptions(confidence=0.9))
    assert found.weighted and [t.question.order for t in found.trends] == [1, 2, 3, 4]
    for survey in surveys:
        own = results.survey_results(survey, ResultOptions(confidence=0.9, weighted=True))
        wave = next(w for w in found.waves if w.number == survey.wave)
        assert wave.weights.summary() == own.weights.summary() and wave.weights.margins == own.weights.margins
        for question in own.questions[:4]:
            point = next(p for p in trend_of(found, question.question.order).points if p.wave == survey.wave)
            plain = next(p for p in trend_of(unweighted, question.question.order).points if p.wave == survey.wave)
            assert figures(point.estimate) == figures(question.estimate)
            assert point.estimate.interval == "weighted" and plain.estimate.estimate != point.estimate.estimate
    # the margins are each wave's own: the age question meets wave 1's shares in wave 1, wave 2's in wave 2
    for wave in found.waves:
        assert trend_of(found, 2).points[wave.number - 1].estimate.estimate == pytest.approx(
            tuple(MARGINS[wave.number][2].values()), abs=1e-9)


def test_the_weighted_change_adds_the_two_waves_weighted_variances(owner, series):
    surveys, _ = series
    found = waves.series_results(surveys[0], owner, ResultOptions(weighted=True))
    assert (found.first, found.second) == (1, 2)
    for order in (1, 4):
        trend = trend_of(found, order)
        one, two = trend.points
        change = trend.change
        assert change == between(one.estimate, two.estimate, one.design, two.design, shared=0, confidence=0.95)
        assert change.correlation == INDEPENDENT and change.shared == 0
        expected = np.hypot(one.estimate.std_error, two.estimate.std_error)
        assert np.array(change.std_error) == pytest.approx(expected, rel=1e-12)
        assert np.array(change.estimate) == pytest.approx(
            np.subtract(two.estimate.estimate, one.estimate.estimate), abs=1e-15)


def rscript() -> str:
    found = shutil.which("Rscript")
    assert found, "Rscript not found: `make system-deps` installs Debian's r-base-core"
    return found


def r_figures(tmp_path, surveys, reports):
    """What R's survey package gives from the same responses and each wave's margins (the script's docstring)."""
    compared = {1: 2, 4: 3}  # question order: its options
    with (tmp_path / "data.csv").open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["wave", "age", "region", *(f"y_{q}_{j}" for q, k in compared.items() for j in range(k))])
        for survey in surveys:
            got = reports[survey.wave]
            for i in range(len(got[1])):
                writer.writerow([survey.wave, int(got[2][i]), int(got[3][i]),
                                 *(int(got[q][i] == j) for q, k in compared.items() for j in range(k))])
    with (tmp_path / "margins.csv").open("w", newline="") as file:
        csv.writer(file).writerows([["wave", "column", "value", "share"], *(
            [wave, column, code, share] for wave, found in MARGINS.items()
            for order, column in ((2, "age"), (3, "region")) for code, share in enumerate(found[order].values()))])
    with (tmp_path / "channels.csv").open("w", newline="") as file:
        csv.writer(file).writerows([["question", "wave", "p", "q"], *(
            [q.order, survey.wave, q.mechanism().p, q.mechanism().q_other]
            for survey in surveys for q in survey.ordered_questions() if q.order in compared)])
    done = subprocess.run([rscript(), "--vanilla", str(SCRIPT), *(str(tmp_path / f) for f in (
        "data.csv", "margins.csv", "channels.csv", "out.csv"))], capture_output=True, text=True, timeout=300,
        check=False)
    assert done.returncode == 0, done.stderr
    with (tmp_path / "out.csv").open() as file:
        return list(csv.DictReader(file))


def test_it_agrees_with_r_survey_wave_by_wave_and_for_the_change(client, owner, series, tmp_path):
    surveys, reports = series
    body = login(client, owner).get(reverse("aggregation:api-waves", args=[surveys[1].slug]) + "?weighted=on").json()
    assert all(wave["weights"]["cap_met"] and wave["weights"]["max"] < 5 * 1.0 for wave in body["waves"])
    ours = {}
    for question in body["questions"]:
        for point in question["waves"]:
            for j in range(len(question["options"])):
                ours["wave", point["wave"], question["order"], j] = (point["estimate"][j], point["std_error"][j])
        for j in range(len(question["options"])):
            ours["change", None, question["order"], j] = (question["change"]["estimate"][j],
                                                          question["change"]["std_error"][j])
    theirs = {(row["row"], int(row["wave"]) if row["wave"] != "NA" else None, int(row["question"]),
               int(row["option"])): (float(row["estimate"]), float(row["se"]))
              for row in r_figures(tmp_path, surveys, reports)}
    assert set(theirs) == {key for key in ours if key[2] in (1, 4)} and len(theirs) == 2 * 5 + 5
    for key, (estimate, se) in theirs.items():
        assert ours[key][0] == pytest.approx(estimate, abs=1e-8), key
        assert ours[key][1] == pytest.approx(se, rel=1e-7), key


def link(survey, count):
    """`count` of the wave's responses say their browser answered an earlier wave of the series."""
    Response.objects.filter(pk__in=Response.objects.filter(survey=survey).values("pk")[:count]).update(
        earlier_wave=True)


def test_the_weighted_change_of_waves_that_share_respondents_takes_the_largest_variance_and_says_so(client, owner,
                                                                                                     series):
    surveys, _ = series
    link(surveys[1], 12)
    found = waves.series_results(surveys[1], owner, ResultOptions(weighted=True))
    plain = waves.series_results(surveys[1], owner, ResultOptions())
    for order in (1, 4):
        one, two = trend_of(found, order).points
        change = trend_of(found, order).change
        assert (change.correlation, change.shared) == (UNKNOWN, 12)
        assert np.array(change.std_error) == pytest.approx(np.add(one.estimate.std_error, two.estimate.std_error),
                                                           rel=1e-12)
        assert np.array(change.estimate) == pytest.approx(
            np.subtract(two.estimate.estimate, one.estimate.estimate), abs=1e-15)
        assert trend_of(plain, order).change.correlation == "fewest_changes"  # unweighted: unchanged
    words = ("12 respondents of wave 2 said they had answered an earlier wave; how their weighted reports go "
             "together across waves is not worked out (their reports are never linked), so the interval allows for "
             "the largest variance any correlation gives (its standard error is the sum of the two waves' weighted "
             "standard errors).")
    login(client, owner)
    body = client.get(reverse("aggregation:api-waves", args=[surveys[1].slug]) + "?weighted=on").json()
    for question in body["questions"]:  # the age and region questions are the margins: fixed by the weighting
        change = trend_of(found, question["order"]).change
        said = FIXED if question["order"] in (2, 3) else words
        assert (question["change"]["correlation"], question["change"]["assumption"]) == ("unknown", said)
        assert question["change"]["std_error"] == list(change.std_error) and question["change"]["shared"] == 12
    download = client.get(reverse("aggregation:export-waves", args=[surveys[1].slug]) + "?weighted=on")
    rows = [row for row in csv.DictReader(download.content.decode().splitlines()) if row["row"] == "change"]
    assert download.status_code == 200 and len(rows) == 2 + 3 + 3 + 2
    assert {(row["question_order"], row["correlation"], row["assumption"], row["shared"], row["weighted"])
            for row in rows} == {(str(order), "unknown", FIXED if order in (2, 3) else words, "12", "true")
                                 for order in (1, 2, 3, 4)}
    page = client.get(reverse("aggregation:dashboard", args=[surveys[1].slug]) + "?weighted=on&pilot=on")
    part = section(page.content.decode())
    assert page.status_code == 200 and words.replace("'", "&#x27;") in part and "a change of" in part
    assert "whose weighted covariance is not worked out, its interval allows for the largest variance" in part


def test_a_wave_that_cannot_be_weighted_is_named_and_the_dashboard_shows_the_waves_unweighted(client, owner, series):
    surveys, _ = series
    PopulationMargin.objects.filter(question__survey=surveys[0]).delete()
    with pytest.raises(BadParameter) as refused:
        waves.series_results(surveys[1], owner, ResultOptions(weighted=True))
    reason = ("Wave 1: This survey has no population margins to weight to: a researcher of the survey sets them for "
              "its direct questions first (Population margins, on its results page).")
    assert (refused.value.field, refused.value.reason) == ("weighted", reason)
    login(client, owner)
    answer = client.get(reverse("aggregation:api-waves", args=[surveys[1].slug]) + "?weighted=on")
    assert (answer.status_code, answer.json()["error"]) == (400, {"code": "bad_parameter", "field": "weighted",
                                                                  "reason": reason})
    page = client.get(reverse("aggregation:dashboard", args=[surveys[1].slug]) + "?weighted=on&pilot=on")
    html = page.content.decode()
    assert page.status_code == 200 and f"The figures across waves are unweighted: {reason}" in html
    assert "a change of" in section(html) and "weighted=on" not in section(html)


def test_a_wave_without_responses_has_no_weights_and_no_change(owner):
    surveys = weighted_series(owner, waves=3)
    answer_waves(surveys[:2], [300, 200], seed=32)
    found = waves.series_results(surveys[2], owner, ResultOptions(weighted=True, first=1, second=3))
    assert [(w.number, w.weights is None) for w in found.waves] == [(1, False), (2, False), (3, True)]
    assert (found.first, found.second) == (1, 3)
    for trend in found.trends:
        assert trend.change is None and trend.points[2].n == 0
        assert all(math.isnan(x) for x in trend.points[2].estimate.estimate)


def test_the_api_gives_each_waves_weights_and_says_the_figures_are_weighted(client, owner, series):
    surveys, _ = series
    login(client, owner)
    body = client.get(reverse("aggregation:api-waves", args=[surveys[1].slug]) + "?weighted=on&first=2&second=1")
    body = body.json()
    found = waves.series_results(surveys[1], owner, ResultOptions(weighted=True, first=2, second=1))
    assert body["weighted"] is True
    assert [w["weights"] for w in body["waves"]] == [dict(WeightsSerializer(w.weights).data) for w in found.waves]
    assert [w["weights"]["n"] for w in body["waves"]] == [400, 300]
    plain = client.get(reverse("aggregation:api-waves", args=[surveys[1].slug])).json()
    assert plain["weighted"] is False and [w["weights"] for w in plain["waves"]] == [None, None]
    question = body["questions"][0]
    assert [p["estimate"] for p in question["waves"]] == [list(p.estimate.estimate) for p in found.trends[0].points]
    assert question["change"]["std_error"] == list(found.trends[0].change.std_error)
    assert question["change"]["assumption"] == ("No respondent of wave 2 said they had answered an earlier wave: "
                                                "the two waves are taken as independent.")


def test_the_weighted_dashboard_section_says_so_and_keeps_weighted_in_its_links(client, owner, series):
    surveys, _ = series
    page = login(client, owner).get(reverse("aggregation:dashboard", args=[surveys[1].slug]) + "?weighted=on&pilot=on")
    html = page.content.decode()
    part = section(html)
    assert page.status_code == 200
    assert "each wave’s responses are raked to that wave’s own population margins" in part
    assert '<th scope="col" class="num">Weighted responses</th>' in part
    assert '<td class="num">400</td><td class="num">0</td><td class="num">400</td>' in part
    assert '<input type="hidden" name="weighted" value="on">' in part
    assert "waves.csv?confidence=0.95&amp;first=1&amp;second=2&amp;weighted=on" in part
    found = waves.series_results(surveys[1], owner, ResultOptions(weighted=True))
    change = trend_of(found, 1).change
    assert f"a change of {change.estimate[1] * 100:+.1f}".replace("-", "−") + " points" in part


def test_the_dashboard_rakes_the_wave_asked_about_once_for_its_estimates_and_its_waves(owner, series):
    surveys, _ = series
    options = ResultOptions(weighted=True)
    estimates = results.survey_results(surveys[1], options)
    found = wave_views.context(owner, surveys[1], options, estimates.weights)["series"]
    assert [wave.weights is estimates.weights for wave in found.waves] == [False, True]
    again = waves.series_results(surveys[1], owner, options)  # raked afresh: the same figures
    assert [[figures(p.estimate) for p in t.points] for t in found.trends] == [
        [figures(p.estimate) for p in t.points] for t in again.trends]
    assert [repr(t.change) for t in found.trends] == [repr(t.change) for t in again.trends]  # nan: no test
