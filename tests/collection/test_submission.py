"""surveys.collection.submission: validating and storing one respondent's randomized reports."""

import uuid
from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from surveys.collection import api, plan, submission
from surveys.collection.models import Report, Response, Survey
from surveys.collection.submission import SubmissionError
from surveys.errors import refused, status_of
from tests.collection.helpers import qid, question, stored
from tests.factories import valid_payload


def test_it_stores_one_response_and_one_report_per_question(survey):
    payload = valid_payload(survey, values={1: 1, 2: 0, 3: 2, 4: [1, 0, 1, 1]})
    receipt = submission.submit(survey, payload)
    assert receipt.created is True
    response = Response.objects.get()
    assert response.pk == receipt.response_id
    assert response.survey == survey
    assert response.submission_key == uuid.UUID(payload["key"])
    assert response.mechanism_version == plan.of(survey).version
    values = dict(response.reports.values_list("question__order", "value"))
    assert values == {1: 1, 2: 0, 3: 2, 4: 1 + (1 << 2) + (1 << 3)}


@pytest.mark.parametrize("bits", [[0, 0, 0, 0], [1, 1, 1, 1], [0, 0, 0, 1], [1, 0, 0, 0], [0, 1, 1, 0]])
def test_it_stores_unary_bits_as_a_bitmask_with_bit_j_for_option_j(survey, bits):
    submission.submit(survey, valid_payload(survey, values={4: bits}))
    value = Report.objects.get(question__order=4).value
    assert [(value >> j) & 1 for j in range(4)] == bits
    assert value < 1 << 4


def test_it_records_only_the_day_of_the_submission(survey):
    submission.submit(survey, valid_payload(survey))
    submitted_on = Response.objects.get().submitted_on
    assert not isinstance(submitted_on, datetime)
    assert submitted_on == timezone.now().date()


def test_the_receipt_echoes_the_reports_that_were_stored(survey):
    payload = valid_payload(survey, values={3: 1})
    receipt = submission.submit(survey, payload)
    assert api.RECEIPT.to_representation(receipt) == {"id": str(receipt.response_id), "reports": payload["reports"]}


def test_a_retry_with_the_same_key_and_reports_returns_the_first_receipt(survey):
    payload = valid_payload(survey)
    first = submission.submit(survey, payload)
    again = submission.submit(survey, dict(payload))
    assert (again.created, again.response_id) == (False, first.response_id)
    assert stored() == (1, 4)


def test_the_same_key_with_other_reports_is_a_conflict(survey):
    key = uuid.uuid4()
    submission.submit(survey, valid_payload(survey, key=key, values={1: 0}))
    with pytest.raises(SubmissionError) as error:
        submission.submit(survey, valid_payload(survey, key=key, values={1: 1}))
    assert (status_of(error.value), error.value.field) == (409, "key")
    assert Report.objects.get(question__order=1).value == 0


def test_the_same_key_may_be_used_in_another_survey(survey):
    other = Survey.objects.create(slug="other", title="Other", status=Survey.Status.OPEN)
    other.questions.create(order=1, text="?", kind="yes_no", mechanism_name="bitflip", epsilon=1.0)
    key = uuid.uuid4()
    submission.submit(survey, valid_payload(survey, key=key))
    assert submission.submit(other, valid_payload(other, key=key)).created


def test_it_refuses_a_report_out_of_range_and_stores_nothing(survey):
    with pytest.raises(SubmissionError) as error:
        submission.submit(survey, valid_payload(survey, values={3: 3}))
    assert (status_of(error.value), error.value.field) == (400, f"reports.{qid(survey, 3)}")
    assert error.value.reason == "must be an option index from 0 to 2"
    assert stored() == (0, 0)


def test_a_submission_error_has_one_json_shape(survey):
    error = SubmissionError("reports.7", "no such question in this survey")
    assert refused(error) == {"error": {"code": "invalid", "field": "reports.7",
                                        "reason": "no such question in this survey"}}


