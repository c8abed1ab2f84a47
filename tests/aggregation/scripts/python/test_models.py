"""A model in the analysis script (surveys.aggregation.scripts.python.models and model_output), imported directly
on a small codebook and reports CSV: the rows used, the terms as the dashboard names them, the fit, the CSV."""

import csv

import numpy as np
import pytest

from surveys.aggregation.scripts.python import model_output, models, reading
from tests.aggregation.scripts.python import support


@pytest.fixture
def files(tmp_path, monkeypatch):
    """q1 (yes/no, randomized) leaning on q3 (a number asked directly); one response without q3: dropped."""
    monkeypatch.setattr(reading, "MECHANISM_VERSION", support.VERSION)
    rng = np.random.default_rng(9)
    rows = []
    for _ in range(3000):
        number = rng.integers(0, 21) / 2
        truth = rng.random() < 1 / (1 + np.exp(-(number - 5) / 2))
        rows.append([str(int(truth) if rng.random() < 0.5 else rng.integers(0, 2)), "0", str(number)])
    rows.append(["1", "0", ""])
    return support.write(tmp_path, rows)


def test_fit_model_uses_the_rows_with_every_question_and_names_the_terms(files):
    reports, codebook = files
    found = models.fit_model(reports, codebook, outcome="q1", covariates=["q3"])
    assert (found["model"], found["n"], found["dropped"]) == ("logistic", 3000, 1)
    assert found["terms"] == ["(Intercept)", "q3"] and found["labels"] == ["Intercept", "3. Question 3?"]
    slope, se = found["estimate"][1], found["std_error"][1]
    assert abs(slope - 0.5) < 4 * se  # the true answer's log-odds rise by 1/2 per unit of q3


def test_a_question_asked_directly_is_no_outcome(files):
    reports, codebook = files
    with pytest.raises(ValueError, match="the outcome must be a randomized question"):
        models.fit_model(reports, codebook, outcome="q3")


def test_the_model_csv_has_the_dashboards_columns_and_a_row_per_term(files, tmp_path, capsys):
    reports, codebook = files
    found = models.fit_model(reports, codebook, outcome="q1", covariates=["q3"], squares=["q3"])
    model_output.write_model_csv(found, str(tmp_path / "m.csv"))
    with (tmp_path / "m.csv").open(newline="") as file:
        read = list(csv.DictReader(file))
    assert list(read[0]) == models.MODEL_COLUMNS and [r["term"] for r in read] == ["(Intercept)", "q3", "q3^2"]
    model_output.show_model(found)
    assert "q3^2" in capsys.readouterr().out
