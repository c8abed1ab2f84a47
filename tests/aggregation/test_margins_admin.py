"""Population margins in the admin: a direct question's options with their population shares and source;
every option needs a share, the shares add up to 1, and only questions sent as given can be weighted to."""

import pytest

from surveys.aggregation.models import MarginShare, PopulationMargin
from surveys.collection import builder
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey

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
