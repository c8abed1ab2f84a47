"""Invitation-only surveys: tokens made in bulk and stored as digests, spent exactly once
inside the response's transaction, never linked to the response they admitted."""

import json
import math
import uuid

import pytest
from django.db import DatabaseError, connection
from django.test.utils import CaptureQueriesContext

from surveys.collection import invitations, submission
from surveys.collection.models import Invitation, Report, Response, Survey
from surveys.collection.submission import SubmissionError
from surveys.errors import status_of
from tests.collection.helpers import failing_insert, stored
from tests.factories import valid_payload


@pytest.fixture
def invited(invitation_only):
    """The invitation-only survey with three unused invitations."""
    invitation_only.tokens = invitations.create(invitation_only, 3)
    return invitation_only


def with_token(survey, token, **kwargs):
    return {**valid_payload(survey, **kwargs), "invitation": token}


def refusal(survey, payload) -> SubmissionError:
    with pytest.raises(SubmissionError) as refused:
        submission.submit(survey, payload)
    return refused.value


# --- making them ---------------------------------------------------------------------------


def test_tokens_carry_at_least_128_random_bits_and_are_all_different(survey):
    tokens = invitations.create(survey, 200)
    assert len(set(tokens)) == 200
    alphabet = 64  # URL-safe base64
    assert all(len(token) * math.log2(alphabet) >= 128 for token in tokens)
    assert all(len(token) == math.ceil(invitations.TOKEN_BYTES * 4 / 3) for token in tokens)


def test_only_digests_of_the_tokens_are_stored(survey):
    tokens = invitations.create(survey, 5)
    stored_digests = set(Invitation.objects.values_list("token_digest", flat=True))
    assert stored_digests == {invitations.digest(token) for token in tokens}
    rows = json.dumps(list(Invitation.objects.values()), default=str)
    assert not any(token in rows for token in tokens)


@pytest.mark.parametrize("count", [0, -1, invitations.MAX_BATCH + 1])
def test_it_refuses_a_batch_size_out_of_range(survey, count):
    with pytest.raises(ValueError, match="count"):
        invitations.create(survey, count)
    assert not Invitation.objects.exists()


def test_a_link_carries_the_token_in_the_fragment_only(survey):
    link = invitations.link("https://survey.example.org/", survey, "tok")
    assert link == "https://survey.example.org/s/health/#invitation=tok"


# --- spending them -------------------------------------------------------------------------


def test_an_invitation_admits_one_response(invited):
    receipt = submission.submit(invited, with_token(invited, invited.tokens[0]))
    assert receipt.created
    assert Invitation.objects.filter(used=True).count() == 1


def test_a_used_invitation_is_refused_with_a_clear_message_and_nothing_is_stored(invited):
    submission.submit(invited, with_token(invited, invited.tokens[0]))
    before = stored()
    error = refusal(invited, with_token(invited, invited.tokens[0]))
    assert (status_of(error), error.field) == (403, "invitation")
    assert "already been used" in error.reason
    assert stored() == before


def test_an_unknown_invitation_is_refused(invited):
    error = refusal(invited, with_token(invited, "not-a-real-token"))
    assert (status_of(error), error.field) == (403, "invitation") and "not valid" in error.reason
    assert stored() == (0, 0)


def test_another_surveys_invitation_is_refused_and_stays_unused(invited):
    other = Survey.objects.create(slug="other", title="Other", access=Survey.Access.INVITATION)
    [token] = invitations.create(other, 1)
    error = refusal(invited, with_token(invited, token))
    assert status_of(error) == 403 and not Invitation.objects.get(survey=other).used


def test_an_invitation_only_survey_needs_the_token(invited):
    error = refusal(invited, valid_payload(invited))
    assert (status_of(error), error.field) == (403, "invitation") and "invitation only" in error.reason


@pytest.mark.parametrize("token", ["", 7, None, ["tok"], "x" * 129])
def test_it_rejects_a_malformed_token(invited, token):
    error = refusal(invited, with_token(invited, token))
    assert (status_of(error), error.field) == (400, "invitation")
    assert not Invitation.objects.filter(used=True).exists()


def test_a_survey_open_to_the_link_rejects_a_token(survey):
    error = refusal(survey, with_token(survey, "tok"))
    assert (status_of(error), error.field) == (400, "invitation") and "does not use invitations" in error.reason


def test_a_retry_with_the_same_key_gets_the_first_receipt_not_a_refusal(invited):
    payload = with_token(invited, invited.tokens[1])
    first = submission.submit(invited, payload)
    again = submission.submit(invited, dict(payload))
    assert (again.created, again.response_id) == (False, first.response_id)
    assert Response.objects.count() == 1


def test_a_rejected_submission_leaves_the_invitation_unused(invited):
    payload = with_token(invited, invited.tokens[0])
    payload["version"] = "outdated"
    assert status_of(refusal(invited, payload)) == 409
    assert not Invitation.objects.filter(used=True).exists()


def test_a_failure_after_some_reports_are_written_leaves_no_response_and_the_token_unused(invited):
    last = invited.questions.order_by("-order").first().pk  # reports are written in question order
    with failing_insert(Report, f"NEW.question_id = {last}"), pytest.raises(DatabaseError, match="injected"):
        submission.submit(invited, with_token(invited, invited.tokens[2]))
    assert stored() == (0, 0)
    assert not Invitation.objects.filter(used=True).exists()
    assert submission.submit(invited, with_token(invited, invited.tokens[2])).created  # still good


def test_spending_is_one_conditional_update_not_a_read_then_write(invited):
    with CaptureQueriesContext(connection) as queries:
        submission.submit(invited, with_token(invited, invited.tokens[0]))
    touching = [q["sql"] for q in queries.captured_queries if "collection_invitation" in q["sql"]]
    assert len(touching) == 1
    assert " AND NOT used RETURNING 1" in touching[0]


def test_the_response_carries_nothing_that_links_it_to_the_invitation(invited):
    receipt = submission.submit(invited, with_token(invited, invited.tokens[0]))
    row = json.dumps(Response.objects.filter(pk=receipt.response_id).values().get(), default=str)
    invitation = Invitation.objects.get(used=True)
    assert invitation.token_digest not in row and str(uuid.UUID(str(receipt.response_id))) in row
    assert {f.name for f in Invitation._meta.get_fields()} == {"id", "survey", "token_digest", "used"}
