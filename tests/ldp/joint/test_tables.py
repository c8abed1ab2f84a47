"""ldp.joint.tables, ldp.joint.association and the joint planner: exact properties, checked against the
design's definitions (score products, the Kronecker formula), scipy and plain counting."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import ldp
from ldp.joint.association import chi2_sf, pearson
from ldp.joint.tables import cell_variance, covariance
from tests.ldp.support import joint_answers, qrr_near, scores, wilson_cc_by_root_finding

PAIRS = [
    (ldp.QRandomizedResponse("0.5"), ldp.KaryRR(1.0, 3)),
    (ldp.KaryRR(2.0, 4), ldp.OptimizedUnary(1.0, 3)),
    (ldp.SymmetricUnary(1.0, 3), ldp.BitFlip(0.7)),
    (ldp.OptimizedUnary(2.0, 3), ldp.SymmetricUnary(0.5, 2)),
    (ldp.Direct(3), ldp.OptimizedUnary(1.0, 4)),
    (ldp.Direct(2), ldp.Direct(3)),
]
IDS = [f"{a.name}{a.k}x{b.name}{b.k}" for a, b in PAIRS]
TABLE = {2: [0.3, 0.7], 3: [0.5, 0.3, 0.2], 4: [0.4, 0.3, 0.2, 0.1]}


def survey(a, b, n=800, seed=0):
    """One survey's reports with dependent answers: B's answer copies A's (mod k_B) half the time."""
    rng = np.random.default_rng(seed)
    truth_a = rng.choice(a.k, size=n, p=TABLE[a.k])
    truth_b = np.where(rng.random(n) < 0.5, truth_a % b.k, rng.choice(b.k, size=n, p=TABLE[b.k]))
    return a.randomize(truth_a, rng), b.randomize(truth_b, rng)


@pytest.mark.parametrize("a, b", PAIRS, ids=IDS)
def test_the_estimate_is_the_mean_of_score_products_and_its_se_their_spread(a, b):
    reports_a, reports_b = survey(a, b)
    counts = ldp.JointCounts.from_reports(a, reports_a, b, reports_b)
    products = scores(a, reports_a)[:, :, None] * scores(b, reports_b)[:, None, :]
    est = ldp.estimate_joint(a, b, counts)
    np.testing.assert_allclose(est.estimate, products.mean(axis=0), atol=1e-12)
    np.testing.assert_allclose(est.std_error, products.std(axis=0) / math.sqrt(len(reports_a)), rtol=1e-9)
    assert est.n == len(reports_a)
    assert (np.array(est.ci_low) <= np.clip(est.estimate, 0, 1) + 1e-12).all()
    assert (np.clip(est.estimate, 0, 1) <= np.array(est.ci_high) + 1e-12).all()


@pytest.mark.parametrize("a, b", PAIRS, ids=IDS)
def test_the_counts_are_the_same_from_reports_from_stored_values_and_from_totals(a, b):
    reports_a, reports_b = survey(a, b, n=300)
    from_reports = ldp.JointCounts.from_reports(a, reports_a, b, reports_b)
    values_a, values_b = a.encode_many(reports_a), b.encode_many(reports_b)
    pairs, how_often = np.unique(np.stack([values_a, values_b], axis=1), axis=0, return_counts=True)
    grouped = ldp.JointCounts.from_values(a, b, pairs[:, 0], pairs[:, 1], how_often)
    totals = ldp.JointCounts.from_counts(a, b, from_reports.pairs, 300, a.counts(reports_a), b.counts(reports_b))
    for counts in (grouped, totals):
        np.testing.assert_array_equal(counts.pairs, from_reports.pairs)
        np.testing.assert_array_equal(counts.a_counts, from_reports.a_counts)
        np.testing.assert_array_equal(counts.b_counts, from_reports.b_counts)
    # Counted one respondent at a time, with each mechanism's own slots().
    expected = np.zeros((a.k, b.k), dtype=int)
    for va, vb in zip(values_a, values_b, strict=True):
        for i in a.slots(int(va)):
            for j in b.slots(int(vb)):
                expected[i, j] += 1
    np.testing.assert_array_equal(from_reports.pairs, expected)


