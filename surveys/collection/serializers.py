"""The respondent API's JSON shapes, each described once: these serializers both write the JSON
and feed the OpenAPI schema (surveys/collection/schema.py), so the two cannot drift.

`MechanismSerializer` writes `ldp.Mechanism.describe()`, the one description of a mechanism that
the definition, the estimates and the codebook all carry.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

import ldp

from .plan import PlannedQuestion


class SamplerSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["grr", "unary"], help_text="grr (keep, other) or unary (one_if_*).")
    k = serializers.IntegerField()
    modulus = serializers.IntegerField()
    keep = serializers.IntegerField(required=False)
    other = serializers.IntegerField(required=False)
    one_if_true = serializers.IntegerField(required=False)
    one_if_false = serializers.IntegerField(required=False)


class MechanismSerializer(serializers.Serializer):
    """An `ldp.Mechanism`, as its `describe()` says."""

    name = serializers.ChoiceField(choices=sorted(ldp.MECHANISMS))
    label = serializers.CharField()  # type: ignore[assignment]  # a field, not Field.label
    parameters = serializers.DictField(help_text="The configured parameters: mechanism and q (q-RR) or epsilon, k.")
    effective_epsilon = serializers.FloatField(help_text="From the sampler's integers; never above the configured.")
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
        return super().to_representation(instance.describe())


class DeniabilitySerializer(serializers.Serializer):
    epsilon = serializers.FloatField()
    odds = serializers.FloatField()
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
        return ldp.deniability(question.mechanism)


class SurveyDefinitionSerializer(serializers.Serializer):
    """A published survey as its respondents' browsers need it (`definition.Definition`)."""

    slug = serializers.SlugField(source="survey.slug")
    title = serializers.CharField(source="survey.title")
    description = serializers.CharField(source="survey.description")
    accepting_responses = serializers.BooleanField()
    version = serializers.CharField(source="plan.version", help_text="Mechanism version; send it back with "
                                                                     "the reports.")
    epsilon_total = serializers.FloatField(source="plan.epsilon_total")
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
