"""Exports of multi-select, numeric and ordinal questions, enough to redo every estimate without this app or ldp: the
reports CSV (a multi-select's bits, a 1-bit mean's bit, discrete Laplace's report as sent), the codebook (scale, bins,
scores, each mechanism's integers and the formulas) and the estimates CSV (a mean row, a mean score row)."""

import csv
import io
import json
import math
from statistics import NormalDist

import numpy as np
import pytest
from django.urls import reverse

from surveys.collection import builder, plan

TRUTH = {1: [0.6, 0.3, 0.2, 0.05], 2: [1 / 101] * 101, 5: [0.4, 0.3, 0.2, 0.1]}


def download(client, owner, survey, name, query=""):
    client.force_login(owner)
    response = client.get(reverse(f"aggregation:export-{name}", args=[survey.slug]) + query)
    assert response.status_code == 200
    return (b"".join(response.streaming_content) if response.streaming else response.content).decode()


@pytest.fixture
def answered(kinds_survey):
    builder.simulate_responses(kinds_survey, 600, TRUTH, seed=21)
    return kinds_survey


def test_the_codebook_describes_each_new_kind(client, owner, answered):
    book = json.loads(download(client, owner, answered, "codebook"))
    multi, onebit, dlaplace, ages, gamble = book["questions"]
    assert multi["report"] == {"encoding": "bits", "csv_columns": ["q1_0", "q1_1", "q1_2", "q1_3"],
                               "json": "a list of 4 bits, bit j for option j"}
    assert multi["mechanism"]["hamming_d"] == 4 and multi["mechanism"]["at_most"] == 2
    assert onebit["scale"] == {"lo": "0", "hi": "100", "step": "1"} and onebit["report"]["csv_columns"] == ["q2"]
    assert onebit["report"]["json"] == "the bit 0 or 1 (1 leans toward hi)"
    bound = dlaplace["mechanism"]["bound"]
    assert dlaplace["report"]["json"].startswith(f"an integer r from {-bound} to {20 + bound}")
    assert dlaplace["mechanism"]["p"] is None and dlaplace["mechanism"]["scale_exact"] == "20/1"
    assert [b["lower"] for b in ages["bins"]] == ["0", "18", "35", "65"]
    assert gamble["scores"] == ["1", "2", "3", None]
    assert {"multiselect", "onebit", "dlaplace", "histogram", "ordinal"} <= set(book["debiasing"])


@pytest.mark.slow
def test_the_reports_csv_has_each_kinds_columns_and_discrete_laplace_as_sent(client, owner, answered):
    header, *body = list(csv.reader(io.StringIO(download(client, owner, answered, "reports-csv"))))
    assert header[3:] == ["q1_0", "q1_1", "q1_2", "q1_3", "q2", "q3", "q4", "q5"]
    bound = plan.of(answered).questions[2].mechanism.bound
    column = np.array([int(row[header.index("q3")]) for row in body])
    assert column.min() >= -bound and column.max() <= 20 + bound and (column < 0).any()  # noise below lo
    assert {row[header.index("q2")] for row in body} == {"0", "1"}


def redo(entry, table, header):
    """A question's estimate from the reports CSV and the codebook alone, with the codebook's formulas:
    per option (estimate, std error) for fractions, (mean, std error) for a numeric mean."""
    m, n = entry["mechanism"], len(table)
    columns = [header.index(c) for c in entry["report"]["csv_columns"]]
    values = table[:, columns]
    if m["name"] == "dlaplace":
        r = values[:, 0].astype(float)
        step, lo = float(entry["scale"]["step"]), float(entry["scale"]["lo"])
        spread = max(r.var(ddof=1), m["noise_variance"])
        return lo + step * r.mean(), step * math.sqrt(spread / n)
    sampler = m["sampler"]
    high, low = ("one_if_true", "one_if_false") if sampler["kind"] == "unary" else ("keep", "other")
    p = sampler[high] / sampler["modulus"]
    q = sampler[low] / sampler["modulus"] if low in sampler else 1 - p  # multiselect, onebit: flip = 1 - keep
    if m["name"] == "onebit":
        lam = values[:, 0].mean()
        lo, width = float(entry["scale"]["lo"]), float(entry["scale"]["hi"]) - float(entry["scale"]["lo"])
        return lo + width * (lam - q) / (p - q), width * math.sqrt(lam * (1 - lam) / n) / (p - q)
    if entry["report"]["encoding"] == "bits":
        counts = values.sum(axis=0)
    else:
        counts = np.bincount(values[:, 0], minlength=len(entry["options"]))
    lam = counts / n
    return (lam - q) / (p - q), np.sqrt(lam * (1 - lam) / n) / (p - q)


