"""Tallies of the new kinds: per-option (per-bit, per-bin, per-level) counters as before; the 1-bit
mean's two counters; discrete Laplace only its n (its estimate reads the stored values instead), so
a grid of a million steps never becomes a million counter rows."""

import numpy as np
import pytest
from django.db.models import Sum

from surveys.collection import builder, plan, submission, tallies
from surveys.collection.models import TALLY_N_SLOT, Tally
from tests.collection.helpers import question
from tests.factories import valid_payload


def test_a_submission_counts_each_kinds_slots_and_discrete_laplace_only_in_n(kinds_survey):
    submission.submit(kinds_survey, valid_payload(kinds_survey, values={1: [1, 0, 0, 1], 2: 1, 3: 4, 4: 2, 5: 3}))
    rows = (Tally.objects.filter(question__survey=kinds_survey).values("question__order", "slot")
            .annotate(c=Sum("count")).values_list("question__order", "slot", "c"))
    assert sorted((order, slot) for order, slot, c in rows if c) == [
        (1, -1), (1, 0), (1, 3), (2, -1), (2, 1), (3, -1), (4, -1), (4, 2), (5, -1), (5, 3)]


def test_discrete_laplace_has_no_counter_rows_but_n(kinds_survey):
    current = plan.of(kinds_survey)
    tallies.ensure_rows(current.questions)
    slots = set(Tally.objects.filter(question=question(kinds_survey, 3)).values_list("slot", flat=True))
    assert slots == {TALLY_N_SLOT}
    assert tallies.width(current.questions[2]) == 0 and current.questions[2].mechanism.k == 21


def test_simulated_responses_leave_tallies_that_agree_with_a_recount(kinds_survey):
    builder.simulate_responses(kinds_survey, 400, {}, seed=3)
    current = plan.of(kinds_survey)
    read, recounted = tallies.read(current), tallies.count_from_reports(current)
    for q in current:
        assert np.array_equal(read[q.id][0], recounted[q.id][0]) and read[q.id][1] == recounted[q.id][1] == 400
    assert tallies.differences(kinds_survey) == []


@pytest.mark.slow
def test_a_rebuild_restores_every_kinds_tallies(kinds_survey):
    builder.simulate_responses(kinds_survey, 200, {}, seed=4)
    before = tallies.read(plan.of(kinds_survey))
    Tally.objects.filter(question__survey=kinds_survey).update(count=0)
    assert tallies.differences(kinds_survey) != []
    tallies.rebuild(kinds_survey)
    after = tallies.read(plan.of(kinds_survey))
    assert tallies.differences(kinds_survey) == []
    assert all(np.array_equal(before[pk][0], after[pk][0]) and before[pk][1] == after[pk][1] for pk in before)
