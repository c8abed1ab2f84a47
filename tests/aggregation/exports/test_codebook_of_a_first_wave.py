"""A survey answered before its series existed becomes the series' wave 1 when it is run again: its reports were
randomized afresh, with no permanent layer, and its codebook says so ("remembered": false, for the wave and each
question), while wave 2's, whose questions remember, says true."""

import json

from django.urls import reverse

from surveys.aggregation.exports import reports as exports
from surveys.collection import waves
from tests.conftest import login


def codebook(client, survey):
    response = client.get(reverse("aggregation:export-codebook", args=[survey.slug]))
    assert response.status_code == 200
    return json.loads(b"".join(response.streaming_content) if response.streaming else response.content)


def test_a_first_wave_made_before_its_series_says_its_reports_were_not_remembered(client, owner, survey):
    second = waves.run_again(survey, remembered=True)
    login(client, owner)
    second.researchers.add(owner)
    first_wave, second_wave = codebook(client, survey)["wave"], codebook(client, second)["wave"]
    lineages = [str(q.lineage) for q in survey.ordered_questions()]
    assert first_wave["remembered"] is False and second_wave["remembered"] is True
    assert first_wave["questions"] == {f"q{i}": {"lineage": lineage, "compared": True, "remembered": False}
                                       for i, lineage in enumerate(lineages, start=1)}
    assert second_wave["questions"] == {key: {**entry, "remembered": True}
                                        for key, entry in first_wave["questions"].items()}
    assert exports.wave_of(survey)["remembered"] is False  # as the Stata notes and SPSS documents read it
