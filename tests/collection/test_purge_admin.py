"""The admin's purge action: a confirmation page listing what will go, then the purge and a message."""

import pytest
from django.contrib.auth.models import Permission

from surveys.collection import invitations, tallies
from surveys.collection.models import Invitation, Question, Report, Response, Survey
from surveys.collection.purge import preview
from tests.collection.pages import form_data, parse
from tests.factories import make_user

SURVEYS = "/admin/collection/survey/"


def staff(*codenames):
    user = make_user("staff", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(content_type__app_label="collection", codename__in=codenames))
    return user


@pytest.fixture
def invited(responded):
    invitations.create(responded, 3)
    return responded


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


def stored(survey):
    return (Response.objects.filter(survey=survey).count(), Report.objects.filter(response__survey=survey).count(),
            Invitation.objects.filter(survey=survey).count())


def choose(client, *surveys):
    """Pick the action on the changelist: the first POST, which only asks."""
    return client.post(SURVEYS, {"action": "purge_responses", "_selected_action": [s.pk for s in surveys]})


def messages_on(response):
    return [item.text for ul in parse(response.content).find_all("ul", **{"class": "messagelist"})
            for item in ul.find_all("li")]


def test_choosing_the_action_shows_what_will_be_removed_and_removes_nothing(admin_client, invited):
    response = choose(admin_client, invited)
    assert response.status_code == 200
    page = parse(response.content)
    plan = page.by_id("purge-health").text
    assert "It is open: it will be closed first." in plan
    for line in ("Responses: 1", "Reports: 4", "Invitations: 3 (0 used)",
                 f"Result counters: {preview(invited).tally_rows} tally rows"):
        assert line in plan
    assert stored(invited) == (1, 4, 3)
    assert Survey.objects.get(pk=invited.pk).status == Survey.Status.OPEN
    assert form_data(response.content, "purge-form")["post"] == ["yes"]


def test_the_confirmation_page_has_no_inline_script_or_style(admin_client, invited):
    page = parse(choose(admin_client, invited).content)
    assert [s for s in page.find_all("script") if "src" not in s.attrs] == []
    assert [e.tag for e in page.iter() if "style" in e.attrs or e.tag == "style"] == []
    assert [e.tag for e in page.iter() if any(name.startswith("on") for name in e.attrs)] == []


def test_confirming_purges_and_says_what_was_removed(admin_client, invited):
    planned = preview(invited)
    confirm = form_data(choose(admin_client, invited).content, "purge-form")
    response = admin_client.post(SURVEYS, confirm, follow=True)
    assert response.status_code == 200
    assert stored(invited) == (0, 0, 0)
    assert Survey.objects.get(pk=invited.pk).status == Survey.Status.CLOSED
    assert Question.objects.filter(survey=invited).count() == 4
    assert tallies.differences(invited) == []
    assert messages_on(response) == [f"Health: {planned}"]
    assert "closed it, then removed 1 response (4 reports), 3 invitations (0 used)" in str(planned)


def test_it_purges_each_selected_survey_and_no_other(admin_client, invited):
    draft = Survey.objects.create(slug="draft", title="Draft")
    invitations.create(draft, 2)
    untouched = Survey.objects.create(slug="kept", title="Kept")
    invitations.create(untouched, 4)
    confirm = form_data(choose(admin_client, invited, draft).content, "purge-form")
    assert sorted(confirm["_selected_action"]) == sorted([str(invited.pk), str(draft.pk)])
    response = admin_client.post(SURVEYS, confirm, follow=True)
    assert stored(invited) == stored(draft) == (0, 0, 0)
    assert stored(untouched) == (0, 0, 4)
    assert [m.split(":")[0] for m in messages_on(response)] == ["Draft", "Health"]
    assert Survey.objects.get(pk=draft.pk).status == Survey.Status.DRAFT


def test_staff_without_delete_permission_are_not_offered_the_action_and_cannot_post_it(client, invited):
    client.force_login(staff("view_survey", "change_survey"))
    changelist = client.get(SURVEYS)
    assert changelist.status_code == 200
    assert b'value="close_surveys"' in changelist.content and b'value="purge_responses"' not in changelist.content
    client.post(SURVEYS, {"action": "purge_responses", "_selected_action": [invited.pk], "post": "yes"})
    assert stored(invited) == (1, 4, 3)
    assert Survey.objects.get(pk=invited.pk).status == Survey.Status.OPEN


def test_staff_with_delete_permission_can_purge(client, invited):
    client.force_login(staff("view_survey", "change_survey", "delete_survey"))
    assert b'value="purge_responses"' in client.get(SURVEYS).content
    client.post(SURVEYS, {"action": "purge_responses", "_selected_action": [invited.pk], "post": "yes"})
    assert stored(invited) == (0, 0, 0)
