"""Results across waves (surveys.aggregation.waves.series): each wave debiased through the channel its reports were
made with, the change between two waves as ldp computes it, a wave's other mechanism marked, and only the waves
the researcher may see."""

from __future__ import annotations

import pytest

from ldp.waves.pairs import FEWEST_CHANGES, WaveChannel, between
from surveys.aggregation.params import BadParameter, ResultOptions
from surveys.aggregation.waves import series as waves
from surveys.collection.models import Question, Response
from surveys.collection.plan import Unavailable
from tests.aggregation.series_support import layers, monthly, store_waves


def trend_of(found, order):
    return next(trend for trend in found.trends if trend.question.order == order)


def expected_estimates(surveys, values, order, confidence):
    """Each wave's estimate straight from ldp: the composed channel's, on the counts of the stored values."""
    found = {}
    for survey in surveys:
        question = next(q for q in survey.ordered_questions() if q.order == order)
        remembered = Question.objects.get(pk=question.pk).remembered()
        reports = values[survey.wave][question.pk]
        found[survey.wave] = remembered.estimate(question.mechanism().counts(reports), len(reports),
                                                 confidence=confidence)
    return found


def test_each_wave_is_debiased_through_the_composed_channel_of_both_layers(owner):
    surveys = monthly(owner)
    values = store_waves(surveys, 300, seed=1, fresh=50)
    found = waves.series_results(surveys[2], owner, ResultOptions(confidence=0.9))
    for order in (1, 2):
        expected = expected_estimates(surveys, values, order, 0.9)
        assert [(p.wave, p.estimate) for p in trend_of(found, order).points] == sorted(expected.items())
    assert [(w.number, w.responses, w.repeated) for w in found.waves] == [(1, 350, 0), (2, 350, 300), (3, 350, 300)]


def test_the_change_from_first_to_last_is_ldps_with_the_flagged_respondents_shared(owner):
    surveys = monthly(owner)
    values = store_waves(surveys, 300, seed=2, fresh=50)
    found = waves.series_results(surveys[2], owner, ResultOptions(first=1, second=3))
    for order in (1, 2):
        expected = expected_estimates(surveys, values, order, 0.95)
        one, three = (layers(surveys[w])[order] for w in (0, 2))
        design = [WaveChannel.of(layer.instant, layer) for layer in (one, three)]
        trend = trend_of(found, order)
        assert (trend.first, trend.second) == (1, 3)
        assert trend.change == between(expected[1], expected[3], *design, shared=300, confidence=0.95)
        assert trend.change.correlation == FEWEST_CHANGES


def test_one_panel_under_one_design_gives_what_ldp_waves_gives(owner):
    surveys = monthly(owner)
    values = store_waves(surveys, 300, seed=3)
    found = waves.series_results(surveys[0], owner, ResultOptions(first=3, second=1))
    expected = expected_estimates(surveys, values, 1, 0.95)
    change = trend_of(found, 1).change
    reference = layers(surveys[0])[1].difference(expected[3], expected[1])
    for field in ("estimate", "std_error", "ci_low", "ci_high"):
        assert getattr(change, field) == pytest.approx(getattr(reference, field), rel=1e-12, abs=1e-15)


def test_a_wave_whose_mechanism_differs_is_marked(owner):
    surveys = monthly(owner)
    store_waves(surveys, 150, seed=4)
    found = waves.series_results(surveys[2], owner, ResultOptions())
    assert [(p.wave, p.same) for p in trend_of(found, 2).points] == [(1, True), (2, False), (3, True)]
    assert trend_of(found, 2).differs and not trend_of(found, 1).differs
    from_wave_2 = waves.series_results(surveys[1], owner, ResultOptions())
    assert [p.same for p in trend_of(from_wave_2, 2).points] == [False, True, False]


def test_without_remembered_randomization_each_wave_debiases_through_its_own_mechanism(owner):
    surveys = monthly(owner, remembered=False)
    values = store_waves(surveys, 200, seed=5)
    found = waves.series_results(surveys[2], owner, ResultOptions())
    for point, survey in zip(trend_of(found, 2).points, surveys, strict=True):
        question = next(q for q in survey.ordered_questions() if q.order == 2)
        reports = values[survey.wave][question.pk]
        assert point.remembered is None
        assert point.estimate == question.mechanism().estimate(question.mechanism().counts(reports), 200)
        assert point.epsilon == question.mechanism().effective_epsilon


def test_the_multi_select_is_listed_as_not_compared(owner):
    found = waves.series_results(monthly(owner)[0], owner, ResultOptions())
    assert [q.order for q in found.not_compared] == [3] and [t.question.order for t in found.trends] == [1, 2]


def test_a_researcher_sees_only_the_waves_they_are_assigned_to(owner, other_researcher):
    surveys = monthly(owner)
    store_waves(surveys, 150, seed=6)
    for survey in (surveys[0], surveys[2]):
        survey.researchers.add(other_researcher)
    found = waves.series_results(surveys[2], other_researcher, ResultOptions())
    assert [w.number for w in found.waves] == [1, 3]
    assert all([p.wave for p in trend.points] == [1, 3] for trend in found.trends)
    with pytest.raises(BadParameter) as refused:
        waves.series_results(surveys[2], other_researcher, ResultOptions(first=2))
    assert (refused.value.field, refused.value.reason) == (
        "first", "no such wave of this series among those you may see: 1, 3")
    alone = waves.series_results(surveys[0], owner_of_one(surveys[0]), ResultOptions())
    assert [w.number for w in alone.waves] == [1] and alone.first is None
    assert all(trend.change is None for trend in alone.trends)


def owner_of_one(survey):
    from tests.factories import make_user
    user = make_user("one-wave")
    survey.researchers.add(user)
    return user


def test_it_refuses_comparing_a_wave_with_itself(owner):
    surveys = monthly(owner)
    with pytest.raises(BadParameter) as refused:
        waves.series_results(surveys[0], owner, ResultOptions(first=2, second=2))
    assert refused.value.field == "second"


def test_a_survey_in_no_series_has_no_waves(survey, owner):
    assert waves.series_results(survey, owner, ResultOptions()) is None


def test_a_wave_without_reports_has_no_change(owner):
    surveys = monthly(owner, waves=2)
    found = waves.series_results(surveys[1], owner, ResultOptions())
    assert [(w.number, w.responses, w.unavailable, w.first_day, w.last_day) for w in found.waves] == [
        (1, 0, None, None, None), (2, 0, None, None, None)]
    assert all(trend.change is None for trend in found.trends)


def test_a_wave_whose_configuration_cannot_be_read_is_left_out_and_said(owner):
    surveys = monthly(owner)
    store_waves(surveys, 200, seed=7)
    Response.objects.filter(survey=surveys[1]).update(mechanism_version="0123456789abcdef")  # made with another
    found = waves.series_results(surveys[2], owner, ResultOptions(first=1, second=3))
    assert [(w.number, w.responses, w.unavailable is not None) for w in found.waves] == [
        (1, 200, False), (2, 0, True), (3, 200, False)]
    assert all([p.wave for p in trend.points] == [1, 3] and trend.missing == (2,) for trend in found.trends)
    assert all(trend.change is not None for trend in found.trends)
    with pytest.raises(Unavailable):
        waves.series_results(surveys[1], owner, ResultOptions())
