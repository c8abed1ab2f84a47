"""Survey, Question, Option, Response and Report: constraints, validation, mechanisms, freezing."""

import math
import uuid
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

import ldp
from surveys.collection import plan
from surveys.collection.models import FrozenMechanism, Option, Question, Report, Response, Survey, build_mechanism
from surveys.collection.scales import Scale
from tests.collection.helpers import question

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)


def _response(survey, key=None):
    return Response.objects.create(survey=survey, mechanism_version=plan.of(survey).version,
                                   submitted_on=date(2025, 6, 1), submission_key=key or uuid.uuid4())


@contextmanager
def _integrity_error():
    """Expect the database itself to refuse (create() does not run the model's clean())."""
    with pytest.raises(IntegrityError), transaction.atomic():
        yield


# --- database constraints -------------------------------------------------------------------


def test_the_database_refuses_two_questions_with_the_same_order(survey):
    with _integrity_error():
        Question.objects.create(survey=survey, order=1, text="Again?", kind="yes_no", mechanism_name="qrr",
                                q=Decimal("0.5"))
    assert survey.questions.filter(order=1).count() == 1


def test_the_same_question_order_is_fine_in_another_survey(survey):
    other = Survey.objects.create(slug="other", title="Other")
    Question.objects.create(survey=other, order=1, text="Again?", kind="yes_no", mechanism_name="qrr", q=Decimal("0.5"))
    assert other.questions.count() == 1


@pytest.mark.parametrize("fields", [
    pytest.param({"mechanism_name": "qrr", "q": None, "epsilon": None}, id="qrr-without-q"),
    pytest.param({"mechanism_name": "qrr", "q": Decimal("0.5"), "epsilon": 1.0}, id="qrr-with-epsilon"),
    pytest.param({"mechanism_name": "bitflip", "q": None, "epsilon": None}, id="bitflip-without-epsilon"),
    pytest.param({"mechanism_name": "bitflip", "q": Decimal("0.5"), "epsilon": 1.0}, id="bitflip-with-q"),
])
def test_the_database_refuses_a_question_without_exactly_its_own_parameter(survey, fields):
    with _integrity_error():
        Question.objects.create(survey=survey, order=9, text="?", kind="yes_no", **fields)
    assert not survey.questions.filter(order=9).exists()


@pytest.mark.parametrize("kind, mechanism", [
    ("single_choice", "bitflip"), ("single_choice", "qrr"), ("yes_no", "krr"), ("yes_no", "sue"), ("yes_no", "oue"),
])
def test_the_database_refuses_a_mechanism_that_does_not_fit_the_kind(survey, kind, mechanism):
    parameter = {"q": Decimal("0.5")} if mechanism == "qrr" else {"epsilon": 1.0}
    with _integrity_error():
        Question.objects.create(survey=survey, order=9, text="?", kind=kind, mechanism_name=mechanism, **parameter)
    assert not survey.questions.filter(order=9).exists()


def test_the_database_refuses_two_options_with_the_same_order(survey):
    krr = question(survey, 3)
    with _integrity_error():
        Option.objects.create(question=krr, order=0, label="Duplicate")
    assert krr.options.count() == 3


def test_the_database_refuses_two_reports_for_one_question_in_a_response(survey):
    response = _response(survey)
    Report.objects.create(response=response, question=question(survey, 1), value=0)
    with _integrity_error():
        Report.objects.create(response=response, question=question(survey, 1), value=1)
    assert response.reports.count() == 1


def test_the_database_refuses_a_negative_report_value(survey):
    response = _response(survey)
    with _integrity_error():
        Report.objects.create(response=response, question=question(survey, 1), value=-1)
    assert not Report.objects.exists()


def test_the_database_refuses_a_submission_key_used_twice_in_a_survey(survey):
    key = uuid.uuid4()
    _response(survey, key)
    with _integrity_error():
        _response(survey, key)
    assert survey.responses.count() == 1


def test_a_submission_key_may_repeat_across_surveys(survey):
    other = Survey.objects.create(slug="other", title="Other")
    key = uuid.uuid4()
    _response(survey, key)
    _response(other, key)
    assert Response.objects.filter(submission_key=key).count() == 2


@pytest.mark.parametrize("closes_at", [NOW - HOUR, NOW], ids=["before", "same-time"])
def test_the_database_refuses_a_survey_that_closes_before_it_opens(db, closes_at):
    with _integrity_error():
        Survey.objects.create(slug="backwards", title="Backwards", opens_at=NOW, closes_at=closes_at)
    assert not Survey.objects.filter(slug="backwards").exists()


def test_the_database_refuses_a_zero_budget(db):
    with _integrity_error():
        Survey.objects.create(slug="free", title="Free", epsilon_budget=0)


