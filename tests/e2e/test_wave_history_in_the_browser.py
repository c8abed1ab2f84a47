"""The waves a browser answered, added up where a person reads them: one browser answers a survey by its open link
before any series exists (its questions randomized afresh, no permanent layer), the survey is run again as wave 2 with
remembered randomization, and the same browser opens wave 2. The page must count wave 1 in what it says the waves cost
together; a browser with no record of wave 1 is told this wave's figure alone. The figures are the independent
enumeration of every permanent response and report of every wave (tests/ldp/js_history_fixture.py), rounded up."""

import math
from fractions import Fraction

import pytest

from surveys.collection import builder, plan, waves
from surveys.collection.models import Survey
from tests.e2e.answering import answer
from tests.e2e.conftest import axe_violations
from tests.factories import HEALTH_QUESTIONS
from tests.ldp.js_history_fixture import afresh, histories, largest_ratio, millis_up, remembered

pytestmark = pytest.mark.django_db(transaction=True)

TRUTH = [1, 0, 2, 3]  # yes/no (q-RR), yes/no (bit flip), 3 options (k-RR), 4 options (OUE)


def enumerated(*surveys: Survey) -> str:
    """What the waves of `surveys` cost together with unchanged answers, enumerated, rounded up: per question, each
    wave afresh or through its permanent layer, as its plan made its reports."""
    ratio = Fraction(1)
    for planned in zip(*(plan.of(survey) for survey in surveys), strict=True):
        question_waves = [remembered(q.mechanism.permanent, q.mechanism.instant) if hasattr(q.mechanism, "layers")
                          else afresh(q.mechanism) for q in planned]
        ratio *= largest_ratio(question_waves, histories(question_waves, False))
    millis = millis_up(ratio)
    return f"{millis // 1000}.{millis % 1000:03d}"


def section_of(page, url):
    page.goto(url)
    page.wait_for_selector("#client-history:not([hidden])")
    assert axe_violations(page) == []
    return page.inner_text("section.waves")


def test_a_browser_that_answered_a_survey_before_its_series_is_told_a_total_that_counts_it(live_server, browser):
    first = builder.create_survey("health", "Health", HEALTH_QUESTIONS, status=Survey.Status.OPEN,
                                  epsilon_budget=6.0)
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(f"{live_server.url}/s/{first.slug}/")
    page.wait_for_selector("#send:enabled")
    answer(page, TRUTH)
    page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")

    second = waves.run_again(first, remembered=True)
    Survey.objects.filter(pk=second.pk).update(status=Survey.Status.OPEN)
    one_wave = enumerated(second)
    layers = [q.remembered() for q in second.ordered_questions()]
    stated = f"{math.ceil(1000 * sum(layer.wave_epsilon for layer in layers)) / 1000:.3f}"
    lines = [
        "Wave 2: your browser remembers",
        "This survey is asked again in waves. For the questions marked as remembered, your browser keeps a randomized "
        "version of each answer (made from a secret that never leaves this device) and sends a fresh randomization of "
        f"it in every wave. This wave: ε\u00a0=\u00a0{stated}. What the waves this browser answered cost together, "
        "it works out below from the numbers each wave randomized with.",
        "If an answer changes, your browser makes a new remembered version for the new answer: each different answer "
        "you give to a question adds that question's remembered figure again. Clearing this browser's storage also "
        "starts afresh, in the same way.",
        f"Your browser computed the same for the answers it remembers: this wave, at most ε\u00a0=\u00a0{one_wave}.",
    ]
    both = enumerated(first, second)
    assert float(both) > float(one_wave) + 1  # wave 1 randomized afresh: it adds much

    said = section_of(page, f"{live_server.url}/s/{second.slug}/")
    assert said.split("\n\n") == [*lines, (
        "This browser keeps a record of answering other waves of this series: 1. Those and this one together, as "
        f"long as your answers stay the same, cost at most ε\u00a0=\u00a0{both}, counted from the numbers each "
        "wave randomized with.")], said

    stranger = browser.new_context().new_page()  # no record of wave 1
    said = section_of(stranger, f"{live_server.url}/s/{second.slug}/")
    assert said.split("\n\n") == [*lines, (
        "This browser keeps no record of answering another wave of this series (clearing its storage erases that "
        f"record too): this wave alone costs at most ε\u00a0=\u00a0{one_wave}.")], said
    context.close()
    stranger.context.close()
