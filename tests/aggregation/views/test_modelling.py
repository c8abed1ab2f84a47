"""The dashboard's Models section: its form offers the randomized questions as outcomes and the direct ones as
covariates; a model asked for shows its table, forest plot (server-rendered SVG, within the strict policy), test
and power in words, and links to the same model as CSV and JSON."""

import pytest
from django.urls import reverse

from surveys.collection import plan
from tests.aggregation.model_support import answer, make_survey
from tests.collection.pages import parse
from tests.test_csp import page_problems, policy_problems

N = 800


@pytest.fixture
def survey(owner):
    made = make_survey(owner)
    answer(made, N)
    return made


def test_the_form_offers_randomized_outcomes_and_direct_covariates(owner_client, survey):
    page = owner_client.get(reverse("aggregation:dashboard", args=[survey.slug])).content.decode()
    ids = {q.order: q.id for q in plan.of(survey)}
    form = page[page.index('<form method="get" class="result-options model-picker"'):]
    form = form[:form.index("</form>")]
    outcomes = form[form.index('<select name="outcome">'):form.index("</select>")]
    assert [f'value="{ids[o]}"' in outcomes for o in range(1, 9)] == [True, False, False, False, True, True, True,
                                                                      False]
    assert [f'name="covariates" value="{ids[o]}"' in form for o in range(1, 9)] == [
        False, True, True, True, False, False, False, False]
    assert f'name="square" value="{ids[4]}"' in form and f'value="{ids[2]}:2"' in form


def test_a_model_shows_its_table_forest_plot_test_and_power_within_the_policy(owner_client, survey):
    ids = {q.order: q.id for q in plan.of(survey)}
    query = f"outcome={ids[1]}&covariates={ids[2]}&covariates={ids[3]}&reference={ids[2]}:2&margin=0.1"
    response = owner_client.get(reverse("aggregation:dashboard", args=[survey.slug]) + "?" + query)
    assert response.status_code == 200
    page = response.content.decode()
    section = page[page.index('<section class="models"'):]
    assert '<svg class="chart forest"' in section and section.count('<circle class="marker"') == 3
    assert "Likelihood-ratio test against the model without covariates" in section
    # The form shows the model as asked: its covariates ticked, the reference option chosen.
    assert f'name="covariates" value="{ids[3]}" checked' in section and f'value="{ids[2]}:2" selected' in section
    assert f'name="covariates" value="{ids[4]}">' in section
    assert "Power: to detect an odds ratio of 2" in section
    assert f"{N} responses that answer every question used (0 left out)" in section
    assert f'href="/results/{survey.slug}/export/model.csv?outcome={ids[1]}' in section
    assert policy_problems(response.get("Content-Security-Policy")) == []
    response.body = response.content  # what the walk's responses carry (tests/urls_under_test.py)
    assert page_problems(response) == []


@pytest.mark.parametrize("confidence, level", [("0.95", "5%"), ("0.99", "1%")])
def test_the_test_in_words_is_at_the_level_of_the_intervals(owner_client, survey, confidence, level):
    ids = {q.order: q.id for q in plan.of(survey)}
    query = f"outcome={ids[1]}&covariates={ids[2]}&margin=0.1&confidence={confidence}"
    page = owner_client.get(reverse("aggregation:dashboard", args=[survey.slug]) + "?" + query).content.decode()
    section = page[page.index('<section class="models"'):]
    api = owner_client.get(reverse("aggregation:api-models", args=[survey.slug]) + "?" + query).json()
    alpha = 1 - float(confidence)
    said = ("The covariates together are associated with the outcome" if api["test"]["p_value"] < alpha
            else "No association of the covariates with the outcome is shown")
    assert f"{said}" in section and f"at the {level} level" in section


def test_the_form_fits_any_subset_of_covariates_ignoring_the_references_of_those_left_unticked(owner_client, survey):
    """The form sends a reference option for every single choice and a square box's value only when ticked:
    sex and age in years ticked, age band not, its reference (and a square of it, were it sent) is ignored."""
    ids = {q.order: q.id for q in plan.of(survey)}
    query = (f"outcome={ids[1]}&covariates={ids[3]}&covariates={ids[4]}&reference={ids[2]}:1"
             f"&reference={ids[3]}:1&square={ids[2]}&margin=0.1")
    response = owner_client.get(reverse("aggregation:dashboard", args=[survey.slug]) + "?" + query)
    assert response.status_code == 200
    section = response.content.decode()
    section = section[section.index('<section class="models"'):]
    assert 'role="alert"' not in section and section.count('<circle class="marker"') == 2
    api = owner_client.get(reverse("aggregation:api-models", args=[survey.slug]) + "?" + query.replace(
        f"reference={ids[2]}:1&", "").replace(f"&square={ids[2]}", "")).json()
    assert api["terms"] == ["(Intercept)", "q3=0", "q4"]
    # The links to the CSV and the API carry the model fitted, without the unticked question's reference.
    assert f"reference={ids[3]}%3A1" in section and f"reference={ids[2]}" not in section


def test_the_advanced_box_fits_a_formula_and_keeps_it_in_its_links(owner_client, survey):
    query = "formula=q1+~+q3+*+I(q4+%2F+10)&margin=0.1&outcome=&level="
    response = owner_client.get(reverse("aggregation:dashboard", args=[survey.slug]) + "?" + query)
    assert response.status_code == 200
    section = response.content.decode()
    section = section[section.index('<section class="models"'):]
    assert 'role="alert"' not in section and section.count('<circle class="marker"') == 3
    assert "q3[T.1]:I(q4 / 10)" in section and '<details class="model-formula" open>' in section
    assert 'name="formula" value="q1 ~ q3 * I(q4 / 10)"' in section
    assert "formula=q1+~+q3+%2A+I%28q4+%2F+10%29" in section  # the CSV's and the API's links


def test_a_refused_formula_says_why_on_the_page(owner_client, survey):
    response = owner_client.get(reverse("aggregation:dashboard", args=[survey.slug]),
                                {"formula": "q1 ~ open('x')", "margin": "0.1"})
    assert response.status_code == 400
    assert "No model. Formula: open(&#x27;x&#x27;) is not allowed in a formula" in response.content.decode()


@pytest.mark.parametrize("language,notice", [
    ("en", "No model. Reference option: give question id:option index, such as 12:0"),
    ("es", "Sin modelo. Opción de referencia: give question id:option index, such as 12:0"),  # the lead's catalogs
])
def test_a_refused_parameter_is_named_by_its_label_on_the_form_not_its_query_name(owner_client, survey, language,
                                                                                  notice):
    response = owner_client.get(reverse("aggregation:dashboard", args=[survey.slug]),
                                {"outcome": "1", "reference": "twelve"}, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 400
    assert parse(response.content.decode()).find("p", role="alert").text == notice
