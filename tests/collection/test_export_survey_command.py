"""python manage.py export_survey SLUG --format xlsx|json [-o FILE]: the survey as an XLSForm import_survey reads
back into the same survey."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from surveys.collection.models import Survey
from surveys.collection.xlsform import importing, writing
from tests.collection.xlsforms import described

pytestmark = pytest.mark.django_db


def test_it_writes_the_json_to_standard_output(kinds_survey):
    out = StringIO()

    call_command("export_survey", "kinds", "--format", "json", stdout=out)

    assert json.loads(out.getvalue()) == writing.sheets(kinds_survey)


def test_it_writes_a_workbook_that_imports_as_the_same_survey(kinds_survey, tmp_path):
    Survey.objects.filter(pk=kinds_survey.pk).update(status=Survey.Status.DRAFT)  # compared as drafts
    kinds_survey.refresh_from_db()
    path = tmp_path / "kinds.xlsx"

    call_command("export_survey", "kinds", "-o", str(path), stdout=StringIO())

    assert described(importing.import_form(path.read_bytes(), slug="again").survey) == described(kinds_survey)


def test_an_unknown_slug_is_refused():
    with pytest.raises(CommandError, match="no such survey: nope"):
        call_command("export_survey", "nope", stdout=StringIO())
