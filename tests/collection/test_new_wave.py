""""Run again as a new wave" (surveys.collection.waves and the survey page's button): the whole definition is
copied into a draft wave of the same series, nothing of the reports, in one transaction."""

from decimal import Decimal

import numpy as np
import pytest
from django.db import models

from surveys.aggregation.models import PopulationMargin
from surveys.collection import builder, invitations, pair_tallies, plan, submission, waves
from surveys.collection.builder import QuestionSpec, TranslationSpec
from surveys.collection.models import (
    FrozenMechanism,
    Invitation,
    Option,
    OptionTranslation,
    PairWatch,
    Question,
    QuestionTranslation,
    Response,
    Series,
    Survey,
    SurveyTranslation,
    Tally,
)
from surveys.history.models import ConfigurationChange
from tests.aggregation.weighting_support import enter
from tests.factories import valid_payload

SURVEYS = "/admin/collection/survey/"


def messages_on(response):
    return [str(m) for m in response.context["messages"]]
OWN = {"id", "slug", "status", "opens_at", "closes_at", "created_at", "series", "wave"}  # a wave's own


def row(obj: models.Model, leave_out=()) -> dict:
    """Every concrete field of a row but its key and the parent it hangs from: a field added to a model later is
    compared too."""
    return {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields
            if f.attname not in {"id", *leave_out}}


def definition(survey: Survey) -> dict:
    """A survey's whole definition, apart from what makes a wave its own (OWN)."""
    return {
        "survey": row(survey, {f"{name}_id" if name == "series" else name for name in OWN}),
        "researchers": sorted(survey.researchers.values_list("username", flat=True)),
        "translations": [row(t, {"survey_id"}) for t in SurveyTranslation.objects.filter(survey=survey)
                         .order_by("language")],
        "questions": [{
            **row(q, {"survey_id"}),
            "translations": [row(t, {"question_id"}) for t in QuestionTranslation.objects.filter(question=q)
                             .order_by("language")],
            "options": [{**row(o, {"question_id"}),
                         "translations": [row(t, {"option_id"}) for t in OptionTranslation.objects.filter(option=o)
                                          .order_by("language")]}
                        for o in Option.objects.filter(question=q).order_by("order")],
            "margin": [(m.source, [(share.option.order, share.share) for share in m.shares.order_by("option__order")])
                       for m in PopulationMargin.objects.filter(question=q)],
        } for q in Question.objects.filter(survey=survey).order_by("order")],
    }


@pytest.fixture
def rich(db, owner, other_researcher):
    """An open survey with every kind and the things a definition holds: consent, a second language with
    every text, researchers, exclusive options, scores, bins, a scale, an at-most limit, invitation access, a
    population margin;
    one response, an invitation and a watched pair (the reports' side)."""
    survey = builder.create_survey("monthly", "Monthly", [
        QuestionSpec("Cheated?", "qrr", q="0.5"),
        QuestionSpec("Drove drunk?", "bitflip", epsilon=1.0),
        QuestionSpec("Drugs?", "krr", epsilon=1.0, options=["Never", "Sometimes", "Often"]),
        QuestionSpec("Party?", "oue", epsilon=1.0, options=["A", "B", "C", "D"]),
        QuestionSpec("Sports?", "multiselect", epsilon=1.0, kind="multi_select", options=["Run", "Swim", "None"],
                     at_most=1, exclusive=["None"]),
        QuestionSpec("Mood?", "sue", epsilon=1.0, kind="ordinal", options=["Low", "Mid", "High", "Skip"],
                     scores=["1", "2", "3", None]),
        QuestionSpec("Hours?", "dlaplace", epsilon=1.0, kind="numeric", scale=("0", "10", "1")),
        QuestionSpec("Income?", "krr", epsilon=1.0, kind="numeric", scale=("0", "100", "10"),
                     options=["low", "high"], edges=["0", "50"]),
        QuestionSpec("Region?", "direct", options=["North", "South"]),
    ], status=Survey.Status.OPEN, epsilon_budget=20.0, description="Every month.", consent="I agree.",
        language="en", access=Survey.Access.INVITATION)
    builder.translate(survey, TranslationSpec(
        "es", "Mensual", ["¿Hizo trampa?", "¿Condujo ebrio?", "¿Drogas?", "¿Fiesta?", "¿Deportes?", "¿Ánimo?",
                          "¿Horas?", "¿Ingresos?", "¿Región?"],
        {3: ["Nunca", "A veces", "A menudo"], 4: ["A", "B", "C", "D"], 5: ["Correr", "Nadar", "Ninguno"],
         6: ["Bajo", "Medio", "Alto", "Omitir"], 8: ["bajos", "altos"], 9: ["Norte", "Sur"]},
        description="Cada mes.", consent="Acepto."))
    survey.researchers.add(owner, other_researcher)
    enter(survey, 9, {"North": Decimal("0.45"), "South": Decimal("0.55")}, source="Regional register")
    token, _unused = invitations.create(survey, 2)
    submission.submit(survey, {**valid_payload(survey), "invitation": token})
    questions = list(plan.of(survey))
    pair_tallies.watch(questions[0], questions[2])
    return survey


