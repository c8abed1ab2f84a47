"""ldp.offline.audit: conformity of observed reports to a published sampler, and the epsilon lower bound."""

import math

import numpy as np
import pytest

import ldp
from ldp.offline.audit import audit, cell_probabilities, sampler_epsilon, tabulate

MECHANISMS = [ldp.QRandomizedResponse("0.5"), ldp.BitFlip(2.0), ldp.KaryRR(1.0, 4),
              ldp.SymmetricUnary(1.5, 3), ldp.OptimizedUnary(1.0, 5)]
DRAWS = 50_000


def observed(mechanism, rng, draws=DRAWS):
    """Per true answer, counts per report, or for a unary encoding per joint pattern of its bits."""
    if mechanism.name not in ("sue", "oue"):
        return [list(mechanism.counts(mechanism.randomize(np.full(draws, x), rng))) for x in range(mechanism.k)]
    rows = []
    for x in range(mechanism.k):
        values, counts = np.unique(mechanism.encode_many(mechanism.randomize(np.full(draws, x), rng)),
                                   return_counts=True)
        rows.append(tabulate(mechanism.sampler(), dict(zip(values.tolist(), counts.tolist(), strict=True))))
    return rows


@pytest.mark.parametrize("mechanism", MECHANISMS, ids=lambda m: m.name)
def test_a_faithful_randomizer_passes_with_a_bound_below_its_claim(mechanism):
    result = audit(mechanism.sampler(), observed(mechanism, np.random.default_rng(7)), DRAWS)
    assert result.passed and result.failures == ()
    assert 0 < result.epsilon_lower_bound <= result.claimed_epsilon


@pytest.mark.parametrize("mechanism", MECHANISMS, ids=lambda m: m.name)
def test_a_randomizer_leaking_more_than_it_claims_fails(mechanism):
    leaky = ldp.make(mechanism.name, k=mechanism.k, epsilon=mechanism.effective_epsilon * 1.3) \
        if mechanism.name != "qrr" else ldp.QRandomizedResponse("0.65")
    result = audit(mechanism.sampler(), observed(leaky, np.random.default_rng(8)), DRAWS)
    assert not result.passed and result.failures
    assert result.epsilon_lower_bound > result.claimed_epsilon


@pytest.mark.parametrize("mechanism", MECHANISMS, ids=lambda m: m.name)
def test_the_claimed_epsilon_is_the_mechanisms_effective_epsilon(mechanism):
    assert sampler_epsilon(mechanism.sampler()) == pytest.approx(mechanism.effective_epsilon, rel=1e-12)


def test_cell_probabilities_are_the_channel_of_the_mechanism():
    mechanism = ldp.KaryRR(1.0, 3)
    cells = cell_probabilities(mechanism.sampler())
    assert [cells[x][x] for x in range(3)] == [pytest.approx(mechanism.p)] * 3
    assert cells[0][1] == pytest.approx(mechanism.q_other) and sum(cells[2]) == pytest.approx(1.0)


def test_it_audits_some_true_answers_only_with_their_own_draws():
    mechanism = ldp.KaryRR(1.0, 4)
    rng = np.random.default_rng(9)
    rows = {1: list(mechanism.counts(mechanism.randomize(np.full(300, 1), rng))),
            3: list(mechanism.counts(mechanism.randomize(np.full(200, 3), rng)))}
    result = audit(mechanism.sampler(), rows, {1: 300, 3: 200})
    assert result.passed
    assert result.epsilon_lower_bound < mechanism.effective_epsilon


def test_the_bound_comes_from_clopper_pearson_limits():
    # Two answers, all draws kept: the bound is ln(L / U) of the all-kept and none-flipped counts.
    sampler = ldp.QRandomizedResponse("0.5").sampler()
    result = audit(sampler, [[750, 250], [250, 750]], 1000, alpha=0.01)
    level = 1 - 0.01 / 4
    low = ldp.stats.intervals.clopper_pearson(750, 1000, level)[0]
    high = ldp.stats.intervals.clopper_pearson(250, 1000, level)[1]
    assert result.epsilon_lower_bound == pytest.approx(math.log(low / high))


def test_it_rejects_a_table_of_the_wrong_shape():
    with pytest.raises(ValueError, match="rows of 3 counts"):
        audit(ldp.KaryRR(1.0, 3).sampler(), [[1, 2], [2, 1]], 3)
