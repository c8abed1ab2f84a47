"""A wave whose questions remember their randomization, as the respondent's browser gets it: the definition API's
`series` and each question's `remembered` (the permanent layer, the composed channel, both figures), and the page
that states both figures, rounded up."""

from decimal import Decimal

import pytest

import ldp
from ldp.mechanisms.remembered import Remembered
from ldp.planning.rounding import total_loss
from surveys.collection import waves
from surveys.collection.models import Survey
from surveys.collection.serializers import MechanismSerializer


@pytest.fixture
def wave(survey):
    """Wave 2 of the `survey` fixture's series, open: qrr, bitflip, krr (3 options) and oue (4 options), each with
    a permanent layer (qrr 0.8; the others epsilon 2) on its own mechanism as the instantaneous one."""
    second = waves.run_again(survey)
    for question in second.questions.all():
        if question.mechanism_name == "qrr":
            question.permanent_q = Decimal("0.8")
        else:
            question.permanent_epsilon = 2.0
        question.save()
    Survey.objects.filter(pk=second.pk).update(status=Survey.Status.OPEN)
    second.refresh_from_db()
    return second


def expected_layers(survey) -> list[Remembered]:
    return [Remembered(ldp.QRandomizedResponse("0.8"), ldp.QRandomizedResponse("0.5")),
            Remembered(ldp.BitFlip(2.0), ldp.BitFlip(ldp.BitFlip(1.0986122886681098).epsilon)),
            Remembered(ldp.KaryRR(2.0, 3), ldp.KaryRR(1.0, 3)),
            Remembered(ldp.OptimizedUnary(2.0, 4), ldp.OptimizedUnary(1.0, 4))]


def test_the_definition_says_the_series_and_each_questions_two_layers(client, wave):
    body = client.get(f"/api/v1/surveys/{wave.slug}/").json()
    assert body["series"] == {"id": wave.series_id, "wave": 2, "remembered": True}
    questions = wave.ordered_questions()
    for got, question in zip(body["questions"], questions, strict=True):
        layers = question.remembered()
        p, q = layers.exact_channel()
        assert got["remembered"] == {
            "lineage": str(question.lineage), "permanent": MechanismSerializer(layers.permanent).data,
            "p": float(p), "q_other": float(q), "wave_epsilon": layers.wave_epsilon,
            "all_waves_epsilon": layers.all_waves_epsilon}
        assert got["mechanism"] == MechanismSerializer(layers.instant).data  # each wave's fresh layer
    assert [q.remembered().permanent for q in questions] == [r.permanent for r in expected_layers(wave)]


def test_a_survey_outside_a_series_or_in_one_that_does_not_remember_has_no_remembered_layer(client, survey, wave):
    body = client.get(f"/api/v1/surveys/{survey.slug}/").json()  # wave 1: no permanent layer
    assert body["series"] == {"id": wave.series_id, "wave": 1, "remembered": True}
    assert [q["remembered"] for q in body["questions"]] == [None] * 4
    wave.series.remembered = False
    wave.series.save()
    body = client.get(f"/api/v1/surveys/{wave.slug}/").json()
    assert body["series"]["remembered"] is False
    assert [q["remembered"] for q in body["questions"]] == [None] * 4


def test_a_survey_in_no_series_says_so(client, survey):
    assert client.get(f"/api/v1/surveys/{survey.slug}/").json()["series"] is None


def test_the_page_states_one_waves_figure_rounded_up_and_gives_the_browser_the_permanent_integers(client, wave):
    """The total of the waves a browser answered is the browser's to say (it alone knows which it answered): the
    page states this wave's, each question's permanent bound, and leaves a line for the browser."""
    response = client.get(f"/s/{wave.slug}/")
    page = response.content.decode().replace("&nbsp;", "\u00a0")
    layers = [q.remembered() for q in wave.ordered_questions()]
    one_wave = Decimal(sum(r.wave_epsilon for r in layers)).quantize(Decimal("0.001"), rounding="ROUND_CEILING")
    assert (f"This wave: ε\u00a0=\u00a0{one_wave}. What the waves this browser answered cost together, it works out "
            "below from the numbers each wave randomized with.") in page
    assert "all waves together" not in page
    assert '<p id="client-history" class="client-epsilon" hidden></p>' in page
    assert "If an answer changes, your browser makes a new remembered version" in page
    for r in layers:
        alone = total_loss([r.permanent.sampler()]).epsilon_up(3)
        wave_up = Decimal(r.wave_epsilon).quantize(Decimal("0.001"), rounding="ROUND_CEILING")
        assert (f"Remembered across waves: this wave ε\u00a0=\u00a0{wave_up}; every wave that remembers it as this "
                f"one does, together, as long as your answer stays the same: ε\u00a0=\u00a0{alone}.") in page
    client_data = response.context["client"]
    assert client_data["series"] == {"id": wave.series_id, "wave": 2, "remembered": True}
    assert [q["remembered"] for q in client_data["questions"]] == [
        {"lineage": str(q.lineage), "sampler": q.remembered().permanent.sampler(),
         "wave_epsilon": q.remembered().wave_epsilon, "all_waves_epsilon": q.remembered().all_waves_epsilon}
        for q in wave.ordered_questions()]


def test_a_page_without_remembered_questions_says_nothing_of_waves(client, survey):
    page = client.get(f"/s/{survey.slug}/").content.decode()
    assert "your browser remembers" not in page and "Remembered across waves" not in page
