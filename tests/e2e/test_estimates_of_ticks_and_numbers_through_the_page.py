"""Each new kind end to end in a real browser: respondents answer through the page (two groups with
different true answers), their browsers randomize and post, the stored reports follow the published
channel for each group's true answer (ldp.audit over ldp's report cells), and the estimates API holds
the planted truth in its 99.9% interval."""

import pytest

from ldp.audit import audit, tabulate
from surveys.collection import builder, plan
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Report, Survey
from tests.e2e.answering import submit_many

pytestmark = pytest.mark.django_db(transaction=True)
GROUP = 50  # respondents per true answer; two groups per test


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
    """The stored reports of each group follow the sampler for that group's truth (as ldp.audit counts it)."""
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


def estimates(client, owner, survey):
    client.force_login(owner)
    return client.get(f"/api/v1/surveys/{survey.slug}/estimates/?confidence=0.999").json()["questions"]


def test_a_multi_select_through_the_page(live_server, browser, client, owner):
    survey = make("ticks", QuestionSpec("Which?", "multiselect", epsilon=3.0, kind="multi_select",
                                        options=["A", "B", "C", "D"], at_most=2), owner=owner)
    first_group = run(browser, live_server, survey, [[0, 2]], [[1]])
    assert_channel(survey, first_group, [(0b0101, 0b0010)])
    options = estimates(client, owner, survey)[0]["options"]
    for option, truth in zip(options, [0.5, 0.5, 0.5, 0.0], strict=True):
        assert option["ci_low"] <= truth <= option["ci_high"], (option, truth)


def test_numeric_means_through_the_page(live_server, browser, client, owner):
    survey = make("amounts",
                  QuestionSpec("Hours?", "onebit", epsilon=2.0, kind="numeric", scale=("0", "40", "1")),
                  QuestionSpec("Drinks?", "dlaplace", epsilon=3.0, kind="numeric", scale=("0", "10", "0.5")),
                  owner=owner)
    first_group = run(browser, live_server, survey, ["10", "2.5"], ["30", "7"])
    assert_channel(survey, first_group, [(10, 30), (5, 14)])  # grid indexes
    hours, drinks = (q["mean"] for q in estimates(client, owner, survey))
    assert hours["ci_low"] <= 20 <= hours["ci_high"] and hours["n"] == 2 * GROUP
    assert drinks["ci_low"] <= 4.75 <= drinks["ci_high"]


def test_a_numeric_histogram_through_the_page(live_server, browser, client, owner):
    survey = make("ages", QuestionSpec("Age?", "krr", epsilon=3.0, kind="numeric", scale=("0", "99", "1"),
                                       options=["0 to 17", "18 to 64", "65 to 99"], edges=["0", "18", "65"]),
                  owner=owner)
    first_group = run(browser, live_server, survey, ["17"], ["18"])  # either side of an edge
    assert_channel(survey, first_group, [(0, 1)])  # the bins
    options = estimates(client, owner, survey)[0]["options"]
    for option, truth in zip(options, [0.5, 0.5, 0.0], strict=True):
        assert option["ci_low"] <= truth <= option["ci_high"], (option, truth)


def test_an_ordinal_question_through_the_page(live_server, browser, client, owner):
    survey = make("levels", QuestionSpec("Often?", "oue", epsilon=3.0, kind="ordinal",
                                         options=["Never", "Sometimes", "Often", "Prefer not to say"],
                                         scores=["1", "2", "3", None]), owner=owner)
    first_group = run(browser, live_server, survey, [0], [3])
    assert_channel(survey, first_group, [(0, 3)])
    found = estimates(client, owner, survey)[0]
    for option, truth in zip(found["options"], [0.5, 0.0, 0.0, 0.5], strict=True):
        assert option["ci_low"] <= truth <= option["ci_high"], (option, truth)
    assert found["mean"]["ci_low"] <= 1.0 <= found["mean"]["ci_high"]  # the scored half all answered 1
