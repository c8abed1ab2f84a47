"""An XLSForm's `name` column is the question's name (`surveys.collection.variable_names`): a name the exports
cannot carry is refused with its row, a name that is the question's own default key (q<order>) is stored blank,
and the export writes each question's key, its name or q<order>."""

import pytest

from surveys.collection import builder, variable_names
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey
from surveys.collection.xlsform import importing, writing
from surveys.collection.xlsform.mapping import Problem
from surveys.collection.xlsform.reading import Refused
from tests.collection.xlsforms import workbook

pytestmark = pytest.mark.django_db

CHOICES = [["list_name", "name", "label"], ["yn", "no", "No"], ["yn", "yes", "Yes"],
           ["party", "a", "Left"], ["party", "b", "Right"]]
SETTINGS = [["form_title", "form_id", "epsilon_budget"], ["Named", "named", "10"]]


def form(*names: str) -> bytes:
    """A yes/no question per name, in that order."""
    return workbook([["type", "name", "label", "privacy"],
                     *(["select_one yn", name, f"Question {name}?", "bitflip epsilon=1"] for name in names)],
                    CHOICES, SETTINGS)


def test_names_that_are_each_questions_own_default_key_are_stored_blank_however_cased():
    survey = importing.import_form(form("q1", "Q2", "smoked", "q4")).survey

    assert list(survey.ordered_questions().values_list("name", flat=True)) == ["", "", "smoked", ""]


@pytest.mark.parametrize(("names", "row", "name", "before"), [
    (["q2", "smoked"], 2, "q2", []),  # another question's default key
    (["smoked", "age_1"], 3, "age_1", ["smoked"]),  # a multi-select's per-option column
    (["weight"], 2, "weight", []),  # a column the exports already have
    (["smoked", "with"], 3, "with", ["smoked"]),  # reserved by Stata, SPSS and Python
    (["a" * 33], 2, "a" * 33, []),  # over Stata's 32 characters
    (["smoked", "in-town"], 3, "in-town", ["smoked"]),  # an XLSForm name, not a variable name
    (["smoked", "Smoked"], 3, "Smoked", ["smoked"]),  # SPSS reads names case-insensitively
])
def test_a_name_the_exports_cannot_carry_is_refused_with_its_row_in_the_admins_words(names, row, name, before):
    with pytest.raises(Refused) as caught:
        importing.import_form(form(*names))

    assert caught.value.problems == [Problem("survey", row, "name", variable_names.problem(name, before))]
    assert not Survey.objects.exists()


def test_the_export_writes_each_questions_name_or_q_and_its_order():
    survey = builder.create_survey("mixed", "Mixed", [
        QuestionSpec("Smoked?", "qrr", q="0.5", name="smoked"),
        QuestionSpec("Party?", "krr", epsilon=1.0, options=["Left", "Right"]),
        QuestionSpec("Party then?", "krr", epsilon=1.0, options=["Left", "Right"], name="party_then"),
    ], epsilon_budget=10.0)

    sheets = writing.sheets(survey)

    assert [(row["name"], row["type"]) for row in sheets["survey"]] == [
        ("smoked", "select_one yes_no"), ("q2", "select_one q2"), ("party_then", "select_one party_then")]
    assert [row["list_name"] for row in sheets["choices"]] == ["yes_no", "yes_no", "q2", "q2", "party_then",
                                                               "party_then"]
    again = importing.import_form(sheets, slug="mixed-again").survey
    assert list(again.ordered_questions().values_list("name", flat=True)) == ["smoked", "", "party_then"]
