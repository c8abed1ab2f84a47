"""The purge service: a survey's responses, reports, invitations and tallies go in one transaction."""

import math
from decimal import Decimal

import pytest
from django.db import DatabaseError, connection
from django.test.utils import CaptureQueriesContext

from surveys.aggregation.results.service import survey_results
from surveys.collection import invitations, submission, tallies
from surveys.collection.models import Invitation, Question, Report, Response, Survey, Tally
from surveys.collection.purge import Purged, preview, purge
from tests.factories import valid_payload


def respond(survey, times, **payload):
    for _ in range(times):
        assert submission.submit(survey, {**valid_payload(survey), **payload}).created


def state(survey):
    """Everything a purge touches, for one survey."""
    return {
        "responses": Response.objects.filter(survey=survey).count(),
        "reports": Report.objects.filter(response__survey=survey).count(),
        "invitations": sorted(Invitation.objects.filter(survey=survey).values_list("token_digest", "used")),
        "tallies": sorted(Tally.objects.filter(question__survey=survey).values_list("question_id", "slot", "shard",
                                                                                   "count")),
        "status": Survey.objects.get(pk=survey.pk).status,
    }


def set_access(survey, access):
    Survey.objects.filter(pk=survey.pk).update(access=access)
    survey.refresh_from_db()


@pytest.fixture
def busy(survey):
    """`survey` (open, 4 questions): 3 responses, 1 by its link, then 2 by invitation; 5 invitations."""
    respond(survey, 1)
    set_access(survey, Survey.Access.INVITATION)
    tokens = invitations.create(survey, 5)
    respond(survey, 1, invitation=tokens[0])
    respond(survey, 1, invitation=tokens[1])
    return survey


@pytest.fixture
def other(db):
    """Another open survey with a response and an invitation, which a purge must not touch."""
    other = Survey.objects.create(slug="other", title="Other", status=Survey.Status.OPEN)
    Question.objects.create(survey=other, order=1, text="Smoke?", kind="yes_no", mechanism_name="qrr",
                            q=Decimal("0.5"))
    invitations.create(other, 2)
    respond(other, 2)
    return other


def test_it_removes_responses_reports_and_invitations_and_counts_what_it_removed(busy):
    purged = purge(busy)
    assert (purged.responses, purged.reports, purged.invitations, purged.used_invitations) == (3, 12, 5, 2)
    assert purged.tally_rows > 0
    after = state(busy)
    assert (after["responses"], after["reports"], after["invitations"], after["tallies"]) == (0, 0, [], [])


def test_it_reports_exactly_what_its_preview_counted(busy):
    planned = preview(busy)
    assert state(busy)["responses"] == 3  # counting removes nothing
    assert purge(busy) == planned


def test_it_says_what_it_removed_in_one_sentence(busy):
    purged = purge(busy)
    assert str(purged) == (
        f"Purged health: closed it, then removed 3 responses (12 reports), 5 invitations (2 used) "
        f"and its result counters ({purged.tally_rows} tally rows); its questions and options are kept.")
    assert preview(busy).plan() == (
        "Purging health will remove 0 responses (0 reports), 0 invitations (0 used) "
        "and its result counters (0 tally rows); its questions and options are kept.")


def test_it_leaves_other_surveys_untouched(busy, other):
    before = state(other)
    purge(busy)
    assert state(other) == before
    assert tallies.differences(other) == []


def test_the_tallies_agree_with_the_reports_and_the_estimates_have_no_reports_left(busy):
    assert survey_results(busy).responses == 3
    purge(busy)
    assert tallies.differences(busy) == []
    results = survey_results(busy)
    assert results.responses == 0
    assert [q.n for q in results.questions] == [0, 0, 0, 0]
    assert all(math.isnan(x) for q in results.questions for x in q.estimate.estimate)


def test_the_survey_collects_again_from_zero_once_reopened(busy):
    purge(busy)
    Survey.objects.filter(pk=busy.pk).update(status=Survey.Status.OPEN)
    set_access(busy, Survey.Access.LINK)
    respond(busy, 1)
    assert tallies.differences(busy) == []
    assert survey_results(busy).responses == 1


