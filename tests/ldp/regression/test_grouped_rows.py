"""Grouped rows (`counts`) in ldp.regression.logistic, ldp.regression.linear and ldp.weighting.raking: a row standing
for m identical
respondents gives the fit, the weights and the variances of the rows written out, whole.

Sums are added in another order, and Newton's method stops at another point within its tolerance (its
decrement below 1e-16 of the log-likelihood: within sqrt(1e-16 |l|), here about 1e-6, standard errors of the
maximum): numbers are compared to 1e-6 relative (measured: up to 4e-8, an intercept of -3.5). A count left
out of one sum (the outer product of scores, the sandwich's meat, the median) moves them by whole percents.
"""

from __future__ import annotations

import numpy as np
import pytest

from ldp.regression import linear as linear_model
from ldp.regression import logistic
from ldp.weighting.raking import RakingError, coded_margin, median_of, rake

N = 6000
REL = 1e-6
BAND, SEX = {"young": 0.3, "middle": 0.3, "old": 0.4}, {"m": 0.5, "f": 0.5}


@pytest.fixture(scope="module")
def data():
    """Rows of few distinct values (band, sex, an age of 8 values, the report), and the same grouped."""
    rng = np.random.default_rng(11)
    band = rng.choice(3, N, p=[0.5, 0.3, 0.2])  # skewed: the raked weights differ by band and sex
    sex = rng.choice(2, N, p=[0.3, 0.7])
    age = rng.integers(20, 28, N).astype(float)
    truth = rng.random(N) < 1 / (1 + np.exp(-(-0.5 + 0.6 * (band == 1) - 0.4 * sex + 0.1 * (age - 24))))
    y = np.where(rng.random(N) < 0.5, truth, rng.random(N) < 0.5).astype(float)  # q-RR, q = 0.5
    table = np.column_stack([y, band, sex, age])
    distinct, first, counts = np.unique(table, axis=0, return_index=True, return_counts=True)
    assert len(distinct) < N / 20  # grouped indeed

    def design(y, band, sex, age):
        return np.column_stack([np.ones(len(y)), band == 1, band == 2, sex, age]).astype(float)

    return {"rows": (y, design(y, band, sex, age), band, sex), "first": first,
            "grouped": (distinct[:, 0], design(*distinct.T), distinct[:, 1].astype(int), distinct[:, 2].astype(int)),
            "counts": counts.astype(float)}


def raked(band, sex, cap, counts=None):
    return rake([coded_margin("band", band, BAND), coded_margin("sex", sex, SEX)], cap=cap, counts=counts)


def whole(found) -> dict:
    """Every field of a fit, the covariance matrices too; not its Newton steps nor which start reached the
    maximum first (the path)."""
    data = found.to_dict() if hasattr(found, "to_dict") else dict(found)
    data.pop("iterations", None)
    data.pop("start", None)
    for name in ("covariance", "covariance_observed", "covariance_opg"):
        matrix = getattr(found, name, None)
        if matrix is not None:
            data[name] = matrix.tolist()
    return data


def close(found: dict, expected: dict) -> None:
    assert found.keys() == expected.keys()
    for key, value in expected.items():
        if np.asarray(value).dtype.kind not in "fi":  # names, messages, flags
            assert found[key] == value, key
        elif key.startswith("covariance"):  # to REL of the scale of each entry, sqrt(V_ii V_jj)
            scale = np.sqrt(np.outer(np.diag(value), np.diag(value)))
            assert np.all(np.abs(np.subtract(found[key], value)) <= REL * scale), key
        else:
            assert np.allclose(found[key], value, rtol=REL, atol=1e-12), key


@pytest.mark.parametrize("se", ["observed", "opg"])
def test_a_grouped_logistic_fit_is_the_fit_of_its_rows_written_out(data, se):
    y, x, _, _ = data["rows"]
    gy, gx, _, _ = data["grouped"]
    expected = logistic.fit(y, x, 0.75, 0.25, se=se)
    found = logistic.fit(gy, gx, 0.75, 0.25, se=se, counts=data["counts"])
    assert found.n == N and expected.converged
    close(whole(found), whole(expected))


def test_a_grouped_weighted_fit_rakes_and_takes_the_sandwich_of_its_rows_written_out(data):
    y, x, band, sex = data["rows"]
    gy, gx, gband, gsex = data["grouped"]
    for cap in (5.0, 1.3):  # 1.3: the cap binds, so the median of the weights enters
        design = raked(band, sex, cap)
        grouped = raked(gband, gsex, cap, data["counts"])
        assert design.cap_rounds > 0 or cap == 5.0
        assert np.allclose(grouped.weights, design.weights[data["first"]], rtol=REL, atol=0)
        close(grouped.summary(), design.summary())
        close(whole(logistic.fit(gy, gx, 0.75, 0.25, design=grouped, counts=data["counts"])),
              whole(logistic.fit(y, x, 0.75, 0.25, design=design)))
        close(dict(zip(("mean", "variance"), grouped.mean(gy), strict=True)),
              dict(zip(("mean", "variance"), design.mean(y), strict=True)))


def test_a_grouped_least_squares_fit_is_that_of_its_rows_written_out(data):
    y, x, band, sex = data["rows"]
    gy, gx, gband, gsex = data["grouped"]
    values, grouped_values = 3.0 * y + x[:, 4], 3.0 * gy + gx[:, 4]
    for design, grouped in ((None, None), (raked(band, sex, 1.3), raked(gband, gsex, 1.3, data["counts"]))):
        found = linear_model.fit(grouped_values, gx, design=grouped, counts=data["counts"])
        expected = linear_model.fit(values, x, design=design)
        assert found.n == N
        close(whole(found), whole(expected))


@pytest.mark.parametrize("counts", [[1, 2, 1], [3, 1, 1, 2], [1], [2, 2, 5, 1, 1]])
def test_the_median_of_grouped_rows_is_the_median_of_the_rows_written_out(counts):
    values = np.array([0.7, 0.2, 0.9, 0.2, 0.4])[:len(counts)]
    assert median_of(values, np.array(counts, dtype=float)) == np.median(np.repeat(values, counts))


@pytest.mark.parametrize("counts", [[0.0, 1.0], [1.5, 1.0], [1.0], [1.0, np.nan]])
def test_counts_must_be_whole_and_at_least_one_per_row(counts):
    y, x = np.array([0.0, 1.0]), np.array([[1.0, 0.0], [1.0, 1.0]])
    with pytest.raises(ValueError, match="counts"):
        logistic.fit(y, x, 0.75, 0.25, counts=counts)
    with pytest.raises(ValueError, match="counts"):
        linear_model.fit(y, x, counts=counts)
    with pytest.raises(RakingError, match="counts"):
        rake([coded_margin("sex", [0, 1], SEX)], counts=counts)


def test_a_design_of_other_counts_is_refused(data):
    gy, gx, gband, gsex = data["grouped"]
    design = raked(gband, gsex, 5.0, data["counts"])
    for counts in (None, data["counts"] + 1):
        with pytest.raises(ValueError, match="same counts"):
            logistic.fit(gy, gx, 0.75, 0.25, design=design, counts=counts)
        with pytest.raises(ValueError, match="same counts"):
            linear_model.fit(gy, gx, design=design, counts=counts)
