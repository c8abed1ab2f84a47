"""Running (cell x stored value) counts for the weighted figures (surveys.collection.cell_tallies): once weighted
figures have been asked for, every writer keeps each question's counts by the margins' cells (and by a break-down's
question) equal to a count from the stored reports; the weighted figures made from them are those made from the
reports; rebuild_counts restores them, the purge empties them, new margins drop them."""

from dataclasses import replace

import numpy as np
import pytest
from django.db import connection, transaction

from surveys.aggregation.params import ResultOptions
from surveys.aggregation.relating import crosstab
from surveys.aggregation.results import service as results
from surveys.aggregation.weighting import margins
from surveys.aggregation.weighting import weights as weighting
from surveys.collection import builder, cell_tallies, plan, purge, submission, tallies
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import CellTally, CellWatch, Report, Survey
from tests.aggregation.support import add_responses, randomized_reports
from tests.aggregation.weighting_support import AGE, REGION, SIX_QUESTIONS, enter
from tests.collection.helpers import failing_insert
from tests.factories import valid_payload

TRUTH = {2: [0.5, 0.3, 0.2], 3: [0.7, 0.3]}


@pytest.fixture
def survey(db, owner):
    """SIX_QUESTIONS (2 and 3 direct, with margins), 7 a numeric mean by the 1-bit mean, 8 by discrete Laplace
    (negative reports)."""
    made = builder.create_survey("cells", "Cells", [
        *SIX_QUESTIONS,
        QuestionSpec("Hours online?", "onebit", epsilon=1.0, kind="numeric", scale=("0", "10", "1")),
        QuestionSpec("Drinks?", "dlaplace", epsilon=1.0, kind="numeric", scale=("0", "10", "0.5")),
    ], status=Survey.Status.OPEN, epsilon_budget=30.0)
    made.researchers.add(owner)
    enter(made, 2, AGE)
    enter(made, 3, REGION)
    return made


def submit(survey, n, seed):
    """n submissions through the submission service, each question's report randomized by ldp."""
    reports = {q.order: values for q, values in randomized_reports(survey, n, seed, TRUTH).items()}
    for i in range(n):
        values = {order: column[i].tolist() if column.ndim == 2 else int(column[i])
                  for order, column in reports.items()}
        assert submission.submit(survey, valid_payload(survey, values=values)).created


def keys_of(survey, *orders):
    found = {q.order: q for q in plan.of(survey)}
    return [found[order] for order in orders]


def kept(survey, keys):
    """Every question's running counts under the watch of `keys`, as lists."""
    current = plan.of(survey)
    found = cell_tallies.read(cell_tallies.find(survey.pk, keys), [q.id for q in current])
    return {q: [column.tolist() for column in rows] for q, rows in found.items()}


def recounted(survey, keys):
    current = plan.of(survey)
    found = cell_tallies._from_reports(keys, list(current))
    return {q.id: [column.tolist() for column in found[q.id]] for q in current}


def weights(survey, by=None):
    current = plan.of(survey)
    return weighting.weights(survey, {q.id: q for q in current}, [q.id for q in current], by=by)


def test_every_question_keeps_the_counts_of_its_reports_by_cell_through_submissions_and_bulk_writes(survey):
    submit(survey, 15, seed=1)
    by = keys_of(survey, 4)[0]
    weights(survey)  # counted from the reports, then watched
    weights(survey, by=by)  # the break-down's watch: the margins' cells by question 4's report
    assert list(CellWatch.objects.filter(survey=survey).order_by("pk").values_list("keys", flat=True)) == [
        ",".join(str(q.id) for q in keys_of(survey, 2, 3)), ",".join(str(q.id) for q in keys_of(survey, 2, 3, 4))]
    submit(survey, 25, seed=2)
    add_responses(survey, 30, seed=3, truth=TRUTH)
    for keys in (keys_of(survey, 2, 3), keys_of(survey, 2, 3, 4)):
        found = kept(survey, keys)
        assert found == recounted(survey, keys)
        assert sum(found[keys[0].id][2]) == 70


