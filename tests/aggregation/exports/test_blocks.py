"""The report exports read in blocks (surveys.aggregation.exports.blocks) are byte for byte what a
straightforward reading gives: one ORM query of every report with its response, grouped by response,
each value decoded and written by csv.writer, json.dumps and the layouts' per-row encoding. A survey of
every kind, with responses missing some questions' reports (and one with none), question ids in another
order than the questions, several days and versions (one that CSV must quote), over many small blocks."""

import csv
import io
import json
from datetime import date

import numpy as np
import pytest

from surveys.aggregation.exports import blocks as report_blocks
from surveys.aggregation.exports import reports as exports
from surveys.aggregation.exports import stata_spss
from surveys.aggregation.exports.column_labels import columns as labelled_columns
from surveys.aggregation.exports.readstat_layout import SpssLayout, StataLayout
from surveys.collection import builder, plan
from surveys.collection.models import Question, Response
from tests.aggregation.support import reference_responses, reference_rows


def reference_csv(survey, current):
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(exports.FIXED_COLUMNS + [c for q in current for c in exports.columns(q)])
    for response_id, day, version, reports in reference_responses(survey, current):
        cells = []
        for q in current:
            value = reports.get(q.key, [""] * len(exports.columns(q)))
            cells += value if isinstance(value, list) else [value]
        writer.writerow([response_id, day.isoformat(), version, *cells])
    return out.getvalue()


def reference_json(survey, current):
    book = exports.codebook(survey, current)
    items = [json.dumps({"id": response_id, "submitted_on": day.isoformat(), "mechanism_version": version,
                         "reports": reports})
             for response_id, day, version, reports in reference_responses(survey, current)]
    body = "".join(("\n" if i == 0 else ",\n") + item for i, item in enumerate(items))
    return (f'{{"format": {json.dumps(exports.REPORTS_FORMAT)}, "codebook": {json.dumps(book)}, "responses": ['
            f"{body}\n]}}\n")


@pytest.fixture
def uneven(all_kinds_survey):
    """Every kind: 60 responses with every report, 25 without questions 2, 7 and 9, 18 with question 5 only,
    and one with no report at all; questions 1 and 13 swap their order (so question ids run in another order
    than the columns); some responses on another day and with a version CSV must quote."""
    survey = all_kinds_survey
    builder.simulate_responses(survey, 60, {}, seed=8)
    current = plan.of(survey)
    values = builder.randomized(survey, 25, {}, np.random.default_rng(9))
    builder.write_responses(survey, {q: v for q, v in values.items() if plan_order(current, q) not in (2, 7, 9)})
    builder.write_responses(survey, {q: v[:18] for q, v in values.items() if plan_order(current, q) == 5})
    Response.objects.create(survey=survey, mechanism_version=current.version, submitted_on=date(2026, 1, 2),
                            submission_key="00000000-0000-0000-0000-000000000001")
    ids = list(Response.objects.filter(survey=survey).order_by("id").values_list("id", flat=True))
    Response.objects.filter(id__in=ids[::3]).update(submitted_on=date(2025, 12, 31))
    Response.objects.filter(id__in=ids[1::5]).update(mechanism_version='v,"1"')
    first, last = (Question.objects.get(survey=survey, order=order) for order in (1, 13))
    Question.objects.filter(pk=first.pk).update(order=99)
    Question.objects.filter(pk=last.pk).update(order=1)
    Question.objects.filter(pk=first.pk).update(order=13)
    return survey


def plan_order(current, question_id):
    return next(q.order for q in current if q.id == question_id)


@pytest.fixture(params=[3, 64, 1000], ids=["blocks of 3", "blocks of 64", "one block"])
def block(request, monkeypatch):
    monkeypatch.setattr(report_blocks, "BLOCK", request.param)
    monkeypatch.setattr(report_blocks, "LOOKUP_LIMIT", 5)  # past it, values are rendered each time
    return request.param


def test_the_reports_csv_is_the_straightforward_one(uneven, block):
    current = plan.of(uneven)
    assert current.questions[0].id > current.questions[-1].id  # the swap took
    expected = reference_csv(uneven, current)
    assert "".join(exports.report_csv_lines(uneven, current)) == expected
    assert expected.count("\n") == 1 + 60 + 25 + 18 and ',"v,""1""",' in expected


def test_the_reports_json_is_the_straightforward_one(uneven, block):
    current = plan.of(uneven)
    assert "".join(exports.report_json_chunks(uneven, current)) == reference_json(uneven, current)


@pytest.mark.parametrize("layout", [StataLayout, SpssLayout])
def test_the_labelled_files_are_the_rows_encoded_one_at_a_time(uneven, block, layout):
    """The block writer against the per-row encoding of the reference rows, around the same dictionary."""
    current = plan.of(uneven)
    cols = labelled_columns(current)
    if layout is StataLayout:
        written = stata_spss.stata_file(uneven, current)
        writer = stata_spss.stata_writer(uneven, cols)
        grow = lambda head: StataLayout(stata_spss._fields(cols)).with_notes(  # noqa: E731
            head, stata_spss.stata_notes(uneven, current, cols))
    else:
        written = stata_spss.spss_file(uneven, current)
        writer = stata_spss.spss_writer(uneven, current, cols)
        grow = lambda head: head  # noqa: E731
    prototype = stata_spss._prototype(cols, writer)
    expected = stata_spss._file(layout(stata_spss._fields(cols)), prototype,
                                      reference_rows(uneven, current), grow)
    stamp = {StataLayout: lambda b: b[:b.index(b"<timestamp>")] + b[b.index(b"</timestamp>"):],
             SpssLayout: lambda b: b[:92] + b[109:]}[layout]  # the creation time pyreadstat writes
    assert stamp(written.read()) == stamp(expected.read())


def test_a_survey_without_reports_exports_its_header_only(all_kinds_survey):
    current = plan.of(all_kinds_survey)
    assert "".join(exports.report_csv_lines(all_kinds_survey, current)) == reference_csv(all_kinds_survey, current)
    assert "".join(exports.report_json_chunks(all_kinds_survey, current)) == reference_json(all_kinds_survey, current)