def test_it_keeps_the_survey_its_questions_and_options_and_they_can_be_edited_again(busy):
    questions = sorted(Question.objects.filter(survey=busy).values_list("pk", "text"))
    assert busy.has_reports()
    purge(busy)
    assert Survey.objects.filter(pk=busy.pk).exists()
    assert sorted(Question.objects.filter(survey=busy).values_list("pk", "text")) == questions
    assert [q.k() for q in busy.ordered_questions()] == [2, 2, 3, 4]
    assert not busy.has_reports()
    first = busy.questions.get(order=1)
    first.q = Decimal("0.25")
    first.save()  # would raise FrozenMechanism while a report existed
    assert busy.questions.get(order=1).q == Decimal("0.25")


def test_it_closes_an_open_survey_so_no_new_responses_arrive(busy):
    assert purge(busy).closed
    assert busy.status == Survey.Status.CLOSED
    assert Survey.objects.get(pk=busy.pk).status == Survey.Status.CLOSED
    with pytest.raises(submission.SubmissionError):
        respond(Survey.objects.get(pk=busy.pk), 1)


@pytest.mark.parametrize("status", [Survey.Status.DRAFT, Survey.Status.CLOSED])
def test_it_leaves_a_survey_that_is_not_open_in_its_status(busy, status):
    Survey.objects.filter(pk=busy.pk).update(status=status)
    busy.refresh_from_db()
    purged = purge(busy)
    assert not purged.closed and purged.responses == 3
    assert Survey.objects.get(pk=busy.pk).status == status
    assert "closed it" not in str(purged)


def test_a_survey_with_nothing_to_remove_purges_to_zeros(survey):
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED)
    survey.refresh_from_db()
    assert purge(survey) == Purged("health", 0, 0, 0, 0, 0, closed=False)


def test_a_failure_mid_purge_leaves_everything_in_place(busy, other):
    """The database fails on the last delete, after responses and invitations are gone: all of it rolls back."""
    before, other_before = state(busy), state(other)
    tally_table = Tally._meta.db_table

    def fail_on_tallies(execute, sql, params, many, context):
        if sql.lstrip().upper().startswith("DELETE") and tally_table in sql:
            raise DatabaseError("injected failure")
        return execute(sql, params, many, context)

    with (CaptureQueriesContext(connection) as queries, connection.execute_wrapper(fail_on_tallies),
          pytest.raises(DatabaseError, match="injected failure")):
        purge(busy)
    # (PostgreSQL records the refused statement as None: it never reached the server.)
    deletes = [q["sql"] for q in queries if (q["sql"] or "").lstrip().upper().startswith("DELETE")]
    assert any(Response._meta.db_table in sql for sql in deletes)  # the failure did come mid-purge
    assert state(busy) == before and state(other) == other_before
    assert busy.status == Survey.Status.OPEN
    assert tallies.differences(busy) == []


def test_it_deletes_in_set_statements_without_loading_reports_or_responses(busy):
    set_access(busy, Survey.Access.LINK)
    respond(busy, 20)
    per_respondent = (Report._meta.db_table, Response._meta.db_table)
    with CaptureQueriesContext(connection) as queries:
        purged = purge(busy)
    assert purged.responses == 23 and purged.reports == 92
    touching = [q["sql"] for q in queries if any(table in q["sql"] for table in per_respondent)]
    assert touching and all(sql.lstrip().upper().startswith("DELETE") for sql in touching), touching
    deletes = [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith("DELETE")]
    assert len(deletes) == 7  # used invitations, the rest, reports, responses, tallies, pair and cell tallies


def test_it_removes_the_surveys_prepared_exports_and_their_files(client, owner, busy, other, settings):
    """Prepared report files hold the randomized reports too: they go with them (another survey's stay)."""
    client.force_login(owner)
    other.researchers.add(owner)
    for survey, fmt in ((busy, "csv"), (busy, "sav"), (other, "csv")):
        assert client.get(f"/results/{survey.slug}/export/reports.{fmt}").status_code == 200
    assert preview(busy).prepared_exports == 2
    purged = purge(busy)
    assert purged.prepared_exports == 2
    assert "3 responses (12 reports), 5 invitations (2 used), 2 prepared exports and its result counters" \
        in str(purged)
    assert not busy.prepared_exports.exists() and other.prepared_exports.count() == 1
    assert [path.name.split("-1.")[1] for path in settings.EXPORT_DIR.iterdir()] == ["csv"]
    assert str(other.prepared_exports.get().pk) in next(settings.EXPORT_DIR.iterdir()).name
