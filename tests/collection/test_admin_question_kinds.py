"""The survey page's question rows for the new kinds: options, levels with scores and bins typed with
the question, "Prefer not to say" added in one click, clear refusals on the field at fault, the
budget with each question's effective epsilon, figures for multi-select and numeric means, and the
rows frozen once the survey has a report."""

import math
from decimal import Decimal

import pytest

import ldp
from surveys.collection import plan, submission
from surveys.collection.models import Survey
from tests.collection.helpers import question
from tests.collection.pages import parse
from tests.collection.test_admin import (
    SURVEYS,
    add_inline_forms,
    current_form,
    inline_index,
    new_survey_form,
    survey_url,
)
from tests.factories import valid_payload

D = Decimal
FIGURES = f"{SURVEYS}privacy-figures/"


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


def row(text, kind, mechanism, options="", epsilon=1.0, **shape):
    return {"text": text, "kind": kind, "mechanism_name": mechanism, "epsilon": epsilon, "q": None,
            "options_text": options, **shape}


def save(admin_client, *rows, budget=10):
    return admin_client.post(f"{SURVEYS}add/", add_inline_forms(new_survey_form(admin_client, epsilon_budget=budget),
                                                                "questions", *rows))


def field_error(response, field):
    found = parse(response.content).find("div", **{"class": f"form-row errors field-{field}"})
    return found.text if found is not None else None


def options_of(q):
    return [(o.label, o.score, o.lower) for o in q.ordered_options()]


# --- each kind saves with its options -----------------------------------------------------------


@pytest.mark.slow
def test_each_new_kind_saves_with_its_options_levels_and_bins(admin_client):
    response = save(
        admin_client,
        row("Used?", "multi_select", "multiselect", "Tobacco\nAlcohol\nCannabis", epsilon=2.0, at_most=2),
        row("Hours?", "numeric", "onebit", lo=0, hi=100, step=1),
        row("Drinks?", "numeric", "dlaplace", lo=0, hi=10, step="0.5"),
        row("Age?", "numeric", "krr", "0\n18: Adults\n65", lo=0, hi=120, step=1),
        row("Agree?", "ordinal", "oue", "Disagree = -1\nNeutral = 0\nAgree = 1"),
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    multi, hours, drinks, age, agree = Survey.objects.get(slug="habits").ordered_questions()
    assert multi.mechanism() == ldp.MultiSelect(2.0, 3, at_most=2)
    assert hours.mechanism() == ldp.OneBitMean(1.0, "0", "100", "1") and hours.ordered_options() == []
    assert drinks.mechanism() == ldp.DiscreteLaplace(1.0, "0", "10", "0.5")
    assert options_of(age) == [("0 to 17", None, D(0)), ("Adults", None, D(18)), ("65 to 120", None, D(65))]
    assert options_of(agree) == [("Disagree", D(-1), None), ("Neutral", D(0), None), ("Agree", D(1), None)]


@pytest.mark.slow
def test_levels_typed_without_scores_are_scored_one_two_three(admin_client):
    assert save(admin_client, row("Often?", "ordinal", "krr", "Never\nSometimes\nOften")).status_code == 302
    agree = Survey.objects.get(slug="habits").questions.get()
    assert [o.score for o in agree.ordered_options()] == [D(1), D(2), D(3)]


@pytest.mark.parametrize("kind, mechanism, options", [
    ("single_choice", "krr", "Yes\nNo"), ("multi_select", "multiselect", "A\nB"),
    ("ordinal", "krr", "Low = 1\nHigh = 2"),
])
def test_prefer_not_to_say_is_added_as_the_last_ordinary_option_in_one_click(admin_client, kind, mechanism, options):
    assert save(admin_client, row("?", kind, mechanism, options, prefer_not_to_say="on")).status_code == 302
    q = Survey.objects.get(slug="habits").questions.get()
    assert [o.label for o in q.ordered_options()][-1] == "Prefer not to say"
    assert q.ordered_options()[-1].score is None and len(q.ordered_options()) == 3
    assert q.mechanism().k == 3  # randomized like the others


@pytest.mark.slow
def test_prefer_not_to_say_is_added_once_and_the_box_shows_it_checked(admin_client):
    assert save(admin_client, row("?", "single_choice", "krr", "Yes\nNo\nPrefer not to say",
                                  prefer_not_to_say="on")).status_code == 302
    survey = Survey.objects.get(slug="habits")
    q = survey.questions.get()
    assert [o.label for o in q.ordered_options()] == ["Yes", "No", "Prefer not to say"]
    data = current_form(admin_client, survey_url(survey), "survey_form")
    index = inline_index(data, q)
    assert data[f"questions-{index}-options_text"] == ["Yes\nNo"] and data[f"questions-{index}-prefer_not_to_say"]
    del data[f"questions-{index}-prefer_not_to_say"]  # unticked: it goes
    assert admin_client.post(survey_url(survey), data).status_code == 302
    assert [o.label for o in q.ordered_options()] == ["Yes", "No"]


def test_a_saved_histogram_and_ordinal_question_show_their_lines_as_typed(admin_client, kinds_survey):
    data = current_form(admin_client, survey_url(kinds_survey), "survey_form")
    ages, gamble = question(kinds_survey, 4), question(kinds_survey, 5)
    assert data[f"questions-{inline_index(data, ages)}-options_text"] == ["0\n18\n35\n65"]
    assert data[f"questions-{inline_index(data, gamble)}-options_text"] == ["Never = 1\nRarely = 2\nOften = 3"]
    assert data[f"questions-{inline_index(data, gamble)}-prefer_not_to_say"] == ["on"]
    assert admin_client.post(survey_url(kinds_survey), data).status_code == 302  # saved unchanged
    assert plan.of(kinds_survey).questions[3].edges == (D(0), D(18), D(35), D(65))


# --- refusals on the field at fault --------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("values, field, words", [
    (row("Age?", "numeric", "krr", "0\n65\n18", lo=0, hi=120, step=1), "options_text",
     "The lower edges must increase"),  # a swapped bin edge
    (row("Age?", "numeric", "krr", "0\n17.5", lo=0, hi=120, step=1), "options_text", "on the grid"),
    (row("Age?", "numeric", "krr", "5\n18", lo=0, hi=120, step=1), "options_text", "must start at the smallest"),
    (row("Age?", "numeric", "krr", "Young\nOld", lo=0, hi=120, step=1), "options_text", "starts with its lower edge"),
    (row("Hours?", "numeric", "onebit", "0\n10", lo=0, hi=100, step=1), "options_text", "for bins, choose k-ary"),
    (row("Hours?", "numeric", "onebit", lo=0, hi=10, step=3), "step", "whole number of steps"),
    (row("Hours?", "numeric", "dlaplace", lo=5, hi=5, step=1), "hi", "must be above the smallest"),
    (row("Hours?", "numeric", "onebit", hi=10, step=1), "lo", "A numeric question needs this."),
    (row("Agree?", "ordinal", "krr", "Low = 1\nMiddle\nHigh = 3"), "options_text", "Give every level a score"),
    (row("Agree?", "ordinal", "krr", "Only"), "options_text", "at least two levels"),
    (row("Used?", "multi_select", "multiselect", "A\nB\nC", at_most=3), "at_most",
     "must be below the number of options (3)"),
    (row("Used?", "multi_select", "multiselect", "A"), "options_text", "at least two options"),
    (row("Used?", "multi_select", "krr", "A\nB"), "mechanism_name", "Multi-select questions use"),
    (row("Hours?", "numeric", "onebit", lo=0, hi=10, step=1, prefer_not_to_say="on"), "prefer_not_to_say",
     "is for single-choice, multi-select and ordinal questions"),
])
def test_a_new_kind_that_does_not_fit_is_refused_on_its_field_and_nothing_is_saved(admin_client, values, field, words):
    response = save(admin_client, values)
    assert response.status_code == 200
    error = field_error(response, field)
    assert error is not None and words in error, (field, error, response.content.decode()[:500])
    assert not Survey.objects.filter(slug="habits").exists()