@pytest.mark.slow
def test_every_estimate_redone_from_the_reports_csv_and_codebook_alone_equals_the_apis(client, owner, answered):
    book = json.loads(download(client, owner, answered, "codebook"))
    header, *body = list(csv.reader(io.StringIO(download(client, owner, answered, "reports-csv"))))
    table = np.array([[int(cell) for cell in row[3:]] for row in body])
    header = header[3:]
    api = {q["key"]: q for q in client.get(reverse("aggregation:api-estimates", args=[answered.slug])).json()[
        "questions"]}
    for entry in book["questions"]:
        estimate, std_error = redo(entry, table, header)
        found = api[entry["key"]]
        if found["mean"] is not None and not found["options"]:
            assert (estimate, std_error) == pytest.approx((found["mean"]["mean"], found["mean"]["std_error"]), rel=1e-9)
        else:
            assert list(estimate) == pytest.approx([o["estimate"] for o in found["options"]], rel=1e-9, abs=1e-12)
            assert list(std_error) == pytest.approx([o["std_error"] for o in found["options"]], rel=1e-9)
        if entry["kind"] == "ordinal":  # the mean score over the scored levels, from the same fractions
            scores = entry["scores"]
            scored = [j for j, s in enumerate(scores) if s is not None]
            ratio = sum(float(scores[j]) * estimate[j] for j in scored) / sum(estimate[j] for j in scored)
            assert ratio == pytest.approx(found["mean"]["mean"], rel=1e-9)


def test_the_estimates_csv_has_a_mean_row_and_a_mean_score_row(client, owner, answered):
    header, *body = list(csv.reader(io.StringIO(download(client, owner, answered, "estimates", "?interval=wilson"))))
    records = [dict(zip(header, row, strict=True)) for row in body]
    api = client.get(reverse("aggregation:api-estimates", args=[answered.slug]) + "?interval=wilson").json()[
        "questions"]
    means = [r for r in records if r["option_index"] in ("mean", "mean_score")]
    assert [(r["question_key"], r["option_index"], r["mechanism"], r["interval"]) for r in means] == [
        ("q2", "mean", "onebit", "wilson"), ("q3", "mean", "dlaplace", "normal"), ("q5", "mean_score", "krr", "t")]
    for record in means:
        found = next(q for q in api if q["key"] == record["question_key"])["mean"]
        assert float(record["estimate"]) == pytest.approx(found["mean"])
        assert (float(record["ci_low"]), float(record["ci_high"])) == pytest.approx((found["ci_low"], found["ci_high"]))
        assert int(record["count"]) == 600
    laplace = next(r for r in records if r["question_key"] == "q3")
    assert laplace["p"] == laplace["q_other"] == ""  # an integer report has no p and q
    assert len([r for r in records if r["question_key"] == "q1"]) == 4 and all(
        r["simplex"] == "" for r in records if r["question_key"] == "q1")


@pytest.mark.slow
def test_the_normal_interval_of_discrete_laplace_is_the_estimate_plus_minus_z_standard_errors(client, owner, answered):
    client.force_login(owner)
    found = client.get(reverse("aggregation:api-estimates", args=[answered.slug]) + "?interval=wilson").json()[
        "questions"][2]["mean"]
    z = NormalDist().inv_cdf(0.975)
    assert found["ci_low"] == pytest.approx(max(0.0, found["mean"] - z * found["std_error"]))
    assert found["ci_high"] == pytest.approx(min(10.0, found["mean"] + z * found["std_error"]))
