"""synthetic.csv through the prepared exports (surveys.aggregation.exports.prepared): the service's rows whole, with its
quality report in the file's codebook, or an error; the results pages' access."""

import hashlib
import json

import pytest
from django.urls import reverse

from surveys.aggregation.exports import prepared
from surveys.aggregation.models import PreparedExport
from surveys.aggregation.synthetic import respondents as synthetic
from surveys.collection import plan


def fetch(client, survey, query=""):
    return client.get(reverse("aggregation:export-synthetic-csv", args=[survey.slug]) + query)


def body(response):
    return b"".join(response.streaming_content) if response.streaming else response.content


def in_process(survey):
    return "".join(synthetic.csv_text(synthetic.synthetic_data(survey, plan.of(survey)))).encode()


def test_the_file_is_the_services_rows_whole_with_its_digest_and_rows(client, answered_kinds):
    response = fetch(client, answered_kinds)
    assert response.status_code == 200
    content = body(response)
    assert content == in_process(answered_kinds)
    assert content.decode().splitlines()[0] == "q1,q2,q3,q4,q5" and len(content.decode().splitlines()) == 251
    assert response["X-Export-Rows"] == "250" and int(response["Content-Length"]) == len(content)
    assert response["Content-Disposition"] == 'attachment; filename="kinds-synthetic.csv"'
    export = PreparedExport.objects.get(format="syn")
    assert export.sha256 == hashlib.sha256(content).hexdigest()


def test_its_codebook_states_the_services_quality(client, answered_kinds):
    export = PreparedExport.objects.get(pk=fetch(client, answered_kinds)["Link"].split("?export=")[1].split(">")[0])
    codebook = client.get(reverse("aggregation:export-codebook", args=[answered_kinds.slug]) + f"?export={export.pk}")
    stated = json.loads(codebook.content)["export"]["synthetic"]
    expected = synthetic.summary(synthetic.synthetic_data(answered_kinds, plan.of(answered_kinds)).quality)
    assert stated == json.loads(json.dumps({"seed": answered_kinds.pk, "weights": None, "quality": expected}))
    assert stated["quality"]["largest"] > 0 and stated["quality"]["warnings"]


def test_a_writer_that_fails_is_an_error_and_leaves_no_file(client, answered_kinds, monkeypatch):
    def failing(*args, **kwargs):
        raise RuntimeError("the fit broke")

    monkeypatch.setattr(synthetic, "synthetic_data", failing)
    response = fetch(client, answered_kinds)
    assert response.status_code == 500 and PreparedExport.objects.get().status == "failed"
    assert prepared.states(answered_kinds)["syn"].ready is None


def test_a_survey_without_responses_gives_the_header_only(client, owner, kinds_survey):
    client.force_login(owner)
    response = fetch(client, kinds_survey)
    assert response.status_code == 200 and body(response) == b"q1,q2,q3,q4,q5\n"


def test_another_researcher_is_not_told_it_exists(client, answered_kinds, other_researcher):
    client.force_login(other_researcher)
    assert fetch(client, answered_kinds).status_code == 404
    assert not PreparedExport.objects.exists()


def test_anybody_signed_out_is_sent_to_sign_in(client, answered_kinds):
    client.logout()
    response = fetch(client, answered_kinds)
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert not PreparedExport.objects.exists()


@pytest.mark.parametrize("fmt", ["dta", "sav"])
def test_the_stata_and_spss_files_hold_the_csvs_rows_with_labels(client, answered_kinds, fmt, tmp_path):
    import pyreadstat

    response = client.get(reverse(f"aggregation:export-synthetic-{fmt}", args=[answered_kinds.slug]))
    assert response.status_code == 200 and response["X-Export-Rows"] == "250"
    path = tmp_path / f"synthetic.{fmt}"
    path.write_bytes(body(response))
    frame, meta = (pyreadstat.read_dta if fmt == "dta" else pyreadstat.read_sav)(str(path))
    data = synthetic.synthetic_data(answered_kinds, plan.of(answered_kinds))
    multi, onebit, dlaplace, ages, gamble = data.columns
    assert list(frame.columns) == ["q1_0", "q1_1", "q1_2", "q1_3", "q2", "q3", "q4", "q5"]
    options = ["Tobacco", "Alcohol", "Cannabis", "Prefer not to say"]
    ticked = ["; ".join(o for j, o in enumerate(options) if row[f"q1_{j}"] == 1) for _, row in frame.iterrows()]
    assert ticked == multi
    assert [format(v, "g") for v in frame["q2"]] == onebit and [format(v, "g") for v in frame["q3"]] == [
        format(float(v), "g") for v in dlaplace]
    for name, column in (("q4", ages), ("q5", gamble)):
        assert [meta.variable_value_labels[name][int(v)] for v in frame[name]] == column
    assert meta.column_labels[6] == "Your age?" and "not respondents" in meta.file_label
    assert json.loads(client.get(response["Link"][1:].split(">")[0]).content)["export"]["synthetic"]["quality"] == \
        json.loads(json.dumps(synthetic.summary(data.quality)))


@pytest.mark.parametrize("fmt", ["dta", "sav"])
def test_a_stata_or_spss_file_without_responses_has_no_rows(client, owner, kinds_survey, fmt):
    client.force_login(owner)
    response = client.get(reverse(f"aggregation:export-synthetic-{fmt}", args=[kinds_survey.slug]))
    assert response.status_code == 200 and response["X-Export-Rows"] == "0"