def test_survey_clean_explains_a_close_before_the_open(db):
    survey = Survey(slug="backwards", title="Backwards", opens_at=NOW, closes_at=NOW - HOUR)
    with pytest.raises(ValidationError) as error:
        survey.full_clean()
    assert error.value.message_dict["closes_at"] == ["A survey must close after it opens."]


# --- Question.clean ---------------------------------------------------------------------------

MISMATCH = ("Yes/no questions use q-randomized response or the epsilon bit flip; "
            "single-choice questions use k-ary randomized response, a unary encoding, or no "
            "randomization (direct).")


@pytest.mark.parametrize("fields, field, message", [
    ({"kind": "single_choice", "mechanism_name": "bitflip", "epsilon": 1.0}, "mechanism_name", MISMATCH),
    ({"kind": "yes_no", "mechanism_name": "krr", "epsilon": 1.0}, "mechanism_name", MISMATCH),
    ({"mechanism_name": "qrr"}, "q", "q-randomized response needs q."),
    ({"mechanism_name": "qrr", "q": Decimal("0.5"), "epsilon": 1.0}, "epsilon",
     "Leave epsilon empty for q-randomized response; q sets it."),
    ({"mechanism_name": "bitflip"}, "epsilon", "This mechanism needs epsilon."),
    ({"mechanism_name": "bitflip", "epsilon": 1.0, "q": Decimal("0.5")}, "q", "q is only for q-randomized response."),
])
def test_question_clean_names_the_field_and_says_what_to_do(survey, fields, field, message):
    candidate = Question(survey=survey, order=9, text="?", **{"kind": "yes_no", **fields})
    with pytest.raises(ValidationError) as error:
        candidate.clean()
    assert message in error.value.message_dict[field]


@pytest.mark.parametrize("fields, field, words", [
    ({"mechanism_name": "bitflip", "epsilon": ldp.EPSILON_MAX + 1}, "epsilon", "epsilon must lie in"),
    ({"mechanism_name": "bitflip", "epsilon": ldp.EPSILON_MIN / 2}, "epsilon", "epsilon must lie in"),
    ({"mechanism_name": "qrr", "q": Decimal("1")}, "q", "strictly between 0 and 1"),
    ({"mechanism_name": "qrr", "q": Decimal("0.999999")}, "q", "gives epsilon"),
    ({"mechanism_name": "qrr", "q": Decimal("-0.5")}, "q", "strictly between 0 and 1"),
])
def test_question_clean_refuses_parameters_outside_the_mechanism_range(survey, fields, field, words):
    candidate = Question(survey=survey, order=9, text="?", kind="yes_no", **fields)
    with pytest.raises(ValidationError) as error:
        candidate.clean()
    assert any(words in message for message in error.value.message_dict[field])


def test_question_clean_accepts_each_fixture_question(survey):
    for each in survey.questions.all():
        each.clean()  # raises if not


# --- mechanisms -------------------------------------------------------------------------------


def test_each_question_builds_the_ldp_mechanism_its_fields_describe(survey):
    assert question(survey, 1).mechanism() == ldp.QRandomizedResponse(Decimal("0.5"))
    assert question(survey, 2).mechanism() == ldp.BitFlip(math.log(3))
    assert question(survey, 3).mechanism() == ldp.KaryRR(1.0, 3)
    assert question(survey, 4).mechanism() == ldp.OptimizedUnary(1.0, 4)


def test_a_symmetric_unary_question_builds_sue_with_its_option_count(survey):
    sue = Question.objects.create(survey=survey, order=5, text="?", kind="single_choice", mechanism_name="sue",
                                  epsilon=2.0)
    for i in range(5):
        Option.objects.create(question=sue, order=i, label=f"option {i}")
    assert sue.mechanism() == ldp.SymmetricUnary(2.0, 5)


def test_q_read_back_from_the_database_gives_the_same_exact_channel(survey):
    qrr = question(survey, 1)
    qrr.refresh_from_db()
    assert qrr.q == Decimal("0.500000")
    assert qrr.mechanism().sampler() == {"kind": "grr", "k": 2, "modulus": 4, "keep": 3, "other": 1}
    assert qrr.mechanism().to_dict() == {"mechanism": "qrr", "q": "0.5"}


def test_labels_and_k_follow_the_kind_and_the_options_order(survey):
    krr = question(survey, 3)
    Option.objects.filter(question=krr, label="Never").update(order=7)
    assert question(survey, 1).labels() == ["No", "Yes"] and question(survey, 1).k() == 2
    assert krr.labels() == ["Sometimes", "Often", "Never"] and krr.k() == 3


def test_survey_total_epsilon_is_the_sum_of_effective_epsilons(survey):
    mechanisms = [ldp.QRandomizedResponse("0.5"), ldp.BitFlip(math.log(3)), ldp.KaryRR(1.0, 3),
                  ldp.OptimizedUnary(1.0, 4)]
    assert plan.of(survey).epsilon_total == pytest.approx(sum(m.effective_epsilon for m in mechanisms), abs=1e-12)