def test_weighted_figures_from_the_running_counts_are_those_from_the_reports(survey):
    add_responses(survey, 300, seed=4, truth=TRUTH)
    current = plan.of(survey)
    questions = {q.id: q for q in current}
    for by in (None, *keys_of(survey, 3, 4, 5)):  # none, a margin question, an index-coded one, a unary one
        running = weights(survey, by=by)
        read = weighting.read(survey, questions, [q.id for q in current])
        assert running.tallied is not None and read.tallied is None
        assert running.summary() == read.summary() and running.margins == read.margins
        for question in current:
            leading = () if by is None or by.id == question.id else (by,)
            (design, columns), (expected, expected_columns) = (w.grouped(*leading, question) for w in (running, read))
            for got, want in ((design.weights, expected.weights), (design.counts, expected.counts),
                              *((m.codes, e.codes) for m, e in zip(design.margins, expected.margins, strict=True)),
                              *zip(columns, expected_columns, strict=True)):
                assert np.array_equal(got, want), (by and by.order, question.order)


def test_the_dashboards_weighted_figures_from_the_running_counts_are_those_from_the_reports(survey, monkeypatch):
    add_responses(survey, 300, seed=5, truth=TRUTH)
    options = ResultOptions(weighted=True)
    running = results.survey_results(survey, options)
    by = crosstab.break_down(survey, replace(options, by=keys_of(survey, 4)[0].id))
    assert running.weights.tallied is not None
    monkeypatch.setattr(cell_tallies, "can_key", lambda keys: False)  # the figures read from the reports instead
    read = results.survey_results(survey, options)
    assert read.weights.tallied is None
    assert repr(running.questions) == repr(read.questions)
    tables = crosstab.break_down(survey, replace(options, by=keys_of(survey, 4)[0].id)).tables
    assert [repr(replace(t, weights=None)) for t in by.tables] == [repr(replace(t, weights=None)) for t in tables]


def test_a_response_without_an_answer_to_every_key_is_not_counted(survey):
    cell_tallies.watch(survey.pk, keys_of(survey, 2, 3), list(plan.of(survey)))
    current = {q.order: q.id for q in plan.of(survey)}
    every = {q: 0 for q in current.values()}
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(*cell_tallies.count_sql({q: v for q, v in every.items() if q != current[3]}, 0))
    assert not CellTally.objects.exists()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(*cell_tallies.count_sql(every, 0))
    assert sorted(CellTally.objects.values_list("question_id", "cell", "value", "count")) == [
        (q, 0, 0, 1) for q in sorted(current.values())]


def test_a_submission_that_fails_counts_nothing(survey):
    submit(survey, 6, seed=5)
    weights(survey)
    before = kept(survey, keys_of(survey, 2, 3))
    with failing_insert(Report), pytest.raises(Exception, match="injected failure"):
        submission.submit(survey, valid_payload(survey))
    assert kept(survey, keys_of(survey, 2, 3)) == before == recounted(survey, keys_of(survey, 2, 3))


def test_new_margins_drop_the_watches_and_the_next_figures_count_anew(survey, owner):
    submit(survey, 10, seed=6)
    weights(survey)
    weights(survey, by=keys_of(survey, 4)[0])
    age = margins.validate(survey, [{"question": keys_of(survey, 2)[0].id, "source": "Census",
                                      "shares": [{"option": label, "share": share} for label, share in AGE.items()]}])
    margins.replace(survey, age, owner)
    assert not CellWatch.objects.filter(survey=survey).exists() and not CellTally.objects.exists()
    weights(survey)
    assert kept(survey, keys_of(survey, 2)) == recounted(survey, keys_of(survey, 2))


def test_rebuild_counts_restores_them_and_the_purge_empties_them(survey):
    submit(survey, 12, seed=7)
    weights(survey)
    keys = keys_of(survey, 2, 3)
    CellTally.objects.filter(pk=CellTally.objects.order_by("pk").values("pk")[:1]).update(count=99)
    assert kept(survey, keys) != recounted(survey, keys)
    changed = CellTally.objects.order_by("pk").values_list("question__order", flat=True)[0]
    assert [str(d) for d in tallies.differences(survey)] == [
        f"cells question {changed} by the cells of questions 2, 3: kept counts differ from the reports"]
    tallies.rebuild(survey)
    assert kept(survey, keys) == recounted(survey, keys) and tallies.differences(survey) == []
    purge.purge(survey)
    assert CellWatch.objects.filter(survey=survey).count() == 1 and not CellTally.objects.exists()
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.OPEN)
    survey.refresh_from_db()
    submit(survey, 4, seed=8)
    assert kept(survey, keys) == recounted(survey, keys) and sum(kept(survey, keys)[keys[0].id][2]) == 4
