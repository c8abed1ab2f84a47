"""Opening a wave while an earlier wave of its series still accepts responses: the Open button offers to close the
earlier wave in the same step (ticked), and both changes are in the history, or nothing is; left open, the admin is
told so with a link to it, and the open wave's page offers to close it."""

from __future__ import annotations

import re

import pytest

from surveys.collection import waves
from surveys.collection.models import Survey
from surveys.history.models import ConfigurationChange
from tests.conftest import login

SURVEYS = "/admin/collection/survey/"


@pytest.fixture
def second(survey):
    """"Health", wave 1 open with its responses' link; wave 2 a draft made from it."""
    return waves.run_again(survey)


def messages_on(response) -> list[tuple[str, str]]:
    return [(m.level_tag, re.sub(r"<[^>]+>", "", str(m))) for m in response.context["messages"]]


def statuses(*surveys: Survey) -> list[str]:
    return [Survey.objects.get(pk=s.pk).status for s in surveys]


def changes_of(survey: Survey) -> list[tuple[str, list]]:
    return [(c.who, c.changes) for c in ConfigurationChange.objects.filter(survey_id=survey.pk).order_by("pk")]


def test_the_open_button_offers_to_close_the_earlier_wave_still_open(client, superuser, survey, second):
    html = login(client, superuser).get(f"{SURVEYS}{second.pk}/change/").content.decode()
    form = re.search(r'<form method="post" action="/admin/collection/survey/\d+/open/">.*?</form>', html, re.S)
    assert re.sub(r"\s+", " ", re.sub(r'<input type="hidden"[^>]*>', "", form.group(0))) == (
        f'<form method="post" action="/admin/collection/survey/{second.pk}/open/"> <label class="survey-close-earlier">'
        f'<input type="checkbox" name="close_earlier" value="{survey.pk}" checked> and close wave 1, which still '
        'accepts responses</label> <button type="submit" class="survey-open">Open for responses</button></form>')
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED)
    html = client.get(f"{SURVEYS}{second.pk}/change/").content.decode()
    assert "close_earlier" not in html  # nothing left to close


def test_opening_with_the_earlier_wave_ticked_closes_it_and_the_history_records_both(client, superuser, survey,
                                                                                      second):
    before = len(changes_of(survey))
    answer = login(client, superuser).post(f"{SURVEYS}{second.pk}/open/", {"close_earlier": [survey.pk]},
                                           follow=True)
    assert statuses(survey, second) == ["closed", "open"]
    assert [level for level, _text in messages_on(answer)] == ["success", "info", "success"]
    assert messages_on(answer)[2] == ("success", "Health, wave 1: closed.")
    assert changes_of(survey)[before:] == [("super", [{"field": "status", "before": "Open", "after": "Closed"}])]
    assert ("super", [{"field": "status", "before": "Draft", "after": "Open"}]) in [
        (who, [c for c in found if c["field"] == "status"]) for who, found in changes_of(second)]


def test_left_open_the_admin_is_told_and_the_new_waves_page_offers_to_close_it(client, superuser, survey, second):
    answer = login(client, superuser).post(f"{SURVEYS}{second.pk}/open/", follow=True)
    assert statuses(survey, second) == ["open", "open"]
    assert ("warning", "Health, wave 2: wave 1 of its series still accepts responses, from anyone with its own "
                       "link. If this wave replaces it, close wave 1.") in messages_on(answer)
    assert f'href="/admin/collection/survey/{survey.pk}/change/">close wave 1</a>' in answer.content.decode()
    html = answer.content.decode()
    assert re.findall(r'<form method="post" action="(/admin/collection/survey/\d+/close/)">.*?<button type="submit" '
                      r'class="survey-close">(.*?)</button>', html, re.S) == [
        (f"/admin/collection/survey/{second.pk}/close/", "Close the survey"),
        (f"/admin/collection/survey/{survey.pk}/close/", "Close wave 1 (it still accepts responses)")]


def test_the_list_action_tells_which_earlier_waves_stay_open(client, superuser, survey, second):
    answer = login(client, superuser).post(SURVEYS, {"action": "open_surveys", "_selected_action": [second.pk]},
                                           follow=True)
    assert statuses(survey, second) == ["open", "open"]
    assert ("warning", "Health, wave 2: wave 1 of its series still accepts responses, from anyone with its own "
                       "link. If this wave replaces it, close wave 1.") in messages_on(answer)


@pytest.mark.parametrize("ticked", ["not-a-number", "same", "later", "closed"])
def test_it_refuses_to_close_anything_but_an_earlier_open_wave_and_changes_nothing(client, superuser, survey,
                                                                                 second, ticked):
    third = waves.run_again(survey)
    Survey.objects.filter(pk=third.pk).update(status=Survey.Status.OPEN)
    if ticked == "closed":
        Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED)
    value = {"not-a-number": "x", "same": second.pk, "later": third.pk, "closed": survey.pk}[ticked]
    before = ConfigurationChange.objects.count()
    answer = login(client, superuser).post(f"{SURVEYS}{second.pk}/open/", {"close_earlier": [value]})
    assert answer.status_code == 400 and answer.content.decode().startswith("close_earlier: ")
    assert statuses(second, third) == ["draft", "open"] and ConfigurationChange.objects.count() == before


def test_when_the_wave_cannot_open_the_earlier_one_stays_open(client, superuser, survey, second):
    second.questions.all().delete()  # no questions: it cannot open
    answer = login(client, superuser).post(f"{SURVEYS}{second.pk}/open/", {"close_earlier": [survey.pk]},
                                           follow=True)
    assert statuses(survey, second) == ["open", "draft"]
    assert [level for level, _text in messages_on(answer)] == ["error"]
    assert not [c for c in changes_of(survey) if any(f["field"] == "status" for f in c[1])]


def test_the_offer_and_the_warning_are_in_spanish(client, superuser, survey, second):
    """Needs the catalog with the waves branch's translations."""
    html = login(client, superuser).get(f"{SURVEYS}{second.pk}/change/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert re.findall(r'<label class="survey-close-earlier">.*?> (.*?)</label>', html) == [
        "y cerrar la oleada 1, que aún acepta respuestas"]
    answer = client.post(f"{SURVEYS}{second.pk}/open/", follow=True, HTTP_ACCEPT_LANGUAGE="es")
    assert ("warning", "Health, ola 2: la oleada 1 de su serie aún acepta respuestas de cualquiera que tenga su propio "
                       "enlace. Si esta oleada la sustituye, cierre la oleada 1.") in messages_on(answer)
    assert re.findall(r'class="survey-close">(Cerrar la oleada .*?)</button>', answer.content.decode()) == [
        "Cerrar la oleada 1 (aún acepta respuestas)"]
