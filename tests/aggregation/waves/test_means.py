"""A numeric question's mean across the waves of a series (surveys.aggregation.waves.means): each wave's mean as its
own dashboard gives it at fixed n (weighted: raked to its own margins), and the change between the two waves
compared with its interval and test (`ldp.waves.pairs.between_means`, whose coverage tests/ldp/test_wave_mean_changes
simulates), on the dashboard, in the API and in waves.csv; no numeric mean is left "not compared" any more.

The Spanish asserts need the catalog with this branch's translations (the waves branch's JSON merged)."""

from __future__ import annotations

import csv
import re

from django.urls import reverse

from ldp.waves.pairs import INDEPENDENT, UNKNOWN, between_means
from surveys.aggregation.params import FIXED_DEFAULT, ResultOptions
from surveys.aggregation.results import service as results
from surveys.aggregation.templatetags.results_format import decimals_for, mean_figures
from surveys.aggregation.waves import series as waves
from surveys.collection.models import Survey
from tests.aggregation.mean_series_support import MEANS, habits
from tests.conftest import login


def own_means(survey: Survey, weighted: bool = False) -> dict[int, object]:
    """The wave's own dashboard's means at fixed n."""
    found = results.survey_results(survey, ResultOptions(interval=FIXED_DEFAULT, weighted=weighted))
    return {result.question.order: result.mean for result in found.questions if result.question.order in MEANS}


def test_each_waves_mean_is_its_own_dashboards_and_the_change_is_ldps(owner):
    surveys = habits(owner)
    found = waves.series_results(surveys[2], owner, ResultOptions())
    assert (found.first, found.second) == (1, 2)
    assert [t.question.order for t in found.mean_trends] == list(MEANS) and found.not_compared_words == (
        "6. Which did you use?")
    own = {survey.wave: own_means(survey) for survey in surveys}
    for trend in found.mean_trends:
        order = trend.question.order
        assert [(p.wave, p.mean) for p in trend.points[:2]] == [(1, own[1][order]), (2, own[2][order])]
        assert trend.points[2].n == 0 and trend.missing == ()
        assert trend.change == between_means(own[1][order], own[2][order], 0, 0.95)
        assert trend.change.correlation == INDEPENDENT and trend.change.estimate[0] > 0  # the centres moved up


def test_with_respondents_in_both_waves_the_change_takes_the_largest_variance_and_says_so(client, owner):
    surveys = habits(owner, shared=12)
    found = waves.series_results(surveys[1], owner, ResultOptions())
    words = ("12 respondents of wave 2 said they had answered an earlier wave; how their answers go together across "
             "waves is not known (their reports are never linked), so the interval allows for the largest variance "
             "any correlation gives (its standard error is the sum of the two waves' standard errors).")
    body = login(client, owner).get(reverse("aggregation:api-waves", args=[surveys[1].slug])).json()
    for trend, given in zip(found.mean_trends, body["means"], strict=True):
        one, two = (p.mean for p in trend.points[:2])
        assert trend.change.std_error == (one.std_error + two.std_error,) and trend.change.correlation == UNKNOWN
        assert given["change"]["assumption"] == words and given["change"]["correlation"] == "unknown"


def expected_rows(trend) -> list[list[str]]:
    rows = []
    for point in trend.points:
        f = mean_figures(point.mean)
        rows.append([str(point.wave), f["mean"], f"{f['ci_low']} – {f['ci_high']}" if point.n else "–",
                     f["std_error"], str(point.n)])
    return rows


def signed(value: float, digits: int) -> str:
    return f"{value:+.{digits}f}".replace("-", "−")


def test_the_dashboard_gives_each_waves_mean_and_the_change_in_words(client, owner):
    surveys = habits(owner)
    page = login(client, owner).get(reverse("aggregation:dashboard", args=[surveys[2].slug]) + "?pilot=on")
    html = page.content.decode()
    found = waves.series_results(surveys[2], owner, ResultOptions())
    for trend in found.mean_trends:
        start = html.index(f'<section class="trend mean-trend" aria-labelledby="mean{trend.question.id}-heading">')
        part = html[start:html.index("</section>", start)]
        assert re.search(r"<h3[^>]*>(.*?)</h3>", part).group(1) == f"{trend.question.order}. {trend.question.text}"
        cells = [re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row) for row in re.findall(r"<tr>(.*?)</tr>", part)]
        assert cells == [["Wave", "Mean", "95% interval", "Std. error", "Reports"], *expected_rows(trend)]
        change = trend.change
        digits = decimals_for(change.ci_low[0], change.ci_high[0], change.estimate[0])
        before, after = (mean_figures(p.mean)["mean"] for p in trend.points[:2])
        p_value = f"= {change.p_value[0]:.3f}" if change.p_value[0] >= 0.001 else "< 0.001"
        low, high = signed(change.ci_low[0], digits), signed(change.ci_high[0], digits)
        sentence = (f"The mean: {before} in wave 1, {after} in wave 2: a change of "
                    f"{signed(change.estimate[0], digits)} (95% interval {low} to {high}; test of no change: p "
                    f"{p_value}).")
        assert re.findall(r'<p class="changes">(.*?)</p>', part) == [sentence.replace("<", "&lt;")]
        assert ("No respondent of wave 2 said they had answered an earlier wave: the two waves are taken as "
                "independent.") in part
    assert "Not compared across waves (several answers): 6. Which did you use?" in html
    assert "(several answers, or a mean)" not in html and " style=" not in html


