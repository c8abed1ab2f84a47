"""A staff member previews a draft in a real browser: the page works, but nothing is ever sent."""

import pytest

from surveys.collection import demo
from surveys.collection.models import Response, Survey
from tests.e2e.conftest import agree
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def preview_as_staff(live_server, page):
    survey, _ = demo.create_demo_survey()
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.DRAFT)
    make_user("editor", is_staff=True)
    page.goto(f"{live_server.url}/admin/login/?next=/s/{survey.slug}/preview/")
    page.fill("#id_username", "editor")
    page.fill("#id_password", PASSWORD)
    page.click("[type=submit]")
    page.wait_for_load_state()
    assert page.url == f"{live_server.url}/s/{survey.slug}/preview/"
    agree(page)  # as a respondent would
    posts = []
    page.on("request", lambda request: posts.append(request) if request.method == "POST" else None)
    return survey, posts


def test_the_preview_shows_its_banner_and_never_posts(live_server, page):
    errors = []
    page.on("pageerror", lambda error: errors.append(error))
    survey, posts = preview_as_staff(live_server, page)
    banner = page.locator("#preview-banner")
    assert banner.is_visible() and "Preview: nothing you do here is sent or stored" in banner.text_content()
    for fieldset in page.locator("fieldset.question").all():
        fieldset.locator("input[type=radio]").last.check()  # answering works as for a respondent
    send = page.locator("#send")
    disabled = send.is_disabled()
    send.click(force=True)  # press it anyway
    send.evaluate("button => { button.disabled = false; button.click(); }")  # even enabled, it sends nothing
    page.wait_for_timeout(500)
    assert posts == [] and Response.objects.count() == 0
    assert disabled
    assert page.locator("#receipt").is_hidden()
    assert page.locator("input[type=radio]:checked").count() == 3  # nothing was randomized or cleared
    assert errors == []


def test_the_preview_of_an_invitation_only_survey_needs_no_invitation(live_server, page):
    survey, posts = preview_as_staff(live_server, page)
    Survey.objects.filter(pk=survey.pk).update(access=Survey.Access.INVITATION)
    page.reload()
    assert "invitation only" not in page.locator("#status").text_content()
    assert "sending is switched off" in page.locator("#status").text_content()
    assert posts == []
