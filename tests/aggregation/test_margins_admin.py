"""Population margins in the admin: a direct question's options with their population shares and source;
every option needs a share, the shares add up to 1, and only questions sent as given can be weighted to. The
question list names each question's survey and wave, the shares offer the chosen question's options only, a
posted number of share forms is capped, and every save is in the configuration history."""

import time

import pytest

from surveys.aggregation.models import MarginShare, PopulationMargin
from surveys.collection import builder, waves
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import MAX_OPTIONS, Survey
from tests.history.test_admin_recording import recorded

ADD = "/admin/aggregation/populationmargin/add/"


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


@pytest.fixture
def questions(db):
    survey = builder.create_survey("margins", "Margins", [
        QuestionSpec("Cheated?", "qrr", q="0.5"),
        QuestionSpec("Age band?", "direct", options=["18-34", "35-54", "55+"]),
        QuestionSpec("Age in years?", "direct_number", kind="numeric", scale=("18", "99", "1"),
                     options=["18 to 34", "35 to 64", "65 to 99"], edges=["18", "35", "65"]),
    ], status=Survey.Status.DRAFT, epsilon_budget=2.0)
    return {q.order: q for q in survey.questions.all()}


def form(question, shares, source="Census 2021, table P12"):
    options = question.ordered_options()
    data = {"question": question.pk, "source": source, "shares-TOTAL_FORMS": len(shares),
            "shares-INITIAL_FORMS": 0, "shares-MIN_NUM_FORMS": 2, "shares-MAX_NUM_FORMS": 1000}
    for i, (option, share) in enumerate(zip(options, shares, strict=False)):
        data |= {f"shares-{i}-option": option.pk, f"shares-{i}-share": share}
    return data


def test_it_stores_a_margin_whose_shares_cover_every_option_and_add_up_to_one(admin_client, questions):
    response = admin_client.post(ADD, form(questions[2], ["0.3", "0.4", "0.3"]))
    assert response.status_code == 302
    stored = PopulationMargin.objects.get()
    assert (stored.question, stored.source) == (questions[2], "Census 2021, table P12")
    assert sorted((s.option.label, str(s.share)) for s in MarginShare.objects.all()) == [
        ("18-34", "0.300000"), ("35-54", "0.400000"), ("55+", "0.300000")]


@pytest.mark.parametrize("shares, message", [
    (["0.3", "0.4", "0.31"], "question 2 “Age band?”: the shares must add up to 1; they add up to 1.01."),
    (["0.3", "0.4", "0.299998"], "question 2 “Age band?”: the shares must add up to 1; they add up to 0.999998."),
    (["0.5", "0.5"], "question 2 “Age band?”: give a share for every option of the question (the weights need the "
                     "whole population); missing: “55+”."),
    (["0.5", "0.5", "0"], "A share must be above 0"),
])
def test_it_refuses_shares_that_do_not_describe_the_population_and_stores_nothing(admin_client, questions,
                                                                                 shares, message):
    response = admin_client.post(ADD, form(questions[2], shares))
    assert response.status_code == 200 and message in response.content.decode()
    assert not PopulationMargin.objects.exists() and not MarginShare.objects.exists()


def test_shares_within_a_millionth_of_one_are_accepted(admin_client, questions):
    response = admin_client.post(ADD, form(questions[2], ["0.333333", "0.333333", "0.333333"]))
    assert response.status_code == 302 and PopulationMargin.objects.count() == 1


@pytest.mark.parametrize("order, shares", [(1, ["0.5", "0.5"]), (3, ["0.3", "0.4", "0.3"])],
                         ids=["randomized", "a direct number, whose report is no option"])
def test_only_a_direct_choice_can_have_a_margin(admin_client, questions, order, shares):
    response = admin_client.post(ADD, form(questions[order], shares))
    assert response.status_code == 200 and "Select a valid choice" in response.content.decode()
    assert not PopulationMargin.objects.exists()


def choices(response, field):
    """(value, label) of a form field's choices on an admin page, the empty one left out."""
    return [(str(value), label) for value, label in field.choices if value != ""]


def test_the_question_list_names_survey_and_wave_and_holds_direct_questions_only(admin_client, questions):
    again = waves.run_again(questions[2].survey)
    response = admin_client.get(ADD)
    listed = choices(response, response.context["adminform"].form.fields["question"])
    first, second = questions[2].survey, again
    assert listed == [(str(questions[2].pk), f"Margins, wave 1 ({first.slug}): 2. Age band?"),
                      (str(again.questions.get(order=2).pk), f"Margins, wave 2 ({second.slug}): 2. Age band?")]


def share_field(response):
    formset = response.context["inline_admin_formsets"][0].formset
    return formset.forms[0].fields["option"]


def test_the_share_options_are_the_chosen_questions_only(admin_client, questions, direct_survey):
    assert choices(None, share_field(admin_client.get(ADD))) == []  # none chosen yet: the page asks for one
    response = admin_client.get(f"{ADD}?question={questions[2].pk}")
    assert response.context["adminform"].form.initial["question"] == str(questions[2].pk)
    assert choices(None, share_field(response)) == [(str(o.pk), o.label) for o in questions[2].ordered_options()]
    admin_client.post(ADD, form(questions[2], ["0.3", "0.4", "0.3"]))
    stored = PopulationMargin.objects.get()
    response = admin_client.get(f"/admin/aggregation/populationmargin/{stored.pk}/change/")
    assert choices(None, share_field(response)) == [(str(o.pk), o.label) for o in questions[2].ordered_options()]


def test_an_option_of_another_question_is_refused(admin_client, questions, direct_survey):
    data = form(questions[2], ["0.3", "0.4", "0.3"])
    data["shares-2-option"] = direct_survey.questions.get(order=2).ordered_options()[2].pk
    response = admin_client.post(ADD, data)
    assert response.status_code == 200 and "Select a valid choice" in response.content.decode()
    assert not PopulationMargin.objects.exists()


def test_a_thousand_posted_share_forms_are_refused_without_making_them(admin_client, questions):
    data = form(questions[2], ["0.3", "0.4", "0.3"]) | {"shares-TOTAL_FORMS": 1000}
    started = time.perf_counter()
    response = admin_client.post(ADD, data)
    took = time.perf_counter() - started
    formset = response.context["inline_admin_formsets"][0].formset
    assert response.status_code == 200 and len(formset.forms) == MAX_OPTIONS
    assert formset.non_form_errors() == [f"Please submit at most {MAX_OPTIONS} forms."]
    assert not PopulationMargin.objects.exists()
    assert took < 5, took  # it was over 15 s


def test_a_margin_saved_in_the_admin_is_recorded_in_the_history(admin_client, questions):
    assert admin_client.post(ADD, form(questions[2], ["0.3", "0.4", "0.3"])).status_code == 302
    field = f"Question {questions[2].pk} “Age band?”: population margin"
    assert recorded(questions[2].survey_id) == [
        ("super", "changed", [(field, None, "Census 2021, table P12: 18-34 0.300000 | 35-54 0.400000 | 55+ 0.300000")])]
