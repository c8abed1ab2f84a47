"""The quality report of synthetic respondents (`ldp.synthetic.quality`): each 1- and 2-way marginal's largest
difference from the debiased estimate in its standard errors, and the warnings."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from ldp import make
from ldp.joint.tables import JointCounts, estimate_joint
from ldp.synthetic import synthesize
from ldp.synthetic.quality import QualityWarning, quality
from tests.ldp.synthetic_population import planted


def test_its_figures_are_the_rows_shares_against_the_joint_estimate():
    population = planted(4000, 1)
    made = synthesize(population.reports(), seed=2)
    report = quality(made)
    (pair,) = [m for m in report.marginals if m.variables == ("b", "d")]
    b, d = (np.asarray(made.cells[c], dtype=int) for c in ("b", "d"))
    shares = np.bincount(b * 4 + d, minlength=8).reshape(2, 4) / made.rows
    mb, md = population.mechanisms["b"], population.mechanisms["d"]
    counts = JointCounts.from_reports(mb, np.asarray(population.cells["b"], dtype=int), md,
                                      np.asarray(population.cells["d"], dtype=int))
    joint = estimate_joint(mb, md, counts)
    ratios = np.abs(shares - np.asarray(joint.estimate)) / np.asarray(joint.std_error)
    cell = np.unravel_index(int(np.argmax(ratios)), ratios.shape)
    assert (pair.cell, pair.n) == (tuple(int(c) for c in cell), 4000)
    assert np.allclose([pair.synthetic, pair.estimate, pair.std_error, pair.ratio],
                       [shares[cell], joint.estimate[cell[0]][cell[1]], joint.std_error[cell[0]][cell[1]],
                        ratios[cell]])
    assert report.largest == max(m.ratio for m in report.marginals) < 4.5  # rows that fit: no figure far off


def test_it_shows_rows_that_do_not_fit():
    population = planted(10_000, 1)
    made = synthesize(population.reports(), seed=2)
    values = list(made.values)
    at = made.of_question["y"][0]
    values[at] = np.random.default_rng(1).permutation(values[at])  # y's relation to every other question lost
    broken = quality(dataclasses.replace(made, values=values))
    worst = max((m for m in broken.marginals if m.variables == ("b", "y")), key=lambda m: m.ratio)
    assert worst.ratio > 6.0
    assert [m.ratio for m in broken.marginals if "y" not in m.variables] == [
        m.ratio for m in quality(made).marginals if "y" not in m.variables]


def test_it_warns_of_too_few_responses_and_of_a_pair_never_answered_together():
    rng = np.random.default_rng(4)
    n = 300
    qrr, direct = make("qrr", q="1/2"), make("direct", k=2)
    first = np.where(np.arange(n) < n // 2, qrr.randomize(rng.integers(0, 2, n), rng).astype(str), "")
    second = np.where(np.arange(n) >= n // 2, rng.integers(0, 2, n).astype(str), "")
    made = synthesize([("a", qrr, first), ("b", direct, second)], seed=1)
    report = quality(made)
    texts = [w.text for w in report.warnings]
    assert any(w.startswith("a: 150 responses, fewer than the ") for w in texts), texts
    assert "a and b were never answered together: their rows' relation is the model's guess" in texts
    assert "b: 150 responses, fewer than the 385 the planner needs for ±0.05 at 95%" in texts
    assert QualityWarning("never_together", {"a": "a", "b": "b"}) in report.warnings
    assert QualityWarning("too_few", {"name": "b", "n": 150, "needed": 385, "margin": 0.05}) in report.warnings


def test_a_warning_is_a_code_with_its_values_and_an_english_sentence():
    warning = QualityWarning("pair_too_few", {"a": "x", "b": "y", "n": 12, "needed": 900, "margin": 0.05})
    assert warning.to_dict() == {"code": "pair_too_few", "values": warning.values, "text": (
        "x and y: 12 responses answering both, fewer than the 900 the planner needs for ±0.05 on every cell at 95%")}
    with pytest.raises(ValueError, match="no sentence for the warning 'new_code'"):
        QualityWarning("new_code", {})
