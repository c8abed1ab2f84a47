"""Recording a respondent's randomized reports: strict validation, then one transaction.

Payload (JSON): {"version": "<mechanism version>", "key": "<uuid made by the browser>",
"reports": {"<question id>": <option index> | [<bit>, ...]}}, plus "invitation": "<token>"
for invitation-only surveys (and only for them), and "earlier_wave": true | false for a wave of a series
(and only for one: the browser's word that it answered an earlier wave). Nothing else is accepted.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError
from django.utils import timezone
from django.utils.translation import gettext as _

import ldp
from surveys import refusals

from . import invitations, plan, relevance, skip_logic, store
from .models import Response, Survey
from .plan import PlannedQuestion

PAYLOAD_FIELDS = {"version", "key", "reports"}
INVITATION_FIELD = "invitation"
EARLIER_WAVE_FIELD = "earlier_wave"
TOKEN_MAX_LENGTH = 128
TOKEN_PATTERN = re.compile(f"[A-Za-z0-9_-]{{1,{TOKEN_MAX_LENGTH}}}")  # URL-safe base64, as made


class SubmissionError(refusals.Refusal):
    """A refused submission: the field at fault, why, and the kind of refusal (invalid unless said)."""


@dataclass(frozen=True)
class Receipt:
    response_id: uuid.UUID
    created: bool
    reports: dict


def check_accepting(survey: Survey) -> None:
    if survey.status == Survey.Status.DRAFT:
        raise SubmissionError("survey", _("no such survey"), refusals.NOT_FOUND)
    if not survey.is_accepting():
        raise SubmissionError("survey", _("this survey is not accepting responses"), refusals.GONE)


def submit(survey: Survey, payload: Any, current: plan.SurveyPlan | None = None) -> Receipt:
    """Validate and store one response; a retry with the same key returns the first receipt.

    `current` is the survey's plan when the caller has read it already (`plan.published`)."""
    check_accepting(survey)
    key, version, raw_reports, token = _envelope(survey, payload)
    earlier = _earlier_wave(payload)
    current = current or plan.of(survey)
    if version != current.version:
        raise SubmissionError("version", _("the survey changed since this form was loaded; reload it"),
                              refusals.VERSION_CHANGED)
    if not current.questions:  # its questions were deleted while it was open
        raise SubmissionError("survey", _("this survey has no questions"), refusals.GONE)
    values = _values(current.questions, raw_reports)
    digest = None if token is None else invitations.digest(token)
    response_id = uuid.uuid4()
    try:
        store.store_response(store.NewResponse(survey, response_id, key, version, timezone.now().date(),
                                               tuple(q for q in current.questions if q.id in values), values, digest,
                                               earlier, every_question=len(values) == len(current.questions)))
    except (IntegrityError, store.NotSpent) as refused:
        # The key is taken, or the invitation spent: a retry of a stored submission (or a
        # concurrent one that won the race) gets the first receipt.
        existing = _earlier_receipt(survey, key, values, raw_reports, earlier)
        if existing:
            return existing
        if isinstance(refused, IntegrityError) or token is None:  # only an invitation can go unspent
            raise
        raise SubmissionError(INVITATION_FIELD, invitations.refusal(survey, token),
                              refusals.INVITATION_REFUSED) from None
    return Receipt(response_id, True, raw_reports)


def _envelope(survey: Survey, payload: Any) -> tuple[uuid.UUID, str, dict[str, Any], str | None]:
    if not isinstance(payload, dict):
        raise SubmissionError("body", _("expected a JSON object"))
    by_invitation = survey.access == Survey.Access.INVITATION
    fields = PAYLOAD_FIELDS | ({INVITATION_FIELD} if by_invitation else set())
    fields |= {EARLIER_WAVE_FIELD} if survey.series_id is not None else set()
    unknown = sorted(set(payload) - fields)
    if unknown:
        reason = {INVITATION_FIELD: _("this survey does not use invitations"),
                  EARLIER_WAVE_FIELD: _("this survey is no wave of a series")}.get(unknown[0], _("unknown field"))
        raise SubmissionError(unknown[0], reason)
    for name in sorted(PAYLOAD_FIELDS):
        if name not in payload:
            raise SubmissionError(name, _("this field is required"))
    try:
        key = uuid.UUID(payload["key"]) if isinstance(payload["key"], str) else None
    except ValueError:
        key = None
    if key is None:
        raise SubmissionError("key", _("must be a UUID string"))
    if not isinstance(payload["version"], str):
        raise SubmissionError("version", _("must be a string"))
    if not isinstance(payload["reports"], dict):
        raise SubmissionError("reports", _("must be an object keyed by question id"))
    return key, payload["version"], payload["reports"], _token(payload) if by_invitation else None


def _earlier_wave(payload: dict) -> bool:
    earlier = payload.get(EARLIER_WAVE_FIELD, False)
    if not isinstance(earlier, bool):
        raise SubmissionError(EARLIER_WAVE_FIELD, _("must be true or false"))
    return earlier


def _token(payload: dict) -> str:
    if INVITATION_FIELD not in payload:
        raise SubmissionError(INVITATION_FIELD, _("this survey is by invitation only: open the link "
                                                  "from your invitation"), refusals.INVITATION_REFUSED)
    token = payload[INVITATION_FIELD]
    if not (isinstance(token, str) and TOKEN_PATTERN.fullmatch(token)):
        raise SubmissionError(INVITATION_FIELD, _("must be the token from the invitation link "
                                                  "(at most %(n)s characters)") % {"n": TOKEN_MAX_LENGTH})
    return token


def _values(questions: tuple[PlannedQuestion, ...], reports: dict) -> dict[int, int]:
    """Map question id -> stored value of each question asked, checking every report is in its mechanism's domain
    and that the reports are those of the questions asked: skip logic judged on the direct answers received."""
    expected = {str(q.id): q for q in questions}
    for name in reports:
        if name not in expected:
            raise SubmissionError(f"reports.{name}", _("no such question in this survey"))
    values: dict[int, int] = {}
    answers: dict[str, relevance.Value] = {}
    for name, question in expected.items():
        field = f"reports.{name}"
        if not skip_logic.shown(question, answers):
            if name in reports:
                raise SubmissionError(field, _("question %(key)s was not asked: its condition (%(condition)s) does "
                                               "not hold for the answers given") % {"key": question.key,
                                                                                     "condition": question.relevant})
            skip_logic.note(question, answers, None)
            continue
        if name not in reports:
            raise SubmissionError(field, _("a report for every question asked is required (question %(key)s)")
                                  % {"key": question.key})
        try:
            values[question.id] = question.mechanism.encode(reports[name])
        except ldp.ReportError as error:
            raise SubmissionError(field, str(error)) from None
        skip_logic.note(question, answers, values[question.id])
    return values


def _earlier_receipt(survey: Survey, key: uuid.UUID, values: dict[int, int], reports: dict,
                     earlier: bool) -> Receipt | None:
    response = Response.objects.filter(survey=survey, submission_key=key).first()
    if response is None:
        return None
    stored = dict(response.reports.values_list("question_id", "value"))
    if stored != values or response.earlier_wave != earlier:
        raise SubmissionError("key", _("this key was already used for different reports"), refusals.KEY_REUSED)
    return Receipt(response.pk, False, reports)
