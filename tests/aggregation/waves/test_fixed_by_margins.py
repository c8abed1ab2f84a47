"""Weighted results across waves of a question that is itself a population margin in both waves compared: its
weighted figures are the margins' shares, so its change is theirs, said as fixed by the weighting (no interval and
no test: "a change of -0.0 points (95% interval -0.0 to -0.0; test of no change: p -)" said nothing true).

The Spanish asserts need the catalog with this branch's translations (the waves branch's JSON merged)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from surveys.aggregation.params import ResultOptions
from surveys.aggregation.waves import series as waves
from tests.aggregation.weighted_series_support import answer_waves, weighted_series
from tests.conftest import login

FIXED = ("Fixed by the weighting: in both waves the responses are raked to this question's population margins, so "
         "each wave's weighted figures are its margins' shares and the change is theirs, with no sampling error to "
         "give an interval or a test.")
FIXED_ES = ("Fijado por la ponderación: en ambas oleadas las respuestas se ajustan a los márgenes poblacionales de "
            "esta pregunta, así que las cifras ponderadas de cada oleada son las proporciones de sus márgenes y el "
            "cambio es el de ellas, sin error de muestreo que dé un intervalo o una prueba.")


@pytest.fixture
def series(owner):
    surveys = weighted_series(owner)
    answer_waves(surveys, [300, 250], seed=41)
    return surveys


def trend_part(html: str, question_id: int) -> str:
    part = html[html.index(f'id="trend{question_id}-heading"'):]
    return part[:part.index("</section>")]


def said(part: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", line) for line in re.findall(r"<li>(.*?)</li>", part, re.S)]


def test_a_margin_questions_weighted_change_is_said_fixed_by_the_weighting(client, owner, series):
    found = waves.series_results(series[1], owner, ResultOptions(weighted=True))
    assert [(trend.question.order, trend.fixed) for trend in found.trends] == [(1, False), (2, True), (3, True),
                                                                                (4, False)]
    login(client, owner)
    html = client.get(reverse("aggregation:dashboard", args=[series[1].slug]) + "?weighted=on&pilot=on").content
    html = html.decode()
    shares = {2: [("18-34", "30.0", "25.0"), ("35-54", "40.0", "35.0"), ("55+", "30.0", "40.0")],
              3: [("North", "45.0", "40.0"), ("South", "55.0", "60.0")]}
    for trend in found.trends:
        part = trend_part(html, trend.question.id)
        if trend.question.order in shares:
            assert said(part) == [f"“{label}”: {one}% in wave 1, {two}% in wave 2: both fixed by the weighting to "
                                  "the population margins." for label, one, two in shares[trend.question.order]]
            assert f'<p class="note">{FIXED}</p>'.replace("'", "&#x27;") in part and "p –" not in part
        else:
            assert len(said(part)) == len(trend.question.options)
            assert all("a change of" in line and "test of no change: p " in line for line in said(part))
            assert "Fixed by the weighting" not in part
    body = client.get(reverse("aggregation:api-waves", args=[series[1].slug]) + "?weighted=on").json()
    assert [(q["order"], q["fixed_by_margins"], q["change"]["assumption"] == FIXED) for q in body["questions"]] == [
        (1, False, False), (2, True, True), (3, True, True), (4, False, False)]
    plain = client.get(reverse("aggregation:api-waves", args=[series[1].slug])).json()
    assert [q["fixed_by_margins"] for q in plain["questions"]] == [False] * 4  # unweighted: estimated


def test_it_is_said_in_spanish(client, owner, series):
    login(client, owner)
    html = client.get(reverse("aggregation:dashboard", args=[series[1].slug]) + "?weighted=on&pilot=on",
                      HTTP_ACCEPT_LANGUAGE="es").content.decode()
    found = waves.series_results(series[1], owner, ResultOptions(weighted=True))
    part = trend_part(html, found.trends[2].question.id)
    assert said(part) == ["«North»: 45,0% en la oleada 1, 40,0% en la oleada 2: ambas fijadas por la ponderación "
                          "a los márgenes poblacionales.",
                          "«South»: 55,0% en la oleada 1, 60,0% en la oleada 2: ambas fijadas por la ponderación "
                          "a los márgenes poblacionales."]
    assert f'<p class="note">{FIXED_ES}</p>' in part
