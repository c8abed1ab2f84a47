"""The population margins API, GET and PUT /api/v1/surveys/<slug>/margins/: the survey's researchers read and
replace them whole (options by label or index), every refusal names the field and what is wrong and stores nothing,
each change is in the configuration history, anyone else gets what the other results endpoints give them, and a
wave takes another wave's margins."""

import json

import pytest
from django.urls import reverse

from surveys.aggregation.models import MarginShare, PopulationMargin
from surveys.collection import waves
from surveys.collection.models import Question
from tests.conftest import login
from tests.history.test_admin_recording import recorded

AGE = [{"option": "18-34", "share": 0.3}, {"option": "35-54", "share": 0.4}, {"option": "55+", "share": 0.3}]


def url(survey):
    return reverse("aggregation:api-margins", args=[survey.slug])


def put(client, survey, body):
    response = client.put(url(survey), json.dumps(body), content_type="application/json")
    return response.status_code, response.json()


def ids(survey):
    return {q.order: q.pk for q in survey.ordered_questions()}


def margin(question, source="Census 2021", shares=AGE):
    return {"question": question, "source": source, "shares": shares}


def stored(survey):
    """Every stored share: (question order, source, option label, share as stored)."""
    shares = MarginShare.objects.filter(margin__question__survey=survey).select_related("margin__question", "option")
    return sorted((s.margin.question.order, s.margin.source, s.option.label, str(s.share)) for s in shares)


def questions(survey):
    q = ids(survey)
    return [{"id": q[2], "order": 2, "text": "Age band?", "options": ["18-34", "35-54", "55+"]},
            {"id": q[4], "order": 4, "text": "Region?", "options": ["North", "East", "South", "West"]}]


def test_a_survey_without_margins_lists_the_questions_that_can_have_one(owner_client, direct_survey):
    response = owner_client.get(url(direct_survey))
    assert response.status_code == 200 and response["Cache-Control"].startswith("max-age=0")
    assert response.json() == {"margins": [], "questions": questions(direct_survey)}


def test_a_put_replaces_the_margins_whole_options_by_label_or_index(owner_client, direct_survey):
    q = ids(direct_survey)
    region = [{"option": " north ", "share": "0.25"}, {"option": 1, "share": 0.25}, {"option": "SOUTH", "share": 0.3},
              {"option": "3", "share": 0.2}]
    status, body = put(owner_client, direct_survey, {"margins": [margin(q[4], "Register 2024", region),
                                                                 margin(q[2])]})
    assert status == 200
    assert body == {"margins": [
        {"question": q[2], "order": 2, "text": "Age band?", "source": "Census 2021", "shares": [
            {"option": 0, "label": "18-34", "share": 0.3}, {"option": 1, "label": "35-54", "share": 0.4},
            {"option": 2, "label": "55+", "share": 0.3}]},
        {"question": q[4], "order": 4, "text": "Region?", "source": "Register 2024", "shares": [
            {"option": 0, "label": "North", "share": 0.25}, {"option": 1, "label": "East", "share": 0.25},
            {"option": 2, "label": "South", "share": 0.3}, {"option": 3, "label": "West", "share": 0.2}]}],
        "questions": questions(direct_survey)}
    assert owner_client.get(url(direct_survey)).json() == body
    assert put(owner_client, direct_survey, {"margins": [margin(q[2], "Census 2022")]})[0] == 200
    assert stored(direct_survey) == [(2, "Census 2022", "18-34", "0.300000"), (2, "Census 2022", "35-54", "0.400000"),
                                     (2, "Census 2022", "55+", "0.300000")]
    assert put(owner_client, direct_survey, {"margins": []}) == (200, {"margins": [],
                                                                       "questions": questions(direct_survey)})
    assert not PopulationMargin.objects.exists()


AGE_TEXT = "question 2 “Age band?”"


