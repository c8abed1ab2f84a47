"""Remembered randomization in a real browser: one persistent browser context answers two waves of a series with
the same truth, then clears its storage and answers the second wave again (three page loads).

What is stored is checked against the two-layer channel, with the permanent responses worked out here, in Python
(tests/ldp/js_waves_fixture.py: hmac and hashlib), from the secret the browser kept. Two groups of questions make the
two ways to get it wrong visible: group A (8 options, a weak permanent layer, a strong instantaneous one) reports its
permanent response 89% of the time, which a page re-drawing the permanent layer each wave would not (about 13%);
group B (yes/no, a strong permanent layer, a weak instantaneous one) reports it only 60% of the time, which a page
sending the permanent response alone would not (100%). Tolerances: 4 standard errors of a binomial count. (The
survey's total epsilon stays below 50: the page's odds figure is e to that power.)
"""

import json
import math
from decimal import Decimal

import pytest

from ldp.waves import channel
from surveys.collection import builder, waves
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Report, Series, Survey
from tests.e2e.answering import answer
from tests.ldp.js_waves_fixture import permanent_response

pytestmark = pytest.mark.django_db(transaction=True)

OPTIONS = [f"Option {j}" for j in range(8)]
GROUP_A = [QuestionSpec(f"A {i}?", "krr", epsilon=4.0, options=OPTIONS) for i in range(8)]
GROUP_B = [QuestionSpec(f"B {i}?", "qrr", q="0.2") for i in range(40)]
PERMANENT = {"A": {"permanent_epsilon": 0.5}, "B": {"permanent_q": Decimal("0.9")}}
TRUTH = [i % 8 for i in range(len(GROUP_A))] + [i % 2 for i in range(len(GROUP_B))]  # the same in every wave


@pytest.fixture
def series_waves(db):
    series = Series.objects.create(title="Monthly")
    first = builder.create_survey("monthly", "Monthly", GROUP_A + GROUP_B, status=Survey.Status.OPEN,
                                  epsilon_budget=100.0, series=series, wave=1)
    for question in first.questions.all():
        for name, value in PERMANENT[question.text[0]].items():
            setattr(question, name, value)
        question.save()
    second = waves.run_again(first)
    Survey.objects.filter(pk=second.pk).update(status=Survey.Status.OPEN)
    return first, second


def answer_wave(page, url):
    """Loads the wave's page, answers the truth, sends; the POSTed body."""
    page.goto(url)
    page.wait_for_selector("#send:enabled")
    assert page.locator("#client-waves").is_visible()
    answer(page, TRUTH)
    with page.expect_request(lambda r: r.method == "POST") as posted:
        page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")
    return json.loads(posted.value.post_data)


def reports_of(survey, body):
    """The stored reports of the response the body made, in question order."""
    stored = dict(Report.objects.filter(response__survey=survey, response__submission_key=body["key"])
                  .values_list("question__order", "value"))
    return [stored[order] for order in range(1, len(TRUTH) + 1)]


def permanent_responses(survey, secret_hex):
    questions = list(survey.ordered_questions())
    return [permanent_response(bytes.fromhex(secret_hex), survey.series_id, str(q.lineage), TRUTH[i],
                               q.remembered().permanent.sampler()) for i, q in enumerate(questions)]


def agreement(survey, reports, permanent, group):
    """How many of the group's reports equal the permanent response, and the bounds the channel gives it."""
    questions = list(survey.ordered_questions())
    picked = [i for i, q in enumerate(questions) if q.text[0] == group]
    count = sum(reports[i] == permanent[i] for i in picked)
    keep = float(channel(questions[picked[0]].remembered().instant)[0])  # the instantaneous layer keeps it
    mean, se = len(picked) * keep, math.sqrt(len(picked) * keep * (1 - keep))
    return count, (mean - 4 * se, mean + 4 * se)


def within(found):
    count, (low, high) = found
    return low <= count <= high


def test_one_browser_remembers_across_waves_and_clearing_storage_starts_afresh(live_server, browser, series_waves):
    first, second = series_waves
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(30_000)
    one = answer_wave(page, f"{live_server.url}/s/{first.slug}/")
    secret = page.evaluate("() => localStorage.getItem('ldp-waves-secret')")
    two = answer_wave(page, f"{live_server.url}/s/{second.slug}/")
    assert page.evaluate("() => localStorage.getItem('ldp-waves-secret')") == secret
    assert (one["earlier_wave"], two["earlier_wave"]) == (False, True)
    assert set(two) == {"version", "key", "reports", "earlier_wave"}  # the secret is never sent
    assert secret not in json.dumps(one) + json.dumps(two)

    permanent = permanent_responses(second, secret)
    assert permanent == permanent_responses(first, secret)  # the same series, lineages and truth
    for survey, body in ((first, one), (second, two)):
        reports = reports_of(survey, body)
        for group in PERMANENT:
            assert within(agreement(survey, reports, permanent, group)), (survey.wave, group)

    page.evaluate("() => localStorage.clear()")  # a new permanent layer from a new secret
    again = answer_wave(page, f"{live_server.url}/s/{second.slug}/")
    fresh = page.evaluate("() => localStorage.getItem('ldp-waves-secret')")
    context.close()
    assert fresh != secret and again["earlier_wave"] is False
    reports = reports_of(second, again)
    renewed = permanent_responses(second, fresh)
    assert within(agreement(second, reports, renewed, "A"))
    count, (low, _high) = agreement(second, reports, permanent, "A")  # the old layer no longer shows through
    assert count < low
