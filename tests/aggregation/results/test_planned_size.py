"""The confidence sequences use the survey's planned size, fixed at Open: never the planner's margin asked for
now (page or API), and the dashboard says what it was planned for, where it was re-planned, and when a survey
opened before sizes were stored takes the planner's figure at the defaults."""

import pytest
from django.urls import reverse

from ldp.sequences.fractions import anytime_respondents_needed, fraction_sequence
from surveys.aggregation.params import ResultOptions
from surveys.aggregation.results import service as results
from surveys.collection.models import Survey
from tests.aggregation.support import add_responses, counts
from tests.collection.pages import parse

N = 61  # where a yes/no question read 0-100% planned at the margin 0.05 and 0-71.3% at 0.5


def planned(survey, size, confidence=0.95, replanned_at=None):
    Survey.objects.filter(pk=survey.pk).update(planned_size=size, planned_confidence=confidence,
                                               replanned_at=replanned_at)
    return Survey.objects.get(pk=survey.pk)


@pytest.mark.parametrize("size", [None, 500])
def test_the_sequences_at_61_are_the_same_for_the_margins_005_and_05(survey, size):
    survey = planned(survey, size)
    add_responses(survey, N, seed=61)
    low, high = (results.survey_results(survey, ResultOptions(margin=margin)) for margin in (0.05, 0.5))
    assert low.planned == high.planned
    assert [r.estimate for r in low.questions] == [r.estimate for r in high.questions]
    assert [r.needed for r in low.questions] != [r.needed for r in high.questions]  # the planner still follows it


def test_the_api_sequences_do_not_follow_its_margin(client, owner, survey):
    add_responses(planned(survey, 500), N, seed=62)
    client.force_login(owner)

    def asked(margin):
        found = client.get(reverse("aggregation:api-estimates", args=[survey.slug]), {"margin": margin}).json()
        return found["planned"], [(q["key"], q["interval"], q["options"]) for q in found["questions"]]

    assert asked("0.05") == asked("0.5")
    assert asked("0.05")[0] == 500


@pytest.mark.parametrize("confidence", [0.95, 0.9])
def test_the_sequences_are_ldps_at_the_stored_size_and_confidence(survey, confidence):
    reports = add_responses(planned(survey, 700, 0.99), 200, seed=63)
    found = results.survey_results(survey, ResultOptions(confidence=confidence, margin=0.3))
    assert found.planned == 700
    for question, values in reports.items():
        result = next(r for r in found.questions if r.question.id == question.pk)
        fixed = question.mechanism().estimate(counts(question, values), 200, confidence=confidence)
        # At the stored confidence, whatever the box says (issue 39, item 6: the level is fixed at Open too).
        seq = fraction_sequence(result.mechanism, [200], [fixed.counts], confidence=0.99, planned=700)
        assert (result.estimate.ci_low, result.estimate.ci_high) == (tuple(seq.ci_low[0]), tuple(seq.ci_high[0]))


def test_a_survey_without_a_stored_size_takes_the_planners_figure_at_the_defaults(survey):
    add_responses(survey, N, seed=64)
    found = results.survey_results(survey, ResultOptions(confidence=0.9, margin=0.2))
    assert found.planned == max(anytime_respondents_needed(q.mechanism(), 0.05, 0.95)
                                for q in survey.questions.all())


def interval_words(client, owner, survey, query=""):
    client.force_login(owner)
    response = client.get(reverse("aggregation:dashboard", args=[survey.slug]) + query)
    assert response.status_code == 200
    return parse(response.content).by_id("interval-kind").text


EXPLAINED = ("The survey is open: you may look at these results every day and stop whenever you like, and each "
             "question's intervals still hold together at the confidence chosen. They are narrowest at the planned "
             "size, fixed when the survey opened: the planner's margin changes the respondents needed, never these "
             "intervals. An ordinal question's mean score and the cross-tabs have no such interval: theirs are "
             "fixed-n and say so.")  # a survey opened before plans were stored: its level is the one asked for
# With a stored plan the sequences' level is fixed with its size (issue 39, item 6).
PLANNED_EXPLAINED = ("The survey is open: you may look at these results every day and stop whenever you like, and each "
                     "question's intervals still hold together at that level. They are narrowest at the planned size; "
                     "both were fixed before anyone looked, so the confidence chosen above and the planner's margin "
                     "change the respondents needed and the fixed-n intervals, never these intervals. An ordinal "
                     "question's mean score and the cross-tabs have no such interval: theirs are fixed-n and say so.")


def test_the_page_says_what_the_sequences_were_planned_for(client, owner, survey):
    add_responses(planned(survey, 1200, 0.9), N, seed=65)
    assert interval_words(client, owner, survey, "?margin=0.5") == (
        "Intervals valid however often you look (confidence sequences), at the 90% level fixed when the survey "
        f"opened, planned for 1200 respondents. {PLANNED_EXPLAINED} Show fixed-n intervals instead")


def test_the_page_says_where_they_were_replanned(client, owner, survey):
    add_responses(planned(survey, 1200, replanned_at=N), N, seed=66)
    assert interval_words(client, owner, survey) == (
        "Intervals valid however often you look (confidence sequences), at the 95% level fixed when the survey "
        f"opened, planned for 1200 respondents. {PLANNED_EXPLAINED} The sequences were re-planned at n = 61, after the "
        "first report (the reason is in the survey's history). Show fixed-n intervals instead")


def test_the_page_says_when_the_size_is_the_planners_figure_for_an_older_survey(client, owner, survey):
    add_responses(survey, N, seed=67)
    size = results.survey_results(survey).planned
    assert interval_words(client, owner, survey) == (
        f"Intervals valid however often you look (confidence sequences), planned for {size} respondents at 95%. "
        f"{EXPLAINED} This survey opened before planned sizes were fixed at opening: its size is the planner's "
        "figure at the default margin (±5 points) and 95%. Show fixed-n intervals instead")
