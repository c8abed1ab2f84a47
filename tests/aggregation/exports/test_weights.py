"""The weight column of the report exports (surveys.aggregation.exports.weights): a survey with population
margins has, in reports.csv, reports.json, reports.dta and reports.sav, each response's raking weight, the very
number the dashboard's weighted figures use (surveys.aggregation.weighting.weights.weights, compared exactly, response
by
response); a response without an answer to every margin question has none; and the codebook lists the margins
and the rule. Every row is compared whole with the reports read back the straightforward way."""

import csv
import io
import json

import pyreadstat
import pytest
from django.urls import reverse

from surveys.aggregation.exports import blocks as report_blocks
from surveys.aggregation.exports import weights as export_weights
from surveys.aggregation.models import MarginShare, PopulationMargin
from surveys.aggregation.weighting import weights as weighting
from surveys.collection import builder, plan
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Report, Survey
from tests.aggregation.support import add_responses, reference_responses, reference_rows

AGE, REGION = {"18-34": 0.3, "35-54": 0.4, "55+": 0.3}, {"North": 0.45, "South": 0.55}
N = 150


@pytest.fixture
def survey(db, owner):
    """1 qrr, 2 direct age band, 3 direct region, 4 sue (3 options); the sample has too many young northerners."""
    made = builder.create_survey("weights", "Weights", [
        QuestionSpec("Cheated?", "qrr", q="0.5"),
        QuestionSpec("Age band?", "direct", options=list(AGE)),
        QuestionSpec("Region?", "direct", options=list(REGION)),
        QuestionSpec("Colour?", "sue", epsilon=1.5, options=["Red", "Green", "Blue"]),
    ], status=Survey.Status.OPEN, epsilon_budget=20.0)
    made.researchers.add(owner)
    return made


def enter(survey, order, shares, source="Census 2021"):
    question = survey.questions.get(order=order)
    found = PopulationMargin.objects.create(question=question, source=source)
    for option, share in zip(question.ordered_options(), shares.values(), strict=True):
        MarginShare.objects.create(margin=found, option=option, share=share)


@pytest.fixture
def weighted(survey):
    """N responses with both margins entered, and one more that answers neither the region nor the colour."""
    add_responses(survey, N, seed=5, truth={2: [0.5, 0.3, 0.2], 3: [0.7, 0.3]})
    current = plan.of(survey)
    builder.write_responses(survey, {q.id: [0] for q in current if q.order in (1, 2)})
    enter(survey, 2, AGE)
    enter(survey, 3, REGION, source="Regional register")
    return survey


def dashboard_weights(survey):
    """Each weighted response's weight as the dashboard's figures use it, by response id (text)."""
    current = plan.of(survey)
    found = weighting.weights(survey, {q.id: q for q in current})
    margins = [m.question_id for m in weighting.margins_of(survey)]
    of_cell = {tuple(cell): float(w) for *cell, w in zip(*(m.codes.tolist() for m in found.design.margins),
                                                   found.design.weights.tolist(), strict=True)}
    answers: dict = {}
    for response, question, value in Report.objects.filter(question_id__in=margins).values_list(
            "response_id", "question_id", "value"):
        answers.setdefault(str(response), {})[question] = value
    return {response: of_cell[tuple(given[q] for q in margins)]
            for response, given in answers.items() if len(given) == len(margins)}


def download(client, owner, survey, name):
    client.force_login(owner)
    response = client.get(reverse(f"aggregation:export-{name}", args=[survey.slug]))
    assert response.status_code == 200, response.content[:300]
    return b"".join(response.streaming_content) if response.streaming else response.content


def expected_rows(survey):
    """Each response's cells, the weight last (None where the response is not weighted)."""
    weights = dashboard_weights(survey)
    return [[*cells, weights.get(cells[0])] for cells in reference_rows(survey, plan.of(survey))]


def test_the_csv_carries_each_responses_dashboard_weight(client, owner, weighted):
    header, *rows = csv.reader(io.StringIO(download(client, owner, weighted, "reports-csv").decode()))
    expected = expected_rows(weighted)
    assert header[-1] == "weight" and header == json.loads(download(client, owner, weighted, "codebook"))[
        "reports_csv_columns"]
    assert len(rows) == len(expected) == N + 1
    written = [[*row[:-1], float(row[-1]) if row[-1] else None] for row in rows]
    assert written == [[str(c) if c is not None else "" for c in cells[:-1]] + [cells[-1]] for cells in expected]
    assert sum(row[-1] == "" for row in rows) == 1  # the response without a region: no weight
    assert len({row[-1] for row in rows}) > 3  # the weights vary: one put in another's row would be seen


def test_the_json_carries_each_responses_dashboard_weight(client, owner, weighted):
    body = json.loads(download(client, owner, weighted, "reports-json"))
    weights = dashboard_weights(weighted)
    expected = [{"id": i, "submitted_on": day.isoformat(), "mechanism_version": version, "reports": reports,
                 "weight": weights.get(i)} for i, day, version, reports in reference_responses(weighted,
                                                                                            plan.of(weighted))]
    assert body["responses"] == expected
    assert body["codebook"]["weights"]["column"] == "weight"


