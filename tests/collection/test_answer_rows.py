"""surveys.collection.answer_rows: each response's stored values kept in its row, in its plan's order, by every
writer (the submission, the builder), and written again from the reports by `tallies.rebuild`."""

import io
import json

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from surveys.collection import answer_rows, builder, plan, tallies
from surveys.collection.models import Question, Report, Response
from tests.factories import valid_payload

URL = "/api/v1/surveys/health/responses/"


def reversed_order(survey) -> None:
    """The questions asked last to first: the plan's order is then not the questions' ids' order."""
    questions = list(survey.questions.order_by("order"))
    for offset, question in enumerate(questions):  # through free orders: (survey, order) is unique
        Question.objects.filter(pk=question.pk).update(order=100 + offset)
    for question in questions:
        Question.objects.filter(pk=question.pk).update(order=len(questions) + 1 - question.order)


def expected_answers(survey) -> dict:
    """Each response's answers as its reports say: its values in the plan's order, if it was made with the
    current plan and reports every question of it; else None."""
    current = plan.of(survey)
    reports: dict = {}
    for response, question, value in Report.objects.filter(response__survey=survey).values_list(
            "response", "question", "value"):
        reports.setdefault(response, {})[question] = value
    return {response: (",".join(str(reports[response][q.id]) for q in current)
                       if version == current.version and set(reports.get(response, ())) == {q.id for q in current}
                       else None)
            for response, version in Response.objects.filter(survey=survey).values_list("pk", "mechanism_version")}


def kept_answers(survey) -> dict:
    return dict(Response.objects.filter(survey=survey).values_list("pk", "answers"))


def test_a_submission_keeps_its_reports_values_in_its_row_in_the_plans_order(client, survey):
    reversed_order(survey)
    assert [q.mechanism.name for q in plan.of(survey)] == ["oue", "krr", "bitflip", "qrr"]  # ids 4, 3, 2, 1
    body = valid_payload(survey, values={1: [1, 1, 0, 1], 2: 2, 3: 0, 4: 1})  # by order
    assert client.post(URL, data=json.dumps(body), content_type="application/json").status_code == 201
    assert kept_answers(survey) == expected_answers(survey)
    assert list(kept_answers(survey).values()) == ["11,2,0,1"]  # bits 0, 1 and 3: 11; krr 2; bit flip 0; q-RR 1


def test_the_builder_keeps_the_answers_of_responses_with_every_question_and_none_of_the_others(survey):
    reversed_order(survey)
    current = plan.of(survey)
    rng = np.random.default_rng(3)
    every = builder.write_responses(survey, {q.id: rng.integers(0, 2, 30) for q in current})
    some = builder.write_responses(survey, {q.id: rng.integers(0, 2, 5) for q in current.questions[1:]})
    kept = kept_answers(survey)
    assert kept == expected_answers(survey)
    assert all(kept[pk] is not None for pk in every) and all(kept[pk] is None for pk in some)


def test_a_rebuild_writes_only_the_rows_whose_answers_differ(survey):
    current = plan.of(survey)
    builder.write_responses(survey, {q.id: np.random.default_rng(5).integers(0, 2, 25) for q in current})
    Response.objects.filter(pk__in=list(Response.objects.values_list("pk", flat=True)[:3])).update(answers="9")
    said = io.StringIO()  # the tallies agree: only the answers differ
    with pytest.raises(CommandError, match="1 counts or answers differ"):
        call_command("rebuild_counts", "health", "--verify", stdout=said)
    assert said.getvalue().splitlines() == ["health: 3 responses keep other answers than their reports",
                                            "health: MISMATCH"]
    assert answer_rows.rebuild(survey.pk, current) == 3
    assert answer_rows.rebuild(survey.pk, current) == 0 and kept_answers(survey) == expected_answers(survey)
    call_command("rebuild_counts", "health", "--verify", stdout=io.StringIO())  # no CommandError now


def test_a_rebuild_writes_every_rows_answers_again_from_its_reports(survey):
    """After edits by hand: a changed value, a deleted report, another version, answers lost."""
    current = plan.of(survey)
    rng = np.random.default_rng(4)
    builder.write_responses(survey, {q.id: rng.integers(0, 2, 40) for q in current})
    responses = list(Response.objects.filter(survey=survey).order_by("pk").values_list("pk", flat=True))
    Report.objects.filter(response=responses[0], question=current.questions[2].id).update(value=2)
    Report.objects.filter(response=responses[1], question=current.questions[0].id).delete()
    Response.objects.filter(pk=responses[2]).update(mechanism_version="0123456789abcdef")
    Response.objects.filter(pk__in=responses[3:10]).update(answers=None)
    before = kept_answers(survey)
    assert answer_rows.stale(survey.pk, current) == 10
    with pytest.raises(CommandError, match="differ from the reports"):
        call_command("rebuild_counts", "health", "--verify", stdout=io.StringIO())
    tallies.rebuild(survey)
    assert answer_rows.stale(survey.pk, current) == 0 and answer_rows.rebuild(survey.pk, current) == 0
    rebuilt = kept_answers(survey)
    assert rebuilt == expected_answers(survey)
    assert rebuilt != before and rebuilt[responses[1]] is None and rebuilt[responses[2]] is None
    assert rebuilt[responses[0]].split(",")[2] == "2" and all(rebuilt[pk] for pk in responses[3:10])
