"""waves.csv (surveys.aggregation.views.dashboard.export_waves and wave_tables): the results across waves as a table,
the
same numbers as GET /api/v1/surveys/<slug>/waves/ with the same parameters, row for row; the wave's identity and
dates on each wave row; linked from the dashboard's waves section with the figures it shows."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime

import pytest
from django.urls import reverse

from surveys.aggregation.waves import tables as wave_tables
from surveys.collection.models import Response, Survey
from tests.aggregation.series_support import monthly, store_waves
from tests.aggregation.weighted_series_support import answer_waves, weighted_series
from tests.conftest import login
from tests.factories import make_user

OPENS = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)
CLOSES = datetime(2026, 3, 31, 20, 0, tzinfo=UTC)


@pytest.fixture
def series(owner):
    surveys = monthly(owner)
    store_waves(surveys, 200, seed=11, fresh=30)
    Survey.objects.filter(pk=surveys[0].pk).update(opens_at=OPENS, closes_at=CLOSES)
    Response.objects.filter(survey=surveys[1]).update(submitted_on="2026-04-03")
    Response.objects.filter(survey=surveys[1], pk__in=Response.objects.filter(survey=surveys[1])
                            .values("pk")[:5]).update(submitted_on="2026-04-01")
    return surveys


def table(client, survey, query=""):
    response = client.get(reverse("aggregation:export-waves", args=[survey.slug]) + query)
    assert response.status_code == 200, response.content
    assert response["Content-Disposition"] == f'attachment; filename="{survey.slug}-waves.csv"'
    return list(csv.reader(io.StringIO(response.content.decode())))


def api(client, survey, query=""):
    response = client.get(reverse("aggregation:api-waves", args=[survey.slug]) + query)
    assert response.status_code == 200
    return response.json()


def text(value) -> str:
    """A JSON value as the CSV writes it: null empty, booleans in lower case, datetimes in ISO with +00:00."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str) and value.endswith("Z"):
        return value[:-1] + "+00:00"
    return str(value)


def from_the_api(body: dict) -> list[list[str]]:
    """The table the CSV must be, built from the API's JSON alone."""
    waves = {wave["wave"]: wave for wave in body["waves"]}
    rows = [wave_tables.COLUMNS]
    for q in body["questions"]:
        for point in q["waves"]:
            wave, m, layer = waves[point["wave"]], point["mechanism"], point["remembered"]
            channel = layer if layer is not None else m
            for j, label in enumerate(q["options"]):
                rows.append([text(v) for v in (
                    "wave", q["id"], q["key"], q["order"], q["text"], j, label,
                    wave["wave"], wave["slug"], wave["title"], wave["status"], wave["opens_at"], wave["closes_at"],
                    wave["first_response_on"], wave["last_response_on"], wave["responses"],
                    wave["answered_an_earlier_wave"],
                    m["name"], json.dumps(m["parameters"], sort_keys=True), point["epsilon"], channel["p"],
                    channel["q_other"],
                    None if layer is None else json.dumps(layer["mechanism"]["parameters"], sort_keys=True),
                    None if layer is None else layer["all_waves_epsilon"], point["same_as_this_wave"],
                    point["n"], point["estimate"][j], point["std_error"][j], point["ci_low"][j], point["ci_high"][j],
                    point["confidence"], *[None] * 7, *weights(body["weighted"], wave["weights"]))])
        change = q["change"]
        if change is None:
            continue
        found = {point["wave"]: point for point in q["waves"]}
        same = found[change["first"]]["mechanism"] == found[change["second"]]["mechanism"] and (
            found[change["first"]]["remembered"] == found[change["second"]]["remembered"])
        for j, label in enumerate(q["options"]):
            rows.append([text(v) for v in (
                "change", q["id"], q["key"], q["order"], q["text"], j, label, *[None] * 17, same, None,
                change["estimate"][j], change["std_error"][j], change["ci_low"][j], change["ci_high"][j],
                body["confidence"], change["first"], change["second"], change["z"][j], change["p_value"][j],
                change["shared"], change["correlation"], change["assumption"], body["weighted"], *[None] * 4)])
    return rows


def weights(weighted: bool, found: dict | None) -> list:
    """The weighted columns of a wave's row, from the API's wave."""
    if found is None:
        return [weighted, *[None] * 4]
    return [True, found["n"], found["left_out"], found["design_effect"], found["effective_n"]]


