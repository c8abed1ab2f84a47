"""`manage.py demo --types`: the question types demo, one question of each new kind with a stated
truth that the results service recovers; idempotent; the demo researcher sees it; plain `demo`
leaves it out."""

import io

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from surveys.aggregation import params
from surveys.aggregation.results import service as results
from surveys.collection import demo, plan
from surveys.collection.models import Survey


def run_demo(**options):
    out = io.StringIO()
    call_command("demo", stdout=out, **options)
    return out.getvalue()


def types_demo(responses):
    output = run_demo(responses=responses, seed=11, types=True)
    return Survey.objects.get(slug=demo.TYPES_SLUG), output


@pytest.fixture
def large_types_demo(db):
    """Enough responses to recover the stated truths (3,000 responses cost seconds: only that test has them)."""
    return types_demo(3000)


def test_it_has_one_question_of_each_kind_within_its_budget(db):
    survey, output = types_demo(10)
    current = plan.of(survey)
    assert [(q.kind, q.mechanism.name) for q in current] == [
        ("multi_select", "multiselect"), ("numeric", "onebit"), ("numeric", "dlaplace"), ("numeric", "krr"),
        ("ordinal", "krr")]
    assert current.epsilon_total <= survey.epsilon_budget
    assert "Prefer not to say" in current.questions[0].options and current.questions[4].scores[-1] is None
    assert f"/s/{demo.TYPES_SLUG}/" in output and f"/results/{demo.TYPES_SLUG}/" in output
    assert survey.researchers.filter(username="researcher").exists()


def kept_ticks(chances, at_most):
    """P(option j is ticked) once the ticks past `at_most` are dropped, last first: j ticked and at
    most at_most - 1 of the options before it."""
    kept = []
    for j, chance in enumerate(chances):
        before = np.array([1.0])  # the distribution of ticks among options 0..j-1
        for earlier in chances[:j]:
            before = np.convolve(before, [1 - earlier, earlier])
        kept.append(chance * before[:at_most].sum())
    return kept


def truth_mean(question, fractions):
    scale = question.scale
    return sum(float(scale.value(i)) * f for i, f in enumerate(fractions))


@pytest.mark.slow
def test_the_results_recover_the_stated_truth_of_every_kind(large_types_demo):
    survey, _ = large_types_demo
    found = results.survey_results(survey)
    multi, hours, drinks, ages, stress = found.questions
    for j, expected in enumerate(kept_ticks(demo.TYPES_TRUTH[1], 2)):
        assert abs(multi.estimate.estimate[j] - expected) <= 4 * multi.estimate.std_error[j]
    for result, order in ((hours, 2), (drinks, 3)):
        expected = truth_mean(result.question, demo.TYPES_TRUTH[order])
        assert abs(result.mean.mean - expected) <= 4 * result.mean.std_error, (order, result.mean, expected)
    edges = ages.question.edge_indexes + [len(demo.TYPES_TRUTH[4])]
    for j in range(5):
        expected = sum(demo.TYPES_TRUTH[4][edges[j]:edges[j + 1]])
        assert abs(ages.estimate.estimate[j] - expected) <= 4 * ages.estimate.std_error[j]
    levels = demo.TYPES_TRUTH[5]
    expected = sum((j + 1) * p for j, p in enumerate(levels[:5])) / sum(levels[:5])
    assert abs(stress.mean.mean - expected) <= 4 * stress.mean.std_error


def test_every_question_is_past_its_planner_number_at_the_default_responses(db):
    run_demo(responses=1, seed=1, types=True)
    survey = Survey.objects.get(slug=demo.TYPES_SLUG)
    # The fixed-n planner (what a closed demo shows); the anytime planner of an open survey asks for more.
    fixed = params.ResultOptions(interval=params.FIXED_DEFAULT)
    assert results.survey_results(survey, fixed).needed <= 5000  # the command's default


def test_running_it_twice_adds_nothing(db):
    survey, _ = types_demo(10)
    version = plan.of(survey).version
    again = run_demo(responses=3000, seed=12, types=True)
    assert "Question types demo already there: 10 responses." in again
    assert Survey.objects.filter(slug=demo.TYPES_SLUG).count() == 1 and survey.responses.count() == 10
    assert plan.of(survey).version == version


def test_plain_demo_leaves_the_types_demo_out(db):
    run_demo(responses=10, seed=1)
    assert not Survey.objects.filter(slug=demo.TYPES_SLUG).exists()
    assert list(get_user_model().objects.get(username="researcher").visible_surveys.values_list(
        "slug", flat=True)) == ["demo"]
