"""Pinned client code (issue 14, item 2): the respondent page loads its modules with subresource
integrity (the entry's integrity attribute, a modulepreload link with integrity for each module it
imports, each after the modules it imports) under the plain strict CSP, with no inline script; the
hashes are of the files served and are published in the survey definition API (and its schema) and
the codebook. A page feature's modules (the waves' js/waves.js) are preloaded and pinned the same way, only on a page
that has the feature (a wave of a series), and published with the others."""

import base64
import hashlib
import json
import posixpath
import re

import pytest
from django.contrib.staticfiles import finders
from django.urls import reverse

from bench.server import production_env
from surveys.collection import integrity, waves
from surveys.collection.models import Survey
from tests.collected_static import collect_into
from tests.collection import skip_logic_survey


def sri(path):
    data = open(path, "rb").read()
    return "sha384-" + base64.b64encode(hashlib.sha384(data).digest()).decode()


PRELOAD = re.compile(r'<link rel="modulepreload" href="([^"]+)" integrity="([^"]+)">')
SCRIPT = re.compile(r'<script type="module" src="([^"]+)" integrity="([^"]+)"></script>')
IMPORT_LINE = re.compile(r"""^\s*import\s[^'"]*?from\s*["'](\./[^"']+)["']""", re.MULTILINE)
DYNAMIC_IMPORT = re.compile(r"""\bimport\s*\(([^)]*)\)""")
WAVES_ONLY = {"/static/js/waves.js", "/static/js/history.js", "/static/js/remember.js"}


@pytest.fixture
def second(survey):
    """`survey` run again: wave 2 of a series, open."""
    wave = waves.run_again(survey, remembered=True)
    Survey.objects.filter(pk=wave.pk).update(status=Survey.Status.OPEN)
    return wave


def page_of(client, survey):
    return client.get(reverse("collection:respond", args=[survey.slug]))


def static_imports(name):
    """The modules `name` imports statically, directly or not, and itself."""
    found = {name}
    for target in IMPORT_LINE.findall(open(finders.find(name)).read()):
        found |= static_imports(posixpath.normpath(posixpath.join(posixpath.dirname(name), target)))
    return found


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


@pytest.mark.parametrize("wave", [False, True])
def test_each_module_is_pinned_before_anything_can_import_it(client, survey, second, wave):
    """A preload may fetch its module's imports too: theirs must already be in the browser's module map; a feature's
    module (a script of its own) too, and it comes before the entry, which takes its hooks."""
    if not wave:
        Survey.objects.filter(pk=survey.pk).update(series=None, wave=None)
    html = page_of(client, second if wave else survey).content.decode()
    order = [url for url, _ in PRELOAD.findall(html)]
    scripts = [url for url, _ in SCRIPT.findall(html)]
    assert html.index('<script type="module"') > html.rindex('rel="modulepreload"')
    assert scripts == ["/static/js/waves.js", "/static/js/respond.js"] if wave else ["/static/js/respond.js"]
    position = {url: index for index, url in enumerate([*order, *scripts])}
    for url, index in position.items():
        source = open(finders.find(url.removeprefix("/static/"))).read()
        for target in IMPORT_LINE.findall(source):
            imported = posixpath.normpath(posixpath.join(posixpath.dirname(url), target))
            assert position[imported] < index, (url, imported)


def test_a_page_in_no_series_preloads_no_module_of_the_waves_and_its_script_imports_none(client, survey, second):
    Survey.objects.filter(pk=survey.pk).update(series=None, wave=None)
    response = page_of(client, survey)
    preloaded = [url for url, _ in PRELOAD.findall(response.content.decode())]
    entry_graph = {f"/static/{name}" for name in static_imports("js/respond.js")} - {"/static/js/respond.js"}
    assert sorted(preloaded) == sorted(entry_graph) and not WAVES_ONLY & entry_graph
    assert [url for url, _ in SCRIPT.findall(response.content.decode())] == ["/static/js/respond.js"]
    client_data = response.context["client"]
    assert client_data["features"] == []
    assert not {"computed_waves", "history_none", "history_some", "refuse_remembered", "waves_missing"} & set(
        client_data["text"])
    assert not any("lineage" in question for question in client_data["questions"])