def test_an_unsaved_single_choice_question_is_judged_as_if_it_had_two_options(survey):
    new = Question(survey=survey, order=9, text="?", kind="single_choice", mechanism_name="krr", epsilon=1.0)
    assert new.mechanism() == ldp.KaryRR(1.0, 2)


# --- mechanism_version ------------------------------------------------------------------------


def _set(model_getter, **fields):
    def change(survey):
        obj = model_getter(survey)
        for name, value in fields.items():
            setattr(obj, name, value)
        obj.save()
    return change


CHANGES_THE_VERSION = {
    "q": _set(lambda s: question(s, 1), q=Decimal("0.6")),
    "epsilon": _set(lambda s: question(s, 2), epsilon=1.5),
    "mechanism": _set(lambda s: question(s, 4), mechanism_name="sue"),
    "kind-and-mechanism": _set(lambda s: question(s, 2), kind="yes_no", mechanism_name="qrr", q=Decimal("0.5"),
                               epsilon=None),
    "option-label": _set(lambda s: question(s, 3).options.get(order=0), label="Not ever"),
    "option-order": lambda s: [
        _set(lambda s: question(s, 3).options.get(order=0), order=9)(s),
        _set(lambda s: question(s, 3).options.get(order=2), order=0)(s),
    ],
    "option-added": lambda s: Option.objects.create(question=question(s, 3), order=3, label="Daily"),
    "option-deleted": lambda s: question(s, 4).options.get(order=3).delete(),
    "question-added": lambda s: Question.objects.create(survey=s, order=5, text="New?", kind="yes_no",
                                                        mechanism_name="bitflip", epsilon=0.5),
    "question-deleted": lambda s: question(s, 2).delete(),
    "question-moved-last": _set(lambda s: question(s, 1), order=10),
}

KEEPS_THE_VERSION = {
    "nothing": lambda s: None,
    "question-renumbered-in-place": _set(lambda s: question(s, 1), order=0),
    "survey-title": _set(lambda s: s, title="Renamed"),
    "question-text": _set(lambda s: question(s, 1), text="Have you ever cheated in an exam?"),
    "survey-budget": _set(lambda s: s, epsilon_budget=9.0),
    "survey-status": _set(lambda s: s, status=Survey.Status.CLOSED),
    "question-saved-unchanged": _set(lambda s: question(s, 3)),
}


@pytest.mark.parametrize("change", CHANGES_THE_VERSION.values(), ids=CHANGES_THE_VERSION.keys())
def test_mechanism_version_changes_when_anything_reports_depend_on_changes(survey, change):
    before = plan.of(survey).version
    change(survey)
    assert plan.of(Survey.objects.get(pk=survey.pk)).version != before


@pytest.mark.parametrize("change", KEEPS_THE_VERSION.values(), ids=KEEPS_THE_VERSION.keys())
def test_mechanism_version_stays_when_nothing_reports_depend_on_changes(survey, change):
    before = plan.of(survey).version
    change(survey)
    assert plan.of(Survey.objects.get(pk=survey.pk)).version == before


def test_mechanism_version_is_a_short_hex_digest_that_fits_the_response_field(survey):
    version = plan.of(survey).version
    assert len(version) == Response._meta.get_field("mechanism_version").max_length
    int(version, 16)


# --- is_accepting -----------------------------------------------------------------------------


@pytest.mark.parametrize("status, opens_at, closes_at, accepting", [
    (Survey.Status.OPEN, None, None, True),
    (Survey.Status.DRAFT, None, None, False),
    (Survey.Status.CLOSED, None, None, False),
    (Survey.Status.OPEN, NOW - HOUR, NOW + HOUR, True),
    (Survey.Status.OPEN, NOW, None, True),  # opens exactly now
    (Survey.Status.OPEN, NOW + HOUR, None, False),  # not yet
    (Survey.Status.OPEN, None, NOW, False),  # closes exactly now
    (Survey.Status.OPEN, None, NOW - HOUR, False),  # past its close
    (Survey.Status.DRAFT, NOW - HOUR, NOW + HOUR, False),
    (Survey.Status.CLOSED, NOW - HOUR, NOW + HOUR, False),
])
def test_is_accepting_needs_an_open_status_and_now_inside_the_window(status, opens_at, closes_at, accepting):
    survey = Survey(slug="s", title="S", status=status, opens_at=opens_at, closes_at=closes_at)
    assert survey.is_accepting(now=NOW) is accepting


# --- what a response can hold -----------------------------------------------------------------


