"""The results service: counts in the database, debiasing by ldp, bounded queries."""

import math

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

import ldp
from surveys.aggregation.api.serializers import QuestionEstimatesSerializer
from surveys.aggregation.params import ResultOptions
from surveys.aggregation.results import service as results
from surveys.collection import plan, tallies
from surveys.collection.models import Option, Question, Report, Survey, Tally
from tests.aggregation.support import add_responses, counts, store


def by_order(found):
    return {result.question.order: result for result in found.questions}


@pytest.mark.parametrize("options", [
    ResultOptions(interval="wilson"),
    ResultOptions(confidence=0.99, interval="exact"),
    ResultOptions(confidence=0.9, interval="wilson", simultaneous=True),
])
def test_its_estimates_equal_ldps_on_the_same_counts(survey, options):
    reports = add_responses(survey, 300, seed=1)
    found = by_order(results.survey_results(survey, options))
    for question, values in reports.items():
        expected = question.mechanism().estimate(
            counts(question, values), 300, confidence=options.confidence, interval=options.interval,
            simultaneous=options.simultaneous)
        assert found[question.order].estimate == expected


def test_it_counts_reports_per_option_and_one_bits_per_option(survey):
    reports = add_responses(survey, 120, seed=2)
    found = by_order(results.survey_results(survey))
    for question, values in reports.items():
        assert found[question.order].n == 120
        assert list(found[question.order].estimate.counts) == list(counts(question, values))
    assert results.survey_results(survey).responses == 120


def test_it_counts_every_bit_of_a_32_option_unary_question(db, owner):
    survey = Survey.objects.create(slug="wide", title="Wide", status=Survey.Status.OPEN, epsilon_budget=10)
    question = Question.objects.create(survey=survey, order=1, text="Which?", kind="single_choice",
                                       mechanism_name="sue", epsilon=2.0)
    Option.objects.bulk_create(Option(question=question, order=j, label=f"o{j}") for j in range(32))
    bits = np.zeros((3, 32), dtype=np.uint8)
    bits[0, 31] = bits[1, 31] = bits[1, 0] = 1
    bits[2, :] = 1
    store(survey, {question: bits})
    estimate = results.survey_results(survey).questions[0].estimate
    assert estimate.counts[0] == 2 and estimate.counts[31] == 3 and estimate.counts[5] == 1


def wide_survey():
    """More questions and options than the shared survey."""
    survey = Survey.objects.create(slug="wide", title="Wide", status=Survey.Status.OPEN, epsilon_budget=20)
    for order, (name, k) in enumerate([("krr", 9), ("oue", 12), ("sue", 20), ("krr", 2)], start=1):
        question = Question.objects.create(survey=survey, order=order, text=f"Q{order}", kind="single_choice",
                                           mechanism_name=name, epsilon=1.0)
        Option.objects.bulk_create(Option(question=question, order=j, label=f"o{j}") for j in range(k))
    return survey


def test_its_query_count_does_not_grow_with_reports_or_options(survey, django_assert_max_num_queries):
    # Questions, options, responses, and at most two grouped report queries.
    add_responses(survey, 5, seed=3)
    with django_assert_max_num_queries(5):
        results.survey_results(survey)
    wide = wide_survey()
    add_responses(wide, 500, seed=4)
    with django_assert_max_num_queries(5):
        found = results.survey_results(wide)
    assert [result.n for result in found.questions] == [500] * 4


def captured(call):
    with CaptureQueriesContext(connection) as queries:
        call()
    return [q["sql"] for q in queries.captured_queries]


def report_queries(call):
    return [sql for sql in captured(call) if "collection_report" in sql]


def test_it_reads_the_tallies_and_never_scans_reports_or_responses(survey):
    add_responses(survey, 50, seed=5)
    found = captured(lambda: results.survey_results(survey))
    assert not [sql for sql in found if "collection_report" in sql]
    # The only reads of responses: the version check's two index seeks (issue 14, item 6), LIMIT 1 each.
    responses = [sql for sql in found if "collection_response" in sql]
    assert len(responses) == 2 and all("mechanism_version" in sql and sql.endswith("LIMIT 1") for sql in responses)
    tally = [sql for sql in found if "collection_tally" in sql]
    assert len(tally) == 1 and "GROUP BY" in tally[0]


