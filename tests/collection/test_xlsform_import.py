"""Importing an XLSForm (surveys/collection/xlsform): the survey an admin would have typed, or every problem by
sheet, row and column with nothing stored."""


import pytest

from surveys.collection import builder
from surveys.collection.builder import QuestionSpec, TranslationSpec
from surveys.collection.models import Question, QuestionTranslation, Survey
from surveys.collection.xlsform import importing
from surveys.collection.xlsform.mapping import Problem
from surveys.collection.xlsform.reading import Refused
from tests.collection.xlsforms import CHOICES, QUESTIONS, SETTINGS, SURVEY_HEADER, described, hand_form, workbook

pytestmark = pytest.mark.django_db

AGREE = ["Disagree", "Neither", "Agree", "Prefer not to say"]
HARMS = ["Hit", "Threatened", "Robbed", "None of these"]


def typed_by_an_admin(slug: str = "typed") -> Survey:
    """The hand form's survey as an admin would make it: the builder, then its Spanish translation."""
    survey = builder.create_survey(slug, "Health and safety", [
        QuestionSpec("Used drugs this year?", "qrr", q="0.5", name="drugs", hint="Be honest"),
        QuestionSpec("Stole anything?", "bitflip", epsilon=1.0, name="stole"),
        QuestionSpec("Your region?", "direct", options=["North", "South"], name="region", choice_names=["n", "s"]),
        QuestionSpec("Which party?", "krr", epsilon=1.6, options=["Left", "Centre", "Right"], name="party"),
        QuestionSpec("Which party then?", "sue", epsilon=0.7, options=["Left", "Centre", "Right"], name="party_sue"),
        QuestionSpec("I trust the police", "oue", epsilon=1.0, kind="ordinal", options=AGREE,
                     scores=["1", "2", "3", None], name="trust"),
        QuestionSpec("Which happened to you?", "multiselect", epsilon=2.0, kind="multi_select", options=HARMS,
                     at_most=3, exclusive=["None of these"], name="harms"),
        QuestionSpec("Income (thousands)?", "onebit", epsilon=1.0, kind="numeric", scale=("0", "100", "1"),
                     name="income"),
        QuestionSpec("Drinks per day?", "dlaplace", epsilon=1.0, kind="numeric", scale=("0", "10", "0.5"),
                     name="drinks"),
        QuestionSpec("Your age?", "direct_number", kind="numeric", scale=("18", "100", "1"), name="age",
                     options=["18 to 34", "35 to 64", "65 to 100"], edges=["18", "35", "65"]),
        QuestionSpec("Hours online?", "krr", epsilon=1.0, kind="numeric", scale=("0", "60", "1"), name="hours",
                     options=["0 to 9", "10 to 29", "30 to 60"], edges=["0", "10", "30"]),
    ], language="en", consent="I agree to take part.", description="Ten minutes.", epsilon_budget=12.0)
    builder.translate(survey, TranslationSpec(
        "es", "Salud y seguridad", [q[3] for q in QUESTIONS],
        {3: ["Norte", "Sur"], 4: ["Izquierda", "Centro", "Derecha"], 5: ["Izquierda", "Centro", "Derecha"],
         6: ["En desacuerdo", "Ni uno ni otro", "De acuerdo", "Prefiero no decir"],
         7: ["Golpeado", "Amenazado", "Robado", "Ninguno"], 10: ["18 to 34", "35 to 64", "65 to 100"],
         11: ["0 to 9", "10 to 29", "30 to 60"]},  # a form has no bin labels: the app's own (in English)
        description="Diez minutos.", consent="Acepto participar."))
    QuestionTranslation.objects.filter(question__survey=survey, question__name="drugs").update(hint="Sea honesto")
    return survey


def test_the_hand_form_gives_the_survey_an_admin_would_have_typed():
    imported = importing.import_form(hand_form()).survey

    assert imported.slug == "health_safety"
    assert described(imported) == described(typed_by_an_admin())


def test_each_question_keeps_its_xlsform_name():
    imported = importing.import_form(hand_form()).survey

    assert list(imported.ordered_questions().values_list("name", flat=True)) == [q[1] for q in QUESTIONS]


def test_it_opens_the_survey_when_asked_after_the_open_checks():
    kept = [[*SETTINGS[0], "retention_days"], [*SETTINGS[1], "90"]]
    imported = importing.import_form(hand_form(settings=kept), slug="opened", open_it=True).survey

    assert imported.slug == "opened"
    assert imported.status == Survey.Status.OPEN
    assert imported.retention_days == 90
    assert imported.planned_size is not None  # opened by the Open button's verb


