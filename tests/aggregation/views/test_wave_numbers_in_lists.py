"""Where a wave of a series is listed (/results/, the admin's survey list, the population margins' list, a wave's
dashboard and margins page), its wave number is shown: the waves of a series share their title."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from surveys.collection import waves
from surveys.collection.models import Survey
from tests.aggregation.weighting_support import enter
from tests.conftest import login

ES = {"HTTP_ACCEPT_LANGUAGE": "es"}


@pytest.fixture
def two_waves(direct_survey):
    """"Health habits 2026", waves 1 and 2 (the second run again from the first), and a survey in no series."""
    Survey.objects.filter(pk=direct_survey.pk).update(title="Health habits 2026")
    direct_survey.refresh_from_db()
    second = waves.run_again(direct_survey)
    Survey.objects.create(slug="alone", title="Alone", status=Survey.Status.OPEN).researchers.add(
        *direct_survey.researchers.all())
    return direct_survey, second


def texts(html: str, pattern: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", found).strip() for found in re.findall(pattern, html, re.S)]


def test_the_results_list_names_each_waves_number(client, owner, two_waves):
    html = login(client, owner).get(reverse("aggregation:surveys")).content.decode()
    assert sorted(texts(html, r'<th scope="row">(.*?)</th>')) == [
        "Alone", "Health habits 2026, wave 1", "Health habits 2026, wave 2"]
    spanish = client.get(reverse("aggregation:surveys"), **ES).content.decode()
    assert sorted(texts(spanish, r'<th scope="row">(.*?)</th>')) == [
        "Alone", "Health habits 2026, ola 1", "Health habits 2026, ola 2"]


def test_the_admins_survey_list_names_each_waves_number(client, superuser, two_waves):
    html = login(client, superuser).get("/admin/collection/survey/").content.decode()
    titles = texts(html, r'<th class="field-listed_title">(.*?)</th>')
    assert sorted(titles) == ["Alone", "Health habits 2026, wave 1", "Health habits 2026, wave 2"]
    assert 'href="?o=1"' in html  # still sorted by title
    spanish = client.get("/admin/collection/survey/", **ES).content.decode()
    assert sorted(texts(spanish, r'<th class="field-listed_title">(.*?)</th>')) == [
        "Alone", "Health habits 2026, ola 1", "Health habits 2026, ola 2"]


def test_the_margins_list_names_each_waves_number(client, superuser, two_waves):
    first, second = two_waves
    for survey in (first, second):
        enter(survey, 2, {"18-34": 0.3, "35-54": 0.4, "55+": 0.3})
    html = login(client, superuser).get("/admin/aggregation/populationmargin/").content.decode()
    assert sorted(texts(html, r'<td class="field-survey">(.*?)</td>')) == [
        "Health habits 2026, wave 1", "Health habits 2026, wave 2"]
    spanish = client.get("/admin/aggregation/populationmargin/", **ES).content.decode()
    assert sorted(texts(spanish, r'<td class="field-survey">(.*?)</td>')) == [
        "Health habits 2026, ola 1", "Health habits 2026, ola 2"]


def test_a_waves_dashboard_and_margins_page_name_its_number(client, owner, two_waves):
    _first, second = two_waves
    login(client, owner)
    for name, subtitle in (("aggregation:dashboard", "results"), ("aggregation:margins", "population margins")):
        html = client.get(reverse(name, args=[second.slug])).content.decode()
        assert texts(html, r"<h1>(.*?)</h1>") == [f"Health habits 2026, wave 2 {subtitle}"]
        assert f"<title>Health habits 2026, wave 2: {subtitle}" in html
    alone = client.get(reverse("aggregation:margins", args=["alone"])).content.decode()
    assert texts(alone, r"<h1>(.*?)</h1>") == ["Alone population margins"]


def test_the_admins_question_list_and_its_filter_name_each_waves_number(client, superuser, two_waves):
    html = login(client, superuser).get("/admin/collection/question/").content.decode()
    assert sorted(set(texts(html, r'<td class="field-survey[^"]*">(.*?)</td>'))) == [
        "Health habits 2026, wave 1", "Health habits 2026, wave 2"]
    filters = texts(html, r'<li[^>]*>\s*<a href="\?survey__id__exact=\d+"[^>]*>(.*?)</a>')
    assert sorted(filters) == ["Alone", "Health habits 2026, wave 1", "Health habits 2026, wave 2"]