@pytest.mark.parametrize("entry, field, reason", [
    (lambda q: margin(q[1], shares=[{"option": "Yes", "share": 1}]), "margins[0].question",
     "question 1 “Cheated?” is randomized or not a single choice: only a question sent as given, one option per "
     "answer, can have a population margin."),
    (lambda q: margin(10**9), "margins[0].question", "This survey has no question 1000000000."),
    (lambda q: margin(str(q[2])), "margins[0].question", "Give the question's id (a number)."),
    (lambda q: margin(q[2], source="  "), "margins[0].source",
     f"{AGE_TEXT}: say where the shares come from (the source, e.g. a census table)."),
    (lambda q: margin(q[2], source="x" * 201), "margins[0].source",
     f"{AGE_TEXT}: the source is longer than 200 characters."),
    (lambda q: margin(q[2], shares=[*AGE[:2], {"option": "Over 55", "share": 0.3}]), "margins[0].shares[2].option",
     f"{AGE_TEXT} has no option “Over 55” (give an option's label or its index, 0 for the first)."),
    (lambda q: margin(q[2], shares=[*AGE[:2], {"option": 3, "share": 0.3}]), "margins[0].shares[2].option",
     f"{AGE_TEXT} has no option “3” (give an option's label or its index, 0 for the first)."),
    (lambda q: margin(q[2], shares=[*AGE, {"option": 0, "share": 0.1}]), "margins[0].shares[3].option",
     f"{AGE_TEXT}: option “18-34” has two shares."),
    (lambda q: margin(q[2], shares=[*AGE[:2], {"option": "55+", "share": 0}]), "margins[0].shares[2].share",
     f"{AGE_TEXT}, option “55+”: a share must be above 0 (at least 0.000001): nobody can be weighted to a group the "
     "population does not have."),
    (lambda q: margin(q[2], shares=[*AGE[:2], {"option": "55+", "share": -0.3}]), "margins[0].shares[2].share",
     f"{AGE_TEXT}, option “55+”: a share must be above 0 (at least 0.000001): nobody can be weighted to a group the "
     "population does not have."),
    (lambda q: margin(q[2], shares=[*AGE[:2], {"option": "55+", "share": "0.0000004"}]), "margins[0].shares[2].share",
     f"{AGE_TEXT}, option “55+”: a share must be above 0 (at least 0.000001): nobody can be weighted to a group the "
     "population does not have."),
    (lambda q: margin(q[2], shares=[*AGE[:2], {"option": "55+", "share": "a third"}]), "margins[0].shares[2].share",
     f"{AGE_TEXT}, option “55+”: “a third” is no number; a share is a number above 0 and at most 1, such as 0.25."),
    (lambda q: margin(q[2], shares=[*AGE[:2], {"option": "55+", "share": True}]), "margins[0].shares[2].share",
     f"{AGE_TEXT}, option “55+”: a share is a number above 0 and at most 1, such as 0.25."),
    (lambda q: margin(q[2], shares=[{"option": "18-34", "share": 30}, {"option": "35-54", "share": 40},
                                    {"option": "55+", "share": 30}]), "margins[0].shares[0].share",
     f"{AGE_TEXT}, option “18-34”: a share is at most 1; they are fractions of the population (0.3 for 30%)."),
    (lambda q: margin(q[2], shares=AGE[:2]), "margins[0].shares",
     f"{AGE_TEXT}: give a share for every option of the question (the weights need the whole population); "
     "missing: “55+”."),
    (lambda q: margin(q[2], shares=[*AGE[:2], {"option": "55+", "share": 0.31}]), "margins[0].shares",
     f"{AGE_TEXT}: the shares must add up to 1; they add up to 1.01."),
    (lambda q: margin(q[2], shares=[*AGE[:2], {"option": "55+", "share": 0.299998}]), "margins[0].shares",
     f"{AGE_TEXT}: the shares must add up to 1; they add up to 0.999998."),
    (lambda q: margin(q[2], shares=[]), "margins[0].shares", f"{AGE_TEXT}: give a list of shares, one per option."),
    (lambda q: "Age band", "margins[0]", "A margin is an object with question, source and shares."),
])
def test_a_bad_margin_is_refused_naming_its_field_and_nothing_changes(owner_client, direct_survey, entry, field,
                                                                      reason):
    q = ids(direct_survey)
    assert put(owner_client, direct_survey, {"margins": [margin(q[2], "Old census")]})[0] == 200
    before = stored(direct_survey)
    # A sound margin first: a refusal of the second stores neither.
    region = [{"option": j, "share": 0.25} for j in range(4)]
    status, body = put(owner_client, direct_survey, {"margins": [entry(q)] if field.startswith("margins[0]") else []})
    assert (status, body) == (400, {"error": {"code": "invalid", "field": field, "reason": reason}})
    shifted = field.replace("margins[0]", "margins[1]")
    assert put(owner_client, direct_survey, {"margins": [margin(q[4], "Register", region), entry(q)]}) == (
        400, {"error": {"code": "invalid", "field": shifted, "reason": reason}})
    assert stored(direct_survey) == before and len(recorded(direct_survey.pk)) == 1


