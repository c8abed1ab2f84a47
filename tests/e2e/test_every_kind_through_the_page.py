"""Every kind of question end to end in a real browser: respondents answer one survey of them all through
the page, in two groups with different true answers; their browsers randomize and post; the stored reports
follow the published channel for each group's true answer (ldp.offline.audit over ldp's report cells), and the
estimates API holds the planted truth in its 99.9% interval.

The randomizer alone is checked against every channel at 10^5 draws in the browser
(test_randomizer_conformity); this test is for what lies between it and the database (the inputs read,
the payload, the stored value), whose faults move whole cells. Every respondent is a page load (0.5 CPU-s
of Chromium), so one survey holds every kind and GROUP is the fewest that still show such a fault: at 60
per truth a yes/no report stored flipped moves its cell from 75% to 25%, 9 standard errors, and an option
stored as its neighbour moves a 3-option k-RR cell at epsilon 2 from 79% to 11%, 13 standard errors."""

import pytest

from ldp.offline.audit import audit, tabulate
from surveys.collection import builder, plan
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Report, Survey
from tests.e2e.answering import submit_many

pytestmark = pytest.mark.django_db(transaction=True)
GROUP = 60  # respondents per true answer; two groups


def make(slug, *questions, owner):
    survey = builder.create_survey(slug, slug.title(), questions, status=Survey.Status.OPEN, epsilon_budget=20)
    survey.researchers.add(owner)
    return survey


def run(browser, live_server, survey, first, second):
    """GROUP respondents answering `first`, then GROUP answering `second`; the first group's response ids."""
    url = f"{live_server.url}/s/{survey.slug}/"
    submit_many(browser, url, lambda i: first, GROUP)
    first_group = set(survey.responses.values_list("id", flat=True))
    submit_many(browser, url, lambda i: second, GROUP)
    assert survey.responses.count() == 2 * GROUP
    return first_group


def assert_channel(survey, first_group, truths):
    """The stored reports of each group follow the sampler for that group's truth (as ldp.offline.audit counts it)."""
    for question, (truth_a, truth_b) in zip(plan.of(survey), truths, strict=True):
        rows = {}
        for truth, inside in ((truth_a, True), (truth_b, False)):
            histogram = {}
            for response, value in Report.objects.filter(question_id=question.id).values_list("response_id", "value"):
                if (response in first_group) == inside:
                    reported = question.mechanism.decode(value)
                    key = sum(bit << j for j, bit in enumerate(reported)) if isinstance(reported, list) else reported
                    histogram[key] = histogram.get(key, 0) + 1
            rows[truth] = tabulate(question.mechanism.sampler(), histogram)
        result = audit(question.mechanism.sampler(), rows, GROUP, alpha=1e-6)
        assert result.failures == () and result.passed, (question.order, result)
        assert result.epsilon_lower_bound <= result.claimed_epsilon, (question.order, result)


def estimates(client, owner, survey):
    client.force_login(owner)
    return client.get(f"/api/v1/surveys/{survey.slug}/estimates/?confidence=0.999").json()["questions"]


def test_reports_sent_through_the_page_follow_the_channel_and_the_estimates_hold_the_truth(
        live_server, browser, client, owner):
    survey = make(
        "kinds",
        QuestionSpec("Cheated?", "qrr", q="0.5"),
        QuestionSpec("How often?", "krr", epsilon=2.0, options=["Never", "Sometimes", "Often"]),
        QuestionSpec("Which party?", "oue", epsilon=2.0, options=["A", "B", "C", "D"]),
        QuestionSpec("Region?", "direct", options=["North", "Centre", "South"]),  # the identity channel
        QuestionSpec("Which?", "multiselect", epsilon=3.0, kind="multi_select", options=["A", "B", "C", "D"],
                     at_most=2),
        QuestionSpec("Hours?", "onebit", epsilon=2.0, kind="numeric", scale=("0", "40", "1")),
        QuestionSpec("Drinks?", "dlaplace", epsilon=3.0, kind="numeric", scale=("0", "10", "0.5")),
        QuestionSpec("Age?", "krr", epsilon=3.0, kind="numeric", scale=("0", "99", "1"),
                     options=["0 to 17", "18 to 64", "65 to 99"], edges=["0", "18", "65"]),
        QuestionSpec("Often?", "oue", epsilon=3.0, kind="ordinal",
                     options=["Never", "Sometimes", "Often", "Prefer not to say"], scores=["1", "2", "3", None]),
        owner=owner)
    # The ages either side of an edge; the numbers' truths as grid indexes, the age's as its bin; the second level
    # ("Sometimes") and the unscored one.
    first_group = run(browser, live_server, survey, [0, 0, 0, 0, [0, 2], "10", "2.5", "17", 1],
                      [1, 1, 1, 1, [1], "30", "7", "18", 3])
    assert_channel(survey, first_group, [(0, 1), (0, 1), (0, 1), (0, 1), (0b0101, 0b0010), (10, 30), (5, 14),
                                         (0, 1), (1, 3)])

    yes_no, often, party, region, ticks, hours, drinks, ages, levels = estimates(client, owner, survey)
    for question, truths in ((yes_no, [0.5, 0.5]), (often, [0.5, 0.5, 0.0]), (party, [0.5, 0.5, 0.0, 0.0]),
                             (region, [0.5, 0.5, 0.0]), (ticks, [0.5, 0.5, 0.5, 0.0]), (ages, [0.5, 0.5, 0.0]),
                             (levels, [0.0, 0.5, 0.0, 0.5])):
        for option, truth in zip(question["options"], truths, strict=True):
            assert option["ci_low"] <= truth <= option["ci_high"], (question["order"], option, truth)
    assert hours["mean"]["ci_low"] <= 20 <= hours["mean"]["ci_high"] and hours["mean"]["n"] == 2 * GROUP
    assert drinks["mean"]["ci_low"] <= 4.75 <= drinks["mean"]["ci_high"]
    # The scored half all answered 2, inside the scores' range: at its ends the mean score's interval is tested
    # by simulation (tests/ldp/test_ordinal.py).
    assert levels["mean"]["ci_low"] <= 2.0 <= levels["mean"]["ci_high"]
