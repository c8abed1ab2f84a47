"""The means of multi-select, numeric and ordinal questions (surveys.aggregation.results.means, through the results
service): a
numeric question's mean from the 1-bit mean's counters or from discrete Laplace's histogram of stored values (one GROUP
BY on the (question, value) index), and an ordinal question's mean score, over its scored levels only when one is left
out."""

import math

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

import ldp
from surveys.aggregation.params import ResultOptions
from surveys.aggregation.results import means
from surveys.aggregation.results import service as results
from surveys.collection import builder, plan
from surveys.collection.models import Report
from surveys.collection.plan import PlannedQuestion

D = __import__("decimal").Decimal


def one_hot(points, index):
    return [1.0 if i == index else 0.0 for i in range(points)]


@pytest.mark.slow
def test_the_1bit_mean_recovers_a_planted_mean_in_the_questions_units(kinds_survey):
    builder.simulate_responses(kinds_survey, 4000, {2: one_hot(101, 70)}, seed=5)
    result = results.survey_results(kinds_survey).questions[1]
    assert result.estimate is None and result.rows == [] and result.is_mean
    assert result.mean.n == 4000 and result.mean.ci_low <= 70 <= result.mean.ci_high
    assert abs(result.mean.mean - 70) <= 4 * result.mean.std_error
    assert 0 <= result.mean.ci_low <= result.mean.ci_high <= 100


@pytest.mark.slow
def test_discrete_laplace_recovers_a_planted_mean_from_the_histogram_of_stored_values(kinds_survey):
    builder.simulate_responses(kinds_survey, 3000, {3: one_hot(21, 5)}, seed=6)  # 2.5 on 0..10 by 0.5
    result = results.survey_results(kinds_survey, ResultOptions(interval="wilson")).questions[2]
    assert abs(result.mean.mean - 2.5) <= 4 * result.mean.std_error and result.mean.n == 3000
    question = plan.of(kinds_survey).questions[2]
    values, counts = means.histograms([question])[question.id]
    assert result.mean == question.mechanism.estimate_mean(values, counts)


@pytest.mark.slow
def test_the_histogram_is_one_grouped_query_for_every_discrete_laplace_question(kinds_survey):
    builder.simulate_responses(kinds_survey, 200, {}, seed=7)
    questions = plan.of(kinds_survey).questions
    with CaptureQueriesContext(connection) as queries:
        found = means.histograms(questions)
    assert len(queries.captured_queries) == 1 and "GROUP BY" in queries.captured_queries[0]["sql"]
    (pk,) = found
    assert pk == plan.of(kinds_survey).questions[2].id and int(found[pk][1].sum()) == 200


@pytest.mark.skipif(connection.vendor != "sqlite", reason="reads SQLite's plan")
def test_the_histogram_query_reads_the_question_index_alone(kinds_survey):
    builder.simulate_responses(kinds_survey, 50, {}, seed=8)
    question = plan.of(kinds_survey).questions[2]
    with CaptureQueriesContext(connection) as queries:
        means.histograms([question])
    sql = queries.captured_queries[0]["sql"]
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {sql}")
        steps = " ".join(str(row[-1]) for row in cursor.fetchall())
    (index,) = Report._meta.indexes  # on (question, response, value)
    # Read from the index alone: no table rows (the GROUP BY sorts the question's values).
    assert f"COVERING INDEX {index.name}" in steps, steps


def test_a_mean_question_is_planned_for_a_margin_in_its_units(kinds_survey):
    found = results.survey_results(kinds_survey, ResultOptions(margin=0.05))
    onebit, dlaplace = found.questions[1:3]
    assert onebit.margin == pytest.approx(5.0) and dlaplace.margin == pytest.approx(0.5)
    assert onebit.needed == ldp.mean_respondents_needed(onebit.mechanism, 5.0, 0.95)
    assert dlaplace.needed == ldp.mean_respondents_needed(dlaplace.mechanism, 0.5, 0.95)
    assert onebit.margin_now == math.inf and not onebit.enough
    assert found.needed == max(q.needed for q in found.questions)


def test_the_planners_margin_is_reached_at_the_respondents_it_asks_for(kinds_survey):
    question = plan.of(kinds_survey).questions[1]
    needed = means.needed(question, 0.05, 0.95)
    assert means.margin_at(question, needed, 0.95) <= 5.0 < means.margin_at(question, needed - 1, 0.95)


