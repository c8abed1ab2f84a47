"""Weighted estimates from grouped rows (`ldp.weighting.raking.Raked.counts`): every estimator gives, from the distinct
(cell, report) rows and their counts, the figures of the rows written out, one per respondent. This is what lets
the app weight a million responses at the cost of their distinct rows (surveys.aggregation.weighting.weights).

The written-out side is raked per respondent from the respondents' own categories, the grouped side over the
cells with their counts: two rakings, compared whole (every field of every result), to rounding.
"""

import dataclasses

import numpy as np
import pytest

from ldp import Direct, KaryRR, OneBitMean, QRandomizedResponse, SymmetricUnary
from ldp.joint.counts import JointCounts
from ldp.regression.linear import per_report_values
from ldp.weighting.association import weighted_independence
from ldp.weighting.estimates import weighted_fractions, weighted_mean
from ldp.weighting.joint import weighted_conditional, weighted_joint
from ldp.weighting.raking import coded_margin, rake

N = 3_000
REGION, SEX = {"N": 0.2, "S": 0.3, "E": 0.5}, {"F": 0.52, "M": 0.48}


@pytest.fixture(scope="module")
def sample():
    """Respondents with a region and a sex (the margins) and reports of a k-RR, a unary and a 1-bit mean
    question, each depending on the region, so that weighting moves every figure."""
    rng = np.random.default_rng(7)
    region = rng.choice(3, N, p=[0.5, 0.3, 0.2])
    sex = rng.choice(2, N, p=[0.4, 0.6])
    truth = np.where(region == 0, 0, rng.choice(3, N))
    krr, unary, mean = KaryRR(1.0, 3), SymmetricUnary(1.0, 4), OneBitMean(1.0, 0, 10, 1)
    reports = {
        "krr": krr.randomize(truth, rng),
        "unary": unary.encode_many(unary.randomize(np.minimum(truth + sex, 3), rng)),
        "mean": mean.randomize(rng.integers(0, 11, N) * (region > 0), rng),
        "qrr": QRandomizedResponse("0.5").randomize(sex, rng),
    }
    return region, sex, reports, {"krr": krr, "unary": unary, "mean": mean, "qrr": QRandomizedResponse("0.5")}


def written_out(region, sex):
    return rake([coded_margin("region", region, REGION), coded_margin("sex", sex, SEX)], cap=2.0)


def grouped(region, sex, *columns):
    """The design over the distinct (region, sex, columns...) rows and each row's values, raked over the cells."""
    cells, cell_of, cell_counts = np.unique(np.column_stack([region, sex]), axis=0, return_inverse=True,
                                            return_counts=True)
    design = rake([coded_margin("region", cells[:, 0], REGION), coded_margin("sex", cells[:, 1], SEX)], cap=2.0,
                  counts=cell_counts)
    rows, counts = np.unique(np.column_stack([cell_of.reshape(-1), *columns]), axis=0, return_counts=True)
    cell = rows[:, 0]
    return dataclasses.replace(design, weights=design.weights[cell], counts=counts.astype(float),
                               margins=tuple(dataclasses.replace(m, codes=m.codes[cell])
                                             for m in design.margins)), [rows[:, j] for j in range(1, rows.shape[1])]


def bits(values, k):
    return (np.asarray(values)[:, None] >> np.arange(k)) & 1


def assert_same(found, expected):
    """Every field equal to rounding (sums over rows added in another order)."""
    left, right = dataclasses.asdict(found), dataclasses.asdict(expected)
    assert left.keys() == right.keys()
    for key in left:
        a, b = left[key], right[key]
        if isinstance(a, str) or a is None:
            assert a == b, key
        else:
            np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-9,
                                       atol=1e-12, err_msg=key)


def test_the_raked_weights_of_the_cells_are_the_respondents_weights(sample):
    region, sex, _, _ = sample
    design, (r, s) = grouped(region, sex, region, sex)
    one = written_out(region, sex)
    lookup = {(a, b): w for a, b, w in zip(r, s, design.weights, strict=True)}
    np.testing.assert_allclose([lookup[a, b] for a, b in zip(region, sex, strict=True)], one.weights, rtol=1e-12)
    assert design.n == one.n == N and design.summary() == pytest.approx(one.summary(), rel=1e-9)
    assert design.cap_rounds == one.cap_rounds > 0  # the cap bites: capped and raked again, alike


@pytest.mark.parametrize("name", ["krr", "qrr"])
def test_weighted_fractions_of_grouped_rows_are_those_of_the_rows_written_out(sample, name):
    region, sex, reports, mechanisms = sample
    design, (values,) = grouped(region, sex, reports[name])
    assert len(values) < N / 50  # the point of grouping: few rows
    assert_same(weighted_fractions(mechanisms[name], values, design),
                weighted_fractions(mechanisms[name], reports[name], written_out(region, sex)))


def test_weighted_fractions_of_unary_grouped_rows_are_those_of_the_rows_written_out(sample):
    region, sex, reports, mechanisms = sample
    design, (values,) = grouped(region, sex, reports["unary"])
    assert_same(weighted_fractions(mechanisms["unary"], bits(values, 4), design),
                weighted_fractions(mechanisms["unary"], bits(reports["unary"], 4), written_out(region, sex)))


def test_a_weighted_mean_of_grouped_rows_is_that_of_the_rows_written_out(sample):
    region, sex, reports, mechanisms = sample
    design, (values,) = grouped(region, sex, reports["mean"])
    mechanism = mechanisms["mean"]
    assert_same(weighted_mean(per_report_values(mechanism, values), design, 0.0, 10.0),
                weighted_mean(per_report_values(mechanism, reports["mean"]), written_out(region, sex), 0.0, 10.0))


@pytest.mark.parametrize("given", ["a", "b"])
def test_weighted_joint_and_conditional_fractions_of_grouped_rows_are_those_of_the_rows_written_out(sample, given):
    region, sex, reports, mechanisms = sample
    a, b = mechanisms["krr"], mechanisms["unary"]
    design, (va, vb) = grouped(region, sex, reports["krr"], reports["unary"])
    one = written_out(region, sex)
    assert_same(weighted_joint(a, va, b, bits(vb, 4), design),
                weighted_joint(a, reports["krr"], b, bits(reports["unary"], 4), one))
    assert_same(weighted_conditional(a, va, b, bits(vb, 4), design, given=given),
                weighted_conditional(a, reports["krr"], b, bits(reports["unary"], 4), one, given=given))


def test_the_weighted_independence_test_of_grouped_rows_is_that_of_the_rows_written_out(sample):
    region, sex, reports, mechanisms = sample
    a, b = mechanisms["krr"], Direct(2)
    design, (va, vb) = grouped(region, sex, reports["krr"], sex)
    counts = JointCounts.from_values(a, b, va, vb, design.counts)
    assert counts.n == N and (counts.pairs == JointCounts.from_values(a, b, reports["krr"], sex).pairs).all()
    assert_same(weighted_independence(a, va, b, vb, design, counts),
                weighted_independence(a, reports["krr"], b, sex, written_out(region, sex), counts))
