"""Report exports without the direct columns, ?direct=omit (surveys.aggregation.exports.direct_columns): the same export
with every question sent as given left out, prepared whole as its own file; anything else refused naming `direct`;
the statement says what such an export singles out."""

import csv
import io
import json

import pytest
from django.urls import reverse

from surveys.aggregation.exports import reports as exports
from surveys.aggregation.models import PreparedExport
from surveys.collection import plan
from tests.aggregation.support import add_responses
from tests.collection.pages import parse
from tests.conftest import login


def fetch(client, survey, fmt, query=""):
    response = client.get(reverse(f"aggregation:export-reports-{fmt}", args=[survey.slug]) + query)
    assert response.status_code == 200, response.content[:300]
    return b"".join(response.streaming_content) if response.streaming else response.content


@pytest.fixture
def answered(client, owner, direct_survey):
    add_responses(direct_survey, 40, seed=2)
    login(client, owner)
    return direct_survey


def direct_keys(survey):
    return [q.key for q in plan.of(survey) if not q.randomized]


def test_reports_csv_without_direct_columns_is_reports_csv_minus_those_columns(client, answered):
    whole = list(csv.reader(io.StringIO(fetch(client, answered, "csv").decode())))
    omitted = list(csv.reader(io.StringIO(fetch(client, answered, "csv", "?direct=omit").decode())))
    kept = [i for i, name in enumerate(whole[0]) if name not in direct_keys(answered)]
    assert len(kept) == len(whole[0]) - 2
    assert omitted == [[row[i] for i in kept] for row in whole]
    assert PreparedExport.objects.filter(format="csv").count() == 2  # each its own file


def test_reports_json_without_direct_columns_is_reports_json_minus_those_reports(client, answered):
    whole = json.loads(fetch(client, answered, "json"))
    omitted = json.loads(fetch(client, answered, "json", "?direct=omit"))
    for response in whole["responses"]:
        for key in direct_keys(answered):
            del response["reports"][key]
    assert omitted["responses"] == whole["responses"]
    assert [q["key"] for q in omitted["codebook"]["questions"]] == [q.key for q in plan.of(answered) if q.randomized]


@pytest.mark.parametrize("fmt", ["dta", "sav"])
def test_stata_and_spss_files_without_direct_columns_have_none(client, answered, fmt):
    import pandas as pd

    read = pd.read_stata if fmt == "dta" else pd.read_spss
    path = io.BytesIO(fetch(client, answered, fmt, "?direct=omit"))
    if fmt == "sav":
        import tempfile

        with tempfile.NamedTemporaryFile(suffix=".sav") as file:
            file.write(path.getvalue())
            file.flush()
            frame = read(file.name, convert_categoricals=False)
    else:
        frame = read(path, convert_categoricals=False)
    current = plan.of(answered)
    assert list(frame.columns) == exports.FIXED_COLUMNS + [c for q in current if q.randomized
                                                           for c in exports.columns(q)]
    assert len(frame) == 40


def test_it_refuses_another_value_naming_the_field_and_prepares_nothing(client, answered):
    response = client.get(reverse("aggregation:export-reports-csv", args=[answered.slug]) + "?direct=drop")
    assert response.status_code == 400 and response.content.decode().startswith("direct")
    assert not PreparedExport.objects.exists()


def test_the_statement_says_an_export_without_them_singles_nobody_out_by_them(client, answered):
    page = parse(client.get(reverse("aggregation:statement", args=[answered.slug])).content)
    assert page.by_id("statement-omit").text == (
        "An export without the direct columns (its address with ?direct=omit, such as reports.csv without them) "
        "singles nobody out by them: it carries no answer sent as given, and no weight, which is computed from them.")
    link = page.by_id("statement-omit").find("a")
    assert link.attrs["href"] == reverse("aggregation:export-reports-csv", args=[answered.slug]) + "?direct=omit"


def test_with_population_margins_the_weight_is_left_out_with_the_direct_columns(client, answered):
    from surveys.aggregation.models import MarginShare, PopulationMargin

    question = answered.questions.get(order=2)
    margin = PopulationMargin.objects.create(question=question, source="Census 2021")
    for option, share in zip(question.ordered_options(), ["0.3", "0.4", "0.3"], strict=True):
        MarginShare.objects.create(margin=margin, option=option, share=share)
    whole = list(csv.reader(io.StringIO(fetch(client, answered, "csv").decode())))
    assert whole[0][-1] == "weight"
    omitted = list(csv.reader(io.StringIO(fetch(client, answered, "csv", "?direct=omit").decode())))
    kept = [i for i, name in enumerate(whole[0]) if name not in [*direct_keys(answered), "weight"]]
    assert omitted == [[row[i] for i in kept] for row in whole]
    codebook = json.loads(fetch(client, answered, "json", "?direct=omit"))["codebook"]
    assert "weights" not in codebook and "weight" not in codebook["reports_csv_columns"]
