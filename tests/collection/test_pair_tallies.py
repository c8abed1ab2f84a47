"""Running counts of related pairs of questions (surveys.collection.pair_tallies): once a pair has
been related, every writer keeps its counts equal to a count from the stored reports (the
grouped self-join), which rebuild_counts restores and the purge empties."""

import itertools

import numpy as np
import pytest
from django.db import connection

import ldp
from surveys.aggregation.relating import crosstab
from surveys.collection import answer_rows, builder, pair_tallies, plan, purge, report_columns, submission, tallies
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import PairTally, PairWatch, Report, Response, Survey
from tests.aggregation.support import add_responses
from tests.collection.helpers import failing_insert
from tests.factories import valid_payload


def from_the_reports(a, b):
    """The straightforward count: the self-join's groups of stored values, read by ldp."""
    with connection.cursor() as cursor:
        cursor.execute(*pair_tallies.self_join_sql(a.id, b.id))
        rows = cursor.fetchall()
    if not rows:
        return None
    values_a, values_b, counts = zip(*rows, strict=True)
    return ldp.JointCounts.from_values(a.mechanism, b.mechanism, values_a, values_b, counts)


def whole(counts):
    return None if counts is None else (counts.pairs.tolist(), counts.a_counts.tolist(),
                                        counts.b_counts.tolist(), counts.n)


def submit_random(survey, n, rng):
    """n submissions through the submission service, each question's report drawn at random."""
    for _ in range(n):
        values = {}
        for question in survey.ordered_questions():
            k = question.k()
            unary = question.mechanism_name in ("sue", "oue", "multiselect")
            values[question.order] = rng.integers(0, 2, k).tolist() if unary else int(rng.integers(k))
        assert submission.submit(survey, valid_payload(survey, values=values)).created


def relatable_pairs(survey):
    return list(itertools.permutations([q for q in plan.of(survey) if q.relatable], 2))


def assert_every_pair_counts_its_reports(survey, n):
    for a, b in relatable_pairs(survey):
        kept = crosstab.pair_counts(a, b)
        assert whole(kept) == whole(from_the_reports(a, b)), (a.order, b.order)
        assert kept.n == n
        # The whole table the dashboard and the API show, not just its counts.
        assert (crosstab.of_questions(survey, a, b).cells
                == crosstab.from_counts(survey, a, b, from_the_reports(a, b)).cells)


def test_every_pair_keeps_the_counts_of_its_reports_through_submissions(survey):
    rng = np.random.default_rng(1)
    submit_random(survey, 12, rng)
    for a, b in relatable_pairs(survey):  # related once: counted from the reports, then watched
        crosstab.pair_counts(a, b)
    assert PairWatch.objects.count() == 6  # one per unordered pair of the four questions
    submit_random(survey, 30, rng)
    assert_every_pair_counts_its_reports(survey, 42)


def test_bulk_writes_keep_them_for_every_kind_that_relates(kinds_survey):
    builder.simulate_responses(kinds_survey, 40, {}, seed=2)
    for a, b in relatable_pairs(kinds_survey):
        crosstab.pair_counts(a, b)
    builder.simulate_responses(kinds_survey, 70, {}, seed=3)
    assert_every_pair_counts_its_reports(kinds_survey, 110)


def test_a_pair_related_before_any_response_counts_from_the_first(survey):
    a, b = plan.of(survey).questions[2:4]  # k-RR with 3 options x OUE with 4
    assert crosstab.pair_counts(a, b) is None and PairWatch.objects.count() == 1
    submit_random(survey, 9, np.random.default_rng(4))
    assert whole(crosstab.pair_counts(b, a)) == whole(from_the_reports(b, a))


def test_submissions_write_no_pair_counts_before_a_pair_is_related(survey):
    submit_random(survey, 5, np.random.default_rng(5))
    assert not PairTally.objects.exists()


def test_a_refused_submission_counts_in_no_pair(survey):
    submit_random(survey, 6, np.random.default_rng(6))
    a, b = plan.of(survey).questions[:2]
    before = whole(crosstab.pair_counts(a, b))
    with failing_insert(Report), pytest.raises(Exception, match="injected failure"):
        submission.submit(survey, valid_payload(survey))
    assert whole(crosstab.pair_counts(a, b)) == before == whole(from_the_reports(a, b))


def test_rebuild_counts_finds_and_mends_a_pair_out_of_step(survey):
    submit_random(survey, 20, np.random.default_rng(7))
    current = plan.of(survey)
    a, c = current.questions[0], current.questions[2]
    crosstab.pair_counts(a, c)
    Response.objects.filter(pk=Response.objects.order_by("pk").values("pk")[:1]).delete()  # no tally update
    found = [str(d) for d in tallies.differences(survey) if isinstance(d, tallies.PairDifference)]
    assert len(found) == 1 and found[0].startswith("health questions 1 x 3: cells ")
    tallies.rebuild(survey)
    assert tallies.differences(survey) == []
    assert whole(crosstab.pair_counts(a, c)) == whole(from_the_reports(a, c))
    assert crosstab.pair_counts(a, c).n == 19


