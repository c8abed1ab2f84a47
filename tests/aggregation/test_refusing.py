"""The researcher pages' refusals, answered in one place (surveys.aggregation.refusing): a survey whose
configuration cannot be read is the 409 page saying why on every page and download of a survey, and a
query parameter the results cannot be computed with is a 400 in plain text on the CSV exports."""

import pytest
from django.urls import reverse

from surveys.aggregation.models import PreparedExport

SURVEY_VIEWS = ["dashboard", "export-estimates", "export-crosstab", "export-reports-csv", "export-reports-json",
                "export-reports-dta", "export-reports-sav", "export-codebook", "export-reports-r",
                "export-analysis-r", "export-analysis-py"]


@pytest.fixture
def unreadable(survey):
    survey.questions.filter(order=2).update(epsilon=50.0)  # only possible behind the admin's back
    return survey


def url(name, survey, query=""):
    return reverse(f"aggregation:{name}", args=[survey.slug]) + query


def crosstab_query(survey):
    a, b = survey.ordered_questions()[:2]
    return f"?a={a.pk}&b={b.pk}"


@pytest.mark.parametrize("name", SURVEY_VIEWS)
def test_each_survey_view_answers_an_unreadable_configuration_with_the_409_page(client, owner, unreadable, name):
    client.force_login(owner)
    response = client.get(url(name, unreadable, crosstab_query(unreadable) if name == "export-crosstab" else ""))
    assert (response.status_code, response["Content-Type"]) == (409, "text/html; charset=utf-8")
    assert [template.name for template in response.templates][0] == "aggregation/unavailable.html"
    assert response.context["survey"] == unreadable
    assert response.context["reason"].startswith("question 2: ")
    page = response.content.decode()
    assert "Health: results unavailable" in page and response.context["reason"] in page
    assert "Content-Disposition" not in response and "no-store" in response["Cache-Control"]
    assert not PreparedExport.objects.exists()  # nothing prepared for it


@pytest.mark.parametrize("name", SURVEY_VIEWS)
def test_a_researcher_not_assigned_gets_404_not_the_reason(client, other_researcher, unreadable, name):
    client.force_login(other_researcher)
    assert client.get(url(name, unreadable)).status_code == 404


@pytest.mark.parametrize("name, query, body", [
    ("export-estimates", "?confidence=2", "confidence: must be a number between 0.5 and 0.999"),
    ("export-estimates", "?by=1",
     "by: unknown parameter; expected one of confidence, interval, simultaneous, margin, weighted"),
    ("export-crosstab", "?a=x&b=1", "a: must be a question's id (a positive whole number)"),
    ("export-crosstab", "?a=999999&b=999998", "a: no question of this survey has this id"),
])
def test_the_csv_exports_answer_a_bad_parameter_with_400_in_plain_text(client, owner, survey, name, query, body):
    client.force_login(owner)
    response = client.get(url(name, survey, query))
    assert (response.status_code, response["Content-Type"], response.content.decode()) == (
        400, "text/plain; charset=utf-8", body)
    assert "Content-Disposition" not in response


def test_the_dashboard_shows_a_bad_parameter_above_the_results_at_the_defaults(client, owner, survey):
    client.force_login(owner)
    response = client.get(url("dashboard", survey, "?confidence=2"))
    assert response.status_code == 400 and [t.name for t in response.templates][0] == "aggregation/dashboard.html"
    assert str(response.context["problem"]) == "confidence: must be a number between 0.5 and 0.999"