def refused(form: bytes, **options) -> list[Problem]:
    with pytest.raises(Refused) as caught:
        importing.import_form(form, **options)
    assert not Survey.objects.exists() and not Question.objects.exists()
    return caught.value.problems


def with_row(row: int, cells: list[str]) -> bytes:
    """The hand form with survey row `row` (2 is the first question) replaced."""
    rows = [SURVEY_HEADER, *QUESTIONS]
    rows[row - 1] = cells
    return hand_form(survey=rows)


def test_a_question_without_its_choices_list_is_refused_with_its_row():
    form = hand_form(choices=[row for row in CHOICES if row[0] != "party"])

    problems = refused(form)

    assert [(p.sheet, p.row) for p in problems] == [("survey", 5)]
    assert "party" in problems[0].message


def test_an_unknown_privacy_word_is_refused_with_its_row_and_column():
    problems = refused(with_row(3, ["select_one yn", "stole", "Stole?", "¿Robó?", "", "", "yes", "",
                                    "bitflop epsilon=1"]))

    assert problems == [Problem("survey", 3, "privacy", "unknown privacy word “bitflop”: use one of qrr, bitflip, "
                                                        "krr, sue, oue, multiselect, onebit, dlaplace, direct")]


def test_a_question_without_a_privacy_cell_is_refused_never_sent_as_given():
    problems = refused(with_row(4, ["select_one region", "region", "Region?", "¿Región?", "", "", "yes", "", ""]))

    assert [(p.sheet, p.row, p.column) for p in problems] == [("survey", 4, "privacy")]


def test_a_form_over_its_budget_is_refused():
    settings = [SETTINGS[0], [*SETTINGS[1][:-1], "10"]]  # its questions cost 10.4

    problems = refused(hand_form(settings=settings))

    assert [(p.sheet, p.row, p.column) for p in problems] == [("settings", 2, "epsilon_budget")]
    assert "budget" in problems[0].message


def test_an_unsupported_type_is_refused_with_its_reason():
    rows = [SURVEY_HEADER, *QUESTIONS, ["text", "story", "Tell us", "Cuéntenos", "", "", "yes", "", "direct"]]

    problems = refused(hand_form(survey=rows))

    assert [(p.sheet, p.row, p.column) for p in problems] == [("survey", 13, "type")]
    assert "free text cannot be randomized" in problems[0].message


def test_skip_unsupported_drops_it_with_a_warning():
    rows = [SURVEY_HEADER, *QUESTIONS, ["text", "story", "Tell us", "Cuéntenos", "", "", "yes", "", ""]]

    done = importing.import_form(hand_form(survey=rows), skip_unsupported=True)

    assert described(done.survey) == described(typed_by_an_admin())
    assert len(done.warnings) == 1 and "row 13" in done.warnings[0] and "free text" in done.warnings[0]


def test_every_problem_is_listed_at_once():
    rows = [SURVEY_HEADER, *QUESTIONS]
    rows[1] = [*rows[1][:-1], "qrr q=1.5"]
    rows[3] = [*rows[3][:-1], ""]
    rows[6] = [*rows[6][:-1], "multiselect epsilon=2"]  # an ordinal list asked multiselect on select_one

    problems = refused(hand_form(survey=rows))

    assert [(p.row, p.column) for p in problems] == [(2, "privacy"), (4, "privacy"), (7, "privacy")]


def test_a_missing_translation_is_refused_with_its_column():
    rows = [SURVEY_HEADER, *QUESTIONS]
    rows[2] = [*rows[2][:3], "", *rows[2][4:]]

    problems = refused(hand_form(survey=rows))

    assert [(p.sheet, p.row, p.column) for p in problems] == [("survey", 3, "label::Spanish (es)")]


def test_a_slug_taken_is_refused_and_the_survey_there_is_kept():
    typed_by_an_admin("health_safety")

    with pytest.raises(Refused) as caught:
        importing.import_form(hand_form())

    assert [(p.sheet, p.column) for p in caught.value.problems] == [("settings", "form_id")]
    assert Survey.objects.count() == 1


