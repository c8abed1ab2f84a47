"""surveys.aggregation.regression.rows: the responses with a report for every question asked for, grouped by their
stored values in one query, compared whole with the same grouping done in numpy on the values written."""

import numpy as np
import pytest

from surveys.aggregation.regression import rows as model_rows
from surveys.collection import builder, plan
from tests.aggregation.model_support import make_survey


@pytest.fixture
def survey(owner):
    return make_survey(owner)


def test_it_counts_each_combination_of_stored_values_among_the_responses_that_answer_them_all(survey):
    current = {q.order: q for q in plan.of(survey)}
    rng = np.random.default_rng(3)
    written = {order: rng.integers(0, k, 400) for order, k in ((1, 2), (2, 3), (3, 2), (4, 5))}
    builder.write_responses(survey, {current[order].id: values for order, values in written.items()})
    # Responses without question 4, and others without question 1: not among the rows of 1 to 4.
    builder.write_responses(survey, {current[order].id: np.zeros(30, dtype=int) for order in (1, 2, 3)})
    builder.write_responses(survey, {current[order].id: np.ones(20, dtype=int) for order in (2, 3, 4)})
    ids = [current[order].id for order in (3, 1, 4, 2)]  # the order asked for is the columns' order
    found = model_rows.grouped(ids)
    table = np.column_stack([written[order] for order in (3, 1, 4, 2)])
    values, counts = np.unique(table, axis=0, return_counts=True)  # sorted rows, as the query's ORDER BY
    assert found.questions == tuple(ids)
    assert found.values.tolist() == values.tolist() and found.counts.tolist() == counts.tolist()
    assert found.n == 400 and found.column(ids[2]).tolist() == values[:, 2].tolist()
    assert model_rows.answering_any([current[4].id]) == 420
    assert model_rows.answering_any([current[1].id, current[4].id]) == 450


def test_no_response_answering_them_all_is_no_rows(survey):
    current = plan.of(survey)
    builder.write_responses(survey, {current.questions[0].id: [1, 0]})
    found = model_rows.grouped([q.id for q in current.questions[:2]])
    assert found.values.shape == (0, 2) and found.counts.tolist() == [] and found.n == 0
