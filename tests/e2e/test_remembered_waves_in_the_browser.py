"""Remembered randomization in a real browser: one persistent browser context answers two waves of a series, the
same truth to most questions and a changed one to some, then clears its storage and answers the second wave again
(three page loads: the questions share them, so every check below rides on the same three).

What is stored is checked against the two-layer channel, with the permanent responses worked out here, in Python
(tests/ldp/js_waves_fixture.py: hmac and hashlib), from the secret the browser kept. Three groups of questions make
the ways to get it wrong visible: group A (8 options, a weak permanent layer, a strong instantaneous one, the same
answer in both waves) reports its permanent response 89% of the time, which a page re-drawing the permanent layer
each wave would not (about 13%); group B (yes/no, a strong permanent layer, a weak instantaneous one) reports it only
60% of the time, which a page sending the permanent response alone would not (100%); group C (8 options, a strong
permanent layer, a strong instantaneous one) changes its answer in the second wave: its report follows the new
answer's permanent response (89%), and the old one shows through only as often as two independent draws agree (2.7%,
ldp.waves.agreement), where a page reusing the old permanent response would show it 89% of the time. Tolerances: 4
standard errors of a binomial count (group A, B); for the changed answers, whose rates are near 0 and 1 with 8
questions, exact binomial tails of 10^-5 each side instead of the normal approximation. The page's figures, the
server's and the browser's, are those of ldp.mechanisms.remembered for the layers, rounded up.
"""

import json
import math
import re
from decimal import Decimal

import pytest

from ldp.mechanisms.remembered import channel
from ldp.waves.agreement import composed_sampler, independent_agreement
from surveys.collection import builder, waves
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Report, Response, Series, Survey
from tests.e2e.answering import answer
from tests.ldp.js_waves_fixture import permanent_response

pytestmark = pytest.mark.django_db(transaction=True)

OPTIONS = [f"Option {j}" for j in range(8)]
GROUP_A = [QuestionSpec(f"A {i}?", "krr", epsilon=4.0, options=OPTIONS) for i in range(8)]
GROUP_B = [QuestionSpec(f"B {i}?", "qrr", q="0.2") for i in range(40)]
GROUP_C = [QuestionSpec(f"C {i}?", "krr", epsilon=4.0, options=OPTIONS) for i in range(8)]
PERMANENT = {"A": {"permanent_epsilon": 0.5}, "B": {"permanent_q": Decimal("0.9")}, "C": {"permanent_epsilon": 5.0}}
TRUTH = [i % 8 for i in range(len(GROUP_A))] + [i % 2 for i in range(len(GROUP_B))] + list(range(8))
CHANGED = TRUTH[:-8] + [(i + 3) % 8 for i in range(8)]  # the second wave's: group C's answers change


@pytest.fixture
def series_waves(db):
    series = Series.objects.create(title="Monthly")
    first = builder.create_survey("monthly", "Monthly", GROUP_A + GROUP_B + GROUP_C, status=Survey.Status.OPEN,
                                  epsilon_budget=100.0, series=series, wave=1)
    for question in first.questions.all():
        for name, value in PERMANENT[question.text[0]].items():
            setattr(question, name, value)
        question.save()
    second = waves.run_again(first)
    Survey.objects.filter(pk=second.pk).update(status=Survey.Status.OPEN)
    return first, second


def answer_wave(page, url, truth):
    """Loads the wave's page, answers `truth`, sends; the POSTed body and what the page said of the waves (its
    section's text, the server's figures, and the line the browser computed)."""
    page.goto(url)
    page.wait_for_selector("#send:enabled")
    said = page.inner_text("section.waves")
    assert page.locator("#client-waves").is_visible()
    answer(page, truth)
    with page.expect_request(lambda r: r.method == "POST") as posted:
        page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")
    return json.loads(posted.value.post_data), said


def reports_of(survey, body):
    """The stored reports of the response the body made, in question order; they are the ones it sent."""
    stored = dict(Report.objects.filter(response__survey=survey, response__submission_key=body["key"])
                  .values_list("question__order", "value"))
    found = [stored[order] for order in range(1, len(TRUTH) + 1)]
    assert found == [body["reports"][str(q.id)] for q in survey.ordered_questions()]
    assert Response.objects.get(submission_key=body["key"]).earlier_wave is body["earlier_wave"]
    return found


def permanent_responses(survey, secret_hex, truth=TRUTH):
    questions = list(survey.ordered_questions())
    return [permanent_response(bytes.fromhex(secret_hex), survey.series_id, str(q.lineage), truth[i],
                               q.remembered().permanent.sampler()) for i, q in enumerate(questions)]


def picked(survey, group):
    return [(i, q) for i, q in enumerate(survey.ordered_questions()) if q.text[0] == group]


def agreement(survey, reports, permanent, group):
    """How many of the group's reports equal the permanent response, and the bounds the channel gives it."""
    chosen = picked(survey, group)
    count = sum(reports[i] == permanent[i] for i, _ in chosen)
    keep = float(channel(chosen[0][1].remembered().instant)[0])  # the instantaneous layer keeps it
    mean, se = len(chosen) * keep, math.sqrt(len(chosen) * keep * (1 - keep))
    return count, (mean - 4 * se, mean + 4 * se)