@pytest.mark.parametrize("a, b", PAIRS, ids=IDS)
def test_marginals_equal_the_single_question_estimates_for_an_index_partner(a, b):
    reports_a, reports_b = survey(a, b, seed=3)
    counts = ldp.JointCounts.from_reports(a, reports_a, b, reports_b)
    est = ldp.estimate_joint(a, b, counts)
    own_a = a.estimate(a.counts(reports_a), len(reports_a)).estimate
    own_b = b.estimate(b.counts(reports_b), len(reports_b)).estimate
    if not b.unary:  # s_b sums to 1 over b, so the row sums are A's own estimate
        np.testing.assert_allclose(est.row_sums, own_a, atol=1e-12)
    else:  # only equal in expectation: they differ by mean(s_a (sum_b s_b - 1))
        total_b = scores(b, reports_b).sum(axis=1)
        np.testing.assert_allclose(est.row_sums, own_a + (scores(a, reports_a) * (total_b - 1)[:, None]).mean(0),
                                   atol=1e-12)
    if not a.unary:
        np.testing.assert_allclose(est.column_sums, own_b, atol=1e-12)


@pytest.mark.parametrize("a, b", [pair for pair in PAIRS if not (pair[0].unary or pair[1].unary)],
                         ids=[i for i, pair in zip(IDS, PAIRS, strict=True) if not (pair[0].unary or pair[1].unary)])
def test_index_pairs_match_the_kronecker_inverse(a, b):
    reports_a, reports_b = survey(a, b, seed=5)
    counts = ldp.JointCounts.from_reports(a, reports_a, b, reports_b)
    channel = lambda m: m.q_other + (m.p - m.q_other) * np.eye(m.k)  # noqa: E731  P[report, truth]
    big_m = np.kron(channel(a), channel(b))
    lam = counts.pairs.ravel() / counts.n
    np.testing.assert_allclose(np.ravel(ldp.estimate_joint(a, b, counts).estimate), np.linalg.solve(big_m, lam),
                               atol=1e-12)
    products = (scores(a, reports_a)[:, :, None] * scores(b, reports_b)[:, None, :]).reshape(counts.n, -1)
    np.testing.assert_allclose(covariance(a, b, counts), np.cov(products.T, bias=True) / counts.n, atol=1e-12)


def test_the_kronecker_covariance_is_for_index_questions_only():
    a, b = ldp.KaryRR(1.0, 3), ldp.OptimizedUnary(1.0, 3)
    counts = ldp.JointCounts.from_reports(a, *survey(a, b)[:1], b, survey(a, b)[1])
    with pytest.raises(ValueError, match="index"):
        covariance(a, b, counts)


@pytest.mark.parametrize("x", [0, 1, 3, 20, 150, 400])
def test_two_direct_questions_give_plain_fractions_and_the_corrected_wilson_interval(x):
    d = ldp.Direct(2)
    n = 400
    pairs = np.array([[x, 0], [0, n - x]]) if x not in (0, n) else np.array([[x, 0], [n - x, 0]])
    est = ldp.estimate_joint(d, d, ldp.JointCounts.from_counts(d, d, pairs, n))
    for (i, j), count in np.ndenumerate(pairs):
        assert est.estimate[i][j] == pytest.approx(count / n, abs=1e-15)
        low, high = wilson_cc_by_root_finding(int(count), n, 0.95)
        assert est.ci_low[i][j] == pytest.approx(low, abs=1e-9)
        assert est.ci_high[i][j] == pytest.approx(high, abs=1e-9)


