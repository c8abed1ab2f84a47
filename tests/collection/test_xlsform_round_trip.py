"""Exporting a survey as an XLSForm (workbook or JSON) and importing the export gives the same survey; the
examples in docs/examples import, open and round-trip."""

import json
from fractions import Fraction
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError

from surveys.collection import plan
from surveys.collection.models import Survey
from surveys.collection.models.exact_q import check_carried
from surveys.collection.xlsform import importing, writing
from surveys.collection.xlsform.mapping import Problem
from surveys.collection.xlsform.reading import Refused
from tests.collection.xlsforms import QUESTIONS, SURVEY_HEADER, described, hand_form
from tests.conftest import KINDS_QUESTIONS

pytestmark = pytest.mark.django_db

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "docs" / "examples").glob("*.xlsx"))


def again(survey: Survey, as_json: bool) -> Survey:
    """`survey` exported, then imported under another slug."""
    source = json.loads(json.dumps(writing.sheets(survey))) if as_json else writing.workbook(survey)
    return importing.import_form(source, slug=f"{survey.slug}-again").survey


@pytest.mark.parametrize("as_json", [False, True], ids=["xlsx", "json"])
def test_an_imported_form_exported_and_imported_again_is_the_same_survey(as_json):
    first = importing.import_form(hand_form()).survey

    assert described(again(first, as_json)) == described(first)


@pytest.mark.parametrize("as_json", [False, True], ids=["xlsx", "json"])
def test_the_exports_json_is_the_same_as_its_workbook(as_json):
    first = importing.import_form(hand_form()).survey

    assert writing.sheets(again(first, as_json)) == {**writing.sheets(first), "settings": [
        {**writing.sheets(first)["settings"][0], "form_id": "health_safety-again"}]}


def test_a_survey_typed_by_an_admin_round_trips_with_its_exact_parameters(every_mechanism_survey, kinds_survey):
    for survey in (every_mechanism_survey, kinds_survey):
        Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.DRAFT)
        survey.refresh_from_db()

        assert described(again(survey, as_json=False)) == described(survey)


def test_a_q_typed_as_a_fraction_is_accepted_exactly_and_written_back_as_typed():
    rows = [SURVEY_HEADER, *QUESTIONS]
    rows[1] = [*rows[1][:-1], "qrr q=2/3"]

    survey = importing.import_form(hand_form(survey=rows)).survey

    assert survey.ordered_questions().first().q == Fraction(2, 3)  # not 0.666667
    assert plan.of(survey).questions[0].mechanism.sampler() == {"kind": "grr", "k": 2, "modulus": 6, "keep": 5,
                                                                "other": 1}  # p = 5/6 exactly in the browser
    assert writing.sheets(survey)["survey"][0]["privacy"] == "qrr q=2/3"
    assert described(again(survey, as_json=True)) == described(survey)


def test_a_q_the_browser_cannot_sample_exactly_is_refused_with_its_row_as_the_admin_refuses_it():
    rows = [SURVEY_HEADER, *QUESTIONS]
    rows[1] = [*rows[1][:-1], "qrr q=1/5000000001"]

    with pytest.raises(Refused) as caught:
        importing.import_form(hand_form(survey=rows))

    with pytest.raises(ValidationError) as admin:
        check_carried(Fraction(1, 5000000001))
    assert caught.value.problems == [Problem("survey", 2, "privacy", " ".join(admin.value.messages))]
    assert not Survey.objects.exists()


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_each_example_imports_opens_and_round_trips(path):
    survey = importing.import_form(path.read_bytes(), open_it=True).survey
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.DRAFT, planned_size=None,
                                               planned_confidence=None)
    survey.refresh_from_db()

    assert described(again(survey, as_json=True)) == described(survey)


def test_there_is_an_example_per_kind_of_study():
    assert [p.stem for p in EXAMPLES] == ["corruption", "health", "humanitarian-needs", "victimization"]


def test_every_kind_survey_exports_each_question_under_its_name(kinds_survey):
    rows = writing.sheets(kinds_survey)["survey"]

    assert [(row["name"], row["privacy"]) for row in rows] == [
        ("q1", "multiselect epsilon=2 at_most=2"), ("q2", "onebit epsilon=1 lo=0 hi=100 step=1"),
        ("q3", "dlaplace epsilon=1 lo=0 hi=10 step=0.5"), ("q4", "krr epsilon=1 lo=0 hi=120 step=1 bins=0,18,35,65"),
        ("q5", "krr epsilon=1")]
    assert len(rows) == len(KINDS_QUESTIONS)