def test_lo_hi_and_step_left_in_a_hidden_box_do_not_count_for_another_kind(admin_client):
    assert save(admin_client, row("Colour?", "single_choice", "krr", "Red\nBlue", lo=0, hi=5, step=1,
                                  at_most=1)).status_code == 302
    q = Survey.objects.get(slug="habits").questions.get()
    assert (q.lo, q.hi, q.step, q.at_most) == (None, None, None, None)


# --- the budget ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_budget_counts_the_multi_select_at_its_total_not_per_bit(admin_client):
    """Five boxes at epsilon 2 cost 2 (each box 0.4): under a budget of 2.5 it saves, and two of them do not."""
    one = row("Used?", "multi_select", "multiselect", "A\nB\nC\nD\nE", epsilon=2.0)
    assert save(admin_client, one, budget=2.5).status_code == 302
    Survey.objects.all().delete()
    response = save(admin_client, one, {**one, "text": "Again?"}, budget=2.5)
    assert response.status_code == 200 and "over the survey&#x27;s budget of 2.5" in response.content.decode()


def test_the_survey_page_shows_the_total_with_each_new_kinds_effective_epsilon(admin_client, kinds_survey):
    text = parse(admin_client.get(survey_url(kinds_survey)).content).text
    assert f"{plan.of(kinds_survey).epsilon_total:.4f} of 7" in text


# --- live figures -------------------------------------------------------------------------------