def test_conditional_fractions_of_two_direct_questions_are_the_row_shares():
    d2, d3 = ldp.Direct(2), ldp.Direct(3)
    pairs = np.array([[30, 50, 20], [10, 10, 380]])
    counts = ldp.JointCounts.from_counts(d2, d3, pairs, 500)
    given_a = ldp.estimate_conditional(d2, d3, counts)
    np.testing.assert_allclose(given_a.estimate, pairs / pairs.sum(axis=1, keepdims=True), atol=1e-15)
    given_b = ldp.estimate_conditional(d2, d3, counts, given="b")
    np.testing.assert_allclose(given_b.estimate, (pairs / pairs.sum(axis=0)).T, atol=1e-15)
    assert given_a.bounded == (True, True) and given_b.given == "b"
    # Fieller with a denominator known exactly up to sampling: the interval contains the estimate.
    assert (np.array(given_a.ci_low) <= np.array(given_a.estimate)).all()
    assert (np.array(given_a.estimate) <= np.array(given_a.ci_high)).all()


def test_a_conditional_on_an_option_nobody_reports_is_flagged_unbounded():
    a, b = qrr_near(0.5), ldp.Direct(2)
    # Report 1 of A at about its noise rate: pi_1 estimated near 0, interval reaching 0.
    n = 400
    pairs = np.array([[130, 130], [70, 70]])
    result = ldp.estimate_conditional(a, b, ldp.JointCounts.from_counts(a, b, pairs, n))
    assert result.bounded == (True, False)
    assert result.ci_low[1] == (0.0, 0.0) and result.ci_high[1] == (1.0, 1.0)


def test_the_fieller_interval_solves_its_defining_inequality():
    a, b = ldp.KaryRR(2.0, 3), ldp.Direct(2)
    reports_a, reports_b = survey(a, b, n=2000, seed=9)
    counts = ldp.JointCounts.from_reports(a, reports_a, b, reports_b)
    result = ldp.estimate_conditional(a, b, counts)
    sa, sb = scores(a, reports_a), scores(b, reports_b)
    z2 = stats.norm.ppf(0.975) ** 2
    n = counts.n
    for i in range(a.k):
        for j in range(b.k):
            num, den = sa[:, i] * sb[:, j], sa[:, i]
            v11, v22 = num.var() / n, den.var() / n
            v12 = np.mean((num - num.mean()) * (den - den.mean())) / n

            ends = np.array([result.ci_low[i][j], result.ci_high[i][j], result.estimate[i][j]])
            excess = (num.mean() - ends * den.mean()) ** 2 - z2 * (v11 - 2 * ends * v12 + ends**2 * v22)
            for end, value in zip(ends[:2], excess[:2], strict=True):
                if 0.0 < end < 1.0:
                    assert value == pytest.approx(0.0, abs=1e-12)
            assert excess[2] < 0


@pytest.mark.parametrize("df", [1, 2, 3, 4, 9, 30, 200])
def test_the_chi_square_tail_matches_scipy(df):
    for x in np.concatenate([[1e-6, 0.5], np.linspace(0.1, 5 * df + 60, 80)]):
        assert chi2_sf(float(x), df) == pytest.approx(stats.chi2.sf(x, df), rel=1e-9, abs=1e-300)
    assert chi2_sf(0.0, df) == 1.0 and chi2_sf(3.0, 0) == 1.0


@pytest.mark.parametrize("table", [[[10, 20], [20, 10]], [[5, 0, 7], [3, 9, 1], [0, 4, 8]],
                                   [[1, 2, 3, 4], [4, 3, 2, 1]]])
def test_pearson_matches_scipy_without_the_continuity_correction(table):
    statistic, df = pearson(table)
    expected = stats.chi2_contingency(table, correction=False)
    assert statistic == pytest.approx(expected.statistic, rel=1e-12) and df == expected.dof


def test_pearson_drops_empty_rows_and_columns():
    assert pearson([[10, 0, 20], [0, 0, 0], [20, 0, 10]]) == pearson([[10, 20], [20, 10]])
    assert pearson([[10, 20], [0, 0]]) == (0.0, 0)


