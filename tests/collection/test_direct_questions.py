"""Direct questions (not randomized: the answer is sent as given), single choice only, for
covariates such as an age band or a region: the model, the plan and the admin."""

import hashlib
import json
import math

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

import ldp
from surveys.collection import plan
from surveys.collection.models import Option, Question, Survey, build_mechanism
from tests.collection.helpers import question
from tests.collection.pages import parse
from tests.collection.test_admin import SURVEYS, add_inline_forms, new_survey_form, survey_url

FIGURES = f"{SURVEYS}privacy-figures/"
RANDOMIZED_TOTAL = math.log(3) + ldp.KaryRR(1.0, 3).effective_epsilon


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


def direct_row(text="Age band?", options="18-34\n35-54\n55+", kind="single_choice", **parameters):
    return {"text": text, "kind": kind, "mechanism_name": "direct", "options_text": options,
            "q": parameters.get("q"), "epsilon": parameters.get("epsilon")}


# --- the model --------------------------------------------------------------------------------


def test_a_single_choice_question_can_be_asked_directly_with_no_parameter(direct_survey):
    age = question(direct_survey, 2)
    age.full_clean()
    assert age.get_mechanism_name_display() == "Not randomized (direct)"
    assert age.mechanism() == ldp.Direct(3) and not age.mechanism().randomized


def test_build_mechanism_makes_the_identity_channel_with_k_options():
    assert build_mechanism("direct", "single_choice", None, None, 5) == ldp.make("direct", k=5)
    with pytest.raises(ValueError, match="single-choice"):
        build_mechanism("direct", "yes_no", None, None, 0)
    with pytest.raises(ValueError, match="neither q nor epsilon"):
        build_mechanism("direct", "single_choice", None, 1.0, 3)


def test_a_yes_no_question_cannot_be_asked_directly_and_clean_says_why(direct_survey):
    candidate = Question(survey=direct_survey, order=9, text="Smoke?", kind="yes_no", mechanism_name="direct")
    with pytest.raises(ValidationError) as error:
        candidate.clean()
    assert "Only single-choice questions can be asked directly" in error.value.message_dict["mechanism_name"][0]


@pytest.mark.parametrize("parameters,field", [({"epsilon": 1.0}, "epsilon"), ({"q": "0.5"}, "q")])
def test_a_direct_question_with_q_or_epsilon_is_refused_in_words(direct_survey, parameters, field):
    candidate = question(direct_survey, 2)
    for name, value in parameters.items():
        setattr(candidate, name, value)
    with pytest.raises(ValidationError) as error:
        candidate.clean()
    assert "Leave q and epsilon empty for a direct question" in error.value.message_dict[field][0]


@pytest.mark.parametrize("fields", [
    {"kind": "single_choice", "mechanism_name": "direct", "epsilon": 1.0},
    {"kind": "single_choice", "mechanism_name": "direct", "q": "0.5"},
    {"kind": "yes_no", "mechanism_name": "direct"},
    {"kind": "single_choice", "mechanism_name": "krr"},  # a randomized one still needs epsilon
], ids=["with-epsilon", "with-q", "yes-no", "krr-without-epsilon"])
def test_the_database_refuses_what_the_constraints_forbid(direct_survey, fields):
    with pytest.raises(IntegrityError), transaction.atomic():
        Question.objects.create(survey=direct_survey, order=9, text="?", **fields)


def test_the_plan_counts_only_the_randomized_questions_and_names_the_direct_ones(direct_survey):
    current = plan.of(direct_survey)
    assert [q.order for q in current.direct] == [2, 4]
    assert [q.randomized for q in current] == [True, False, True, False]
    assert current.epsilon_total == pytest.approx(RANDOMIZED_TOTAL, abs=1e-12)
    assert current.questions[3].mechanism == ldp.Direct(4)


def test_the_version_digest_covers_the_parameters_the_labels_and_the_samplers_integers(survey):
    """The digest stored with every response: id, kind, to_dict, labels and the sampler's integers."""
    definition = [[q.pk, q.kind, q.mechanism().to_dict(), [o.label for o in q.ordered_options()],
                   {"sampler": q.mechanism().sampler()}] for q in survey.ordered_questions()]
    expected = hashlib.sha256(json.dumps(definition, sort_keys=True).encode()).hexdigest()[:16]
    assert plan.of(survey).version == expected


