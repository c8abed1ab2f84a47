"""The staff-only preview /s/<slug>/preview/: the respondent's page in any state, sending nothing.

Staff (is_staff) see it, drafts included, in a session the admin would let in (the second factor);
everybody else gets 404, as for an unknown slug."""

import json

import pytest
from django.urls import reverse
from django_otp.plugins.otp_totp.models import TOTPDevice

from surveys.collection.models import Question, Survey
from tests.accounts.conftest import code, sign_in
from tests.collection.pages import parse
from tests.factories import make_user

BANNER = "Preview: nothing you do here is sent or stored"


def preview_url(slug: str = "health") -> str:
    return reverse("collection:preview", args=[slug])


@pytest.fixture
def staff(db):
    return make_user("staff", is_staff=True)


@pytest.fixture
def draft(survey):
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.DRAFT)
    return survey


def test_its_address():
    assert preview_url("demo") == "/s/demo/preview/"


@pytest.mark.parametrize("status", [Survey.Status.DRAFT, Survey.Status.OPEN, Survey.Status.CLOSED])
def test_staff_see_the_survey_in_any_state_with_the_banner(client, survey, staff, status):
    Survey.objects.filter(pk=survey.pk).update(status=status)
    client.force_login(staff)
    response = client.get(preview_url())
    assert response.status_code == 200
    page = parse(response.content)
    assert BANNER in page.by_id("preview-banner").text
    assert len(page.find_all("fieldset")) == 4
    assert response["Referrer-Policy"] == "no-referrer" and "no-cache" in response["Cache-Control"]


def test_a_superuser_sees_a_draft(client, draft, superuser):
    client.force_login(superuser)
    assert client.get(preview_url()).status_code == 200


@pytest.mark.parametrize("who", ["anonymous", "owner", "other_researcher", "inactive_staff"])
def test_anybody_else_gets_404_even_for_a_draft_they_own(client, draft, owner, other_researcher, who):
    users = {"owner": owner, "other_researcher": other_researcher,
             "inactive_staff": make_user("gone", is_staff=True, is_active=False)}
    if who in users:
        client.force_login(users[who])
    response = client.get(preview_url())
    assert response.status_code == 404
    assert BANNER not in response.content.decode() and "Cheated?" not in response.content.decode()


@pytest.mark.parametrize("session", ["signed in without the code of its app", "required to enrol first"])
def test_a_staff_session_the_admin_would_refuse_gets_404(client, draft, staff, settings, session):
    """Issue 24, item 2: the preview applies the admin's rule of the second factor."""
    if session == "required to enrol first":
        settings.STAFF_TWO_FACTOR = "required"
    else:
        TOTPDevice.objects.create(user=staff, name="phone", confirmed=True)
    client.force_login(staff)
    assert client.get("/admin/").status_code == 302
    response = client.get(preview_url())
    assert response.status_code == 404 and BANNER not in response.content.decode()


def test_a_staff_session_verified_with_its_code_sees_it(client, draft, staff):
    device = TOTPDevice.objects.create(user=staff, name="phone", confirmed=True)
    assert sign_in(client, "/admin/login/", "staff", otp_token=code(device)).status_code == 302
    assert client.get(preview_url()).status_code == 200


def test_an_unknown_slug_is_404_for_staff_too(client, survey, staff):
    client.force_login(staff)
    assert client.get(preview_url("no-such-survey")).status_code == 404


def test_the_client_data_marks_the_preview_and_gives_nowhere_to_post(client, draft, staff):
    client.force_login(staff)
    page = parse(client.get(preview_url()).content)
    data = json.loads(page.by_id("survey-data").raw_text)
    assert data["preview"] is True
    assert "endpoint" not in data and "csrfToken" not in data
    assert [q["id"] for q in data["questions"]] == [q.pk for q in draft.ordered_questions()]
    send = page.by_id("send")
    assert "disabled" in send.attrs


def test_the_preview_has_no_form_and_no_inline_script(client, draft, staff):
    client.force_login(staff)
    page = parse(client.get(preview_url()).content)
    assert page.find_all("input") and page.find_all("form") == []  # no answer input can be submitted natively
    for script in page.find_all("script"):
        assert script.attrs.get("type") in ("module", "application/json")
        assert "src" in script.attrs or script.attrs["type"] == "application/json"
    for element in page.iter():
        assert not any(name.startswith("on") for name in element.attrs), element


def test_a_draft_whose_plan_cannot_be_built_says_why(client, staff):
    survey = Survey.objects.create(slug="unfinished", title="Unfinished")
    # Written outside the admin (whose form would refuse it): an epsilon no mechanism takes.
    Question.objects.create(survey=survey, order=1, text="Which?", kind="yes_no", mechanism_name="bitflip",
                            epsilon=1000.0)
    client.force_login(staff)
    response = client.get(preview_url("unfinished"))
    assert response.status_code == 200
    page = parse(response.content)
    assert BANNER in page.by_id("preview-banner").text
    assert "cannot be shown yet: question 1: epsilon" in page.find(
        "p", **{"class": "notice"}).text
    assert page.by_id("survey-data") is None and not page.find_all("script")
