"""The report exports of a wave say which wave of which series they hold: the codebook's "wave" (so reports.json,
which embeds it, and the scripts made from it too), and the Stata notes and SPSS documents; a survey in no series
says nothing of waves."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from django.urls import reverse

from surveys.aggregation.exports import column_labels, stata_spss
from surveys.aggregation.exports import reports as exports
from surveys.collection import plan
from surveys.collection.models import Survey
from tests.aggregation.series_support import monthly, store_waves
from tests.conftest import login

OPENS = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)


def codebook(client, survey):
    response = client.get(reverse("aggregation:export-codebook", args=[survey.slug]))
    assert response.status_code == 200
    return json.loads(b"".join(response.streaming_content) if response.streaming else response.content)


def test_a_waves_codebook_names_its_wave_series_link_and_dates(client, owner):
    surveys = monthly(owner, waves=2, remembered=False)
    Survey.objects.filter(pk=surveys[1].pk).update(opens_at=OPENS)
    slug = surveys[1].series.slug
    found = codebook(login(client, owner), surveys[1])["wave"]
    assert found.pop("questions").keys() == {"q1", "q2", "q3"} and found == {
        "answered_an_earlier_wave": 0, "number": 2, "series": "Monthly", "series_link": f"/w/{slug}/",
        "remembered": False,
        "opens_at": "2026-03-01T08:00:00+00:00", "closes_at": None}


def test_reports_json_carries_the_same_wave(client, owner):
    surveys = monthly(owner, waves=2)
    login(client, owner)
    response = client.get(reverse("aggregation:export-reports-json", args=[surveys[0].slug]))
    body = json.loads(b"".join(response.streaming_content) if response.streaming else response.content)
    found = codebook(client, surveys[0])["wave"]
    assert body["codebook"]["wave"] == found
    found.pop("questions")
    assert found == {
        "number": 1, "series": "Monthly", "series_link": f"/w/{surveys[0].series.slug}/", "remembered": True,
        "opens_at": None, "closes_at": None, "answered_an_earlier_wave": 0}


def test_a_waves_codebook_says_what_the_change_between_waves_needs(client, owner):
    surveys = monthly(owner, waves=2)
    store_waves(surveys, 7, seed=1, fresh=3)
    login(client, owner)
    first, second = (codebook(client, survey)["wave"] for survey in surveys)
    assert (first["answered_an_earlier_wave"], second["answered_an_earlier_wave"]) == (0, 7)
    assert first["questions"] == second["questions"]  # the same lineages: each question is the same in both
    assert {key: entry["compared"] for key, entry in second["questions"].items()} == {
        "q1": True, "q2": True, "q3": False}
    lineages = {str(q.lineage) for q in surveys[1].ordered_questions()}
    assert {entry["lineage"] for entry in second["questions"].values()} == lineages


def test_a_survey_in_no_series_says_nothing_of_waves(client, owner, survey):
    book = codebook(login(client, owner), survey)
    current = plan.of(survey)
    notes = stata_spss.stata_notes(survey, current, column_labels.columns(current))["_dta"]
    assert "wave" not in book and not any("Wave" in note for note in notes) and exports.wave_of(survey) is None


def test_the_stata_notes_and_spss_documents_name_the_wave(owner):
    wave = monthly(owner, waves=2)[1]
    current = plan.of(wave)
    cols = column_labels.columns(current)
    sentence = "Wave 2 of the series 'Monthly' (the codebook's \"wave\")."
    assert stata_spss.stata_notes(wave, current, cols)["_dta"][1] == sentence
    assert sentence in " ".join(stata_spss.document(wave, current, cols))