def test_a_mean_with_too_few_respondents_is_withheld_unless_pilot_figures_are_asked_for(client, owner):
    surveys = habits(owner, sizes=(40, 30))
    html = login(client, owner).get(reverse("aggregation:dashboard", args=[surveys[1].slug])).content.decode()
    found = waves.series_results(surveys[1], owner, ResultOptions())
    for trend in found.mean_trends:
        start = html.index(f'aria-labelledby="mean{trend.question.id}-heading"')
        part = html[start:html.index("</section>", start)]
        assert "Too few respondents in wave 1, 2: fewer than the " in part and "Not shown yet." in part
        assert "<table" not in part and "a change of" not in part


def test_the_api_gives_each_waves_mean_and_the_change(client, owner):
    surveys = habits(owner)
    body = login(client, owner).get(reverse("aggregation:api-waves", args=[surveys[0].slug])).json()
    found = waves.series_results(surveys[0], owner, ResultOptions())
    assert [n["order"] for n in body["not_compared"]] == [6]
    for trend, given in zip(found.mean_trends, body["means"], strict=True):
        change = trend.change
        assert given["change"] == {
            "first": 1, "second": 2, "estimate": change.estimate[0], "std_error": change.std_error[0],
            "ci_low": change.ci_low[0], "ci_high": change.ci_high[0], "z": change.z[0],
            "p_value": change.p_value[0], "shared": 0, "correlation": "independent",
            "assumption": "No respondent of wave 2 said they had answered an earlier wave: the two waves are taken "
                          "as independent."}
        assert [(w["wave"], w["n"], w["mean"], w["std_error"], w["ci_low"], w["ci_high"]) for w in given["waves"]] == [
            (p.wave, p.n, p.mean.mean if p.n else None, p.mean.std_error if p.n else None, p.mean.ci_low,
             p.mean.ci_high) for p in trend.points]
        assert (given["order"], given["missing"]) == (trend.question.order, [])
        assert [w["mechanism"]["name"] for w in given["waves"]] == [trend.question.mechanism.name] * 3


def test_the_csv_gives_each_waves_mean_and_the_change(client, owner):
    surveys = habits(owner)
    download = login(client, owner).get(reverse("aggregation:export-waves", args=[surveys[0].slug]))
    rows = list(csv.DictReader(download.content.decode().splitlines()))
    found = waves.series_results(surveys[0], owner, ResultOptions())
    for trend in found.mean_trends:
        mine = [row for row in rows if row["question_order"] == str(trend.question.order)]
        assert [(row["row"], row["wave"], row["option_label"]) for row in mine] == [
            ("wave_mean", "1", "mean"), ("wave_mean", "2", "mean"), ("wave_mean", "3", "mean"),
            ("mean_change", "", "mean")]
        first = mine[0]
        assert (float(first["estimate"]), float(first["std_error"]), int(first["n"])) == (
            trend.points[0].mean.mean, trend.points[0].mean.std_error, trend.points[0].n)
        change = mine[3]
        assert (float(change["estimate"]), float(change["p_value"]), change["first_wave"], change["second_wave"],
                change["correlation"]) == (trend.change.estimate[0], trend.change.p_value[0], "1", "2", "independent")


def test_weighted_each_waves_mean_is_its_own_weighted_dashboards(owner):
    surveys = habits(owner, margins=True)
    found = waves.series_results(surveys[2], owner, ResultOptions(weighted=True))
    own = {survey.wave: own_means(survey, weighted=True) for survey in surveys[:2]}
    for trend in found.mean_trends:
        order = trend.question.order
        assert [p.mean for p in trend.points[:2]] == [own[1][order], own[2][order]]
        assert trend.change == between_means(own[1][order], own[2][order], 0, 0.95)


def test_the_change_of_a_mean_is_said_in_spanish(client, owner):
    surveys = habits(owner)
    html = login(client, owner).get(reverse("aggregation:dashboard", args=[surveys[2].slug]) + "?pilot=on",
                                    HTTP_ACCEPT_LANGUAGE="es").content.decode()
    said = re.findall(r'<p class="changes">(.*?)</p>', html)
    assert len(said) == 3 and all(s.startswith("La media: ") and " en la oleada 1, " in s and
                                  " en la oleada 2: un cambio de " in s for s in said)
    assert "<caption>La media en cada oleada, con su intervalo al 95%</caption>" in html
    assert "No se comparan entre oleadas (varias respuestas): 6. Which did you use?" in html
