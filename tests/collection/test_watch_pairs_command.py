"""manage.py watch_pairs: counts the chosen pairs from the reports and watches them, ahead of the dashboard."""

import io
import itertools

import pytest
from django.core.management import CommandError, call_command

from surveys.collection import pair_tallies, plan
from surveys.collection.models import PairWatch
from tests.aggregation.support import add_responses


def watched(survey):
    orders = {q.id: q.order for q in plan.of(survey)}
    return sorted((orders[a], orders[b]) for a, b in PairWatch.objects.values_list("question_a_id", "question_b_id"))


@pytest.mark.parametrize("arguments, pairs", [
    (["--by", "3"], [(1, 3), (2, 3), (3, 4)]),
    (["--pair", "4-2"], [(2, 4)]),
    (["--all"], list(itertools.combinations([1, 2, 3, 4], 2))),
])
def test_it_watches_the_chosen_pairs_with_the_counts_of_their_reports(survey, arguments, pairs):
    add_responses(survey, 60, seed=1)
    call_command("watch_pairs", "health", *arguments, stdout=io.StringIO())
    assert watched(survey) == pairs
    by_order = {q.order: q for q in plan.of(survey)}
    for a, b in pairs:
        first, second = pair_tallies.ordered(by_order[a], by_order[b])[:2]
        assert pair_tallies.read(first, second) == pair_tallies.count_from_reports(first, second)


@pytest.mark.parametrize("arguments, message", [
    (["--by", "9"], "--by: no question 9"),
    (["--pair", "2-2"], "two different questions"),
    (["--pair", "two"], "two question orders"),
])
def test_it_refuses_questions_the_survey_does_not_have_and_watches_nothing(survey, arguments, message):
    with pytest.raises(CommandError, match=message):
        call_command("watch_pairs", "health", *arguments)
    assert not PairWatch.objects.exists()


def test_it_refuses_an_unknown_survey(db):
    with pytest.raises(CommandError, match="no such survey: nope"):
        call_command("watch_pairs", "nope", "--all")