@pytest.mark.parametrize("body, field, reason", [
    ([], "body", 'Send {"margins": [...]} (an empty list removes them) or {"copy_from": <wave number>}.'),
    ({"margin": []}, "body", 'Send {"margins": [...]} (an empty list removes them) or {"copy_from": <wave number>}.'),
    ({"margins": {}}, "margins", "A list of margins is expected (an empty list removes them)."),
])
def test_a_body_that_is_no_list_of_margins_is_refused(owner_client, direct_survey, body, field, reason):
    assert put(owner_client, direct_survey, body) == (400, {"error": {"code": "invalid", "field": field,
                                                                      "reason": reason}})


def test_a_question_given_twice_is_refused(owner_client, direct_survey):
    q = ids(direct_survey)
    assert put(owner_client, direct_survey, {"margins": [margin(q[2]), margin(q[2], "Other")]}) == (
        400, {"error": {"code": "invalid", "field": "margins[1].question",
                        "reason": f"{AGE_TEXT} has two margins: give it one."}})
    assert not PopulationMargin.objects.exists()


@pytest.mark.parametrize("last, accepted", [("0.300001", True), ("0.299999", True), ("0.300002", False),
                                            ("0.3000014", True), ("0.2999985", False)])
def test_shares_within_a_millionth_of_one_are_accepted(owner_client, direct_survey, last, accepted):
    """Kept to six decimals (half to even) before they are added up."""
    shares = [*AGE[:2], {"option": "55+", "share": last}]
    status, _body = put(owner_client, direct_survey, {"margins": [margin(ids(direct_survey)[2], shares=shares)]})
    assert status == (200 if accepted else 400)


def test_outsiders_get_what_the_other_results_endpoints_give_them(client, other_researcher, direct_survey):
    q = ids(direct_survey)
    estimates = reverse("aggregation:api-estimates", args=[direct_survey.slug])
    expected = client.get(estimates).json()
    assert put(client, direct_survey, {"margins": [margin(q[2])]}) == (403, expected)
    assert client.get(url(direct_survey)).json() == expected
    login(client, other_researcher)
    expected = client.get(estimates).json()
    assert expected["error"]["code"] == "not_found"
    assert put(client, direct_survey, {"margins": [margin(q[2])]}) == (404, expected)
    assert (client.get(url(direct_survey)).status_code, client.get(url(direct_survey)).json()) == (404, expected)
    assert not PopulationMargin.objects.exists()


def test_each_change_is_recorded_in_the_history_with_who_and_before_and_after(owner_client, direct_survey):
    q = ids(direct_survey)
    put(owner_client, direct_survey, {"margins": [margin(q[2])]})
    put(owner_client, direct_survey, {"margins": [margin(q[2], "Census 2022", [{"option": 0, "share": "0.25"},
                                                                              {"option": 1, "share": "0.45"},
                                                                              {"option": 2, "share": "0.3"}])]})
    put(owner_client, direct_survey, {"margins": [margin(q[2], "Census 2022", [{"option": 0, "share": "0.25"},
                                                                              {"option": 1, "share": "0.45"},
                                                                              {"option": 2, "share": "0.3"}])]})
    put(owner_client, direct_survey, {"margins": []})
    field = f"Question {q[2]} “Age band?”: population margin"
    first = "Census 2021: 18-34 0.300000 | 35-54 0.400000 | 55+ 0.300000"
    second = "Census 2022: 18-34 0.250000 | 35-54 0.450000 | 55+ 0.300000"
    assert recorded(direct_survey.pk) == [("owner", "changed", [(field, None, first)]),
                                          ("owner", "changed", [(field, first, second)]),
                                          ("owner", "changed", [(field, second, None)])]  # the same again: nothing