@pytest.mark.parametrize("status, opens, closes, code", [
    (Survey.Status.DRAFT, None, None, 404),
    (Survey.Status.CLOSED, None, None, 410),
    (Survey.Status.OPEN, timedelta(hours=1), None, 410),
    (Survey.Status.OPEN, None, -timedelta(hours=1), 410),
])
def test_only_an_accepting_survey_takes_submissions(survey, status, opens, closes, code):
    now = timezone.now()
    payload = valid_payload(survey)
    Survey.objects.filter(pk=survey.pk).update(
        status=status, opens_at=now + opens if opens else None, closes_at=now + closes if closes else None)
    survey.refresh_from_db()
    with pytest.raises(SubmissionError) as error:
        submission.submit(survey, payload)
    assert (status_of(error.value), error.value.field) == (code, "survey")
    assert stored() == (0, 0)


def test_a_form_loaded_before_a_change_is_refused_as_stale(survey):
    payload = valid_payload(survey)
    krr = question(survey, 3)
    krr.epsilon = 0.5
    krr.save()
    with pytest.raises(SubmissionError) as error:
        submission.submit(survey, payload)
    assert (status_of(error.value), error.value.field) == (409, "version")
    assert stored() == (0, 0)


# Multi-select, numeric and ordinal reports: each report in its mechanism's domain is stored as its stored
# value; anything else is a 400 naming the report's field, and nothing is stored.
def test_it_stores_each_kinds_report_as_its_stored_value(kinds_survey):
    bound = plan.of(kinds_survey).questions[2].mechanism.bound
    payload = valid_payload(kinds_survey, values={1: [1, 0, 1, 1], 2: 1, 3: -7, 4: 3, 5: 2})
    assert submission.submit(kinds_survey, payload).created
    values = dict(Report.objects.values_list("question__order", "value"))
    assert values == {1: 0b1101, 2: 1, 3: bound - 7, 4: 3, 5: 2}


def test_a_multi_select_report_may_mark_more_boxes_than_the_at_most_limit(kinds_survey):
    """The limit is on the true answer: randomized bits may be set anywhere."""
    assert submission.submit(kinds_survey, valid_payload(kinds_survey, values={1: [1, 1, 1, 1]})).created


def test_discrete_laplace_takes_reports_out_to_its_clamp_on_both_sides(kinds_survey):
    mechanism = plan.of(kinds_survey).questions[2].mechanism
    for report in (-mechanism.bound, mechanism.steps + mechanism.bound):
        assert submission.submit(kinds_survey, valid_payload(kinds_survey, values={3: report})).created


def _bad(kinds_survey):
    bound = plan.of(kinds_survey).questions[2].mechanism.bound
    return [
        (1, [1, 0, 1], "must be a list of 4 bits"),
        (1, 5, "must be a list of 4 bits"),
        (1, [1, 0, 2, 0], "must be a list of 4 bits"),
        (2, 2, "must be the bit 0 or 1"),
        (2, [1], "must be the bit 0 or 1"),
        (3, -bound - 1, f"must be an integer from {-bound} to {20 + bound}"),
        (3, 20 + bound + 1, f"must be an integer from {-bound} to {20 + bound}"),
        (3, 2.5, "must be an integer"),
        (3, True, "must be an integer"),
        (4, 4, "must be an option index from 0 to 3"),
        (5, -1, "must be an option index from 0 to 3"),
    ]


@pytest.mark.parametrize("case", range(11))
def test_a_report_outside_its_domain_is_a_400_naming_its_field_and_nothing_is_stored(kinds_survey, case):
    order, report, words = _bad(kinds_survey)[case]
    before = stored()
    with pytest.raises(SubmissionError) as error:
        submission.submit(kinds_survey, valid_payload(kinds_survey, values={order: report}))
    assert (status_of(error.value), error.value.field) == (400, f"reports.{qid(kinds_survey, order)}")
    assert words in error.value.reason
    assert stored() == before


def test_the_api_answers_a_bad_numeric_report_with_the_error_shape(client, kinds_survey):
    response = client.post(f"/api/v1/surveys/{kinds_survey.slug}/responses/",
                           valid_payload(kinds_survey, values={2: 7}), content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == f"reports.{qid(kinds_survey, 2)}"
    assert stored() == (0, 0)
