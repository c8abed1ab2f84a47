"""The new kinds of question in the models: what the database refuses, what clean() says, which
mechanism each kind builds, and what freezes once a survey has reports."""

import math
import uuid
from contextlib import contextmanager
from datetime import date
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

import ldp
from surveys.collection import plan
from surveys.collection.models import FrozenMechanism, Option, Question, Response, build_mechanism
from surveys.collection.scales import Scale
from tests.collection.helpers import question

D = Decimal
NUMERIC = {"kind": "numeric", "lo": D("0"), "hi": D("10"), "step": D("1")}


@contextmanager
def _integrity_error():
    with pytest.raises(IntegrityError), transaction.atomic():
        yield


def _create(survey, **fields):
    return Question.objects.create(survey=survey, order=9, text="?", **fields)


# --- database constraints -------------------------------------------------------------------


@pytest.mark.parametrize("kind, mechanism", [
    ("multi_select", "krr"), ("numeric", "sue"), ("numeric", "multiselect"), ("ordinal", "onebit"),
    ("ordinal", "direct"), ("single_choice", "dlaplace"), ("yes_no", "multiselect"),
])
def test_the_database_refuses_a_new_mechanism_that_does_not_fit_the_kind(kinds_survey, kind, mechanism):
    scale = {key: value for key, value in NUMERIC.items() if key != "kind"} if kind == "numeric" else {}
    with _integrity_error():
        _create(kinds_survey, kind=kind, mechanism_name=mechanism, epsilon=1.0, **scale)


@pytest.mark.parametrize("fields", [
    pytest.param({"lo": None}, id="no-lo"),
    pytest.param({"step": None}, id="no-step"),
    pytest.param({"lo": D("10"), "hi": D("10")}, id="lo-not-below-hi"),
    pytest.param({"step": D("0")}, id="step-zero"),
    pytest.param({"step": D("-1")}, id="step-negative"),
])
def test_the_database_refuses_a_numeric_question_without_a_scale(kinds_survey, fields):
    with _integrity_error():
        _create(kinds_survey, mechanism_name="onebit", epsilon=1.0, **{**NUMERIC, **fields})


def test_the_database_refuses_a_scale_or_an_at_most_limit_on_another_kind(kinds_survey):
    with _integrity_error():
        _create(kinds_survey, kind="single_choice", mechanism_name="krr", epsilon=1.0, lo=D(0))
    with _integrity_error():
        _create(kinds_survey, kind="single_choice", mechanism_name="krr", epsilon=1.0, at_most=1)
    with _integrity_error():
        _create(kinds_survey, kind="multi_select", mechanism_name="multiselect", epsilon=1.0, at_most=0)


def test_the_database_refuses_an_option_with_both_a_score_and_a_lower_edge(kinds_survey):
    with _integrity_error():
        Option.objects.create(question=question(kinds_survey, 5), order=9, label="Both", score=D(1), lower=D(0))


# --- clean() ----------------------------------------------------------------------------------


@pytest.mark.parametrize("fields, field, words", [
    ({"kind": "multi_select", "mechanism_name": "krr", "epsilon": 1.0}, "mechanism_name",
     "Multi-select questions use the multi-select bits."),
    ({"kind": "ordinal", "mechanism_name": "onebit", "epsilon": 1.0}, "mechanism_name",
     "Ordinal questions use k-ary randomized response or a unary encoding over their levels."),
    ({**NUMERIC, "mechanism_name": "sue", "epsilon": 1.0}, "mechanism_name", "Numeric questions use the 1-bit mean"),
    ({**NUMERIC, "mechanism_name": "onebit", "epsilon": 1.0, "step": D("3")}, "step", "whole number of steps"),
    ({**NUMERIC, "mechanism_name": "onebit", "epsilon": 1.0, "hi": None}, "hi", "needs this"),
    ({"kind": "ordinal", "mechanism_name": "krr", "epsilon": 1.0, "lo": D(0)}, "lo",
     "Only numeric questions have lo, hi and step."),
    ({"kind": "ordinal", "mechanism_name": "krr", "epsilon": 1.0, "at_most": 2}, "at_most",
     "Only multi-select questions have an at-most limit."),
    ({"kind": "ordinal", "mechanism_name": "direct"}, "mechanism_name", "Only single-choice questions can be asked"),
    ({**NUMERIC, "mechanism_name": "dlaplace", "epsilon": 20.0}, "epsilon", "epsilon must lie in"),
])
def test_clean_names_the_field_of_a_new_kind_and_says_what_to_do(kinds_survey, fields, field, words):
    candidate = Question(survey=kinds_survey, order=9, text="?", **fields)
    with pytest.raises(ValidationError) as error:
        candidate.clean()
    assert any(words in message for message in error.value.message_dict[field]), error.value.message_dict


