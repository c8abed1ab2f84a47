"""Pinned client code (issue 14, item 2): the respondent page loads its modules with subresource
integrity (the entry's integrity attribute, a modulepreload link with integrity for each module it
imports, each after the modules it imports) under the plain strict CSP, with no inline script; the
hashes are of the files served and are published in the survey definition API (and its schema) and
the codebook."""

import base64
import hashlib
import json
import posixpath
import re

import pytest
from django.contrib.staticfiles import finders
from django.urls import reverse

from surveys.collection import integrity


def sri(path):
    data = open(path, "rb").read()
    return "sha384-" + base64.b64encode(hashlib.sha384(data).digest()).decode()


PRELOAD = re.compile(r'<link rel="modulepreload" href="([^"]+)" integrity="([^"]+)">')
IMPORT_LINE = re.compile(r"""^\s*import\s[^'"]*?from\s*["'](\./[^"']+)["']""", re.MULTILINE)


def test_every_module_of_the_page_is_pinned_by_the_hash_of_the_file_served(client, survey):
    html = client.get(reverse("collection:respond", args=[survey.slug])).content.decode()
    entry = re.search(r'<script type="module" src="([^"]+)" integrity="([^"]+)"', html)
    assert entry and entry[1] == "/static/js/respond.js" and entry[2] == sri(finders.find("js/respond.js"))
    links = PRELOAD.findall(html)
    pinned = dict(links)
    assert len(pinned) == len(links)
    assert {"/static/js/randomizer.js", "/static/js/answers.js", "/static/js/grid.js"} <= set(pinned)
    for url, value in pinned.items():
        assert value == sri(finders.find(url.removeprefix("/static/")))


def test_each_module_is_pinned_before_anything_can_import_it(client, survey):
    """A preload may fetch its module's imports too: theirs must already be in the browser's module map."""
    html = client.get(reverse("collection:respond", args=[survey.slug])).content.decode()
    order = [url for url, _ in PRELOAD.findall(html)]
    assert html.index('<script type="module"') > html.rindex('rel="modulepreload"')
    position = {url: index for index, url in enumerate([*order, "/static/js/respond.js"])}
    for url, index in position.items():
        source = open(finders.find(url.removeprefix("/static/"))).read()
        for target in IMPORT_LINE.findall(source):
            imported = posixpath.normpath(posixpath.join(posixpath.dirname(url), target))
            assert position[imported] < index, (url, imported)


def test_the_page_needs_no_inline_script_and_keeps_the_plain_strict_policy(client, survey):
    response = client.get(reverse("collection:respond", args=[survey.slug]))
    script_src = next(part.split()[1:] for part in response["Content-Security-Policy"].split(";")
                      if part.split()[:1] == ["script-src"])
    assert script_src == ["'self'"]
    assert re.findall(r"<script(?![^>]*\ssrc=)([^>]*)>", response.content.decode()) == [
        ' id="survey-data" type="application/json"']


def test_other_pages_keep_the_plain_strict_policy(client, survey):
    response = client.get(reverse("collection:api-survey", args=[survey.slug]))
    assert "sha256-" not in response["Content-Security-Policy"]


def test_the_definition_api_publishes_every_modules_hashes(client, survey):
    data = client.get(reverse("collection:api-survey", args=[survey.slug])).json()
    published = {module["name"]: module for module in data["client_code"]}
    assert data["client_code"][0]["name"] == "js/respond.js"
    for name in ("js/respond.js", "js/randomizer.js", "js/answers.js", "js/grid.js"):
        body = open(finders.find(name), "rb").read()
        assert published[name]["sha256"] == hashlib.sha256(body).hexdigest()
        assert published[name]["integrity"] == sri(finders.find(name))
        assert published[name]["url"] == f"/static/{name}"


def test_the_schema_documents_the_published_hashes(client):
    schema = json.loads(client.get(reverse("aggregation:api-schema")).content)["components"]["schemas"]
    assert "client_code" in schema["SurveyDefinition"]["properties"]
    assert set(schema["ClientModule"]["properties"]) == {"name", "url", "integrity", "sha256"}


def test_the_codebook_publishes_the_same_hashes(client, owner, survey):
    client.force_login(owner)
    book = json.loads(client.get(reverse("aggregation:export-codebook", args=[survey.slug])).content)
    assert book["client_code"] == integrity.published()


@pytest.mark.slow
def test_in_production_the_hashes_are_of_the_collected_hashed_files(settings, tmp_path):
    """ManifestStaticFilesStorage: the URL is the hashed name and the hash is of that file (whose import
    lines the storage rewrote), not of the source."""
    from django.core.management import call_command

    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": "surveys.storage.StaticFilesStorage"}}
    integrity.modules.cache_clear()
    try:
        call_command("collectstatic", interactive=False, verbosity=0)
        modules = {module.name: module for module in integrity.modules()}
        randomizer = modules["js/randomizer.js"]
        assert re.fullmatch(r"/static/js/randomizer\.[0-9a-f]{12}\.js", randomizer.url)
        served = tmp_path / randomizer.url.removeprefix("/static/")
        assert randomizer.sha256 == hashlib.sha256(served.read_bytes()).hexdigest()
        entry = (tmp_path / modules["js/respond.js"].url.removeprefix("/static/")).read_text()
        assert randomizer.url.rsplit("/", 1)[1] in entry  # the import the browser resolves is the pinned URL
    finally:
        integrity.modules.cache_clear()