# --- the admin --------------------------------------------------------------------------------


def test_a_direct_question_added_on_the_survey_page_saves_without_a_parameter(admin_client):
    # Without the page's script the epsilon box is sent with its default: it does not count.
    data = add_inline_forms(new_survey_form(admin_client, epsilon_budget=1), "questions",
                            direct_row(epsilon=1.0, q="0.5"))
    response = admin_client.post(f"{SURVEYS}add/", data)
    assert response.status_code == 302, response.content
    saved = Survey.objects.get(slug="habits").questions.get()
    assert (saved.mechanism_name, saved.q, saved.epsilon) == ("direct", None, None)
    assert saved.mechanism() == ldp.Direct(3)
    assert list(Option.objects.filter(question=saved).values_list("label", flat=True)) == ["18-34", "35-54", "55+"]


def test_direct_questions_do_not_count_against_the_budget(admin_client):
    """One bit flip at exactly the budget, plus a direct question: it saves."""
    eps = 1.0
    budget = ldp.BitFlip(eps).effective_epsilon + 1e-9
    data = add_inline_forms(new_survey_form(admin_client, epsilon_budget=budget), "questions",
                            {"text": "Drove drunk?", "kind": "yes_no", "mechanism_name": "bitflip", "epsilon": eps,
                             "q": None, "options_text": ""},
                            direct_row())
    response = admin_client.post(f"{SURVEYS}add/", data)
    assert response.status_code == 302, response.content
    assert Survey.objects.get(slug="habits").questions.count() == 2


def test_a_yes_no_question_asked_directly_is_refused_on_the_survey_page(admin_client):
    data = add_inline_forms(new_survey_form(admin_client), "questions", direct_row(kind="yes_no", options=""))
    response = admin_client.post(f"{SURVEYS}add/", data)
    assert response.status_code == 200
    assert "Only single-choice questions can be asked directly" in response.content.decode()
    assert not Survey.objects.filter(slug="habits").exists()


def test_the_figures_endpoint_answers_a_direct_question_with_no_epsilon(admin_client):
    response = admin_client.get(f"{FIGURES}?mechanism=direct&k=4")
    assert response.status_code == 200
    assert b"Infinity" not in response.content and b"NaN" not in response.content
    figures = json.loads(response.content, parse_constant=lambda name: pytest.fail(f"{name} in JSON"))
    assert figures["randomized"] is False and figures["mechanism"] == "direct" and figures["k"] == 4
    assert figures["epsilon"] is None and figures["odds"] is None and figures["best_guess"] is None
    assert figures["respondents"] == ldp.respondents_needed(ldp.Direct(4), 0.05)
    assert figures["summary"].startswith("not randomized: sent as given")
    assert admin_client.get(f"{FIGURES}?mechanism=krr&epsilon=1&k=4").json()["randomized"] is True


@pytest.mark.parametrize("query,field", [
    ("mechanism=direct&epsilon=1&k=3", "epsilon"),
    ("mechanism=direct&q=0.5&k=3", "q"),
    ("mechanism=direct&k=1", "k"),
])
def test_the_figures_endpoint_refuses_a_parameter_for_a_direct_question(admin_client, query, field):
    response = admin_client.get(f"{FIGURES}?{query}")
    assert response.status_code == 400 and response.json()["error"]["field"] == field


@pytest.mark.slow
def test_saved_direct_rows_say_they_are_sent_as_given_and_the_total_counts_the_others(admin_client, direct_survey):
    page = admin_client.get(survey_url(direct_survey)).content.decode()
    assert page.count("not randomized: sent as given") == 2
    up = math.ceil(RANDOMIZED_TOTAL * 10000) / 10000  # rounded up
    assert f"{up:.4f} of 2.5 (randomized questions only; 2 not randomized, sent as given)" in page


@pytest.mark.slow
def test_the_survey_page_offers_direct_for_single_choice_only_and_words_the_total(admin_client, direct_survey):
    page = parse(admin_client.get(survey_url(direct_survey)).content)
    config = json.loads(page.by_id("survey-admin-config").raw_text)
    assert "direct" in config["mechanisms"]["single_choice"] and "direct" not in config["mechanisms"]["yes_no"]
    assert config["mechanisms"]["single_choice"][0] != "direct"  # never the fallback a kind change picks
    assert "{count} not randomized" in config["text"]["unrandomized"]
