"""Which two waves are compared by default: the last two with responses (a wave just made or opened has none yet,
and comparing with it said "No change is given" of every question), else the first and the last; one wave asked
for is compared with the other of that pair. And the count of respondents in both waves in words, one or more.

The Spanish asserts need the catalog with this branch's translations (the waves branch's JSON merged)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from surveys.aggregation.params import ResultOptions
from surveys.aggregation.waves import series as waves
from surveys.aggregation.waves import words as wave_words
from tests.aggregation.series_support import monthly, store_waves
from tests.conftest import login

ONE_SHARED = ("1 respondent of wave 2 said they had answered an earlier wave; the interval takes them as having "
              "answered wave 1 too, and as having changed their answer no more than these estimates require (their "
              "reports are never linked, so neither is observed).")
ONE_SHARED_ES = ("1 encuestado de la oleada 2 dijo haber respondido a una oleada anterior; el intervalo supone que "
                 "también respondió a la oleada 1, y que no cambió su respuesta más de lo que exigen estas "
                 "estimaciones (sus informes nunca se vinculan, así que ninguna de las dos cosas se observa).")


@pytest.fixture
def third_unanswered(owner):
    """Three waves of "Monthly"; wave 3 just opened, without responses. Wave 2 has one respondent of wave 1."""
    surveys = monthly(owner)
    store_waves(surveys[:2], 1, seed=5, fresh=150)
    return surveys


def section(html: str) -> str:
    start = html.index('<section class="across-waves"')
    return html[start:html.index("</section>\n", html.index("Not compared across waves", start))]


@pytest.mark.parametrize("asked, pair", [
    ({}, (1, 2)),
    ({"first": 3}, (3, 2)),
    ({"second": 1}, (2, 1)),
    ({"first": 2}, (2, 1)),
    ({"first": 1, "second": 3}, (1, 3)),
])
def test_it_compares_the_last_two_waves_with_responses_unless_asked(owner, third_unanswered, asked, pair):
    found = waves.series_results(third_unanswered[2], owner, ResultOptions(**asked))
    assert (found.first, found.second) == pair
    assert [trend.change is not None for trend in found.trends] == [3 not in pair] * 2


def test_with_fewer_than_two_waves_answered_it_compares_the_first_and_the_last(owner):
    surveys = monthly(owner)
    store_waves(surveys[1:2], 0, seed=6, fresh=40)
    found = waves.series_results(surveys[0], owner, ResultOptions())
    assert (found.first, found.second) == (1, 3) and [t.change for t in found.trends] == [None, None]


def test_the_dashboard_of_a_wave_just_opened_gives_the_change_between_the_last_two_answered(client, owner,
                                                                                            third_unanswered):
    url = reverse("aggregation:dashboard", args=[third_unanswered[2].slug]) + "?pilot=on"
    html = section(login(client, owner).get(url).content.decode())
    found = waves.series_results(third_unanswered[2], owner, ResultOptions())
    assert "No change is given" not in html
    for trend in found.trends:
        part = html[html.index(f'id="trend{trend.question.id}-heading"'):]
        part = part[:part.index("</section>")]
        said = re.findall(r"<li>(.*?)</li>", part[part.index('<ul class="changes">'):], re.S)
        assert [re.sub(r":.*", "", line) for line in said] == [f"“{label}”" for label in trend.question.options]
        assert all(re.search(r"% in wave 1, .*% in wave 2: a change of [+−]\d", line) for line in said)
        assert f'<p class="note">{ONE_SHARED}</p>'.replace("'", "&#x27;") in part
    assert re.findall(r'<option value="(\d)" selected>', html) == ["1", "2"]


def test_one_respondent_in_both_waves_is_said_in_the_singular(client, owner, third_unanswered):
    found = waves.series_results(third_unanswered[1], owner, ResultOptions())
    assert [wave_words.correlation_words(trend) for trend in found.trends] == [ONE_SHARED] * 2
    login(client, owner)
    body = client.get(reverse("aggregation:api-waves", args=[third_unanswered[1].slug])).json()
    assert [question["change"]["assumption"] for question in body["questions"]] == [ONE_SHARED] * 2
    spanish = client.get(reverse("aggregation:api-waves", args=[third_unanswered[1].slug]),
                         HTTP_ACCEPT_LANGUAGE="es").json()
    assert [question["change"]["assumption"] for question in spanish["questions"]] == [ONE_SHARED_ES] * 2


def test_a_wave_number_not_understood_is_said_and_the_default_pair_shown(client, owner, third_unanswered):
    url = reverse("aggregation:dashboard", args=[third_unanswered[2].slug]) + "?pilot=on&first=7"
    login(client, owner)
    for language, said in (
            ("en", "The parameter “first” was not understood: no such wave of this series among those you may see: "
                   "1, 2, 3. Comparing the last two waves with responses instead."),
            ("es", "No se entendió el parámetro «first»: no such wave of this series among those you may see: 1, 2, "
                   "3. Se comparan en su lugar las dos últimas oleadas con respuestas.")):
        page = client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
        start = page.index('<section class="across-waves"')
        html = page[start:page.index('<section class="trend"', start)]  # the heading, notes, waves and pair
        assert re.findall(r'<p class="notice" role="alert">(.*?)</p>', html) == [said]
        assert re.findall(r'<option value="(\d)" selected>', html) == ["1", "2"]