def test_a_response_has_no_field_that_could_identify_a_respondent():
    fields = {f.name for f in Response._meta.get_fields()}
    # earlier_wave: one bit, the browser's word that it answered an earlier wave of the series (it links nothing)
    # answers: its reports' randomized values again, in one text (surveys.collection.answer_rows)
    assert fields == {"id", "survey", "mechanism_version", "submitted_on", "submission_key", "earlier_wave", "reports",
                      "answers"}
    assert Response._meta.get_field("earlier_wave").get_internal_type() == "BooleanField"
    assert Response._meta.get_field("submitted_on").get_internal_type() == "DateField"
    assert {f.name for f in Report._meta.get_fields()} == {"id", "response", "question", "value"}


def test_response_ids_are_random_uuids(survey):
    first, second = _response(survey), _response(survey)
    assert isinstance(first.pk, uuid.UUID) and first.pk.version == 4 and first.pk != second.pk


# --- frozen parameters --------------------------------------------------------------------------

FROZEN_CHANGES = {
    "question-q": _set(lambda s: question(s, 1), q=Decimal("0.9")),
    "question-epsilon": _set(lambda s: question(s, 2), epsilon=0.1),
    "question-mechanism": _set(lambda s: question(s, 4), mechanism_name="sue"),
    "question-kind": _set(lambda s: question(s, 2), kind="single_choice", mechanism_name="krr"),
    "question-text": _set(lambda s: question(s, 1), text="Have you ever cheated on a tax return?"),
    "question-order": _set(lambda s: question(s, 1), order=0),
    "question-moved-to-another-survey": lambda s: _set(
        lambda s: question(s, 1), survey=Survey.objects.create(slug="elsewhere", title="Elsewhere"))(s),
    "question-added": lambda s: Question.objects.create(survey=s, order=5, text="New?", kind="yes_no",
                                                        mechanism_name="bitflip", epsilon=0.5),
    "question-deleted": lambda s: question(s, 2).delete(),
    "option-added": lambda s: Option.objects.create(question=question(s, 3), order=3, label="Daily"),
    "option-label": _set(lambda s: question(s, 3).options.get(order=0), label="Not ever"),
    "option-order": _set(lambda s: question(s, 3).options.get(order=0), order=9),
    "option-moved-to-another-question": lambda s: _set(
        lambda s: question(s, 3).options.get(order=0), question=question(s, 4), order=9)(s),
    "option-deleted": lambda s: question(s, 4).options.get(order=3).delete(),
}


def _snapshot(survey):
    return (
        plan.of(survey).version,
        sorted(Question.objects.filter(survey=survey).values_list(
            "pk", "order", "text", "kind", "mechanism_name", "q", "epsilon")),
        sorted(Option.objects.filter(question__survey=survey).values_list("pk", "question_id", "order", "label")),
    )


@pytest.mark.parametrize("name", FROZEN_CHANGES.keys())
def test_after_a_response_every_change_to_questions_and_options_is_refused(responded, name):
    before = _snapshot(responded)
    with pytest.raises(FrozenMechanism):
        FROZEN_CHANGES[name](responded)
    assert _snapshot(responded) == before


@pytest.mark.parametrize("name", FROZEN_CHANGES.keys())
def test_before_any_response_questions_and_options_can_change(survey, name):
    before = _snapshot(survey)
    FROZEN_CHANGES[name](survey)
    assert _snapshot(survey) != before


def test_after_a_response_saving_an_unchanged_question_or_option_is_harmless(responded):
    before = _snapshot(responded)
    question(responded, 3).save()
    question(responded, 3).options.get(order=0).save()
    assert _snapshot(responded) == before


def test_freezing_is_per_survey(responded):
    other = Survey.objects.create(slug="other", title="Other")
    added = Question.objects.create(survey=other, order=1, text="?", kind="yes_no", mechanism_name="qrr",
                                    q=Decimal("0.5"))
    added.q = Decimal("0.25")
    added.save()
    assert Question.objects.get(pk=added.pk).q == Decimal("0.25")


def test_frozen_mechanism_is_a_validation_error_so_forms_can_show_it():
    assert issubclass(FrozenMechanism, ValidationError)


# Multi-select, numeric and ordinal questions: what the database refuses, what clean() says, which mechanism
# each kind builds, and what freezes once a survey has reports.
D = Decimal
NUMERIC = {"kind": "numeric", "lo": D("0"), "hi": D("10"), "step": D("1")}


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
def test_clean_names_the_field_at_fault_for_each_kind_and_says_what_to_do(kinds_survey, fields, field, words):
    candidate = Question(survey=kinds_survey, order=9, text="?", **fields)
    with pytest.raises(ValidationError) as error:
        candidate.clean()
    assert any(words in message for message in error.value.message_dict[field]), error.value.message_dict


def test_clean_accepts_each_kind_as_the_fixture_has_it(kinds_survey):
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
