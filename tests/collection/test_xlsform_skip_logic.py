"""Skip logic in an XLSForm (the `relevant` column, issue 42 item 4): imported as the admin would have typed it,
written back by the export, and every malformed condition refused with its row named and nothing stored."""

import json
from pathlib import Path

import pytest

from surveys.collection.models import Question, Survey
from surveys.collection.xlsform import importing, writing
from surveys.collection.xlsform.mapping import Problem
from surveys.collection.xlsform.reading import Refused
from tests.collection.test_xlsform_import import typed_by_an_admin
from tests.collection.xlsforms import QUESTIONS, SURVEY_HEADER, described, hand_form

pytestmark = pytest.mark.django_db

# The hand form's conditions, by question name: on a direct choice (its choice names n, s) and a direct number.
CONDITIONS = {"party": "${region} = 'n'", "hours": "${age} >= 35 and not(selected(${region}, 's'))"}


def with_conditions(conditions: dict[str, str]) -> bytes:
    rows = [[*SURVEY_HEADER, "relevant"], *([*q, conditions.get(q[1], "")] for q in QUESTIONS)]
    return hand_form(survey=rows)


def refused(form: bytes) -> list[Problem]:
    with pytest.raises(Refused) as caught:
        importing.import_form(form)
    assert not Survey.objects.exists() and not Question.objects.exists()
    return caught.value.problems


def test_a_form_with_skip_logic_gives_the_survey_an_admin_would_have_typed():
    imported = importing.import_form(with_conditions(CONDITIONS)).survey
    typed = typed_by_an_admin()
    for name, condition in CONDITIONS.items():
        Question.objects.filter(survey=typed, name=name).update(relevant=condition)

    assert described(imported) == described(typed)
    assert {q["name"]: q["relevant"] for q in described(imported)["en"]["questions"] if q["relevant"]} == CONDITIONS


@pytest.mark.parametrize("as_json", [False, True], ids=["xlsx", "json"])
def test_export_then_import_keeps_the_conditions_and_the_choice_names(as_json):
    first = importing.import_form(with_conditions(CONDITIONS)).survey
    sheets = writing.sheets(first)
    source = json.loads(json.dumps(sheets)) if as_json else writing.workbook(first)

    again = importing.import_form(source, slug="again").survey

    assert {row["name"]: row.get("relevant", "") for row in sheets["survey"] if row.get("relevant")} == CONDITIONS
    assert [row["name"] for row in sheets["choices"] if row["list_name"] == "region"] == ["n", "s"]
    assert described(again) == described(first)


def test_a_survey_typed_without_choice_names_exports_the_names_its_conditions_compare():
    typed = typed_by_an_admin()
    typed.questions.get(name="region").options.update(name="")
    Question.objects.filter(survey=typed, name="party").update(relevant="${region} = 'north'")

    sheets = writing.sheets(typed)
    again = importing.import_form(json.loads(json.dumps(sheets)), slug="again").survey

    assert [row["name"] for row in sheets["choices"] if row["list_name"] == "region"] == ["north", "south"]
    assert described(again) == described(typed)


@pytest.mark.parametrize(("question", "condition", "words"), [
    ("party", "${drugs} = 'yes'", "the condition refers to ${drugs}, a randomized question: whether a follow-up "
                                  "was asked would reveal the randomized answer. Refer to questions asked directly "
                                  "only."),
    ("party", "${age} > 30", "the condition refers to ${age}, which is not asked before this question: a "
                             "condition may only refer to earlier questions (no cycles)"),
    ("party", "${party} = 'a'", "the condition refers to ${party}, which is not asked before this question: a "
                                "condition may only refer to earlier questions (no cycles)"),
    ("party", "${region} = = 'n'", "the condition cannot be read: expected a value, found “=”"),
    ("party", "${region} == 'n'", "the condition cannot be read: expected a value, found “=”"),
    ("party", "count(${region}) > 1", "the condition cannot be read: unknown word “count”: use and, or, not() "
                                      "and selected()"),
], ids=["randomized", "forward", "itself", "double-equals", "c-style", "unknown-function"])
def test_a_malformed_condition_is_refused_with_its_row_and_nothing_is_stored(question, condition, words):
    row = 2 + [q[1] for q in QUESTIONS].index(question)

    assert refused(with_conditions({question: condition})) == [Problem("survey", row, "relevant", words)]


def test_a_cycle_of_conditions_is_refused_at_the_question_that_looks_forward():
    problems = refused(with_conditions({"region": "${age} > 30", "age": "${region} = 'n'"}))

    assert problems == [Problem("survey", 4, "relevant", "the condition refers to ${age}, which is not asked before "
                                "this question: a condition may only refer to earlier questions (no cycles)")]


def test_a_condition_on_an_unknown_name_is_refused_with_its_row():
    problems = refused(with_conditions({"party": "${nowhere} = 'n'"}))

    assert [(p.sheet, p.row) for p in problems] == [("survey", 5)]
    assert "nowhere" in problems[0].message


def test_a_condition_on_a_group_is_refused_with_its_row():
    rows = [[*SURVEY_HEADER, "relevant"], ["begin_group", "grp", "Group", "Grupo", "", "", "", "", "",
                                           "${region} = 'n'"],
            *([*q, ""] for q in QUESTIONS), ["end_group", "", "", "", "", "", "", "", "", ""]]

    assert refused(hand_form(survey=rows)) == [Problem("survey", 2, "relevant", "skip logic on a group is not "
                                                       "supported: put the condition on each of its questions")]


def test_the_humanitarian_example_asks_about_skipped_meals_only_in_households_of_two_or_more():
    path = Path(__file__).resolve().parents[2] / "docs" / "examples" / "humanitarian-needs.xlsx"
    survey = importing.import_form(path.read_bytes()).survey

    assert [(q.name, q.relevant) for q in survey.ordered_questions()] == [
        ("household", ""), ("needs", ""), ("skipped_meals", "${household} >= 2"), ("aid_diverted", ""),
        ("shelter", "")]
