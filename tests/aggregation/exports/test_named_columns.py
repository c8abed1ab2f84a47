"""A question the admin names (age) has that name for its column in every export and for its key everywhere: the
reports CSV and JSON, the codebook, the .dta and .sav files, the estimates API and CSV, and the generated scripts,
which read the named columns and print the dashboard's figures under those keys. An unnamed question keeps q<order>.
The admin refuses a name no export could carry, on its field, and saves nothing."""

import csv
import io
import json
import sys

import pytest
from django.urls import reverse

from surveys.collection import builder
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey
from tests.aggregation.exports.test_stata_spss import read_back
from tests.aggregation.scripts.test_analysis_scripts import fetch, read_csv, rscript, run
from tests.aggregation.scripts.test_defaults import assert_same
from tests.aggregation.support import add_responses
from tests.collection.test_admin_survey_page import field_error, row, save

HEADER = ["response_id", "submitted_on", "mechanism_version", "cheated", "age", "colour_0", "colour_1", "colour_2",
          "q4"]


@pytest.fixture
def named(db, owner, client):
    survey = builder.create_survey("named", "Named", [
        QuestionSpec("Cheated?", "qrr", q="0.5", name="cheated"),
        QuestionSpec("Your age in years?", "direct_number", kind="numeric", scale=("18", "99", "1"), name="age"),
        QuestionSpec("Colour?", "sue", epsilon=1.5, options=["Red", "Green", "Blue"], name="colour"),
        QuestionSpec("How often?", "krr", epsilon=1.5, options=["Never", "Sometimes", "Often"]),
    ], status=Survey.Status.OPEN, epsilon_budget=10.0)
    survey.researchers.add(owner)
    add_responses(survey, 50, seed=6)
    client.force_login(owner)
    return survey


def body(client, name, survey, query=""):
    response = client.get(reverse(f"aggregation:{name}", args=[survey.slug]) + query)
    assert response.status_code == 200
    return b"".join(response.streaming_content) if response.streaming else response.content


def test_every_export_names_the_columns_by_the_questions_names(client, named):
    header, *_ = csv.reader(io.StringIO(body(client, "export-reports-csv", named).decode()))
    assert header == HEADER
    book = json.loads(body(client, "export-codebook", named))
    assert book["reports_csv_columns"] == HEADER
    assert [(q["key"], q["report"]["csv_columns"]) for q in book["questions"]] == [
        ("cheated", ["cheated"]), ("age", ["age"]), ("colour", ["colour_0", "colour_1", "colour_2"]), ("q4", ["q4"])]
    reports = json.loads(body(client, "export-reports-json", named))["responses"][0]["reports"]
    assert sorted(reports) == ["age", "cheated", "colour", "q4"]
    api = json.loads(body(client, "api-estimates", named, "?interval=wilson"))
    assert [q["key"] for q in api["questions"]] == ["cheated", "age", "colour", "q4"]
    estimates = list(csv.DictReader(io.StringIO(body(client, "export-estimates", named, "?interval=wilson").decode())))
    assert [r["question_key"] for r in estimates] == ["cheated", "cheated", "age", "colour", "colour", "colour",
                                                      "q4", "q4", "q4"]


@pytest.mark.parametrize("extension", ["dta", "sav"])
def test_the_labelled_files_name_their_variables_so(client, owner, named, extension, tmp_path):
    frame, _meta = read_back(client, owner, named, extension, tmp_path)
    assert list(frame.columns) == HEADER


@pytest.mark.slow
def test_the_scripts_read_the_named_columns_and_print_the_dashboards_figures(client, named, tmp_path):
    folder = fetch(client, named, tmp_path)
    page_rows = list(csv.DictReader(io.StringIO(body(client, "export-estimates", named, "?interval=wilson").decode())))
    run([sys.executable, f"{named.slug}-analysis.py", "--csv", "py.csv"], folder)
    run([rscript(), "--vanilla", f"{named.slug}-analysis.R", f"{named.slug}-reports.csv", "--csv", "r.csv"], folder)
    for who, rows in (("Python", read_csv(folder / "py.csv")), ("R", read_csv(folder / "r.csv"))):
        assert_same(rows, page_rows, who)


def age(name):
    return row("Your age in years?", "numeric", "direct_number", "", epsilon=None, lo=18, hi=99, step=1, name=name)


@pytest.mark.parametrize("name, words", [
    ("2age", "A name is a letter, then letters, digits or underscores"),
    ("age in years", "A name is a letter, then letters, digits or underscores"),
    ("a" * 33, "at most 32 characters"),
    ("if", "“if” is a word Stata, SPSS, R or Python reserve"),
    ("WITH", "“WITH” is a word Stata, SPSS, R or Python reserve"),
    ("weight", "or a column the exports already have"),
    ("q3", "may not be q followed by digits"),
    ("age_2", "or end in _ and digits"),
])
def test_the_admin_refuses_a_name_no_export_could_carry(admin_client, name, words):
    response = save(admin_client, age(name))
    assert response.status_code == 200
    error = field_error(response, "name")
    assert error is not None and words in error, (name, error)
    assert not Survey.objects.filter(slug="habits").exists()


def test_the_admin_refuses_two_questions_of_one_name_however_cased(admin_client):
    response = save(admin_client, age("age"), {**age("Age"), "text": "Age again?"})
    assert response.status_code == 200
    assert "Two questions are named “age”" in response.content.decode()
    assert not Survey.objects.filter(slug="habits").exists()


@pytest.mark.parametrize("name", ["age_in_years", "a" * 32, "Q5x", "strange"])
def test_the_admin_saves_a_name(admin_client, name):
    response = save(admin_client, age(name))
    assert response.status_code == 302, field_error(response, "name")
    assert Survey.objects.get(slug="habits").questions.get().name == name


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


@pytest.mark.parametrize("language, words", [
    ("en", "a column per question, called by the question’s name (unnamed: <code>q&lt;order&gt;</code>)"),
    ("es", "una columna por pregunta, con el nombre de la pregunta (sin nombre: <code>q&lt;orden&gt;</code>)"),
])
def test_the_dashboard_says_how_the_columns_are_named(client, named, language, words):
    """The Spanish words need the catalogs with tr-figures.json merged."""
    html = client.get(reverse("aggregation:dashboard", args=[named.slug]), HTTP_ACCEPT_LANGUAGE=language)
    assert words in html.content.decode()
