"""The researcher's dashboard of one survey."""

import math
import re

import pytest
from django.urls import reverse

import ldp
from surveys.aggregation.params import ResultOptions
from surveys.aggregation.results import service as results
from surveys.aggregation.templatetags.results_format import percent
from surveys.collection import plan
from tests.aggregation.support import add_responses
from tests.factories import INEXACT_BITFLIP_EPSILONS

ENOUGH = "?margin=0.5&interval=wilson"  # fixed-n; few reach ±50 points: the small surveys show their figures


def dashboard(client, user, survey, query=""):
    client.force_login(user)
    return client.get(reverse("aggregation:dashboard", args=[survey.slug]) + query)


def test_it_renders_with_no_one_or_many_responses(client, owner, sized_survey):
    response = dashboard(client, owner, sized_survey)
    assert response.status_code == 200
    html = response.content.decode()
    for question in sized_survey.questions.all():
        assert question.text in html
    n = sized_survey.responses.count()
    assert ("No responses yet" in html) == (n == 0)
    # At the default ±5 points none of these has enough respondents: a banner each, no estimate chart.
    assert html.count('class="notice early"') == 4
    assert html.count('class="chart estimates"') == 0
    assert html.count('class="chart daily"') == (1 if n else 0)


def test_it_shows_the_estimates_intervals_and_errors_of_the_service(client, owner, survey):
    add_responses(survey, 150, seed=11)
    html = dashboard(client, owner, survey, ENOUGH).content.decode()
    for result in results.survey_results(survey, ResultOptions(margin=0.5, interval="wilson")).questions:
        assert result.enough
        for row in result.rows:
            assert f"{percent(row.estimate)}</td>" in html
            assert f"{percent(row.ci_low)} – {percent(row.ci_high)}" in html
            assert f"{percent(row.std_error)}</td>" in html
            assert f"<td class=\"num\">{row.count}</td>" in html


def test_it_shows_mechanism_epsilon_q_and_reports(client, owner, survey):
    add_responses(survey, 40, seed=12)
    html = dashboard(client, owner, survey).content.decode()
    for question in survey.ordered_questions():
        mechanism = question.mechanism()
        assert mechanism.label in html
        assert f"{mechanism.effective_epsilon:.4f}" in html
    assert f"{ldp.q_from_epsilon(survey.questions.get(order=1).mechanism().effective_epsilon):.4f}" in html
    assert "<dd>40</dd>" in html
    assert f"ε = {plan.of(survey).epsilon_total:.4f}" in html
    assert "Open" in html


def test_it_labels_the_post_processed_estimates(client, owner, survey):
    add_responses(survey, 100, seed=13)
    html = dashboard(client, owner, survey, ENOUGH).content.decode()
    assert "post-processed values (clipped, or summing to 100%; no privacy cost) are for display only" in html
    assert "the estimate clipped to 0–100% (post-processed)" in html


def test_its_chart_is_inline_svg_without_style_attributes_or_scripts(client, owner, survey):
    add_responses(survey, 100, seed=14)
    response = dashboard(client, owner, survey, ENOUGH)
    html = response.content.decode()
    assert "<svg" in html and "<title id=" in html and "<desc id=" in html
    assert "style=" not in html and "<style" not in html
    assert re.findall(r"<script[^>]*>", html) == ['<script src="/static/js/share.js" defer>']
    assert "style-src 'self'" in response["Content-Security-Policy"]


def test_its_tables_are_accessible(client, owner, survey):
    add_responses(survey, 100, seed=15)
    html = dashboard(client, owner, survey, ENOUGH).content.decode()
    # Per question the estimates and the randomized counts; the responses per day.
    assert html.count("<table") == html.count("<caption>") == 9
    assert '<th scope="col"' in html and '<th scope="row"' in html
    assert '<meta name="viewport"' in html


def test_it_applies_the_chosen_confidence_interval_and_bonferroni(client, owner, survey):
    add_responses(survey, 250, seed=16)
    query = "?confidence=0.99&interval=exact&simultaneous=on&margin=0.5"
    html = dashboard(client, owner, survey, query).content.decode()
    assert '<option value="0.99" selected>' in html
    assert '<option value="exact" selected>' in html
    assert 'name="simultaneous" checked' in html
    assert "99.5% interval" in html  # yes/no: 1 - 0.01 / 2
    found = results.survey_results(survey, results.ResultOptions(0.99, "exact", True, 0.5))
    assert all(result.enough for result in found.questions)
    row = found.questions[2].rows[1]
    assert f"{percent(row.ci_low)} – {percent(row.ci_high)}" in html


