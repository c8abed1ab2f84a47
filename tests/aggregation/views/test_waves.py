"""Results across waves on a wave's dashboard and in GET /api/v1/surveys/<slug>/waves/: the trend charts, the
change in words, the JSON against ldp's figures, and who sees which wave's figures (only the waves a researcher
is assigned to; superusers all)."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from django.urls import reverse

from ldp.waves.pairs import WaveChannel, between
from surveys.aggregation.params import ResultOptions
from surveys.aggregation.views import waves as wave_views
from surveys.aggregation.waves import series as waves
from surveys.collection.models import Question
from tests.aggregation.series_support import layers, monthly, store_waves
from tests.conftest import login
from tests.factories import make_user


@pytest.fixture
def series(owner):
    surveys = monthly(owner)
    return surveys, store_waves(surveys, 200, seed=11, fresh=30)


def dashboard(client, survey, query=""):
    """With pilot figures shown: these waves have fewer respondents than the planner's."""
    return client.get(reverse("aggregation:dashboard", args=[survey.slug]) + (query or "?") + "&pilot=on")


def api(client, survey, query=""):
    return client.get(reverse("aggregation:api-waves", args=[survey.slug]) + query)


def section(response) -> str:
    html = response.content.decode()
    start = html.index('<section class="across-waves"')
    return html[start:html.index("</section>\n", html.index('Not compared across waves', start))]


def test_a_waves_dashboard_shows_a_trend_chart_per_compared_question_and_the_change_in_words(client, owner, series):
    surveys, _ = series
    response = dashboard(login(client, owner), surveys[2], "?first=1&second=3")
    assert response.status_code == 200
    html = section(response)
    found = waves.series_results(surveys[2], owner, ResultOptions(first=1, second=3))
    for trend in found.trends:
        assert '<svg class="chart trend"' in html and f'id="trend-{trend.question.id}-title"' in html
        sentences = [f"“{row.label}”: {row.before * 100:.1f}% in wave 1, {row.after * 100:.1f}% in wave 3: a change "
                     f"of {row.change} points (95% interval {row.low} to {row.high}; test of no change: p "
                     f"{row.p_value})." for row in wave_views.change_rows(trend)]
        assert len(sentences) == len(trend.question.options)
        assert all(sentence.replace("-", "−") in html for sentence in sentences), sentences
    assert html.count('<circle class="marker differs"') == 3  # question 2's wave 2, in each of its 3 strips
    assert "300 respondents" not in html and "200 respondents of wave 3 said they had answered" in html
    assert "Not compared across waves (several answers): 3. Which did you use?" in html
    assert " style=" not in html and "<script" not in html


def test_the_waves_compared_can_be_chosen_and_a_wave_not_understood_is_said(client, owner, series):
    surveys, _ = series
    client = login(client, owner)
    chosen = section(dashboard(client, surveys[0], "?first=2&second=1"))
    assert "in wave 2, " in chosen and "in wave 1: a change" in chosen
    refused = dashboard(client, surveys[0], "?first=7")
    assert refused.status_code == 400
    assert ("The parameter “first” was not understood: no such wave of this series among those you may see: "
            "1, 2, 3. Comparing the last two waves with responses instead.") in refused.content.decode()


def test_a_researcher_of_one_wave_sees_no_figure_of_another(client, series):
    surveys, _ = series
    one = make_user("one-wave")
    surveys[2].researchers.add(one)
    html = section(dashboard(login(client, one), surveys[2]))
    assert "wave 1" not in html and "wave 2" not in html and "monthly-1" not in html
    assert "A change between waves needs two waves whose results you may see." in html
    assert re.findall(r'<th scope="row">(\d+)</th>', html) == ["3"]
    body = api(client, surveys[2]).json()
    assert [w["wave"] for w in body["waves"]] == [3] and (body["first"], body["second"]) == (None, None)
    assert all([p["wave"] for p in q["waves"]] == [3] and q["change"] is None for q in body["questions"])
    assert dashboard(client, surveys[0]).status_code == 404 and api(client, surveys[0]).status_code == 404


def test_a_survey_in_no_series_has_no_waves_section_and_no_waves_api(client, owner, survey):
    client = login(client, owner)
    assert "across-waves" not in dashboard(client, survey).content.decode()
    response = api(client, survey)
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"


