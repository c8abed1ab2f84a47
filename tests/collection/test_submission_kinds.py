"""Submitting reports to the new kinds: each report in its mechanism's domain is stored as its
stored value; anything else is a 400 naming the report's field, and nothing is stored."""

import pytest

from surveys.collection import plan, submission
from surveys.collection.models import Report
from surveys.collection.submission import SubmissionError
from surveys.errors import status_of
from tests.collection.helpers import qid, stored
from tests.factories import valid_payload


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
