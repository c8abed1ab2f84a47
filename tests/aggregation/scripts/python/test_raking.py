"""The analysis script's raking (surveys.aggregation.scripts.python.raking), imported directly: the weights meet
every margin, a cap holds, and the weighted means and their linearization variances are as the formulas say."""

import numpy as np
import pytest

from surveys.aggregation.scripts.python import raking


def sample(seed=5, n=400):
    """Two margin questions' codes, skewed against their population shares (60/40 and 20/30/50)."""
    rng = np.random.default_rng(seed)
    return [rng.choice(2, size=n, p=[0.8, 0.2]), rng.choice(3, size=n, p=[0.5, 0.3, 0.2])]


SHARES = [np.array([0.6, 0.4]), np.array([0.2, 0.3, 0.5])]


def test_ipf_converges_to_every_margin():
    codes = sample()
    w, converged = raking.ipf(codes, SHARES, np.ones(codes[0].size))
    assert converged
    for c, t in zip(codes, SHARES, strict=True):
        assert np.bincount(c, weights=w, minlength=t.size) / w.sum() == pytest.approx(t, abs=1e-10)
    assert w.mean() == pytest.approx(1.0)


def test_rake_brings_the_largest_weight_down_toward_the_cap_and_still_meets_the_margins():
    codes = sample()
    free, capped = raking.rake(codes, SHARES, 100.0), raking.rake(codes, SHARES, 2.0)
    assert capped.max() / np.median(capped) < free.max() / np.median(free)
    for c, t in zip(codes, SHARES, strict=True):
        assert np.bincount(c, weights=capped, minlength=t.size) / capped.sum() == pytest.approx(t, abs=1e-9)


def test_a_cap_the_margins_allow_holds_to_the_raking_tolerance():
    rng = np.random.default_rng(2)
    codes = [rng.choice(2, size=400, p=[0.8, 0.2]), rng.choice(3, size=400, p=[0.5, 0.3, 0.2])]
    free = raking.rake(codes, SHARES, 100.0)
    assert free.max() / np.median(free) > 6
    w = raking.rake(codes, SHARES, 4.0)
    assert w.max() / np.median(w) == pytest.approx(4.0, rel=1e-4)
    for c, t in zip(codes, SHARES, strict=True):
        assert np.bincount(c, weights=w, minlength=t.size) / w.sum() == pytest.approx(t, abs=1e-9)


def book_and_columns(codes):
    margins = [{"question": f"q{i + 1}", "cap": 5.0,
                "shares": [{"option_index": j, "option": f"o{j}", "share": float(s)} for j, s in enumerate(t)]}
               for i, t in enumerate(SHARES)]
    book = {"weights": {"margins": margins, "cap": 5.0, "column": "weight"}}
    columns = {f"q{i + 1}": [str(v) for v in c] for i, c in enumerate(codes)}
    columns["q1"][0] = ""  # one response without an answer to a margin question: left out
    return book, columns


def test_weighted_leaves_out_a_response_without_every_margin_and_rakes_the_rest():
    codes = sample()
    book, columns = book_and_columns(codes)
    weighted = raking.Weighted(columns, book)
    assert (weighted.n, weighted.left_out) == (codes[0].size - 1, 1)
    for c, t in zip(weighted.codes, SHARES, strict=True):
        assert np.bincount(c, weights=weighted.w, minlength=t.size) / weighted.w.sum() == pytest.approx(t, abs=1e-9)


def test_a_margins_own_share_is_fixed_by_the_raking_and_has_no_variance():
    codes = sample()
    book, columns = book_and_columns(codes)
    weighted = raking.Weighted(columns, book)
    y = (weighted.codes[0][:, None] == np.arange(2)).astype(float)
    mean, variance = weighted.mean(y)
    assert mean == pytest.approx([0.6, 0.4])
    assert variance == pytest.approx([0.0, 0.0], abs=1e-20)


def test_the_weighted_mean_of_another_variable_has_its_linearization_variance():
    codes = sample()
    book, columns = book_and_columns(codes)
    weighted = raking.Weighted(columns, book)
    u = np.random.default_rng(1).normal(size=weighted.n)
    mean, variance = weighted.mean(u)
    w, z = weighted.w, weighted.z
    assert mean[0] == pytest.approx(w @ u / w.sum())
    beta = np.linalg.lstsq(z * np.sqrt(w)[:, None], u * np.sqrt(w), rcond=None)[0]
    e = u - z @ beta
    n = weighted.n
    assert variance[0] == pytest.approx(n / (n - 1) * np.sum((w * e) ** 2) / w.sum() ** 2, rel=1e-9)


def test_no_margins_or_an_empty_category_cannot_be_weighted():
    with pytest.raises(raking.Unweightable, match="no population margins"):
        raking.Weighted({}, {})
    codes = sample()
    codes[1][codes[1] == 2] = 1
    book, columns = book_and_columns(codes)
    with pytest.raises(raking.Unweightable, match="no respondents in the categories"):
        raking.Weighted(columns, book)