def test_the_purge_keeps_the_pairs_watched_with_no_counts(survey):
    submit_random(survey, 8, np.random.default_rng(8))
    a, b = plan.of(survey).questions[1:3]
    crosstab.pair_counts(a, b)
    purge.purge(survey)
    assert PairWatch.objects.count() == 1 and not PairTally.objects.exists()
    assert crosstab.pair_counts(a, b) is None


@pytest.mark.parametrize("value", [3, 8])  # question 3 is k-RR with options 0, 1, 2
def test_a_stored_value_outside_the_question_is_unavailable_not_counted(survey, value):
    a, b = plan.of(survey).questions[2:4]
    add_responses(survey, 5, seed=9)
    Report.objects.filter(question_id=a.id).update(value=value)
    answer_rows.rebuild(survey.pk, plan.of(survey))  # the responses' copies follow, as after any edit by hand
    with pytest.raises(plan.Unavailable, match="questions 3 and 4: stored reports cannot be read"):
        crosstab.pair_counts(a, b)
    assert not PairWatch.objects.exists()


def columns_read(monkeypatch):
    """The question ids of each `report_columns.complete` call, in order."""
    read, complete = [], report_columns.complete
    monkeypatch.setattr(report_columns, "complete", lambda ids, *beside: read.append(ids) or complete(ids, *beside))
    return read


def test_watching_a_break_down_reads_each_question_once_and_counts_each_pair_as_alone(survey, monkeypatch):
    submit_random(survey, 25, np.random.default_rng(10))
    q = plan.of(survey).questions
    pairs = [pair_tallies.ordered(q[0], other)[:2] for other in q[1:]]
    read, done = columns_read(monkeypatch), []
    counted = pair_tallies.watch_all(pairs, lambda a, b: done.append((a.id, b.id)))
    assert read == [sorted(x.id for x in q)]
    assert done == [(a.id, b.id) for a, b in pairs]
    assert counted == [pair_tallies.count_from_reports(a, b) for a, b in pairs]
    assert [whole(crosstab.pair_counts(a, b)) for a, b in pairs] == [whole(from_the_reports(a, b)) for a, b in pairs]


def test_a_break_down_asks_for_the_unary_questions_together_so_that_each_connection_reads_half(db, monkeypatch):
    interleaved = builder.create_survey("mixed", "Mixed", [
        QuestionSpec("A?", "oue", epsilon=1.0, options=["a", "b", "c", "d"]), QuestionSpec("B?", "qrr", q="0.5"),
        QuestionSpec("C?", "sue", epsilon=1.0, options=["a", "b", "c", "d"]), QuestionSpec("D?", "qrr", q="0.5"),
        QuestionSpec("E?", "oue", epsilon=1.0, options=["a", "b", "c", "d"]), QuestionSpec("F?", "qrr", q="0.5"),
        QuestionSpec("G?", "oue", epsilon=1.0, options=["a", "b", "c", "d"]), QuestionSpec("H?", "qrr", q="0.5")],
        status=Survey.Status.OPEN, epsilon_budget=20.0)
    submit_random(interleaved, 5, np.random.default_rng(12))
    q = plan.of(interleaved).questions
    read = columns_read(monkeypatch)
    pair_tallies.watch_all([pair_tallies.ordered(q[1], other)[:2] for other in q if other.id != q[1].id])
    assert read == [[q[1].id, q[3].id, q[5].id, q[7].id, q[0].id, q[2].id, q[4].id, q[6].id]]
    assert read[0][::2] == [q[1].id, q[5].id, q[0].id, q[4].id]  # each half: two unary questions of four


def test_a_break_down_with_a_question_some_skipped_watches_pair_by_pair(survey, monkeypatch):
    submit_random(survey, 25, np.random.default_rng(11))
    q = plan.of(survey).questions
    Report.objects.filter(question_id=q[2].id, response__in=Response.objects.filter(survey=survey)[:3]).delete()
    tallies.rebuild(survey)
    pairs = [pair_tallies.ordered(q[0], other)[:2] for other in q[1:]]
    read = columns_read(monkeypatch)
    counted = pair_tallies.watch_all(pairs)
    assert read == [sorted(x.id for x in q), *([a.id, b.id] for a, b in pairs)]
    assert [whole(crosstab.pair_counts(a, b)) for a, b in pairs] == [whole(from_the_reports(a, b)) for a, b in pairs]
    assert counted == [pair_tallies.read(a, b) for a, b in pairs]
    assert crosstab.pair_counts(*pairs[1]).n == 22