def test_stale_margins_are_read_as_a_409_naming_the_question(owner_client, direct_survey):
    q = ids(direct_survey)
    put(owner_client, direct_survey, {"margins": [margin(q[2])]})
    Question.objects.filter(pk=q[2]).update(mechanism_name="krr", epsilon=1.0)  # behind the admin's back
    response = owner_client.get(url(direct_survey))
    assert response.status_code == 409
    assert response.json() == {"error": {"code": "unavailable", "field": "margins", "reason": (
        "The population margins cannot be used: question 2 “Age band?” is no longer sent as given (its mechanism "
        "is k-ary randomized response): a randomized answer does not say whom to weight. A researcher of the survey "
        "sets them again on its results page (Population margins).")}}
    assert put(owner_client, direct_survey, {"margins": []})[0] == 200  # and replacing them mends it


@pytest.fixture
def two_waves(direct_survey, owner):
    """direct_survey as wave 1 with an age margin, and its wave 2 (which copied it)."""
    q = ids(direct_survey)
    PopulationMargin.objects.all().delete()
    second = waves.run_again(direct_survey)
    return direct_survey, second, q


def test_a_wave_takes_another_waves_margins(owner_client, two_waves):
    first, second, q = two_waves
    region = [{"option": j, "share": share} for j, share in enumerate([0.1, 0.2, 0.3, 0.4])]
    put(owner_client, first, {"margins": [margin(q[2]), margin(q[4], "Register", region)]})
    status, body = put(owner_client, second, {"copy_from": 1})
    assert status == 200
    mine = ids(second)
    assert [(m["question"], m["source"], [s["share"] for s in m["shares"]]) for m in body["margins"]] == [
        (mine[2], "Census 2021", [0.3, 0.4, 0.3]), (mine[4], "Register", [0.1, 0.2, 0.3, 0.4])]
    assert [row[1:] for row in stored(second)] == [row[1:] for row in stored(first)]


@pytest.mark.parametrize("wave", [2, 3, "1", None])
def test_copying_from_no_other_wave_is_refused(owner_client, two_waves, wave):
    first, second, q = two_waves
    put(owner_client, second, {"margins": [margin(ids(second)[2])]})
    assert put(owner_client, second, {"copy_from": wave}) == (400, {"error": {
        "code": "invalid", "field": "copy_from",
        "reason": f"This survey's series has no other wave {wave} that you may see."}})
    assert len(stored(second)) == 3


def test_copying_a_margin_whose_options_changed_names_the_option(owner_client, two_waves):
    first, second, q = two_waves
    put(owner_client, first, {"margins": [margin(q[2])]})
    second.questions.get(order=2).options.filter(label="55+").update(label="55 and over")
    assert put(owner_client, second, {"copy_from": 1}) == (400, {"error": {
        "code": "invalid", "field": "margins[0].shares[2].option",
        "reason": f"{AGE_TEXT} has no option “55+” (give an option's label or its index, 0 for the first)."}})


def test_only_a_wave_of_the_same_series_that_the_researcher_may_see_is_copied(owner_client, owner, two_waves):
    first, second, q = two_waves
    put(owner_client, first, {"margins": [margin(q[2])]})
    third = waves.run_again(second)  # wave 3, with wave 1's margin: not the owner's to see
    third.researchers.clear()
    elsewhere = waves.run_again(waves.run_again(first.__class__.objects.create(
        slug="elsewhere", title="Elsewhere", epsilon_budget=1.0)))  # wave 3 of another series, the owner's
    elsewhere.researchers.add(owner)
    put(owner_client, second, {"margins": []})
    assert put(owner_client, second, {"copy_from": 3}) == (400, {"error": {
        "code": "invalid", "field": "copy_from",
        "reason": "This survey's series has no other wave 3 that you may see."}})
    assert stored(second) == []
