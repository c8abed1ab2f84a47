"""The synthetic respondents of a survey (surveys.aggregation.synthetic.respondents): one column per question named by
its key,
answers as a respondent gives them (labels, numbers on the grid), N rows, and the quality report ldp.synthetic
states for the same rows."""

from decimal import Decimal

import numpy as np
import pytest

from ldp.mechanisms.multiselect import MultiSelect
from ldp.synthetic import synthesize
from ldp.synthetic.quality import quality
from ldp.synthetic.questions import stored_cells
from surveys.aggregation.synthetic import respondents as synthetic
from surveys.collection import builder, plan
from surveys.collection.models import Question, Report, Response
from tests.aggregation.exports.test_reports import TRUTH

RESPONSES = 400


@pytest.fixture
def answered(kinds_survey):
    builder.simulate_responses(kinds_survey, RESPONSES, TRUTH, seed=5)
    return kinds_survey


def reference(survey, current, rows=None, seed=None):
    """ldp.synthetic run by hand on the stored reports, read one response at a time (the slow, plain way)."""
    ids = sorted(Response.objects.filter(survey=survey).values_list("pk", flat=True), key=str)
    reports = []
    for q in current:
        values = dict(Report.objects.filter(question_id=q.id).values_list("response_id", "value"))
        stored = [values.get(r) for r in ids]
        missing = [v is None for v in stored]
        reports.append((q.key, q.mechanism, stored_cells(q.mechanism, [v or 0 for v in stored], missing)))
    return synthesize(reports, rows=rows, seed=synthetic.seed_of(survey) if seed is None else seed)


def test_it_names_each_column_by_its_questions_key_and_draws_as_many_rows_as_responses(answered):
    data = synthetic.synthetic_data(answered, plan.of(answered))
    assert data.header == [q.key for q in plan.of(answered)] == ["q1", "q2", "q3", "q4", "q5"]
    assert data.rows == RESPONSES and [len(c) for c in data.columns] == [RESPONSES] * 5


def test_it_draws_the_rows_asked_for(answered):
    data = synthetic.synthetic_data(answered, plan.of(answered), rows=123)
    assert data.rows == 123 and [len(c) for c in data.columns] == [123] * 5


def test_it_writes_labels_and_the_grids_numbers(answered):
    multi, onebit, dlaplace, ages, gamble = synthetic.synthetic_data(answered, plan.of(answered)).columns
    labels = ["Tobacco", "Alcohol", "Cannabis", "Prefer not to say"]
    ticked = [cell.split("; ") for cell in multi if cell]
    assert all(set(t) <= set(labels) and len(t) <= 2 for t in ticked) and ticked
    assert set(onebit) <= {"0", "100"}  # a 1-bit mean's rows are the grid's ends
    grid = {str(Decimal(i) / 2) for i in range(21)} | {str(Decimal(i)) for i in range(11)}
    assert set(dlaplace) <= grid and len(set(dlaplace)) > 1
    assert set(ages) <= {"0 to 17", "18 to 34", "35 to 64", "65 to 120"}
    assert set(gamble) <= {"Never", "Rarely", "Often", "Prefer not to say"}


def answer(question, cell):
    """ldp's cell (an option index, a multi-select's 0/1 characters, a grid index) as a respondent gives it."""
    if isinstance(question.mechanism, MultiSelect):
        return "; ".join(label for label, bit in zip(question.options, cell, strict=True) if bit == "1")
    if question.mean:
        return str(question.scale.value(int(cell)))
    return question.options[int(cell)]


def test_its_rows_and_quality_are_ldps_own_from_the_stored_reports(answered):
    current = plan.of(answered)
    data = synthetic.synthetic_data(answered, current)
    made = reference(answered, current)
    questions = list(current)
    for q, column in zip(questions, data.columns, strict=True):
        assert column == [answer(q, cell) for cell in made.cells[q.key]], q.key
    assert data.quality.to_dict() == quality(made).to_dict()


def test_the_same_survey_gives_the_same_rows_and_another_seed_others(answered):
    current = plan.of(answered)
    first, again = synthetic.synthetic_data(answered, current), synthetic.synthetic_data(answered, current)
    other = synthetic.synthetic_data(answered, current, seed=synthetic.seed_of(answered) + 1)
    assert first.columns == again.columns and first.columns != other.columns


def test_its_shares_follow_the_direct_answers(direct_survey):
    builder.simulate_responses(direct_survey, 300, {2: [0.6, 0.3, 0.1], 4: [0.1, 0.2, 0.3, 0.4]}, seed=3)
    data = synthetic.synthetic_data(direct_survey, plan.of(direct_survey))
    region = data.columns[3]
    stored = np.bincount(list(Report.objects.filter(question__survey=direct_survey, question__order=4)
                              .values_list("value", flat=True)), minlength=4) / 300
    shares = np.asarray([region.count(label) for label in ["North", "East", "South", "West"]]) / 300
    assert np.abs(shares - stored).max() <= 0.02  # a direct answer's share: the model's, up to rounding


def test_a_survey_without_responses_has_a_header_only(kinds_survey):
    data = synthetic.synthetic_data(kinds_survey, plan.of(kinds_survey))
    assert (data.rows, data.quality.marginals) == (0, [])
    assert "".join(synthetic.csv_text(data)) == "q1,q2,q3,q4,q5\n"


def test_a_named_question_is_its_names_column(answered):
    Question.objects.filter(survey=answered, order=5).update(name="gamble")
    assert synthetic.synthetic_data(answered, plan.of(answered)).header == ["q1", "q2", "q3", "q4", "gamble"]


def test_a_response_without_a_report_does_not_count_for_that_question(answered):
    current = list(plan.of(answered))
    copied = {q.id: list(Report.objects.filter(question_id=q.id).order_by("pk").values_list("value", flat=True)[:100])
              for q in current[:4]}
    written = builder.write_responses(answered, copied)  # 100 responses without the fifth question
    Response.objects.filter(pk__in=written).update(answers=None)
    data = synthetic.synthetic_data(answered, plan.of(answered))
    made = reference(answered, plan.of(answered))
    assert data.rows == RESPONSES + 100 and data.quality.to_dict() == quality(made).to_dict()
    assert {m.variables: m.n for m in data.quality.marginals if len(m.variables) == 1}["q5",] == RESPONSES
