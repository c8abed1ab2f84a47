"""builder.write_responses: the responses and reports it writes are those the submission store would write
(the tests' and the demo's data stand for submitted data), in one transaction."""

import pytest
from django.utils import timezone

from surveys.collection import builder, plan
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Report, Response
from surveys.collection.models.keys import KEY_BITS, PER_RESPONSE_BITS

pytestmark = pytest.mark.django_db

QUESTIONS = [QuestionSpec("Smoked?", "qrr", q="0.5"),
             QuestionSpec("Colour?", "krr", epsilon=1.0, options=["r", "g", "b"]),
             QuestionSpec("Left out?", "bitflip", epsilon=1.0)]


@pytest.fixture
def survey():
    return builder.create_survey("built", "Built", QUESTIONS, epsilon_budget=10.0)


def test_it_writes_each_response_and_its_reports_as_the_store_would(survey):
    first, second, _ = plan.of(survey).questions
    ids = builder.write_responses(survey, {first.id: [1, 0, 1], second.id: [2, 2, 0]})
    stored = {r.id: r for r in Response.objects.filter(survey=survey)}
    assert sorted(stored) == sorted(ids)
    assert {(r.mechanism_version, r.submitted_on, r.earlier_wave) for r in stored.values()} == {
        (plan.of(survey).version, timezone.now().date(), False)}
    assert len({r.submission_key for r in stored.values()}) == 3
    reports = {(r.response_id, r.question_id): r.value for r in Report.objects.all()}
    assert reports == {**{(ids[i], first.id): v for i, v in enumerate([1, 0, 1])},
                       **{(ids[i], second.id): v for i, v in enumerate([2, 2, 0])}}
    for response in ids:  # one random base per response, its reports at positions 0, 1 (keys.report_keys)
        keys = sorted(Report.objects.filter(response_id=response).values_list("id", flat=True))
        base = keys[0]
        assert keys == [base, base + 1] and base % (1 << PER_RESPONSE_BITS) == 0 and base >> KEY_BITS == 1


def test_columns_of_different_lengths_are_refused_and_nothing_is_stored(survey):
    first, second, _ = plan.of(survey).questions
    with pytest.raises(ValueError, match="one value per response"):
        builder.write_responses(survey, {first.id: [1, 0, 1], second.id: [2, 2]})
    assert not Response.objects.exists() and not Report.objects.exists()