@pytest.mark.parametrize("a, b, tables", [
    (ldp.KaryRR(1.0, 3), ldp.BitFlip(1.0), 1),
    (ldp.OptimizedUnary(1.0, 3), ldp.BitFlip(1.0), 3),
    (ldp.KaryRR(1.0, 3), ldp.SymmetricUnary(1.0, 4), 4),
    (ldp.OptimizedUnary(1.0, 3), ldp.SymmetricUnary(1.0, 2), 6),
])
def test_a_unary_question_is_tested_bit_by_bit_with_bonferroni(a, b, tables):
    reports_a, reports_b = survey(a, b, n=600, seed=11)
    counts = ldp.JointCounts.from_reports(a, reports_a, b, reports_b)
    result = ldp.independence(a, b, counts)
    assert result.tables == tables
    bits_a = reports_a if a.unary else None
    bits_b = reports_b if b.unary else None
    p_values = []
    for i in range(a.k if a.unary else 1):
        for j in range(b.k if b.unary else 1):
            rows = bits_a[:, i] if a.unary else reports_a
            columns = bits_b[:, j] if b.unary else reports_b
            table = np.zeros((2 if a.unary else a.k, 2 if b.unary else b.k))
            np.add.at(table, (rows, columns), 1)
            p_values.append(stats.chi2_contingency(table, correction=False).pvalue)
    assert result.p_value == pytest.approx(min(1.0, tables * min(p_values)), rel=1e-9)


def test_cramers_v_of_two_direct_questions_is_the_bias_corrected_sample_value():
    d = ldp.Direct(2)
    pairs = np.array([[400, 100], [100, 400]])
    n = 1000
    result = ldp.independence(d, d, ldp.JointCounts.from_counts(d, d, pairs, n))
    # phi^2 of the table minus the noise term sum_ab Var(s_a) Var(s_b) / (n pi_a pi_b) = 4 (1/4)(1/4) / (n / 4).
    phi2 = 0.6**2 - 4 * 0.25 * 0.25 / (n * 0.25)
    assert result.phi_squared == pytest.approx(phi2, rel=1e-12)
    assert result.cramers_v == pytest.approx(math.sqrt(phi2), rel=1e-12)


@pytest.mark.parametrize("a, b", PAIRS, ids=IDS)
def test_cell_variance_is_the_variance_of_one_score_product(a, b):
    """Against the exact distribution: enumerate both truths (collapsed to 'a or not', 'b or not')
    and both reported indicators, with the channel probabilities."""
    pi_ab, pi_a, pi_b = 0.15, 0.4, 0.25
    truths = {(1, 1): pi_ab, (1, 0): pi_a - pi_ab, (0, 1): pi_b - pi_ab, (0, 0): 1 - pi_a - pi_b + pi_ab}
    mean = second = 0.0
    for (ta, tb), weight in truths.items():
        for xa in (0, 1):
            for xb in (0, 1):
                pa = a.p if ta else a.q_other
                pb = b.p if tb else b.q_other
                prob = weight * (pa if xa else 1 - pa) * (pb if xb else 1 - pb)
                value = (xa - a.q_other) / (a.p - a.q_other) * (xb - b.q_other) / (b.p - b.q_other)
                mean += prob * value
                second += prob * value * value
    assert mean == pytest.approx(pi_ab, abs=1e-12)
    assert cell_variance(a, b, pi_ab, pi_a, pi_b) == pytest.approx(second - mean**2, rel=1e-12)


def test_the_joint_planner_agrees_with_the_one_question_planner_for_direct_questions():
    d = ldp.Direct(2)
    for margin in (0.01, 0.03, 0.1):
        assert ldp.joint_respondents_needed(d, d, margin) == ldp.respondents_needed(d, margin)


@pytest.mark.parametrize("a, b", PAIRS[:4], ids=IDS[:4])
def test_the_joint_planner_uses_the_worst_table(a, b):
    z = stats.norm.ppf(0.975)
    # Brute force over a grid of (pi_ab, pi_a, pi_b) inside the simplex.
    grid = np.linspace(0, 1, 41)
    t, fa, fb = np.meshgrid(grid, grid, grid, indexing="ij")
    feasible = (t <= np.minimum(fa, fb)) & (fa + fb - t <= 1 + 1e-12)
    worst = max(cell_variance(a, b, x, y, w) for x, y, w in zip(t[feasible], fa[feasible], fb[feasible],
                                                                 strict=True))
    needed = ldp.joint_respondents_needed(a, b, 0.05)
    assert math.ceil(z * z * worst / 0.05**2) <= needed <= math.ceil(z * z * worst * 1.01 / 0.05**2)
    expected = (0.1, 0.3, 0.2)
    assert ldp.joint_respondents_needed(a, b, 0.05, expected=expected) == math.ceil(
        z * z * cell_variance(a, b, *expected) / 0.05**2)