def test_a_waves_page_preloads_the_waves_modules_each_pinned_by_the_hash_of_the_file_served(client, survey, second):
    for wave in (survey, second):  # wave 1 too: its browser adds up the waves it answered
        response = page_of(client, wave)
        html = response.content.decode()
        pinned = dict(PRELOAD.findall(html)) | dict(SCRIPT.findall(html)[:-1])
        entry_graph = {f"/static/{name}" for name in static_imports("js/respond.js")} - {"/static/js/respond.js"}
        assert set(pinned) == entry_graph | WAVES_ONLY == {
            f"/static/{name}" for name in static_imports("js/respond.js") | static_imports("js/waves.js")
        } - {"/static/js/respond.js"}
        for url, value in pinned.items():
            assert value == sri(finders.find(url.removeprefix("/static/")))
        assert response.context["client"]["features"] == ["waves"]


def test_only_a_survey_with_a_condition_loads_the_skip_logic_module_pinned_before_the_entry(client, survey):
    Survey.objects.filter(pk=survey.pk).update(series=None, wave=None)
    assert "/static/js/relevance.js" not in page_of(client, survey).content.decode()
    response = page_of(client, skip_logic_survey.make())
    html = response.content.decode()
    assert [url for url, _ in SCRIPT.findall(html)] == ["/static/js/relevance.js", "/static/js/respond.js"]
    assert dict(SCRIPT.findall(html))["/static/js/relevance.js"] == sri(finders.find("js/relevance.js"))
    assert response.context["client"]["features"] == ["conditions"]
    assert "conditions_missing" in response.context["client"]["text"]


def test_no_module_imports_at_run_time_and_the_entry_imports_no_features_module():
    """Chromium fetches a module again, without its pin, when a dynamic import() meets a preload that failed its
    integrity (a static graph keeps the failure): no module of any page may import at run time. A feature's module
    imported by the entry would be loaded on every page."""
    every = set()
    for name in [integrity.ENTRY, *integrity.FEATURES.values()]:
        every |= static_imports(name)
    assert {name: DYNAMIC_IMPORT.findall(open(finders.find(name)).read()) for name in sorted(every)} == {
        name: [] for name in sorted(every)}
    for module in integrity.FEATURES.values():
        assert module not in static_imports(integrity.ENTRY)


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
    assert {module["url"] for module in data["client_code"]} == {
        f"/static/{name}" for name in static_imports("js/respond.js").union(
            *(static_imports(module) for module in integrity.FEATURES.values()))}
    for name in ("js/respond.js", "js/randomizer.js", "js/answers.js", "js/grid.js", "js/waves.js", "js/history.js"):
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
    lines the storage rewrote), not of the source. The files are collectstatic's under production settings, made once
    for the suite (tests/collected_static.py)."""
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": "surveys.storage.StaticFilesStorage"}}
    integrity.modules.cache_clear()
    try:
        collect_into(production_env(tmp_path / "env", "sqlite:///unused.sqlite3"), tmp_path)
        modules = {module.name: module for module in integrity.modules()}
        randomizer = modules["js/randomizer.js"]
        assert re.fullmatch(r"/static/js/randomizer\.[0-9a-f]{12}\.js", randomizer.url)
        served = tmp_path / randomizer.url.removeprefix("/static/")
        assert randomizer.sha256 == hashlib.sha256(served.read_bytes()).hexdigest()
        entry = (tmp_path / modules["js/respond.js"].url.removeprefix("/static/")).read_text()
        assert randomizer.url.rsplit("/", 1)[1] in entry  # the import the browser resolves is the pinned URL
        wave = modules["js/waves.js"]  # the wave's page's second script, and what it imports, hashed the same way
        assert re.fullmatch(r"/static/js/waves\.[0-9a-f]{12}\.js", wave.url)
        assert integrity.scripts(["waves"]) == (wave,)
        assert wave.sha256 == hashlib.sha256((tmp_path / wave.url.removeprefix("/static/")).read_bytes()).hexdigest()
        history = modules["js/history.js"]
        assert history in integrity.preloads(["waves"]) and history not in integrity.preloads()
        assert history.url.rsplit("/", 1)[1] in (tmp_path / wave.url.removeprefix("/static/")).read_text()
    finally:
        integrity.modules.cache_clear()