def test_the_figures_of_a_multi_select_say_the_per_box_and_the_total_epsilon(admin_client):
    figures = admin_client.get(f"{FIGURES}?mechanism=multiselect&epsilon=2&k=5&at_most=2").json()
    mechanism = ldp.MultiSelect(2.0, 5, at_most=2)
    assert figures["epsilon"] == mechanism.effective_epsilon and figures["differing_bits"] == 4
    assert figures["per_bit_epsilon"] == pytest.approx(mechanism.per_bit_epsilon)
    assert figures["per_bit_epsilon"] * 4 == pytest.approx(figures["epsilon"])
    assert f"each box is flipped at ε = {mechanism.per_bit_epsilon:.4f} per box" in figures["summary"]
    assert "differ in at most 4 boxes" in figures["summary"]


@pytest.mark.parametrize("epsilon, lower", [("0.1", "onebit"), ("8", "dlaplace")])
def test_the_figures_of_a_numeric_mean_show_both_variances_and_which_is_lower(admin_client, epsilon, lower):
    figures = admin_client.get(f"{FIGURES}?mechanism=onebit&epsilon={epsilon}&lo=0&hi=10&step=1").json()
    expected = ldp.numeric.per_report_variance(float(epsilon), "0", "10", "1")
    assert figures["variances"] == pytest.approx(expected) and figures["lower_variance"] == lower
    words = {"onebit": "the 1-bit mean is lower", "dlaplace": "discrete Laplace is lower"}[lower]
    assert words in figures["summary"] and "±0.5 (5% of the range) on the mean" in figures["summary"]
    assert figures["mean_respondents"] == ldp.mean_respondents_needed(ldp.OneBitMean(float(epsilon), "0", "10", "1"),
                                                                      0.5)


@pytest.mark.parametrize("query, field", [
    ("mechanism=onebit&epsilon=1&lo=0&hi=10", "step"),
    ("mechanism=dlaplace&epsilon=1&lo=0&hi=10&step=3", "step"),
    ("mechanism=multiselect&epsilon=1&k=3&at_most=3", "at_most"),
    ("mechanism=krr&epsilon=1&k=3&lo=0", "lo"),
    ("mechanism=krr&epsilon=1&k=3&at_most=1", "at_most"),
])
def test_the_figures_endpoint_refuses_a_bad_scale_or_limit_naming_it(admin_client, query, field):
    response = admin_client.get(f"{FIGURES}?{query}")
    assert response.status_code == 400 and response.json()["error"]["field"] == field


# --- frozen -------------------------------------------------------------------------------------


def test_once_the_survey_has_a_report_the_new_kinds_rows_are_read_only(admin_client, kinds_survey):
    submission.submit(kinds_survey, valid_payload(kinds_survey))
    page = parse(admin_client.get(survey_url(kinds_survey)).content)
    assert page.by_id("questions-0-options_text") is None and page.by_id("questions-0-lo") is None
    text = page.text
    assert "0 to 17, 18 to 34, 35 to 64, 65 to 120" not in text  # bins show as their edges
    assert "0, 18, 35, 65" in text and "Never = 1, Rarely = 2, Often = 3, Prefer not to say" in text


def test_a_read_only_row_shows_only_the_settings_of_its_own_kind_and_mechanism(admin_client, kinds_survey, survey):
    rows = []
    for each in (kinds_survey, survey):
        submission.submit(each, valid_payload(each))
        page = parse(admin_client.get(survey_url(each)).content)
        for index in range(each.questions.count()):
            row = page.by_id(f"questions-{index}")
            fields = [div.attrs["class"] for div in row.find_all("div") if "form-row" in div.attrs.get("class", "")]
            settings = row.find("div", **{"class": "form-row field-settings"}).find("div", **{"class": "readonly"})
            rows.append((fields, [line for line in settings.children if isinstance(line, str)]))
    shown = ["form-row field-position", "form-row field-text", "form-row field-kind", "form-row field-settings",
             "form-row field-privacy"]
    krr = "Mechanism: k-ary randomized response (single choice, ordinal levels, numeric bins)"
    assert rows == [(shown, settings) for settings in [
        ["Options: Tobacco, Alcohol, Cannabis, Prefer not to say", "At most: 2",
         "Mechanism: Multi-select bits (multi-select)", "Epsilon: 2.0"],
        ["Lo: 0", "Hi: 100", "Step: 1", "Mechanism: 1-bit mean (numeric: the mean)", "Epsilon: 1.0"],
        ["Lo: 0", "Hi: 10", "Step: 0.5", "Mechanism: Discrete Laplace (numeric: the mean)", "Epsilon: 1.0"],
        ["Options: 0, 18, 35, 65", "Lo: 0", "Hi: 120", "Step: 1", krr, "Epsilon: 1.0"],
        ["Options: Never = 1, Rarely = 2, Often = 3, Prefer not to say", krr, "Epsilon: 1.0"],
        ["Mechanism: q-randomized response (yes/no)", "Q: 0.5"],
        ["Mechanism: Epsilon bit flip (yes/no)", f"Epsilon: {math.log(3)}"],
        ["Options: Never, Sometimes, Often", krr, "Epsilon: 1.0"],
        ["Options: A, B, C, D", "Mechanism: Optimized unary encoding (single choice, ordinal levels)", "Epsilon: 1.0"],
    ]]