def test_the_joint_planner_rejects_an_impossible_table_or_margin():
    a = ldp.KaryRR(1.0, 3)
    with pytest.raises(ValueError, match="expected"):
        ldp.joint_respondents_needed(a, a, 0.05, expected=(0.3, 0.2, 0.5))
    with pytest.raises(ValueError, match="margin"):
        ldp.joint_respondents_needed(a, a, 0.0)


@pytest.mark.parametrize("build, word", [
    (lambda a, b: ldp.JointCounts.from_counts(a, b, [[1, 2], [3, 4]], 10), "3 x 3"),
    (lambda a, b: ldp.JointCounts.from_counts(a, b, np.ones((3, 3)), 8), "add up to n"),
    (lambda a, b: ldp.JointCounts.from_counts(a, b, np.ones((3, 3)), 0), "n must"),
    (lambda a, b: ldp.JointCounts.from_counts(a, b, np.full((3, 3), 0.5), 9), "whole"),
    (lambda a, b: ldp.JointCounts.from_counts(a, b, -np.ones((3, 3)), 9), "inconsistent"),
    (lambda a, b: ldp.JointCounts.from_counts(a, b, np.ones((3, 3)), 9, a_counts=[4, 3, 2]), "sums of the pairs"),
    (lambda a, b: ldp.JointCounts.from_values(a, b, [0, 1], [0], None), "pair up"),
    (lambda a, b: ldp.JointCounts.from_values(a, b, [0, 3], [0, 1], None), "outside"),
], ids=["shape", "sum", "n", "whole", "negative", "marginal", "pairing", "values"])
def test_joint_counts_are_checked(build, word):
    k3 = ldp.KaryRR(1.0, 3)
    with pytest.raises(ValueError, match=word):
        build(k3, k3)


def test_a_unary_question_needs_its_partners_counts():
    a, b = ldp.KaryRR(1.0, 2), ldp.OptimizedUnary(1.0, 2)
    with pytest.raises(ValueError, match="a_counts is needed"):
        ldp.JointCounts.from_counts(a, b, [[3, 1], [2, 2]], 8)
    with pytest.raises(ValueError, match="inconsistent"):
        ldp.JointCounts.from_counts(a, b, [[3, 1], [2, 2]], 8, a_counts=[2, 6], b_counts=[5, 3])


def test_joint_results_serialize_to_plain_lists():
    a, b = ldp.Direct(2), ldp.KaryRR(1.0, 3)
    reports_a, reports_b = survey(a, b, n=100)
    counts = ldp.JointCounts.from_reports(a, reports_a, b, reports_b)
    data = ldp.estimate_joint(a, b, counts).to_dict()
    assert set(data) == {"n", "estimate", "std_error", "ci_low", "ci_high", "row_sums", "column_sums", "confidence"}
    assert isinstance(data["estimate"], list) and len(data["estimate"]) == 2 and len(data["estimate"][0]) == 3
    cond = ldp.estimate_conditional(a, b, counts).to_dict()
    assert cond["given"] == "a" and isinstance(cond["bounded"], list)
    assert set(ldp.independence(a, b, counts).to_dict()) == {"p_value", "statistic", "df", "tables",
                                                             "phi_squared", "cramers_v", "method", "denominator_df"}


def test_joint_answers_helper_draws_from_the_table():
    rng = np.random.default_rng(0)
    a, b = joint_answers(rng, [[0.5, 0.0], [0.0, 0.5]], 1000)
    assert (a == b).all() and 400 < a.sum() < 600
