"""The waves of a series in the analysis script (surveys.aggregation.scripts.python.waves and waves_output),
imported directly on two small waves: each wave's estimates debiased, the change and its variance (independent
waves: se1^2 + se2^2; shared respondents: the covariance of the fewest changes), waves.csv's rows."""

import csv
from fractions import Fraction

import numpy as np
import pytest

from surveys.aggregation.scripts.python import debiasing, reading, waves, waves_output
from tests.aggregation.scripts.python import support


def wave(folder, number, shares, shared, seed):
    """A wave's folder: the support codebook as wave `number` of one series, q1 and q2 compared, q3 not."""
    folder.mkdir()
    book = support.book()
    book["survey"]["status"] = "open"
    book["wave"] = {"number": number, "series": "S", "series_link": "s", "opens_at": None, "closes_at": None,
                    "answered_an_earlier_wave": shared,
                    "questions": {key: {"lineage": key, "compared": key != "q3"} for key in ("q1", "q2", "q3")}}
    rng = np.random.default_rng(seed)
    rows = [[str(rng.integers(0, 2)), str(rng.choice(3, p=shares)), "1"] for _ in range(400)]
    support.write(folder, rows, book)
    (folder / "reports.csv").rename(folder / "t-reports.csv")
    (folder / "codebook.json").rename(folder / "t-codebook.json")
    return book, rows


@pytest.fixture
def series(tmp_path, monkeypatch):
    monkeypatch.setattr(reading, "MECHANISM_VERSION", support.VERSION)
    one = wave(tmp_path / "w1", 1, [0.6, 0.3, 0.1], 0, seed=1)
    two = wave(tmp_path / "w2", 2, [0.3, 0.3, 0.4], 0, seed=2)
    return tmp_path, one, two


def test_each_waves_estimate_is_debiased_and_the_change_of_independent_waves_adds_the_variances(series):
    folder, (book, rows1), (_, rows2) = series
    found = waves.across_waves([str(folder / "w1"), str(folder / "w2")])
    assert (found["first"], found["second"]) == (1, 2)
    assert [q["key"] for q in found["not_compared"]] == ["q3"]
    trend = next(t for t in found["trends"] if t["q"]["key"] == "q2")
    channel = book["questions"][1]["mechanism"]
    p, q = float(Fraction(channel["p_exact"])), float(Fraction(channel["q_other_exact"]))
    expected = [debiasing.debias(np.bincount([int(r[1]) for r in rows], minlength=3).tolist(), 400, p, q, 0.95,
                                 "wilson", False) for rows in (rows1, rows2)]
    for point, mine in zip(trend["points"], expected, strict=True):
        assert point["estimate"] == pytest.approx(mine[0]) and point["std_error"] == pytest.approx(mine[1])
    change = trend["change"]
    assert change["estimate"] == pytest.approx(expected[1][0] - expected[0][0])
    assert change["std_error"] == pytest.approx(np.hypot(expected[0][1], expected[1][1]))
    assert change["correlation"] == "independent"


def test_shared_respondents_who_change_least_make_the_change_more_precise():
    design = ((Fraction(3, 4), Fraction(1, 8)), None)
    one = {"n": 400, "design": design, "estimate": np.array([0.5, 0.3, 0.2]), "std_error": np.array([0.04] * 3)}
    two = {**one, "estimate": np.array([0.45, 0.35, 0.2])}
    apart, together = waves.wave_change(one, two, 0, 0.95), waves.wave_change(one, two, 200, 0.95)
    assert apart["std_error"] == pytest.approx(np.hypot(0.04, 0.04))
    assert together["correlation"] == "fewest_changes" and np.all(together["std_error"] < apart["std_error"])
    assert waves.wave_change(one, two, 200, 0.95, known=False)["std_error"] == pytest.approx([0.08] * 3)


def test_waves_csv_has_its_columns_a_row_per_wave_and_option_and_the_changes(series, tmp_path):
    folder, *_ = series
    found = waves.across_waves([str(folder / "w1"), str(folder / "w2")])
    waves_output.write_waves_csv(found, str(tmp_path / "waves.csv"))
    with (tmp_path / "waves.csv").open(newline="") as file:
        read = list(csv.DictReader(file))
    assert list(read[0]) == waves.WAVES_COLUMNS
    kinds = [(r[waves.WAVES_COLUMNS[0]], r["question_key"]) for r in read]
    assert kinds == [("wave", "q1")] * 4 + [("change", "q1")] * 2 + [("wave", "q2")] * 6 + [("change", "q2")] * 3


def test_wave_cell_leaves_an_undefined_number_empty():
    assert waves.wave_cell(float("nan")) == "" and waves.wave_cell(None) == "" and waves.wave_cell(0.5) == 0.5
