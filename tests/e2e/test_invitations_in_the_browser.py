"""Invitation links and the open-link guard in a real browser: the token travels in the
fragment and the JSON body only, works once, and a browser that already answered an open
survey is told so before answering again."""

import json

import pytest

from surveys.collection import invitations
from surveys.collection.models import Invitation, Response

pytestmark = pytest.mark.django_db(transaction=True)


def answer_and_send(page):
    for fieldset in page.locator("fieldset.question").all():
        fieldset.locator("input[type=radio]").first.check()
    page.click("#send")


def test_an_invitation_link_admits_one_response_and_its_token_never_reaches_a_url(live_server, page, invitation_only):
    [token] = invitations.create(invitation_only, 1)
    requests = []
    page.on("request", lambda request: requests.append(request))
    page.goto(invitations.link(live_server.url, invitation_only, token))
    assert token not in page.url  # taken out of the address bar and history
    answer_and_send(page)
    page.wait_for_selector("#receipt:not([hidden])")
    assert Response.objects.count() == 1 and Invitation.objects.get().used

    assert all(token not in request.url for request in requests)
    [post] = [request for request in requests if request.method == "POST"]
    assert json.loads(post.post_data)["invitation"] == token


def test_a_used_invitation_link_says_so(live_server, page, invitation_only):
    [token] = invitations.create(invitation_only, 1)
    for attempt in range(2):
        page.goto("about:blank")  # a fresh load, as when the link is opened again
        page.goto(invitations.link(live_server.url, invitation_only, token))
        answer_and_send(page)
        if attempt == 0:
            page.wait_for_selector("#receipt:not([hidden])")
    page.wait_for_function("() => document.getElementById('status').textContent.includes('already been used')")
    assert Response.objects.count() == 1


def test_without_its_token_an_invitation_only_survey_cannot_be_sent(live_server, page, invitation_only):
    page.goto(f"{live_server.url}/s/{invitation_only.slug}/")
    assert page.locator("#send").is_disabled()
    assert "by invitation only" in page.locator("#status").text_content()


def test_a_browser_that_already_answered_an_open_survey_is_told_before_answering_again(live_server, page, survey):
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    assert page.locator("#already-sent").is_hidden()
    answer_and_send(page)
    page.wait_for_selector("#receipt:not([hidden])")

    page.reload()
    assert page.locator("#already-sent").is_visible() and page.locator("#survey").is_hidden()
    page.click("#respond-again")  # someone else sharing the browser may still answer
    answer_and_send(page)
    page.wait_for_selector("#receipt:not([hidden])")
    assert Response.objects.count() == 2
