"""GET /api/v1/surveys/<slug>/synthetic/: the prepared synthetic.csv's link, digest and quality report (200), its
progress while prepared (202), a failure (500), and the results' access."""

import hashlib
import json

from django.urls import reverse

from surveys.aggregation.exports import preparation
from surveys.aggregation.models import PreparedExport
from surveys.aggregation.synthetic import respondents as synthetic
from surveys.aggregation.synthetic import words as synthetic_words
from surveys.collection import plan


def ask(client, survey):
    return client.get(reverse("aggregation:api-synthetic", args=[survey.slug]))


def test_it_answers_the_files_link_digest_and_the_services_quality(client, answered_kinds):
    response = ask(client, answered_kinds)
    assert response.status_code == 200
    export = PreparedExport.objects.get(format="syn")
    content = "".join(synthetic.csv_text(synthetic.synthetic_data(answered_kinds, plan.of(answered_kinds)))).encode()
    quality = synthetic.summary(synthetic.synthetic_data(answered_kinds, plan.of(answered_kinds)).quality)
    assert response.json() == {
        "status": "ready", "url": f"/results/kinds/export/synthetic.csv?export={export.pk}", "rows": 250,
        "responses": 250, "sha256": hashlib.sha256(content).hexdigest(),
        "codebook": f"/results/kinds/export/codebook.json?export={export.pk}",
        "quality": {**json.loads(json.dumps(quality)),
                    "warnings": [synthetic_words.sentence(w) for w in json.loads(json.dumps(quality["warnings"]))],
                    "weighted": None, "not_weighted": None}}
    assert response.json()["quality"]["warnings"]
    file = client.get(response.json()["url"])
    assert b"".join(file.streaming_content) == content


def test_while_it_is_prepared_it_answers_202_with_the_progress(client, answered_kinds, settings, monkeypatch):
    monkeypatch.setattr(preparation, "start", lambda export: None)  # a preparation that has not finished
    settings.EXPORT_WAIT = 0
    response = ask(client, answered_kinds)
    export = PreparedExport.objects.get(format="syn")
    assert response.status_code == 202 and response["Retry-After"] == "2"
    assert response.json() == {"status": "preparing", "url": f"/results/kinds/export/synthetic.csv?export={export.pk}",
                               "rows": 0, "responses": None}


def test_a_failed_preparation_answers_500_and_no_file(client, answered_kinds, monkeypatch):
    monkeypatch.setattr(synthetic, "synthetic_data", lambda *a, **k: 1 / 0)
    response = ask(client, answered_kinds)
    assert response.status_code == 500 and response.json()["status"] == "failed" and "quality" not in response.json()


def test_another_researcher_gets_404_and_anybody_signed_out_403(client, answered_kinds, other_researcher):
    client.force_login(other_researcher)
    assert ask(client, answered_kinds).status_code == 404
    client.logout()
    assert ask(client, answered_kinds).status_code == 403
    assert not PreparedExport.objects.exists()
