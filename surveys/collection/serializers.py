"""The respondent API's JSON shapes, each described once: these serializers both write the JSON
and feed the OpenAPI schema (surveys/collection/schema.py), so the two cannot drift.

`MechanismSerializer` writes `ldp.Mechanism.describe()`, the one description of a mechanism that
the definition, the estimates and the codebook all carry.
"""

from __future__ import annotations

import math
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

import ldp

from .plan import PlannedQuestion


class FiniteFloatField(serializers.FloatField):
    """JSON has no NaN or infinity: undefined values (no reports yet) and a direct question's
    infinite epsilon become null."""

    def __init__(self, **kwargs: Any):
        super().__init__(allow_null=True, **kwargs)

    def to_representation(self, value: Any) -> float | None:  # type: ignore[override]
        number = float(value)
        return number if math.isfinite(number) else None


class SamplerSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["grr", "unary", "direct"], help_text=(
        "grr (keep, other), unary (one_if_*), or direct: not randomized, the answer is sent as given "
        "(k only, no integers, no random words drawn)."))
    k = serializers.IntegerField()
    modulus = serializers.IntegerField(required=False, help_text="All but direct.")
    keep = serializers.IntegerField(required=False)
    other = serializers.IntegerField(required=False)
    one_if_true = serializers.IntegerField(required=False)
    one_if_false = serializers.IntegerField(required=False)


class MechanismSerializer(serializers.Serializer):
    """An `ldp.Mechanism`, as its `describe()` says."""

    name = serializers.ChoiceField(choices=sorted(ldp.MECHANISMS))
    label = serializers.CharField()  # type: ignore[assignment]  # a field, not Field.label
    parameters = serializers.DictField(help_text="The configured parameters: mechanism and q (q-RR) or epsilon, k.")
    randomized = serializers.BooleanField(help_text="False for a direct question: not randomized, its answer is "
                                                    "sent as given (p = 1, q_other = 0, no epsilon).")
    effective_epsilon = FiniteFloatField(help_text="From the sampler's integers; never above the configured. "
                                                   "null for a direct question (not randomized: no deniability).")
    q_equivalent = serializers.FloatField(allow_null=True, help_text="Yes/no only: q of q-RR with this channel, "
                                                                     "tanh(effective epsilon / 2).")
    p = serializers.FloatField(help_text="P(report = truth); per bit for unary encodings.")
    q_other = serializers.FloatField(help_text="P(report = a given other option); per bit for unary encodings.")
    p_exact = serializers.CharField(help_text="p as the sampler's fraction, numerator/modulus.")
    q_other_exact = serializers.CharField(help_text="q_other as the sampler's fraction, numerator/modulus.")
    sampler = SamplerSerializer(help_text="The integers the browser samples exactly.")
    sampler_rule = serializers.CharField()
    encoding = serializers.ChoiceField(choices=["index", "bits"], help_text="index: an option index; bits: one bit "
                                                                            "per option (bit j = option j).")

    def to_representation(self, instance: ldp.Mechanism) -> Any:
        return super().to_representation({**instance.describe(), "randomized": instance.randomized})


class DeniabilitySerializer(serializers.Serializer):
    epsilon = FiniteFloatField(help_text="null for a direct question (not randomized).")
    odds = FiniteFloatField(help_text="null for a direct question (not randomized).")
    best_guess = serializers.FloatField()
    text = serializers.CharField()


class QuestionDefinitionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    order = serializers.IntegerField()
    text = serializers.CharField()
    kind = serializers.ChoiceField(choices=["yes_no", "single_choice"])
    options = serializers.ListField(child=serializers.CharField())
    mechanism = MechanismSerializer()
    deniability = serializers.SerializerMethodField()

    @extend_schema_field(DeniabilitySerializer)
    def get_deniability(self, question: PlannedQuestion) -> dict[str, Any]:
        return DeniabilitySerializer(ldp.deniability(question.mechanism)).data  # a direct question's inf as null


class SurveyDefinitionSerializer(serializers.Serializer):
    """A published survey as its respondents' browsers need it (`definition.Definition`)."""

    slug = serializers.SlugField(source="survey.slug")
    title = serializers.CharField(source="survey.title")
    description = serializers.CharField(source="survey.description")
    accepting_responses = serializers.BooleanField()
    version = serializers.CharField(source="plan.version", help_text="Mechanism version; send it back with "
                                                                     "the reports.")
    epsilon_total = serializers.FloatField(source="plan.epsilon_total", help_text=(
        "Sum of the randomized questions' effective epsilons; direct questions (sent as given) are not in it."))
    epsilon_budget = serializers.FloatField(source="survey.epsilon_budget")
    questions = QuestionDefinitionSerializer(source="plan.questions", many=True)


class SubmissionSerializer(serializers.Serializer):
    """The request body (documentation only: `submission` checks it strictly, field by field)."""

    version = serializers.CharField(help_text="The survey definition's version.")
    key = serializers.UUIDField(help_text="Random per submission, made by the browser; a retry reuses it.")
    reports = serializers.DictField(
        help_text="Question id -> report: an option index, or for unary encodings a list of k bits.",
        child=serializers.JSONField())
    invitation = serializers.CharField(
        required=False, max_length=128,
        help_text="Invitation-only surveys (and only those): the token from the link's fragment.")


class ReceiptSerializer(serializers.Serializer):
    id = serializers.UUIDField(source="response_id")
    reports = serializers.DictField(child=serializers.JSONField())