def test_its_planner_shows_the_margin_now_and_respondents_still_needed(client, owner, survey):
    add_responses(survey, 100, seed=17)
    html = dashboard(client, owner, survey, "?margin=0.1&interval=wilson").content.decode()
    mechanism = survey.questions.get(order=3).mechanism()
    needed = ldp.respondents_needed(mechanism, 0.1)
    assert f"the margin at 95% is ±{ldp.margin_at(mechanism, 100) * 100:.1f} points" in html
    assert f"For ±10.0 points you need {needed} respondents: {needed - 100} more" in html


def test_its_planner_defaults_to_5_points(client, owner, survey):
    html = dashboard(client, owner, survey, "?interval=wilson").content.decode()
    needed = ldp.respondents_needed(survey.questions.get(order=1).mechanism(), 0.05)
    assert f"For ±5.0 points you need {needed} respondents: {needed} more" in html


@pytest.mark.parametrize("query", ["?confidence=2", "?interval=normal", "?margin=-1", "?colour=red"])
def test_it_names_a_bad_parameter_and_shows_the_defaults(client, owner, survey, query):
    response = dashboard(client, owner, survey, query)
    assert response.status_code == 400
    html = response.content.decode()
    assert re.search(r'role="alert">The parameter “\w+” was not understood', html)
    assert '<option value="0.95" selected>' in html


def test_its_export_links_keep_the_chosen_settings(client, owner, survey):
    html = dashboard(client, owner, survey, "?confidence=0.9&interval=exact").content.decode()
    assert "export/estimates.csv?confidence=0.9&amp;interval=exact" in html
    for name in ("reports.csv", "reports.json", "codebook.json"):
        assert f"/results/health/export/{name}" in html


@pytest.mark.parametrize("language,estimates,reports", [
    ("en", "one row per question and option, and one for a mean or a mean score,", "one row per response;"),
    # Spanish says "respuesta" for both an answer and a response: the estimates' rows are not the responses
    ("es", "una fila por pregunta y opción, y otra por media o puntuación media,", "una fila por respuesta;"),
])
def test_the_estimates_and_the_reports_csv_say_what_their_rows_are(client, owner, survey, language, estimates,
                                                                   reports):
    client.force_login(owner)
    html = client.get(reverse("aggregation:dashboard", args=[survey.slug]), HTTP_ACCEPT_LANGUAGE=language)
    items = [item for item in html.content.decode().split("<li>") if "/export/" in item]
    assert estimates in next(item for item in items if "/export/estimates.csv" in item)
    assert reports in next(item for item in items if "/export/reports.csv" in item)


ANALYSIS_DOWNLOADS = {  # each download for other software, and a word of the sentence that says what it is for
    "reports.dta": "Stata 14", "reports.sav": "SPSS and PSPP", "reports.R": "source it",
    "analysis.R": "RRreg", "analysis.py": "numpy only",
}


@pytest.mark.slow
def test_it_links_every_download_for_other_software_with_what_it_is_for(client, owner, survey):
    html = dashboard(client, owner, survey).content.decode()
    section = html[html.index('id="analysis-downloads-heading"'):]
    assert "randomized report, not an answer" in section
    for name, purpose in ANALYSIS_DOWNLOADS.items():
        # The analysis scripts' links carry the page's options: their defaults (scripts/test_defaults.py).
        query = "?confidence=0.95&amp;simultaneous=off&amp;margin=0.05" if name.startswith("analysis") else ""
        link = f'href="/results/health/export/{name}{query}"'
        assert link in section, name
        item = section[section.index(link):].split("</li>")[0]
        assert purpose in item, name
        assert client.get(f"/results/health/export/{name}").status_code == 200
    assert "python -m ldp analyze health-reports.csv" in section


def test_it_explains_a_configuration_it_cannot_read(client, owner, survey):
    survey.questions.filter(order=2).update(epsilon=50.0)  # only possible behind the admin's back
    response = dashboard(client, owner, survey)
    assert response.status_code == 409
    assert "question 2" in response.content.decode()


def test_it_shows_the_q_of_the_effective_epsilon(client, owner, every_mechanism_survey):
    # Question 4's configured and effective q round differently at the dashboard's 4 decimals.
    mechanism = ldp.BitFlip(INEXACT_BITFLIP_EPSILONS[4])
    right = f"<dt>q</dt><dd>{math.tanh(mechanism.effective_epsilon / 2):.4f}</dd>"
    wrong = f"<dt>q</dt><dd>{math.tanh(mechanism.epsilon / 2):.4f}</dd>"
    assert right != wrong
    html = dashboard(client, owner, every_mechanism_survey).content.decode()
    assert right in html and wrong not in html