def within(found):
    count, (low, high) = found
    return low <= count <= high


def plausible(count, n, rate, tail=1e-5):
    """`count` is in neither tail of Binomial(n, rate) beyond `tail` (exact: the rates here are near 0 or 1)."""
    mass = [math.comb(n, c) * rate**c * (1 - rate) ** (n - c) for c in range(n + 1)]
    return sum(mass[:count + 1]) > tail and sum(mass[count:]) > tail


def matches(reports, permanent, chosen):
    return sum(reports[i] == permanent[i] for i, _ in chosen)


def independent(question, old, new):
    """P(a report of answer `new` equals an independent permanent response to `old`): what the old layer shows
    through a new permanent response (a changed answer, or cleared storage), ldp.waves.agreement."""
    permanent, instant = (layer.sampler() for layer in (question.remembered().permanent, question.remembered().instant))
    return float(independent_agreement(permanent, composed_sampler(permanent, instant), old, new))


def stated_figures(survey):
    """(one wave, all waves with the same answers): the layers' losses summed
    (ldp.mechanisms.remembered), rounded up to 0.001."""
    layers = [q.remembered() for q in survey.ordered_questions()]
    return tuple(f"{math.ceil(1000 * sum(figure(layer) for layer in layers)) / 1000:.3f}"
                 for figure in (lambda layer: layer.wave_epsilon, lambda layer: layer.all_waves_epsilon))


def test_one_browser_remembers_across_waves_and_clearing_storage_starts_afresh(live_server, browser, series_waves):
    first, second = series_waves
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(30_000)
    one, said_one = answer_wave(page, f"{live_server.url}/s/{first.slug}/", TRUTH)
    secret = page.evaluate("() => localStorage.getItem('ldp-waves-secret')")
    two, said_two = answer_wave(page, f"{live_server.url}/s/{second.slug}/", CHANGED)
    assert page.evaluate("() => localStorage.getItem('ldp-waves-secret')") == secret
    assert (one["earlier_wave"], two["earlier_wave"]) == (False, True)
    assert set(two) == {"version", "key", "reports", "earlier_wave"}  # the secret is never sent
    assert secret not in json.dumps(one) + json.dumps(two)

    # What the page says: the same figures in both waves (the layers did not change), the server's and the
    # browser's, and what a changed answer does.
    wave, every = stated_figures(second)
    assert stated_figures(first) == (wave, every)
    for number, said in ((1, said_one), (2, said_two)):
        assert f"This wave: ε\u00a0=\u00a0{wave}. What the waves this browser answered cost together, it works " \
               "out below from the numbers each wave randomized with." in said, said
        assert f"this wave, at most ε\u00a0=\u00a0{wave}." in said
        assert said.startswith(f"Wave {number}: your browser remembers")
        assert "If an answer changes, your browser makes a new remembered version for the new answer: each " \
               "different answer you give to a question adds that question's remembered figure again." in said
    # Wave 2, after wave 1 with the same permanent layers: both waves' reports together stay below them (`every`);
    # tests/e2e/test_wave_history_in_the_browser.py checks the figure itself.
    assert "This browser keeps no record of answering another wave of this series" in said_one
    assert "This browser keeps a record of answering other waves of this series: 1. Those and this one together" \
        in said_two
    assert Decimal(re.search(r"cost at most ε\u00a0=\u00a0([0-9.]+),", said_two)[1]) <= Decimal(every)

    permanent = permanent_responses(second, secret)
    assert permanent == permanent_responses(first, secret)  # the same series, lineages and truth
    reports_one, reports_two = reports_of(first, one), reports_of(second, two)
    for group in PERMANENT:
        assert within(agreement(first, reports_one, permanent, group)), (1, group)
    for group in "AB":  # the answers that stayed the same
        assert within(agreement(second, reports_two, permanent, group)), (2, group)

    # A changed answer: a fresh permanent response for the new answer shows through, the old one only by chance.
    changed = picked(second, "C")
    renewed = permanent_responses(second, secret, CHANGED)
    keep = float(channel(changed[0][1].remembered().instant)[0])
    assert plausible(matches(reports_two, renewed, changed), len(changed), keep)
    chance = {independent(q, TRUTH[i], CHANGED[i]) for i, q in changed}
    assert len(chance) == 1  # the same for every changed answer
    assert plausible(matches(reports_two, permanent, changed), len(changed), chance.pop())

    page.evaluate("() => localStorage.clear()")  # a new permanent layer from a new secret
    again, _ = answer_wave(page, f"{live_server.url}/s/{second.slug}/", TRUTH)
    fresh = page.evaluate("() => localStorage.getItem('ldp-waves-secret')")
    context.close()
    assert fresh != secret and again["earlier_wave"] is False
    reports = reports_of(second, again)
    renewed = permanent_responses(second, fresh)
    assert within(agreement(second, reports, renewed, "A"))
    group_a = picked(second, "A")  # the old layer shows through only as an independent draw would
    assert plausible(matches(reports, permanent, group_a), len(group_a), independent(group_a[0][1], 0, 0))