def test_the_api_gives_each_waves_estimates_and_the_change_as_ldp_computes_them(client, owner, series):
    surveys, values = series
    body = api(login(client, owner), surveys[2], "?confidence=0.9&first=1&second=2").json()
    assert (body["series"], body["remembered"], body["wave"], body["confidence"], body["first"], body["second"]) == (
        "Monthly", True, 3, 0.9, 1, 2)
    assert [(w["wave"], w["slug"], w["responses"], w["answered_an_earlier_wave"]) for w in body["waves"]] == [
        (1, "monthly-1", 230, 0), (2, "monthly-2", 230, 200), (3, "monthly-3", 230, 200)]
    for question in body["questions"]:
        estimates = {}
        for wave, survey in enumerate(surveys, start=1):
            asked = Question.objects.get(survey=survey, order=question["order"])
            reports = values[wave][asked.pk]
            layer = asked.remembered()
            estimates[wave] = layer.estimate(asked.mechanism().counts(reports), len(reports), confidence=0.9)
            point = question["waves"][wave - 1]
            assert (point["wave"], point["n"], point["remembered"]["all_waves_epsilon"]) == (
                wave, 230, layer.all_waves_epsilon)
            assert [point[f] for f in ("estimate", "std_error", "ci_low", "ci_high")] == [
                list(getattr(estimates[wave], f)) for f in ("estimate", "std_error", "ci_low", "ci_high")]
            assert point["epsilon"] == pytest.approx(layer.wave_epsilon, rel=1e-15)
        one, two = (layers(surveys[w])[question["order"]] for w in (0, 1))
        expected = between(estimates[1], estimates[2], WaveChannel.of(one.instant, one),
                           WaveChannel.of(two.instant, two), shared=200, confidence=0.9)
        change = question["change"]
        assert {k: change[k] for k in ("estimate", "std_error", "ci_low", "ci_high", "z", "p_value")} == {
            k: list(getattr(expected, k)) for k in ("estimate", "std_error", "ci_low", "ci_high", "z", "p_value")}
        assert (change["first"], change["second"], change["shared"], change["correlation"]) == (
            1, 2, 200, "fewest_changes")
        assert change["assumption"].startswith("200 respondents of wave 2 said they had answered an earlier wave")
    assert [q["mechanisms_differ"] for q in body["questions"]] == [False, True]
    assert [p["same_as_this_wave"] for p in body["questions"][1]["waves"]] == [True, False, True]
    assert body["not_compared"] == [{"id": Question.objects.get(survey=surveys[2], order=3).pk, "key": "q3",
                                     "order": 3, "text": "Which did you use?"}]


@pytest.mark.parametrize(("query", "field"), [("?first=0", "first"), ("?second=4", "second"),
                                               ("?first=2&second=2", "second"), ("?wave=1", "wave"),
                                               ("?confidence=2", "confidence")])
def test_the_api_refuses_a_parameter_it_cannot_use(client, owner, series, query, field):
    response = api(login(client, owner), series[0][0], query)
    assert response.status_code == 400
    assert (response.json()["error"]["code"], response.json()["error"]["field"]) == ("bad_parameter", field)


def test_the_api_answers_only_assigned_researchers_and_superusers(client, owner, other_researcher, superuser,
                                                                  series):
    surveys, _ = series
    assert api(client, surveys[0]).status_code == 403
    assert api(login(client, other_researcher), surveys[0]).status_code == 404
    surveys[0].researchers.add(other_researcher)
    surveys[2].researchers.add(other_researcher)
    partial = api(client, surveys[0]).json()
    assert [w["wave"] for w in partial["waves"]] == [1, 3] and (partial["first"], partial["second"]) == (1, 3)
    assert api(client, surveys[0], "?second=2").status_code == 400
    full = api(login(client, superuser), surveys[0]).json()
    assert [w["wave"] for w in full["waves"]] == [1, 2, 3]


def test_the_schema_describes_the_waves_api_as_it_answers(client, owner, series):
    schema = client.get(reverse("aggregation:api-schema")).json()
    operation = schema["paths"]["/api/v1/surveys/{slug}/waves/"]["get"]
    assert {p["name"] for p in operation["parameters"]} == {"slug", "confidence", "first", "second", "weighted"}
    assert {"200", "400", "403", "404", "409"} <= set(operation["responses"])
    components = schema["components"]["schemas"]

    def properties(name):
        return set(components[name]["properties"])

    body = api(login(client, owner), series[0][2]).json()
    question = body["questions"][0]
    assert set(body) == properties("SeriesResults")
    assert set(body["waves"][0]) == properties("Wave")
    assert set(question) == properties("Trend")
    assert set(question["waves"][0]) == properties("Point")
    assert set(question["waves"][0]["remembered"]) == properties("PermanentLayer")
    assert set(question["change"]) == properties("Change")


def test_a_trend_with_a_wave_below_the_planner_is_withheld_unless_pilot_figures_are_asked(client, owner, series):
    surveys, _ = series
    client = login(client, owner)
    trends = waves.series_results(surveys[2], owner, ResultOptions()).trends
    warnings = [wave_views.too_few(trend, ResultOptions()) for trend in trends]
    assert all(warnings) and all(w.startswith("Too few respondents in wave 1, 2, 3: fewer than the ") for w in warnings)
    withheld = section(client.get(reverse("aggregation:dashboard", args=[surveys[2].slug])))
    assert '<svg class="chart trend"' not in withheld and "a change of" not in withheld
    assert withheld.count('<p class="notice early too-few withheld" role="note">Too few respondents in wave') == len(
        trends)
    shown = section(dashboard(client, surveys[2]))
    assert shown.count('<svg class="chart trend"') == len(trends)
    assert shown.count('<strong class="pilot-mark">Pilot figures</strong> Too few respondents in wave') == len(trends)
    enough = replace(ResultOptions(), margin=0.5)
    assert [wave_views.too_few(trend, enough) for trend in trends] == [None] * len(trends)
