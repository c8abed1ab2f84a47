"""The plan of a survey with the new kinds: each question's scale, bins and scores, read with the rest
in one query; a version that covers them; refused (409) when stored bins cannot be read."""

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from surveys.collection import plan
from surveys.collection.models import Option, Question
from surveys.collection.scales import Scale
from tests.collection.helpers import question

D = Decimal


def test_it_reads_each_questions_scale_bins_and_scores_in_one_query(kinds_survey):
    with CaptureQueriesContext(connection) as queries:
        multi, onebit, dlaplace, ages, gamble = plan.of(kinds_survey)
    assert len(queries.captured_queries) == 1
    assert (onebit.scale, dlaplace.scale) == (Scale(D(0), D(100), D(1)), Scale(D(0), D(10), D("0.5")))
    assert ages.edges == (D(0), D(18), D(35), D(65)) and ages.edge_indexes == [0, 18, 35, 65]
    assert gamble.scores == (D(1), D(2), D(3), None) and multi.scores == ()
    assert [q.mean for q in (multi, onebit, dlaplace, ages, gamble)] == [False, True, True, False, False]
    assert [q.histogram for q in (multi, onebit, dlaplace, ages, gamble)] == [False, False, False, True, False]
    assert onebit.options == () and ages.options == ("0 to 17", "18 to 34", "35 to 64", "65 to 120")


def test_only_a_numeric_mean_cannot_be_related(kinds_survey):
    assert [q.relatable for q in plan.of(kinds_survey)] == [True, False, False, True, True]


@pytest.mark.parametrize("order, change", [
    (4, lambda q: Option.objects.filter(question=q, order=1).update(lower=D(20))),  # a bin edge
    (5, lambda q: Option.objects.filter(question=q, order=0).update(score=D(0))),  # a score
    (2, lambda q: Question.objects.filter(pk=q.pk).update(hi=D(200))),  # the scale
    (1, lambda q: Question.objects.filter(pk=q.pk).update(at_most=3)),  # the at-most limit
])
def test_the_version_changes_with_a_bin_edge_a_score_a_scale_or_a_limit(kinds_survey, order, change):
    before = plan.of(kinds_survey).version
    change(question(kinds_survey, order))
    assert plan.of(kinds_survey).version != before


def test_decimals_read_the_same_however_the_database_writes_them(kinds_survey):
    Question.objects.filter(pk=question(kinds_survey, 3).pk).update(hi=D("10.000000"), step=D("0.500000"))
    assert plan.of(kinds_survey).questions[2].mechanism.to_dict()["step"] == "0.5"


def test_bins_edited_out_of_order_make_the_survey_unavailable_not_a_wrong_plan(kinds_survey):
    ages = question(kinds_survey, 4)
    Option.objects.filter(question=ages, order=1).update(lower=D(40))  # 0, 40, 35, 65: swapped edges
    with pytest.raises(plan.Unavailable, match="question 4: The lower edges must increase"):
        plan.of(kinds_survey)


def test_a_numeric_histogram_without_bins_is_unavailable(kinds_survey):
    Option.objects.filter(question=question(kinds_survey, 4)).delete()
    with pytest.raises(plan.Unavailable, match="at least two bins"):
        plan.of(kinds_survey)