def test_clean_accepts_each_new_kind_as_the_fixture_has_it(kinds_survey):
    for found in kinds_survey.ordered_questions():
        found.clean()


# --- mechanisms ------------------------------------------------------------------------------


def test_each_kind_builds_its_mechanism_with_its_parameters(kinds_survey):
    multi, onebit, dlaplace, ages, gamble = (q.mechanism() for q in kinds_survey.ordered_questions())
    assert multi == ldp.MultiSelect(2.0, 4, at_most=2)
    assert onebit == ldp.OneBitMean(1.0, "0", "100", "1")
    assert dlaplace == ldp.DiscreteLaplace(1.0, "0", "10", "0.5")
    assert ages == ldp.KaryRR(1.0, 4) and gamble == ldp.KaryRR(1.0, 4)


def test_build_mechanism_refuses_a_numeric_mean_without_a_scale_and_a_misfit():
    with pytest.raises(ValueError, match="lo, hi and step"):
        build_mechanism("onebit", "numeric", None, 1.0, 0)
    with pytest.raises(ValueError, match="multi-select"):
        build_mechanism("krr", "multi_select", None, 1.0, 3)
    assert build_mechanism("dlaplace", "numeric", None, 1.0, 0, scale=Scale(D(0), D(4), D(1))).k == 5


def test_the_survey_budget_counts_each_questions_effective_epsilon_with_the_multi_select_factor(kinds_survey):
    mechanisms = plan.of(kinds_survey).mechanisms
    assert mechanisms[0].effective_epsilon == pytest.approx(4 * mechanisms[0].per_bit_epsilon)  # d = 2 at_most
    assert plan.of(kinds_survey).epsilon_total == pytest.approx(math.fsum(m.effective_epsilon for m in mechanisms))
    assert plan.of(kinds_survey).epsilon_total == pytest.approx(6.0, abs=1e-6)


def test_a_numeric_question_asked_for_its_mean_has_the_k_of_its_mechanism(kinds_survey):
    assert [q.k() for q in kinds_survey.ordered_questions()] == [4, 2, 21, 4, 4]


# --- freezing -------------------------------------------------------------------------------


@pytest.fixture
def answered(kinds_survey):
    Response.objects.create(survey=kinds_survey, mechanism_version=plan.of(kinds_survey).version,
                            submitted_on=date(2025, 6, 1), submission_key=uuid.uuid4())
    return kinds_survey


@pytest.mark.parametrize("order, field, value", [
    (2, "lo", D("-5")), (2, "hi", D("50")), (3, "step", D("1")), (1, "at_most", 3),
])
def test_a_scale_or_limit_is_frozen_once_the_survey_has_reports(answered, order, field, value):
    found = question(answered, order)
    setattr(found, field, value)
    with pytest.raises(FrozenMechanism):
        found.save()


@pytest.mark.parametrize("order, field, value", [(4, "lower", D("1")), (5, "score", D("7"))])
def test_a_bin_edge_or_a_score_is_frozen_once_the_survey_has_reports(answered, order, field, value):
    option = question(answered, order).ordered_options()[1]
    setattr(option, field, value)
    with pytest.raises(FrozenMechanism):
        option.save()