def test_a_new_wave_copies_the_whole_definition_and_nothing_of_the_reports(rich):
    before = definition(rich)
    wave = waves.run_again(rich)
    rich.refresh_from_db()
    copied, permanent = definition(wave), []
    for question in copied["questions"]:  # the only change: a permanent layer where one can be remembered
        permanent.append((question.pop("permanent_q"), question.pop("permanent_epsilon")))
        question.update(permanent_q=None, permanent_epsilon=None)
    assert copied == definition(rich) == before  # the source keeps its definition too
    assert permanent == [(Decimal("0.5"), None), (None, 1.0), (None, 1.0), (None, 1.0), (None, None), (None, 1.0),
                         (None, None), (None, 1.0), (None, None)]
    assert copied["questions"][8]["margin"] == [("Regional register", [(0, Decimal("0.45")), (1, Decimal("0.55"))])]
    assert (wave.series, wave.wave, wave.status, wave.opens_at, wave.closes_at) == (
        rich.series, 2, Survey.Status.DRAFT, None, None)
    assert rich.wave == 1 and rich.series.title == "Monthly" and wave.slug == "monthly-wave-2"
    questions = Question.objects.filter(survey=wave)
    assert not Response.objects.filter(survey=wave).exists() and not Invitation.objects.filter(survey=wave).exists()
    assert not Tally.objects.filter(question__in=questions).exists()
    assert not PairWatch.objects.filter(models.Q(question_a__in=questions) | models.Q(question_b__in=questions))
    assert Response.objects.filter(survey=rich).count() == 1 and Invitation.objects.filter(survey=rich).count() == 2


def test_it_keeps_each_questions_lineage_and_gives_each_question_that_can_remember_its_own_parameter(survey):
    survey.questions.filter(order=2).update(permanent_epsilon=2.5)  # a permanent layer of its own: kept
    wave = waves.run_again(survey)
    got = list(wave.questions.order_by("order").values_list("lineage", "permanent_q", "permanent_epsilon"))
    lineages = list(survey.questions.order_by("order").values_list("lineage", flat=True))
    assert got == [(lineages[0], Decimal("0.5"), None), (lineages[1], None, 2.5), (lineages[2], None, 1.0),
                   (lineages[3], None, 1.0)]
    assert len(set(lineages)) == 4
    assert [q.remembered() is not None for q in wave.ordered_questions()] == [True] * 4


def test_a_series_that_does_not_remember_gives_no_permanent_layer(survey):
    survey.series = Series.objects.create(title="Unlinked", remembered=False)
    survey.wave = 1
    survey.save()
    wave = waves.run_again(survey)
    assert list(wave.questions.values_list("permanent_q", "permanent_epsilon")) == [(None, None)] * 4


def test_waves_are_numbered_in_their_series_whichever_wave_is_run_again(survey):
    second = waves.run_again(survey)
    third = waves.run_again(survey)  # from wave 1 again
    fourth = waves.run_again(third)
    assert [(s.slug, s.wave) for s in (second, third, fourth)] == [
        ("health-wave-2", 2), ("health-wave-3", 3), ("health-wave-4", 4)]
    assert Series.objects.count() == 1 and set(Survey.objects.values_list("series", flat=True)) == {survey.series_id}


def test_it_copies_all_or_nothing(survey, monkeypatch):
    copied = []

    def fail_on_the_third(question, wave, remembered):
        if len(copied) == 2:
            raise RuntimeError("the database went away")
        copied.append(question)
        original(question, wave, remembered)

    original = waves._copy_question
    monkeypatch.setattr(waves, "_copy_question", fail_on_the_third)
    counts = (Survey.objects.count(), Question.objects.count(), Option.objects.count(), Series.objects.count())
    with pytest.raises(RuntimeError):
        waves.run_again(survey)
    assert (Survey.objects.count(), Question.objects.count(), Option.objects.count(), Series.objects.count()) == counts
    survey.refresh_from_db()
    assert (survey.series, survey.wave) == (None, None)


def test_the_button_makes_the_wave_and_links_it_and_the_history_records_it(client, superuser, survey):
    client.force_login(superuser)
    page = client.get(f"{SURVEYS}{survey.pk}/change/").content.decode()
    assert f'href="{SURVEYS}{survey.pk}/new-wave/" class="survey-new-wave">Run again as a new wave' in page
    response = client.post(f"{SURVEYS}{survey.pk}/new-wave/", {"remembered": "remembered"}, follow=True)
    wave = Survey.objects.get(slug="health-wave-2")
    assert response.redirect_chain == [(f"{SURVEYS}{survey.pk}/change/", 302)]
    assert messages_on(response) == [
        f'Health: wave 2 is a draft with its own link and dates, at <a href="{SURVEYS}{wave.pk}/change/">health-wave-2'
        f'</a>; check them and its questions, then open it.']
    created = ConfigurationChange.objects.get(survey_id=wave.pk)
    assert created.action == ConfigurationChange.Action.CREATED and created.who == "super"


def test_a_wave_with_reports_stays_in_its_series_and_its_permanent_layers_are_frozen(survey):
    wave = waves.run_again(survey)
    wave.status = Survey.Status.OPEN
    wave.save()
    submission.submit(wave, valid_payload(wave))
    wave.wave = 7
    with pytest.raises(FrozenMechanism):
        wave.save()
    question = wave.questions.get(order=1)
    question.permanent_q = Decimal("0.9")
    with pytest.raises(FrozenMechanism):
        question.save()
    series = wave.series
    series.remembered = False
    with pytest.raises(FrozenMechanism):
        series.save()
    series.refresh_from_db()
    series.title = "Renamed"  # what reports do not depend on may change
    series.save()


def test_a_survey_with_reports_may_become_the_first_wave_of_a_series(responded):
    wave = waves.run_again(responded)
    assert wave.wave == 2 and Survey.objects.get(pk=responded.pk).wave == 1
    assert not np.any([q.has_permanent_layer() for q in responded.ordered_questions()])