@pytest.mark.parametrize("extension, read", [("dta", pyreadstat.read_dta), ("sav", pyreadstat.read_sav)])
def test_the_labelled_files_carry_each_responses_dashboard_weight(client, owner, weighted, extension, read,
                                                                  tmp_path):
    path = tmp_path / f"reports.{extension}"
    path.write_bytes(download(client, owner, weighted, f"reports-{extension}"))
    frame, meta = read(str(path))
    assert list(frame.columns)[-1] == "weight"
    assert meta.column_names_to_labels["weight"] == "Raking weight to the population margins (missing: not weighted)"
    expected = expected_rows(weighted)
    read_weights = [None if w != w else float(w) for w in frame["weight"]]  # NaN is missing
    assert read_weights == [cells[-1] for cells in expected]
    assert [str(i) for i in frame["response_id"]] == [cells[0] for cells in expected]


def test_the_codebook_lists_the_margins_and_the_rule(client, owner, weighted):
    book = json.loads(download(client, owner, weighted, "codebook"))
    described = book["weights"]
    assert described["margins"] == [
        {"question": "q2", "question_id": weighted.questions.get(order=2).id, "text": "Age band?",
         "source": "Census 2021", "shares": [{"option_index": j, "option": label, "share": share}
                                             for j, (label, share) in enumerate(AGE.items())]},
        {"question": "q3", "question_id": weighted.questions.get(order=3).id, "text": "Region?",
         "source": "Regional register", "shares": [{"option_index": j, "option": label, "share": share}
                                                   for j, (label, share) in enumerate(REGION.items())]},
    ]
    assert described["cap"] == weighting.CAP == 5.0 and "5 times the median weight" in described["rule"]
    assert "calfun = \"raking\"" in described["variance"]


def test_a_survey_without_margins_has_no_weight_column(client, owner, survey):
    add_responses(survey, 20, seed=1)
    header = next(csv.reader(io.StringIO(download(client, owner, survey, "reports-csv").decode())))
    assert "weight" not in header
    book = json.loads(download(client, owner, survey, "codebook"))
    assert "weights" not in book and "weight" not in json.loads(download(client, owner, survey, "reports-json"))[
        "responses"][0]


def test_responses_that_cannot_be_raked_are_exported_whole_with_empty_weights(client, owner, survey):
    add_responses(survey, 30, seed=2, truth={2: [0.5, 0.5, 0.0]})  # nobody aged 55+
    enter(survey, 2, AGE)
    header, *rows = csv.reader(io.StringIO(download(client, owner, survey, "reports-csv").decode()))
    assert header[-1] == "weight" and len(rows) == 30 and {row[-1] for row in rows} == {""}


def test_the_weights_are_handed_out_block_by_block_in_order(weighted, monkeypatch):
    """Across blocks of 7 responses (the response without a region in one of them), the weights still land on
    their responses."""
    monkeypatch.setattr(report_blocks, "BLOCK", 7)
    current = plan.of(weighted)
    column = export_weights.column(weighted, current, list(current))
    weights = dashboard_weights(weighted)
    found = {}
    for block in report_blocks.blocks(weighted, list(current)):
        found.update(zip(block.ids, column.of(block), strict=True))
    column.check_used()
    assert found == {i: weights.get(i) for i in found} and len(found) == N + 1


def test_the_estimates_csv_weighted_is_the_weighted_apis_every_column(client, owner, weighted):
    from tests.aggregation.exports.test_reports import ESTIMATES_CSV_FROM_API, _at

    client.force_login(owner)
    header, *body = csv.reader(io.StringIO(
        client.get(reverse("aggregation:export-estimates", args=[weighted.slug]) + "?weighted=on").content.decode()))
    api = client.get(reverse("aggregation:api-estimates", args=[weighted.slug]) + "?weighted=on").json()
    assert api["weights"]["n"] == N and {q["interval"] for q in api["questions"]} == {"weighted"}
    assert sorted(header) == sorted(ESTIMATES_CSV_FROM_API)
    expected = [(question, option) for question in api["questions"] for option in question["options"]]
    assert len(body) == len(expected)
    for row, (question, option) in zip(body, expected, strict=True):
        scopes = {"survey": api, "question": question, "option": option}
        for column, cell in zip(header, row, strict=True):
            scope, path, read = ESTIMATES_CSV_FROM_API[column]
            got = None if cell == "" else read(cell)  # a direct question's effective epsilon is empty (null)
            assert got == _at(scopes[scope], path), (question["key"], option["index"], column)
    unweighted = client.get(reverse("aggregation:export-estimates", args=[weighted.slug]))
    assert {tuple(row[-2:]) for row in list(csv.reader(io.StringIO(unweighted.content.decode())))[1:]} == {("", "")}


def test_the_dashboard_says_the_exports_carry_the_weights_only_once_margins_exist(owner_client, survey):
    add_responses(survey, 20, seed=3)
    url = reverse("aggregation:dashboard", args=[survey.slug])
    words = "the report files end with each response’s weight (column <code>weight</code>)"
    assert words not in owner_client.get(url).content.decode()
    enter(survey, 2, AGE)
    assert words in owner_client.get(url).content.decode()
