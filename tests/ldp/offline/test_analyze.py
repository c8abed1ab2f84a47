"""ldp.offline.analyze: estimates from an exported reports file and its codebook, without the app.

The files here are made by hand in the app's format (the app's own exports are analyzed in
tests/aggregation/scripts/test_analysis_scripts.py), from reports ldp randomized itself.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest

import ldp
from ldp.offline import analyze

MECHANISMS = {
    "q1": ldp.QRandomizedResponse("0.3"),
    "q2": ldp.BitFlip(1.00008352337),
    "q3": ldp.KaryRR(1.3, 3),
    "q4": ldp.SymmetricUnary(0.7, 3),
    "q5": ldp.OptimizedUnary(1.3, 4),
    "q6": ldp.Direct(3),
}


def codebook() -> dict:
    questions = []
    for key, mechanism in MECHANISMS.items():
        described = mechanism.describe()
        columns = [f"{key}_{j}" for j in range(mechanism.k)] if mechanism.unary else [key]
        questions.append({
            "key": key, "text": f"Question {key}?", "options": [f"{key} option {j}" for j in range(mechanism.k)],
            "randomized": mechanism.randomized, "mechanism": described,
            "report": {"encoding": mechanism.encoding, "csv_columns": columns}})
    header = ["response_id", "submitted_on", "mechanism_version"]
    return {"format": "ldp-survey-codebook/2", "survey": {"mechanism_version": "v1"}, "questions": questions,
            "reports_csv_columns": header + [c for q in questions for c in q["report"]["csv_columns"]]}


def reports(n: int, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {key: m.randomize(rng.integers(0, m.k, size=n), rng) for key, m in MECHANISMS.items()}


def csv_text(book: dict, made: dict[str, np.ndarray], missing: dict[str, set[int]] | None = None) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(book["reports_csv_columns"])
    n = len(next(iter(made.values())))
    for i in range(n):
        cells: list = [f"id-{i}", "2026-01-01", "v1"]
        for key, values in made.items():
            value = values[i].tolist()
            if i in (missing or {}).get(key, set()):
                value = [""] * len(value) if isinstance(value, list) else ""
            cells += value if isinstance(value, list) else [value]
        writer.writerow(cells)
    return out.getvalue()


def expected(made: dict[str, np.ndarray], key: str, **options) -> ldp.Estimate:
    mechanism = MECHANISMS[key]
    values = made[key]
    return mechanism.estimate(mechanism.counts(values), len(values), **options)


@pytest.mark.parametrize("options", [{}, {"confidence": 0.9, "interval": "exact", "simultaneous": True}],
                         ids=["defaults", "exact-simultaneous"])
def test_it_gives_every_questions_estimates_as_the_mechanism_does(options):
    book, made = codebook(), reports(300)
    tally = analyze.count_csv(io.StringIO(csv_text(book, made)), analyze.designs(book))
    found = {item.design.key: item.estimate for item in analyze.estimate(tally, **options)}
    for key in MECHANISMS:
        assert found[key] == expected(made, key, **options), key


def test_a_json_export_gives_the_same_estimates_as_its_csv():
    book, made = codebook(), reports(120, seed=1)
    responses = [{"id": f"id-{i}", "reports": {key: values[i].tolist() for key, values in made.items()}}
                 for i in range(120)]
    from_json = analyze.estimate(analyze.count_json({"codebook": book, "responses": responses}, analyze.designs(book)))
    from_csv = analyze.estimate(analyze.count_csv(io.StringIO(csv_text(book, made)), analyze.designs(book)))
    assert from_json == from_csv


def test_a_missing_report_leaves_the_response_out_of_that_question_only():
    book, made = codebook(), reports(50, seed=2)
    tally = analyze.count_csv(io.StringIO(csv_text(book, made, {"q1": {0, 1}, "q4": {3}})), analyze.designs(book))
    assert (tally.n["q1"], tally.n["q4"], tally.n["q2"]) == (48, 49, 50)
    assert tally.counts["q1"] == MECHANISMS["q1"].counts(made["q1"][2:]).tolist()


def test_it_debiases_with_the_codebooks_exact_channel_not_one_recomputed_from_epsilon():
    book = codebook()
    (bitflip,) = [d for d in analyze.designs(book) if d.key == "q2"]
    mechanism = MECHANISMS["q2"]
    assert (bitflip.p, bitflip.q_other) == (mechanism.p, mechanism.q_other)
    configured = np.exp(mechanism.epsilon) / (1 + np.exp(mechanism.epsilon))
    assert bitflip.p != configured


def test_rows_carry_every_number_and_leave_undefined_ones_empty():
    book = codebook()
    tally = analyze.Tally(analyze.designs(book))  # no reports at all
    rows = list(analyze.rows(analyze.estimate(tally)))
    assert len(rows) == sum(m.k for m in MECHANISMS.values())
    assert all(list(row) == analyze.ROW_COLUMNS for row in rows)
    assert {row["estimate"] for row in rows} == {None} and {row["ci_low"] for row in rows} == {0.0}
    direct = [row for row in rows if row["question_key"] == "q6"]
    assert {(row["randomized"], row["p"], row["q_other"]) for row in direct} == {(False, 1.0, 0.0)}


@pytest.mark.parametrize("spoil, message", [
    (lambda book, text: ({**book, "format": "other"}, text), "not a codebook"),
    (lambda book, text: (book, text.replace("q3,", "qX,", 1)), "no column 'q3'"),
    (lambda book, text: (book, text.replace(",v1,", ",v1,7,", 1)), "cells, the header has"),
    (lambda book, text: (book, text.splitlines()[0] + "\nid,2026-01-01,v1,2,0,0,0,0,0,0,0,0,0,0\n"),
     "q1 must be an option index from 0 to 1"),
    (lambda book, text: (book, text.splitlines()[0] + "\nid,2026-01-01,v1,1,0,0,2,0,0,0,0,0,0,0\n"),
     "q4 must be 3 bits"),
    (lambda book, text: (book, text.splitlines()[0] + "\nid,2026-01-01,v1,x,0,0,0,0,0,0,0,0,0,0\n"),
     "not a whole number"),
    (lambda book, text: (book, ""), "empty"),
], ids=["format", "column", "row-length", "index-range", "bits", "not-a-number", "empty"])
def test_it_refuses_a_file_it_cannot_read_and_says_where(spoil, message):
    book, text = spoil(codebook(), csv_text(codebook(), reports(5, seed=3)))
    with pytest.raises(analyze.ExportError, match=message):
        analyze.count_csv(io.StringIO(text), analyze.designs(book))


def test_read_finds_the_codebook_beside_a_csv_export(tmp_path: Path):
    book, made = codebook(), reports(40, seed=4)
    (tmp_path / "s-reports.csv").write_text(csv_text(book, made))
    (tmp_path / "s-codebook.json").write_text(json.dumps(book))
    tally = analyze.read(tmp_path / "s-reports.csv")
    assert tally.n["q5"] == 40
    (tmp_path / "s-codebook.json").unlink()
    with pytest.raises(analyze.ExportError, match="--codebook"):
        analyze.read(tmp_path / "s-reports.csv")
