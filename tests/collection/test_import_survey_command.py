"""python manage.py import_survey FORM [--slug] [--open] [--skip-unsupported]: a survey from an XLSForm, or every
problem on standard error, exit status 2 and nothing created."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from surveys.collection.models import Survey
from surveys.collection.xlsform import writing
from surveys.history.models import ConfigurationChange
from tests.collection.xlsforms import KEPT, QUESTIONS, SURVEY_HEADER, described, hand_form

pytestmark = pytest.mark.django_db


def run(*args):
    out, err = StringIO(), StringIO()
    call_command("import_survey", *map(str, args), stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_it_creates_a_draft_and_records_it(tmp_path):
    path = tmp_path / "form.xlsx"
    path.write_bytes(hand_form())

    out, err = run(path)

    survey = Survey.objects.get()
    assert (out, err) == ("health_safety: 11 questions, draft\n", "")
    assert ConfigurationChange.objects.get().who == "import_survey"
    assert survey.status == Survey.Status.DRAFT


def test_it_opens_it_with_open_under_the_slug_given(tmp_path):
    path = tmp_path / "form.xlsx"
    path.write_bytes(hand_form(settings=KEPT))

    run(path, "--slug", "other", "--open")

    assert Survey.objects.get().slug == "other" and Survey.objects.get().status == Survey.Status.OPEN


def test_a_refused_form_exits_2_lists_its_problems_and_creates_nothing(tmp_path):
    rows = [SURVEY_HEADER, *QUESTIONS, ["geopoint", "where", "Where?", "¿Dónde?", "", "", "yes", "", "direct"]]
    rows[1] = [*rows[1][:-1], "qrr"]
    path = tmp_path / "form.xlsx"
    path.write_bytes(hand_form(survey=rows))
    err = StringIO()

    with pytest.raises(CommandError) as caught:
        call_command("import_survey", str(path), stdout=StringIO(), stderr=err)

    assert caught.value.returncode == 2
    assert err.getvalue().splitlines() == [
        "sheet survey, row 2, column privacy: qrr needs q",
        "sheet survey, row 13, column type: where (geopoint): a location cannot be randomized (drop it with "
        "--skip-unsupported, or the box on the import page)"]
    assert not Survey.objects.exists()


def test_skip_unsupported_drops_the_question_with_a_warning(tmp_path):
    rows = [SURVEY_HEADER, *QUESTIONS, ["image", "photo", "A photo", "Una foto", "", "", "", "", ""]]
    path = tmp_path / "form.xlsx"
    path.write_bytes(hand_form(survey=rows))

    out, err = run(path, "--skip-unsupported")

    assert out == "health_safety: 11 questions, draft\n"
    assert "row 13" in err and "a photo or file cannot be randomized" in err


def test_it_reads_the_json_export_survey_writes(tmp_path):
    path = tmp_path / "form.xlsx"
    path.write_bytes(hand_form())
    run(path)
    first = Survey.objects.get()
    exported = tmp_path / "form.json"
    exported.write_text(json.dumps(writing.sheets(first)))

    run(exported, "--slug", "again")

    assert described(Survey.objects.get(slug="again")) == described(first)


def test_a_missing_file_is_refused():
    with pytest.raises(CommandError, match="no such file"):
        run("/nonexistent/form.xlsx")