@pytest.mark.parametrize("query", ["", "?first=2&second=3&confidence=0.9", "?first=3&second=1"])
def test_the_csv_is_the_apis_numbers_row_for_row(client, owner, series, query):
    login(client, owner)
    assert table(client, series[2], query) == from_the_api(api(client, series[2], query))


def test_each_wave_row_names_the_wave_and_its_dates(client, owner, series):
    rows = table(login(client, owner), series[2])
    place = {name: i for i, name in enumerate(rows[0])}
    found = {(row[place["wave"]], row[place["opens_at"]], row[place["closes_at"]], row[place["first_response_on"]],
              row[place["last_response_on"]], row[place["wave_slug"]], row[place["wave_title"]])
             for row in rows[1:] if row[0] == "wave"}
    today = Response.objects.filter(survey=series[2]).values_list("submitted_on", flat=True).first().isoformat()
    day_one = Response.objects.filter(survey=series[0]).values_list("submitted_on", flat=True).first().isoformat()
    assert found == {
        ("1", "2026-03-01T08:00:00+00:00", "2026-03-31T20:00:00+00:00", day_one, day_one, "monthly-1",
         "Monthly, wave 1"),
        ("2", "", "", "2026-04-01", "2026-04-03", "monthly-2", "Monthly, wave 2"),
        ("3", "", "", today, today, "monthly-3", "Monthly, wave 3"),
    }


def test_it_says_where_the_mechanism_differed(client, owner, series):
    """Question 2's wave 2 has a wider instantaneous layer (epsilon 1.5): its rows and the changes that cross it."""
    rows = table(login(client, owner), series[2], "?first=1&second=2")
    place = {name: i for i, name in enumerate(rows[0])}
    marks = sorted({(row[place["row"]], row[place["question_order"]], row[place["wave"]],
                     row[place["same_as_this_wave"]]) for row in rows[1:]})
    assert marks == [("change", "1", "", "true"), ("change", "2", "", "false"),
                     ("wave", "1", "1", "true"), ("wave", "1", "2", "true"), ("wave", "1", "3", "true"),
                     ("wave", "2", "1", "true"), ("wave", "2", "2", "false"), ("wave", "2", "3", "true")]


def test_a_researcher_sees_only_the_waves_assigned_to_them(client, series):
    solo = make_user("solo")
    for survey in series[1:]:
        survey.researchers.add(solo)
    rows = table(login(client, solo), series[2])
    place = {name: i for i, name in enumerate(rows[0])}
    assert {row[place["wave"]] for row in rows[1:] if row[0] == "wave"} == {"2", "3"}
    assert {(row[place["first_wave"]], row[place["second_wave"]]) for row in rows[1:] if row[0] == "change"} == {
        ("2", "3")}


def test_a_survey_in_no_series_has_no_waves_table(client, owner, survey):
    response = login(client, owner).get(reverse("aggregation:export-waves", args=[survey.slug]))
    assert response.status_code == 404


@pytest.mark.parametrize("query,field", [("?first=9", "first"), ("?first=2&second=2", "second"),
                                         ("?confidence=2", "confidence"), ("?interval=wilson", "interval")])
def test_a_bad_parameter_is_a_400_and_no_file(client, owner, series, query, field):
    response = login(client, owner).get(reverse("aggregation:export-waves", args=[series[2].slug]) + query)
    assert (response.status_code, response["Content-Type"]) == (400, "text/plain; charset=utf-8")
    assert field in response.content.decode() and "Content-Disposition" not in response


def test_the_waves_section_links_the_csv_and_the_api_with_the_figures_shown(client, owner, series):
    page = login(client, owner).get(reverse("aggregation:dashboard", args=[series[2].slug])
                                    + "?first=2&second=3&confidence=0.9").content.decode()
    query = "?confidence=0.9&amp;first=2&amp;second=3"
    assert f'href="/results/monthly-3/export/waves.csv{query}"' in page
    assert f'href="/api/v1/surveys/monthly-3/waves/{query}"' in page


@pytest.mark.parametrize("query", ["?weighted=on", "?weighted=on&first=2&second=1&confidence=0.9"])
def test_the_weighted_csv_is_the_weighted_apis_numbers_row_for_row(client, owner, query):
    surveys = weighted_series(owner)
    answer_waves(surveys, [300, 250], seed=33)
    login(client, owner)
    found = table(client, surveys[1], query)
    assert found == from_the_api(api(client, surveys[1], query))
    weighted = [row[wave_tables.COLUMNS.index("weighted"):] for row in found[1:]]
    assert {row[0] for row in weighted} == {"true"} and {row[1] for row in weighted} >= {"300", "250"}
