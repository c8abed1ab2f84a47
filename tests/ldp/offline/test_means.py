"""ldp.offline.analyze (and ldp.offline.means) on numeric means and ordinal mean scores, from files made by hand in
the app's format: a numeric mean and an ordinal mean score equal the mechanisms' own estimators, out-of-range
reports and a codebook whose integers are not those of its parameters are refused. (The app's own exports:
tests/aggregation/scripts/test_every_question.py.)"""

from __future__ import annotations

import io

import numpy as np
import pytest

import ldp
from ldp.means.ordinal import scored_mean
from ldp.offline import analyze

LAPLACE = ldp.DiscreteLaplace(1.0, "0", "10", "0.5")
ONEBIT = ldp.OneBitMean(1.0, "0", "4", "1")
LEVELS = ldp.SymmetricUnary(1.5, 3)
SCORES = ["1", "2", None]


def codebook() -> dict:
    def entry(key, mechanism, options, columns, scores=None):
        found = {"key": key, "text": key, "options": options, "randomized": True,
                 "mechanism": mechanism.describe(), "report": {"encoding": mechanism.encoding, "csv_columns": columns}}
        return {**found, "scores": scores} if scores else found
    questions = [entry("q1", LAPLACE, [], ["q1"]), entry("q2", ONEBIT, [], ["q2"]),
                 entry("q3", LEVELS, ["a", "b", "c"], ["q3_0", "q3_1", "q3_2"], SCORES)]
    return {"format": "ldp-survey-codebook/2", "questions": questions,
            "reports_csv_columns": ["response_id", "q1", "q2", "q3_0", "q3_1", "q3_2"]}


def made(n=400, seed=3):
    rng = np.random.default_rng(seed)
    return (LAPLACE.randomize(rng.integers(0, 21, n), rng), ONEBIT.randomize(rng.integers(0, 5, n), rng),
            LEVELS.randomize(rng.choice(3, n, p=[0.5, 0.3, 0.2]), rng))


def text(laplace, onebit, levels) -> str:
    lines = ["response_id,q1,q2,q3_0,q3_1,q3_2"]
    rows = enumerate(zip(laplace, onebit, levels, strict=True))
    lines += [f"r{i},{r},{b},{','.join(map(str, bits))}" for i, (r, b, bits) in rows]
    return "\n".join(lines) + "\n"


def test_means_and_the_mean_score_are_the_mechanisms_own():
    laplace, onebit, levels = made()
    book = codebook()
    found = analyze.estimate(analyze.count_csv(io.StringIO(text(laplace, onebit, levels)), analyze.designs(book)),
                             confidence=0.9)
    assert found[0].estimate is None and found[0].mean == LAPLACE.estimate_mean(*LAPLACE.histogram(laplace), 0.9)
    assert found[1].mean == ONEBIT.estimate_mean(*ONEBIT.histogram(onebit), 0.9)
    assert found[2].mean == scored_mean(LEVELS, LEVELS.counts(levels), 400, [1.0, 2.0, None], 0.9)
    rows = list(analyze.rows(found))
    assert [(r["question_key"], r["option_index"]) for r in rows] == [
        ("q1", "mean"), ("q2", "mean"), ("q3", 0), ("q3", 1), ("q3", 2), ("q3", "mean_score")]
    assert rows[0]["p"] is None
    assert (rows[0]["interval"], rows[1]["interval"], rows[5]["interval"]) == ("normal", "wilson", "t")
    assert rows[0]["estimate"] == found[0].mean.mean and rows[0]["count"] == 400


def test_a_discrete_laplace_report_outside_its_range_is_refused():
    book = codebook()
    r = LAPLACE.steps + LAPLACE.bound + 1
    with pytest.raises(analyze.ExportError, match=f"q1 must be an integer from {-LAPLACE.bound} to {r - 1}"):
        analyze.count_csv(io.StringIO(f"response_id,q1,q2,q3_0,q3_1,q3_2\nx,{r},0,0,1,0\n"), analyze.designs(book))


def test_a_codebook_whose_integers_are_not_its_parameters_is_refused():
    book = codebook()
    book["questions"][0]["mechanism"]["sampler"]["scale_num"] += 1
    tally = analyze.count_csv(io.StringIO(text(*made(10))), analyze.designs(book))
    with pytest.raises(analyze.ExportError, match="q1: the codebook's sampler integers are not those its parameters"):
        analyze.estimate(tally)


@pytest.mark.parametrize(("change", "field"), [
    (lambda p: p.update(k=3), "k"),  # a field the 1-bit mean does not take
    (lambda p: p.pop("step"), "step"),  # one it needs
    (lambda p: p.update(step="3"), "step"),  # one its constructor refuses: 4 is not a whole number of 3s
])
def test_a_codebooks_mechanism_is_built_from_its_fields_and_a_bad_one_named(change, field):
    book = codebook()
    change(book["questions"][1]["mechanism"]["parameters"])
    tally = analyze.count_csv(io.StringIO(text(*made(10))), analyze.designs(book))
    with pytest.raises(analyze.ExportError, match=f"q2: cannot rebuild the mechanism from the codebook \\({field}: "):
        analyze.estimate(tally)