def test_its_query_count_does_not_depend_on_the_number_of_responses(survey):
    add_responses(survey, 3, seed=8)
    few = captured(lambda: results.survey_results(survey))
    add_responses(survey, 600, seed=9)
    many = captured(lambda: results.survey_results(survey))
    assert len(few) == len(many)
    assert results.survey_results(survey).responses == 603


def questions_of(survey):
    return plan.of(survey).questions


def test_its_counts_and_estimates_equal_a_scan_of_the_reports(db):
    wide = wide_survey()
    add_responses(wide, 300, seed=10)
    questions = questions_of(wide)
    tallied, scanned = tallies.read(questions), tallies.count_from_reports(questions)
    for question in questions:
        (tc, tn), (sc, sn) = tallied[question.id], scanned[question.id]
        assert tn == sn == 300 and list(tc) == list(sc)
        assert question.mechanism.estimate(tc, tn) == question.mechanism.estimate(sc, sn)


def test_the_report_scan_counts_each_question_with_one_grouped_query_when_none_has_many_options(survey):
    add_responses(survey, 50, seed=5)
    questions = questions_of(survey)
    found = report_queries(lambda: tallies.count_from_reports(questions))
    assert len(found) == len(questions) and all("GROUP BY" in sql for sql in found)


def test_the_report_scan_sums_the_bits_of_unary_questions_with_many_options_in_a_second_query(db):
    wide = wide_survey()  # its SUE question has 20 options, more than 16
    add_responses(wide, 20, seed=6)
    questions = questions_of(wide)
    found = report_queries(lambda: tallies.count_from_reports(questions))
    assert len(found) == len(questions) and all("GROUP BY" in sql for sql in found)  # the SUE's bits in one


def test_it_reports_no_estimate_but_a_plan_before_any_response(survey):
    found = results.survey_results(survey, ResultOptions(interval="wilson"))
    assert found.responses == 0
    for result in found.questions:
        assert result.n == 0 and all(math.isnan(x) for x in result.estimate.estimate)
        assert result.margin_now == math.inf
        assert result.needed == result.still_needed == ldp.respondents_needed(result.mechanism, 0.05)
        assert QuestionEstimatesSerializer(result).data["options"][0]["estimate"] is None
        assert QuestionEstimatesSerializer(result).data["planner"]["margin_now"] is None


def test_its_planner_uses_the_bonferroni_level_when_simultaneous(survey):
    add_responses(survey, 100, seed=6)
    found = by_order(results.survey_results(survey, ResultOptions(interval="wilson", simultaneous=True, margin=0.1)))
    krr = found[3]
    level = 1 - 0.05 / 3
    assert krr.level == pytest.approx(level)
    assert krr.needed == ldp.respondents_needed(krr.mechanism, 0.1, level)
    assert krr.margin_now == pytest.approx(ldp.margin_at(krr.mechanism, 100, level))
    assert krr.still_needed == max(0, krr.needed - 100)


def test_it_sums_the_effective_epsilons(survey):
    found = results.survey_results(survey)
    assert found.epsilon_total == pytest.approx(plan.of(survey).epsilon_total)


def test_it_refuses_reports_outside_the_options(survey):
    store(survey, {survey.questions.get(order=1): np.array([0, 1])})
    Report.objects.filter(question__order=1).update(value=7)
    with pytest.raises(results.Unavailable):
        tallies.count_from_reports(questions_of(survey))
    with pytest.raises(tallies.CountError):
        tallies.rebuild(survey)


def test_it_refuses_tallies_outside_the_options(survey):
    Tally.objects.create(question=survey.questions.get(order=3), slot=7, shard=0, count=1)
    with pytest.raises(results.Unavailable):
        results.survey_results(survey)


def test_its_overview_counts_responses_per_survey(survey, superuser):
    add_responses(survey, 7, seed=7)
    Survey.objects.create(slug="empty", title="Empty")
    summaries = {s.survey.slug: s for s in results.overview(Survey.objects.all())}
    assert summaries["health"].responses == 7 and summaries["health"].questions == 4
    assert summaries["health"].epsilon_total == pytest.approx(plan.of(survey).epsilon_total)
    assert summaries["empty"].responses == 0 and summaries["empty"].epsilon_total == 0