def test_a_two_choice_list_asked_the_bit_flip_is_yes_no_its_second_choice_yes():
    form = workbook([["type", "name", "label", "privacy"], ["select_one ab", "q", "Ever?", "bitflip epsilon=1"]],
                    [["list_name", "name", "label"], ["ab", "never", "Never"], ["ab", "ever", "Ever"]],
                    [["form_title", "form_id"], ["Ab", "ab"]])

    done = importing.import_form(form)

    question = done.survey.ordered_questions().get()
    assert (question.kind, question.labels()) == ("yes_no", ["No", "Yes"])
    assert "row 2" in done.warnings[0]


def test_the_bounds_come_from_the_constraint_and_an_integer_steps_by_one():
    form = workbook([["type", "name", "label", "constraint", "privacy"],
                     ["integer", "n", "How many?", ". >= 0 and . <= 20", "onebit epsilon=1"]],
                    settings=[["form_title", "form_id"], ["N", "n"]])

    question = importing.import_form(form).survey.ordered_questions().get()

    assert (question.lo, question.hi, question.step) == (0, 20, 1)


def test_it_imports_a_form_of_200_questions_whole():
    # Its time is measured in bench/xlsform_bench.py, not asserted here.
    rows = [["type", "name", "label", "privacy"],
            *(["select_one yn", f"item{i}", f"Question {i}?", "bitflip epsilon=0.05"] for i in range(200))]
    form = workbook(rows, [["list_name", "name", "label"], ["yn", "no", "No"], ["yn", "yes", "Yes"]],
                    [["form_title", "form_id", "epsilon_budget"], ["Long", "long", "10.5"]])

    done = importing.import_form(form)

    assert list(done.survey.ordered_questions().values_list("name", "text")) == [
        (f"item{i}", f"Question {i}?") for i in range(200)]


def test_a_direct_number_without_bins_gets_five_of_nearly_equal_width():
    form = workbook([["type", "name", "label", "privacy"], ["integer", "age", "Age?", "direct lo=18 hi=100 step=1"]],
                    settings=[["form_title", "form_id"], ["Age", "age"]])

    question = importing.import_form(form).survey.ordered_questions().get()

    assert (question.mechanism_name, question.labels()) == (
        "direct_number", ["18 to 33", "34 to 50", "51 to 66", "67 to 83", "84 to 100"])


def test_columns_in_a_language_the_app_does_not_speak_are_skipped_with_a_warning():
    form = workbook([["type", "name", "label::English (en)", "label::German (de)", "privacy"],
                     ["select_one yn", "q", "Ever?", "Jemals?", "qrr q=0.5"]],
                    [["list_name", "name", "label::English (en)", "label::German (de)"],
                     ["yn", "no", "No", "Nein"], ["yn", "yes", "Yes", "Ja"]],
                    [["form_title", "form_id", "default_language"], ["Ever", "ever", "English (en)"]])

    done = importing.import_form(form)

    assert done.warnings == ["the German (de) columns are skipped: not a language this app speaks"]
    assert not done.survey.translations.exists()


def test_a_form_the_open_checks_refuse_is_not_stored_either(monkeypatch):
    from django.core.exceptions import ValidationError

    from surveys.collection import lifecycle

    def refuse(survey):
        raise ValidationError("cannot open: no")

    monkeypatch.setattr(lifecycle, "open_survey", refuse)

    assert refused(hand_form(), open_it=True) == [Problem("survey", None, None, "cannot open: no")]


def test_it_refuses_to_open_a_form_without_a_retention_period():
    assert refused(hand_form(), open_it=True) == [Problem("survey", None, None, "cannot open: it has no retention "
                                                          "period: set how many days its responses are kept after "
                                                          "it closes")]


def test_it_refuses_a_retention_period_that_is_no_whole_number_of_days():
    problems = refused(hand_form(settings=[[*SETTINGS[0], "retention_days"], [*SETTINGS[1], "a year"]]))
    assert [(p.sheet, p.row, p.column, p.message) for p in problems] == [
        ("settings", 2, "retention_days", "a year is not a whole number of days")]


def test_a_slug_taken_between_the_check_and_the_write_is_refused(monkeypatch):
    typed_by_an_admin("health_safety")
    monkeypatch.setattr(importing, "_check_survey", lambda form, slug: None)

    with pytest.raises(Refused) as caught:
        importing.import_form(hand_form())

    assert [(p.sheet, p.column) for p in caught.value.problems] == [("settings", "form_id")]
    assert Survey.objects.count() == 1
