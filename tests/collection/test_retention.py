"""Retention: the period is required at Open, counts from the end of collection, and the scheduled
`manage.py purge_expired` purges each expired survey (and only those), recording it in the history."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.utils import timezone

from surveys.collection import builder, lifecycle, retention, submission
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Invitation, Response, Survey
from surveys.history.models import ConfigurationChange
from tests.factories import valid_payload

DAY = timedelta(days=1)


def respond(survey, times):
    for _ in range(times):
        assert submission.submit(survey, valid_payload(survey)).created


def closed(slug, days_ago, retention_days, responses=2):
    """A survey closed `days_ago` days ago (by the Close action) with `responses` responses."""
    survey = builder.create_survey(slug, slug.title(), [QuestionSpec("Smoked?", "qrr", q="0.5")],
                                   status=Survey.Status.OPEN, retention_days=retention_days)
    respond(survey, responses)
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED,
                                               closed_at=timezone.now() - days_ago * DAY)
    return Survey.objects.get(pk=survey.pk)


def responses_of(*surveys):
    return [Response.objects.filter(survey=survey).count() for survey in surveys]


def test_it_refuses_to_open_a_survey_without_a_retention_period_saying_so(db):
    draft = builder.create_survey("draft", "Draft", [QuestionSpec("Smoked?", "qrr", q="0.5")])
    with pytest.raises(ValidationError) as refused:
        lifecycle.open_survey(draft)
    assert refused.value.messages == ["cannot open: it has no retention period: set how many days its responses "
                                      "are kept after it closes"]
    assert Survey.objects.get(pk=draft.pk).status == Survey.Status.DRAFT


def test_it_opens_a_survey_with_a_retention_period(db):
    draft = builder.create_survey("draft", "Draft", [QuestionSpec("Smoked?", "qrr", q="0.5")], retention_days=30)
    lifecycle.open_survey(draft)
    assert Survey.objects.get(pk=draft.pk).status == Survey.Status.OPEN


def test_retention_counts_from_the_close_action_when_it_came_before_the_closing_time(db):
    now = timezone.now()
    survey = Survey(status=Survey.Status.CLOSED, closed_at=now - 10 * DAY, closes_at=now - 5 * DAY, retention_days=30)
    assert retention.expires_at(survey, now) == now - 10 * DAY + 30 * DAY


def test_retention_counts_from_the_closing_time_when_it_passed_first(db):
    now = timezone.now()
    survey = Survey(status=Survey.Status.OPEN, closes_at=now - 5 * DAY, retention_days=30)
    assert retention.expires_at(survey, now) == now + 25 * DAY
    survey.closed_at, survey.status = now - 2 * DAY, Survey.Status.CLOSED
    assert retention.expires_at(survey, now) == now + 25 * DAY


@pytest.mark.parametrize("status, closes_in_days", [(Survey.Status.OPEN, None), (Survey.Status.OPEN, 3),
                                                     (Survey.Status.DRAFT, -3)])
def test_a_survey_still_collecting_or_a_draft_has_no_deletion_date(db, status, closes_in_days):
    now = timezone.now()
    closes = None if closes_in_days is None else now + closes_in_days * DAY
    assert retention.expires_at(Survey(status=status, closes_at=closes, retention_days=1), now) is None


def test_closing_a_survey_starts_its_retention_and_reopening_it_stops_it(db):
    survey = builder.create_survey("s", "S", [QuestionSpec("Smoked?", "qrr", q="0.5")], retention_days=7)
    lifecycle.open_survey(survey)
    before = timezone.now()
    lifecycle.close_survey(survey)
    survey.refresh_from_db()
    assert before <= survey.closed_at <= timezone.now()
    lifecycle.open_survey(survey)
    assert Survey.objects.get(pk=survey.pk).closed_at is None


def test_the_command_purges_the_expired_survey_and_only_it(db):
    expired = closed("expired", days_ago=31, retention_days=30)
    young = closed("young", days_ago=29, retention_days=30)
    forever = closed("forever", days_ago=400, retention_days=None)
    still_open = builder.create_survey("running", "Running", [QuestionSpec("Smoked?", "qrr", q="0.5")],
                                       status=Survey.Status.OPEN, retention_days=1)
    respond(still_open, 1)
    Invitation.objects.create(survey=expired, token_digest="a" * 64)
    out = StringIO()
    call_command("purge_expired", stdout=out)
    assert responses_of(expired, young, forever, still_open) == [0, 2, 2, 1]
    assert not Invitation.objects.filter(survey=expired).exists()
    assert out.getvalue().splitlines()[-1] == "1 expired survey(s) purged."
    assert "Purged expired: removed 2 responses" in out.getvalue()


def test_its_history_says_when_and_by_what_the_responses_were_deleted(db):
    expired = closed("expired", days_ago=31, retention_days=30)
    call_command("purge_expired", stdout=StringIO())
    expired.refresh_from_db()
    change = ConfigurationChange.objects.get(survey_id=expired.pk)
    assert (change.who, change.action) == (retention.WHO, ConfigurationChange.Action.CHANGED)
    assert change.changes == [{"field": "responses deleted at", "before": None,
                               "after": expired.purged_at.isoformat()}]


def test_a_purged_survey_is_not_purged_again_nor_recorded_again(db):
    expired = closed("expired", days_ago=31, retention_days=30)
    assert len(retention.purge_expired()) == 1
    assert retention.purge_expired() == []
    assert ConfigurationChange.objects.filter(survey_id=expired.pk).count() == 1


def test_a_dry_run_removes_nothing_and_says_what_would_go(db):
    expired = closed("expired", days_ago=31, retention_days=30)
    out = StringIO()
    call_command("purge_expired", "--dry-run", stdout=out)
    assert responses_of(expired) == [2]
    assert out.getvalue().startswith(f"expired on {retention.expires_at(expired):%Y-%m-%d}: Purging expired will "
                                     "remove 2 responses")


def test_a_failing_purge_leaves_that_survey_whole_and_its_history_unwritten(db, monkeypatch):
    expired = closed("expired", days_ago=31, retention_days=30)

    def broken(survey):
        Response.objects.filter(survey=survey).delete()
        raise RuntimeError("disk full")

    monkeypatch.setattr(retention.purge, "purge", broken)
    with pytest.raises(RuntimeError):
        retention.purge_expired()
    assert responses_of(expired) == [2]
    assert not ConfigurationChange.objects.filter(survey_id=expired.pk).exists()
    assert Survey.objects.get(pk=expired.pk).purged_at is None


def test_the_admin_edits_the_period_and_the_history_records_it(admin_client, survey):
    from tests.collection.test_admin import current_form, survey_url

    data = current_form(admin_client, survey_url(survey), "survey_form")
    assert data["retention_days"] == ["365"]
    data["retention_days"] = ["90"]
    assert admin_client.post(survey_url(survey), data).status_code == 302
    assert Survey.objects.get(pk=survey.pk).retention_days == 90
    change = ConfigurationChange.objects.get(survey_id=survey.pk)
    assert change.changes == [{"field": "retention period (days)", "before": "365", "after": "90"}]


@pytest.mark.parametrize("consent", ["I agree to take part.", ""])
def test_respondents_are_told_the_period_before_they_answer(client, survey, consent):
    Survey.objects.filter(pk=survey.pk).update(consent=consent, retention_days=90)
    page = client.get(f"/s/{survey.slug}/").content.decode()
    said = '<p class="retention" id="retention">Your responses are kept for 90 days after this survey closes, then ' \
           'deleted.</p>'
    assert page.count(said) == 1
    where = page.index('id="consent"') if consent else page.index('id="how-heading"')
    assert where < page.index(said) < page.index('id="survey"')


def test_the_admin_cannot_clear_the_period_of_an_opened_survey(admin_client, survey):
    from tests.collection.test_admin import current_form, survey_url

    data = current_form(admin_client, survey_url(survey), "survey_form")
    data["retention_days"] = [""]
    response = admin_client.post(survey_url(survey), data)
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["retention_days"] == [
        "Required once the survey has been opened: respondents were told when their responses are deleted."]
    assert Survey.objects.get(pk=survey.pk).retention_days == 365
    assert not ConfigurationChange.objects.filter(survey_id=survey.pk).exists()


def test_a_drafts_period_may_stay_blank_until_it_opens(admin_client, survey):
    from tests.collection.test_admin import current_form, survey_url

    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.DRAFT)
    data = current_form(admin_client, survey_url(survey), "survey_form")
    data["retention_days"] = [""]
    assert admin_client.post(survey_url(survey), data).status_code == 302
    assert Survey.objects.get(pk=survey.pk).retention_days is None
