"""The page's own randomizer.js, in real Chromium, follows the channel the server published.

10^5 draws per true answer for every mechanism; exact binomial tests at a family-wise
false-alarm rate of 1e-6, and a Clopper-Pearson lower bound on the empirical epsilon.
"""

import math

import pytest

import ldp
from bench.audit_randomizer import audit_page
from tests.e2e.privacy import EVERY_MECHANISM, serve_modified, served_text, survey_with

pytestmark = pytest.mark.django_db(transaction=True)

# A randomizer that sometimes keeps the truth regardless: more leakage than it claims.
LEAKY_GRR = ("if (u < a) return truth;", "if (u < a || nextWord() % 8 === 0) return truth;")
LEAKY_UNARY = ("bits.push(uniformBelow(m, nextWord) < threshold ? 1 : 0);",
               "bits.push(uniformBelow(m, nextWord) < threshold || (i === truth && nextWord() % 8 === 0) ? 1 : 0);")
# A direct question that is not sent as given: sometimes another option.
NOT_AS_GIVEN = ('if (sampler.kind === "direct") return truth;',
                'if (sampler.kind === "direct") return nextWord() % 64 === 0 ? (truth + 1) % sampler.k : truth;')


def test_the_page_randomizer_matches_every_published_channel(live_server, page):
    survey = survey_with(EVERY_MECHANISM)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    audits = audit_page(page, draws=100_000, alpha=1e-6)

    assert [a.question_id for a in audits] == [q.pk for q in survey.ordered_questions()]
    for item, question in zip(audits, survey.ordered_questions(), strict=True):
        assert item.result.failures == () and item.result.passed
        assert item.result.epsilon_lower_bound <= item.result.claimed_epsilon
        if question.mechanism_name == "direct":  # the identity: every report is the answer as given
            assert item.sampler == {"kind": "direct", "k": question.k()}
            assert item.result.claimed_epsilon == math.inf
            continue
        # The page claims exactly the effective epsilon the server computes.
        assert item.result.claimed_epsilon == pytest.approx(question.mechanism().effective_epsilon, rel=1e-12)
        assert item.result.claimed_epsilon <= ldp.EPSILON_MAX


def test_a_mis_parameterized_randomizer_is_caught(live_server, page):
    survey = survey_with(EVERY_MECHANISM)
    serve_modified(page, "randomizer.js", LEAKY_GRR, LEAKY_UNARY, NOT_AS_GIVEN)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    source = served_text(page, "/static/js/randomizer.js")
    assert LEAKY_GRR[1] in source and LEAKY_UNARY[1] in source and NOT_AS_GIVEN[1] in source

    audits = audit_page(page, draws=50_000, alpha=1e-6)
    for item in audits:
        assert not item.result.passed
        if item.sampler["kind"] == "direct":  # reports other than the answer given
            assert any("published 0.00000" in failure for failure in item.result.failures)
        else:
            assert item.result.epsilon_lower_bound > item.result.claimed_epsilon
