""""Run again as a new wave" asks before it makes anything: its page shows each question's cost both ways (randomized
afresh in every wave, remembered across waves) and, for a survey in no series yet, the admin chooses; the figures for a
remembered wave are those the estimates API will plan with (its reports read through both layers), on that page, on the
wave's question pages and in the live figures of the survey page."""

import html
import re

import pytest
from django.urls import reverse

import ldp
from ldp.mechanisms.remembered import Composed, Remembered
from ldp.planning.rounding import loss_of
from surveys.collection.admin.questions import describe
from surveys.collection.models import Series, Survey

SURVEYS = "/admin/collection/survey/"
HEALTH = [ldp.QRandomizedResponse("0.5"), ldp.BitFlip(1.0986122886681098), ldp.KaryRR(1.0, 3),
          ldp.OptimizedUnary(1.0, 4)]  # the `survey` fixture's questions; each remembers its own parameter


def cells(page: str) -> list[list[str]]:
    """The cost table's body rows, each cell's text."""
    body = page.split('<table id="wave-costs">')[1].split("<tbody>")[1].split("</tbody>")[0]
    return [[html.unescape(re.sub(r"<[^>]+>", "", cell)).strip() for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>",
                                                                                          row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]


def expected_rows(texts: list[str]) -> list[list[str]]:
    rows = []
    for i, (text, mechanism) in enumerate(zip(texts, HEALTH, strict=True), start=1):
        layers = Remembered(permanent=mechanism, instant=mechanism)
        rows.append([f"{i}. {text}", str(loss_of(mechanism.sampler()).epsilon_up(3)),
                     str(ldp.respondents_needed(mechanism, 0.05)), f"{-(-layers.wave_epsilon * 1000 // 1) / 1000:.3f}",
                     str(loss_of(mechanism.sampler()).epsilon_up(3)),
                     str(ldp.respondents_needed(Composed(layers), 0.05))])
    return rows


@pytest.fixture
def admin(client, superuser):
    client.force_login(superuser)
    return client


def test_the_page_shows_each_questions_cost_both_ways_and_makes_nothing(admin, survey):
    response = admin.get(f"{SURVEYS}{survey.pk}/new-wave/")
    assert response.status_code == 200
    page = response.content.decode()
    texts = [q.text for q in survey.ordered_questions()]
    assert cells(page) == expected_rows(texts)
    assert cells(page)[0][2:] == ["1537", "0.511", "1.099", "6147"]  # the issue's: 1,537 afresh, 6,147 remembered
    assert page.count('name="remembered"') == 2 and "checked" not in page.split('id="new-wave-form"')[1]
    assert Survey.objects.count() == 1 and not Series.objects.exists()


@pytest.mark.parametrize("choice", [{}, {"remembered": "yes"}])
def test_without_a_choice_it_answers_400_and_makes_nothing(admin, survey, choice):
    response = admin.post(f"{SURVEYS}{survey.pk}/new-wave/", choice)
    assert response.status_code == 400
    assert "Choose one: remembered randomization or afresh in every wave." in response.content.decode()
    assert Survey.objects.count() == 1 and not Series.objects.exists()
    survey.refresh_from_db()
    assert survey.series is None


def test_chosen_afresh_the_series_does_not_remember_and_no_question_has_a_permanent_layer(admin, survey):
    admin.post(f"{SURVEYS}{survey.pk}/new-wave/", {"remembered": "afresh"})
    wave = Survey.objects.get(wave=2)
    assert wave.series.remembered is False
    assert list(wave.questions.values_list("permanent_q", "permanent_epsilon")) == [(None, None)] * 4


def test_chosen_remembered_the_admins_figures_are_the_estimates_apis(admin, survey):
    admin.post(f"{SURVEYS}{survey.pk}/new-wave/", {"remembered": "remembered"})
    wave = Survey.objects.get(wave=2)
    assert wave.series.remembered is True
    planned = [q["planner"]["respondents_needed"] for q in admin.get(
        reverse("aggregation:api-estimates", args=[wave.slug]) + "?interval=wilson").json()["questions"]]
    assert planned == [int(row[5]) for row in expected_rows([q.text for q in survey.ordered_questions()])]
    for question, needed in zip(wave.ordered_questions(), planned, strict=True):
        assert f"; {needed:,} respondents for ±5 points at 95%" in describe(question)
        page = admin.get(f"/admin/collection/question/{question.pk}/change/").content.decode()
        assert html.escape(f"{needed:,} respondents for ±5 points at 95%") in page
    # The next wave's page: the series already remembers, so no choice; the same figures.
    page = admin.get(f"{SURVEYS}{wave.pk}/new-wave/").content.decode()
    assert 'name="remembered"' not in page and "This survey's series remembers randomization" in page
    assert [int(row[5]) for row in cells(page)] == planned


def test_the_survey_pages_live_figures_read_a_remembered_question_through_both_layers(admin, survey):
    admin.post(f"{SURVEYS}{survey.pk}/new-wave/", {"remembered": "remembered"})
    wave = Survey.objects.get(wave=2)
    config = admin.get(f"{SURVEYS}{wave.pk}/change/").context["survey_admin_config"]
    first = wave.ordered_questions()[0]
    assert config["remembered"][str(first.pk)] == {"permanent_q": "0.5", "permanent_epsilon": None}
    figures = admin.get(f"{SURVEYS}privacy-figures/", {"mechanism": "qrr", "q": "0.5", "permanent_q": "0.5"}).json()
    assert figures["respondents"] == 6147 and figures["wave_epsilon"] == Remembered(
        ldp.QRandomizedResponse("0.5"), ldp.QRandomizedResponse("0.5")).wave_epsilon
    refused = admin.get(f"{SURVEYS}privacy-figures/", {"mechanism": "qrr", "q": "0.5", "permanent_q": "2"})
    assert refused.status_code == 400 and refused.json()["error"]["field"] == "permanent_q"