def ordinal(scores, mechanism=None):
    mechanism = mechanism or ldp.KaryRR(1.0, len(scores))
    labels = tuple(f"level {j}" for j in range(len(scores)))
    return PlannedQuestion(1, 1, "?", "ordinal", labels, mechanism, scores=tuple(scores))


def test_with_every_level_scored_the_mean_score_is_ldps(kinds_survey):
    question = ordinal([D(1), D(2), D(3)])
    counts = np.array([300, 500, 200])
    assert means.mean_score(question, counts, 1000, 0.95) == ldp.mean_score(question.mechanism, counts, 1000,
                                                                            [1.0, 2.0, 3.0], 0.95)


def test_an_unscored_level_is_left_out_of_the_mean_score(kinds_survey):
    question = ordinal([D(1), D(2), D(3), None])
    counts = np.array([250, 300, 200, 250])
    found = means.mean_score(question, counts, 1000, 0.95)
    pi = np.asarray(question.mechanism.estimate(counts, 1000).estimate)
    assert found.mean == pytest.approx((pi[0] + 2 * pi[1] + 3 * pi[2]) / pi[:3].sum())
    assert 1 <= found.ci_low < found.mean < found.ci_high <= 3


@pytest.mark.slow
def test_the_mean_scores_interval_over_scored_levels_holds_its_level_in_simulation():
    """Left out, "Prefer not to say" must not pull the mean score toward 0; and the delta-method standard
    error must match the spread of the estimates (2000 simulated surveys of 2000 respondents)."""
    rng = np.random.default_rng(13)
    question = ordinal([D(1), D(2), D(3), None], ldp.KaryRR(2.0, 4))
    truth = np.array([0.2, 0.3, 0.3, 0.2])
    true_mean = (0.2 + 0.6 + 0.9) / 0.8
    estimates, covered, errors = [], 0, []
    for _ in range(2000):
        answers = rng.choice(4, size=2000, p=truth)
        counts = question.mechanism.counts(question.mechanism.randomize(answers, rng))
        found = means.mean_score(question, counts, 2000, 0.95)
        estimates.append(found.mean)
        errors.append(found.std_error)
        covered += found.ci_low <= true_mean <= found.ci_high
    assert abs(np.mean(estimates) - true_mean) < 0.01
    assert np.std(estimates) == pytest.approx(np.mean(errors), rel=0.08)
    assert 0.93 <= covered / 2000 <= 0.97


def test_the_ordinal_question_of_the_survey_has_per_level_fractions_and_a_mean_score(kinds_survey):
    builder.simulate_responses(kinds_survey, 500, {5: [0.5, 0.3, 0.1, 0.1]}, seed=9)
    result = results.survey_results(kinds_survey).questions[4]
    assert len(result.rows) == 4 and result.mean is not None and not result.is_mean
    assert result.mean_leaves_out == "“Prefer not to say”"
    assert result.estimate.n == result.mean.n == 500


def test_a_mean_keeps_the_confidence_asked_for_when_the_options_share_it(kinds_survey):
    builder.simulate_responses(kinds_survey, 500, {}, seed=11)
    found = results.survey_results(kinds_survey, ResultOptions(confidence=0.9, interval="exact", simultaneous=True))
    current = plan.of(kinds_survey)
    onebit, dlaplace, ordinal = found.questions[1], found.questions[2], found.questions[4]
    for result, question in ((onebit, current.questions[1]), (dlaplace, current.questions[2])):
        # One interval: no Bonferroni share, and the margin reached and the planner at that level.
        assert (result.level, result.mean.confidence, result.planner_at) == (0.9, 0.9, 0.9)
        assert result.margin_now == pytest.approx(means.margin_at(question, 500, 0.9), rel=1e-12)
    # The options of the ordinal question take their share (1 - 0.1 / 4), their mean score the whole level.
    assert ordinal.level == pytest.approx(1 - 0.1 / 4) and ordinal.mean.confidence == 0.9


def test_a_multi_select_has_no_simplex_projection(kinds_survey):
    builder.simulate_responses(kinds_survey, 300, {}, seed=10)
    result = results.survey_results(kinds_survey).questions[0]
    assert all(math.isnan(row.simplex) for row in result.rows) and not result.simplex_differs
    assert result.counts_are == "reports with a 1 in each option's bit"
