"""A multi-select's exclusive options in what the browser reads: the definition API (and its schema)
carries their indexes, the respondent page marks their checkboxes and says what they do; the privacy
figures are those of the same question without them; the server, which receives randomized bits only,
does not (and cannot) check exclusivity."""

import json

import pytest
from django.contrib import admin
from django.urls import reverse

from surveys.collection import builder, plan, submission
from surveys.collection.admin.questions import describe
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Option, Response, Survey
from tests.collection.helpers import question
from tests.collection.pages import parse
from tests.factories import valid_payload


@pytest.fixture
def none_of_these(db):
    """An open survey: 1 multi-select (Tobacco, Alcohol, Cannabis, None of these, Prefer not to say; the last
    two exclusive; at most 2), 2 yes/no; no report yet."""
    return builder.create_survey("none", "None", [
        QuestionSpec("Which have you used?", "multiselect", epsilon=2.0, kind="multi_select", at_most=2,
                     options=["Tobacco", "Alcohol", "Cannabis", "None of these", "Prefer not to say"],
                     exclusive=["None of these", "Prefer not to say"]),
        QuestionSpec("Ever cheated?", "qrr", q="0.5"),
    ], status=Survey.Status.OPEN, epsilon_budget=5.0)


def definition(client, survey):
    return client.get(f"/api/v1/surveys/{survey.slug}/").json()


def page_data(client, survey):
    page = parse(client.get(f"/s/{survey.slug}/").content)
    return page, json.loads(page.by_id("survey-data").raw_text)


def test_the_definition_carries_the_exclusive_options_indexes(client, none_of_these):
    multi, yes_no = definition(client, none_of_these)["questions"]
    assert multi["options"][3:] == ["None of these", "Prefer not to say"]
    assert (multi["exclusive"], yes_no["exclusive"]) == ([3, 4], [])


def test_a_multi_select_without_exclusive_options_has_none_and_other_kinds_never(client, kinds_survey):
    assert [q["exclusive"] for q in definition(client, kinds_survey)["questions"]] == [[]] * 5


def test_the_schema_describes_the_exclusive_indexes(client, db):
    schema = json.loads(client.get(reverse("aggregation:api-schema")).content)["components"]["schemas"]
    exclusive = schema["QuestionDefinition"]["properties"]["exclusive"]
    assert exclusive["type"] == "array" and exclusive["items"] == {"type": "integer"}
    assert "exclusive" in schema["QuestionDefinition"]["required"]
    assert "cannot check" in exclusive["description"]


def test_the_page_marks_each_exclusive_checkbox_and_describes_it(client, none_of_these):
    page, data = page_data(client, none_of_these)
    pk = question(none_of_these, 1).pk
    boxes = page.find("fieldset", **{"data-question": str(pk)}).find_all("input")
    assert ["data-exclusive" in box.attrs for box in boxes] == [False, False, False, True, True]
    assert [box.attrs["aria-describedby"] for box in boxes] == [f"hint-{pk} note-{pk} problem-{pk}"] * 3 + [
        f"exclusive-{pk}-{j} hint-{pk} note-{pk} problem-{pk}" for j in (3, 4)]
    notes = [page.by_id(f"exclusive-{pk}-{j}") for j in (3, 4)]
    assert [(note.text, note.attrs["aria-hidden"]) for note in notes] == [("(excludes the other options)", "true")] * 2
    labels = page.find("fieldset", **{"data-question": str(pk)}).find_all("label")
    assert labels[3].text == "None of these (excludes the other options)"  # seen; its name is the label alone
    assert [q.get("exclusive") for q in data["questions"]] == [[3, 4], None]
    assert data["text"]["exclusive"] == "“{option}” is ticked alone: untick it or the other options."


def test_the_privacy_figures_are_those_of_the_same_question_without_exclusive_options(client, none_of_these):
    """Exclusivity narrows the true answers the browser accepts; the mechanism, its epsilon, the version and
    every figure (API, page, admin) stay as they are."""
    survey_admin = admin.site._registry[Survey]

    def figures():
        body = definition(client, none_of_these)
        for q in body["questions"]:
            q.pop("exclusive")
        page, data = page_data(client, none_of_these)
        for q in data["questions"]:
            q.pop("exclusive", None)
        data.pop("csrfToken")  # a new one per visit
        said = [p.text for p in page.find_all("p") if "odds" in p.text or "ε" in p.text]
        return (body, data, said, plan.of(none_of_these).version, survey_admin.epsilon_summary(none_of_these),
                [describe(q) for q in none_of_these.ordered_questions()])

    marked = figures()
    Option.objects.filter(question__survey=none_of_these).update(exclusive=False)
    assert definition(client, none_of_these)["questions"][0]["exclusive"] == []
    assert figures() == marked
    assert marked[0]["epsilon_total"] == plan.of(none_of_these).epsilon_total > 0


def test_the_server_takes_randomized_bits_with_an_exclusive_option_and_others_set(none_of_these):
    """Randomized bits may set any boxes, whatever the true answer was: refusing them would refuse honest
    respondents and tell the server something about their answers."""
    payload = valid_payload(none_of_these, values={1: [1, 1, 1, 1, 1]})
    receipt = submission.submit(none_of_these, payload)
    assert receipt.created and Response.objects.filter(survey=none_of_these).count() == 1
