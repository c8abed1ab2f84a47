"""The survey admin's "Import an XLSForm" page and "Download as XLSForm" button."""

from io import BytesIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from surveys.collection.models import Survey
from surveys.collection.xlsform import importing
from surveys.history.models import ConfigurationChange
from tests.collection.pages import parse
from tests.collection.xlsforms import KEPT, QUESTIONS, SURVEY_HEADER, described, hand_form

pytestmark = pytest.mark.django_db
IMPORT = reverse("admin:collection_survey_import_xlsform")


def upload(content: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile("form.xlsx", content)


def test_the_survey_list_links_the_import_page(admin_client):
    page = parse(admin_client.get(reverse("admin:collection_survey_changelist")).content)

    assert page.find("a", href=IMPORT).text == "Import an XLSForm"


def test_an_imported_form_is_a_draft_the_importer_sees_recorded_in_the_history(admin_client):
    response = admin_client.post(IMPORT, {"form": upload(hand_form())})

    survey = Survey.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("admin:collection_survey_change", args=[survey.pk])
    assert survey.status == Survey.Status.DRAFT
    assert list(survey.researchers.values_list("username", flat=True)) == ["admin"]
    change = ConfigurationChange.objects.get()
    assert (change.survey_id, change.action, change.who) == (survey.pk, ConfigurationChange.Action.CREATED, "admin")


def test_it_opens_the_survey_under_the_slug_given_when_asked(admin_client):
    kept = KEPT  # required to open
    admin_client.post(IMPORT, {"form": upload(hand_form(settings=kept)), "slug": "mine", "open_it": "on"})

    assert Survey.objects.get().slug == "mine" and Survey.objects.get().status == Survey.Status.OPEN


def test_a_refused_form_lists_every_problem_answers_400_and_stores_nothing(admin_client):
    rows = [SURVEY_HEADER, *QUESTIONS]
    rows[1] = [*rows[1][:-1], "qrr q=2"]
    rows[4] = [*rows[4][:-1], "krr"]

    response = admin_client.post(IMPORT, {"form": upload(hand_form(survey=rows))})

    assert response.status_code == 400
    items = [li.text for li in parse(response.content).find("ul", **{"class": "xlsform-problems"}).find_all("li")]
    assert items == ["sheet survey, row 2, column privacy: q=2 must be between 0 and 1",
                     "sheet survey, row 5, column privacy: krr needs epsilon"]
    assert not Survey.objects.exists() and not ConfigurationChange.objects.exists()


def test_a_file_that_is_no_workbook_is_refused(admin_client):
    response = admin_client.post(IMPORT, {"form": upload(b"not a workbook")})

    assert response.status_code == 400 and not Survey.objects.exists()


def test_a_researcher_without_the_add_permission_cannot_import(client, owner):
    client.force_login(owner)

    assert client.get(IMPORT).status_code in (302, 403)
    assert not Survey.objects.exists()


def test_the_survey_page_downloads_the_survey_as_an_xlsform_that_imports_back(admin_client, kinds_survey):
    url = reverse("admin:collection_survey_xlsform", args=[kinds_survey.pk])
    page = parse(admin_client.get(reverse("admin:collection_survey_change", args=[kinds_survey.pk])).content)

    response = admin_client.get(url)

    assert page.find("a", href=url).text == "Download as XLSForm"
    assert response["Content-Disposition"] == 'attachment; filename="kinds.xlsx"'
    again = importing.import_form(BytesIO(response.content).getvalue(), slug="again").survey
    assert described(again)["en"]["questions"] == described(kinds_survey)["en"]["questions"]
