"""Synthetic rows of a weighted survey (`ldp.synthetic.weighted`): a planted population sampled with one group
over-sampled, raked back to the group's population shares. Unweighted, the rows carry the sample's shares (off);
weighted, they land within the weighted estimates' intervals, and the quality report compares with the weighted
estimates and their standard errors (the dashboard's `ldp.weighting.estimates.weighted_fractions`)."""

from __future__ import annotations

import numpy as np
import pytest

from ldp import make
from ldp.synthetic import Weighting, synthesize
from ldp.synthetic.quality import quality
from ldp.weighting.estimates import weighted_fractions
from ldp.weighting.raking import coded_margin, rake

GROUP = [0.5, 0.5]  # the population's shares of the group
SAMPLED = 0.8  # the sample's share of group 1
Y_GIVEN = [[0.8, 0.2], [0.3, 0.7]]  # P(y | group): the population's P(y = 1) is 0.45, the sample's 0.6
Z_GIVEN = [[0.6, 0.3, 0.1], [0.1, 0.3, 0.6]]  # P(z | group)
N = 20_000


@pytest.fixture(scope="module")
def sample():
    rng = np.random.default_rng(11)
    group = (rng.random(N) < SAMPLED).astype(np.int64)
    y = (rng.random(N) < np.take(np.array(Y_GIVEN)[:, 1], group)).astype(np.int64)
    z = np.array([rng.choice(3, p=Z_GIVEN[g]) for g in group])
    mechanisms = {"group": make("direct", k=2), "y": make("krr", epsilon=1.5, k=2), "z": make("oue", epsilon=2.0,
                                                                                                  k=3)}
    reports = {"group": group, "y": mechanisms["y"].randomize(y, rng), "z": mechanisms["z"].randomize(z, rng)}
    cells = {name: (r.astype(np.uint32) + 48).view("<U3").reshape(-1) if r.ndim == 2 else r.astype(str)
             for name, r in reports.items()}
    counts = np.bincount(group, minlength=2)
    design = rake([coded_margin("group", [0, 1], {"0": GROUP[0], "1": GROUP[1]})], cap=None, counts=counts)
    return {"mechanisms": mechanisms, "reports": reports, "cells": cells, "weighting": Weighting(design, group),
            "per_response": design.weights[group]}


def made(sample, weighted):
    columns = [(name, sample["mechanisms"][name], sample["cells"][name]) for name in ("group", "y", "z")]
    return synthesize(columns, seed=3, weighting=sample["weighting"] if weighted else None)


def shares(found, name, k):
    return np.bincount(np.asarray(found.cells[name], dtype=np.int64), minlength=k) / found.rows


def expected(sample, name):
    """The dashboard's weighted estimate of a question (`ldp.weighting.estimates.weighted_fractions` on each response's
    weight) and its standard error."""
    from ldp.weighting.raking import Raked

    estimate = weighted_fractions(sample["mechanisms"][name], sample["reports"][name],
                                  Raked(sample["per_response"], margins=(coded_margin(
                                      "group", sample["reports"]["group"], {"0": GROUP[0], "1": GROUP[1]}),)))
    return np.asarray(estimate.estimate), np.asarray(estimate.std_error)


@pytest.mark.parametrize(("name", "k"), [("y", 2), ("z", 3)])
def test_weighted_rows_land_within_the_weighted_estimates_intervals_where_unweighted_ones_do_not(sample, name, k):
    estimate, std_error = expected(sample, name)
    truth = np.array(GROUP) @ np.array(Y_GIVEN if name == "y" else Z_GIVEN)
    assert np.all(np.abs(estimate - truth) < 4 * std_error), (estimate, truth)  # the estimate is the population's
    weighted, unweighted = shares(made(sample, True), name, k), shares(made(sample, False), name, k)
    assert np.all(np.abs(weighted - estimate) < 2.5 * std_error), (weighted, estimate, std_error)
    assert np.max(np.abs(unweighted - estimate) / std_error) > 8, (unweighted, estimate, std_error)


def test_weighted_rows_carry_the_margins_shares_and_the_weighted_pair_table(sample):
    found = made(sample, True)
    assert np.abs(shares(found, "group", 2) - GROUP).max() < 3 / N ** 0.5
    rows = np.asarray(found.cells["group"], dtype=np.int64), np.asarray(found.cells["y"], dtype=np.int64)
    for g in (0, 1):  # within each group the rows keep the sample's relation: P(y = 1 | group) unchanged by weights
        share = rows[1][rows[0] == g].mean()
        assert abs(share - Y_GIVEN[g][1]) < 0.05, (g, share)


def test_its_quality_report_compares_with_the_weighted_estimates_and_their_standard_errors(sample):
    found = made(sample, True)
    stated = quality(found)
    y = next(m for m in stated.marginals if m.variables == ("y",))
    estimate, std_error = expected(sample, "y")
    assert y.estimate == pytest.approx(estimate[y.cell[0]], abs=1e-9)
    assert y.std_error == pytest.approx(std_error[y.cell[0]], rel=1e-6)
    assert y.n == N
    pair = next(m for m in stated.marginals if m.variables == ("group", "y"))
    assert pair.ratio < 3.0 and stated.largest < 4.0, stated.marginals
    assert quality(made(sample, False)).largest < 4.0  # unweighted rows against the unweighted estimates


def test_a_weighting_of_other_responses_is_refused(sample):
    short = Weighting(sample["weighting"].design, sample["weighting"].cells[:-1])
    columns = [(name, sample["mechanisms"][name], sample["cells"][name]) for name in ("group", "y")]
    with pytest.raises(ValueError, match="cells for 20000 responses"):
        synthesize(columns, weighting=short)


def test_a_margins_share_off_by_less_than_the_draws_rounding_is_within_one_standard_error(sample):
    import dataclasses

    found = made(sample, True)
    at = found.of_question["group"][0]
    values = list(found.values)
    group = values[at].copy()
    group[np.flatnonzero(group == 0)[:5]] = 1  # five rows moved: the draw rounds up to one row per class (16)
    values[at] = group
    stated = quality(dataclasses.replace(found, values=values))
    margin = next(m for m in stated.marginals if m.variables == ("group",))
    assert margin.std_error < 1e-12  # fixed by the raking: the rows' rounding stands for its standard error
    assert 4 / N < abs(margin.synthetic - margin.estimate) and margin.ratio < 1.0, margin
