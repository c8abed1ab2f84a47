"""The estimates API's JSON, described once: these serializers write it from the results service's
values and feed the OpenAPI schema, so the two cannot drift."""

from __future__ import annotations

import math
from typing import Any

from rest_framework import serializers

from surveys.collection.serializers import MechanismSerializer


class FiniteFloatField(serializers.FloatField):
    """JSON has no NaN or infinity: undefined values (no reports yet) become null."""

    def __init__(self, **kwargs: Any):
        super().__init__(allow_null=True, **kwargs)

    def to_representation(self, value: Any) -> float | None:  # type: ignore[override]
        number = float(value)
        return number if math.isfinite(number) else None


class PostProcessedSerializer(serializers.Serializer):
    clipped = FiniteFloatField(help_text="Clipped to [0, 1]; no privacy cost.")
    simplex = FiniteFloatField(help_text="Projected onto the simplex; no privacy cost.")


class OptionEstimateSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    label = serializers.CharField()  # type: ignore[assignment]  # a field, not Field.label
    count = serializers.IntegerField(help_text="Randomized reports (or 1-bits) for this option.")
    estimate = FiniteFloatField(help_text="Unbiased; may lie outside [0, 1]. null without reports.")
    std_error = FiniteFloatField()
    ci_low = serializers.FloatField()
    ci_high = serializers.FloatField()
    post_processed = PostProcessedSerializer(source="*")


class PlannerSerializer(serializers.Serializer):
    margin_now = FiniteFloatField(help_text="Worst-case half-width reached; null without reports.")
    margin = serializers.FloatField()
    respondents_needed = serializers.IntegerField(source="needed")
    still_needed = serializers.IntegerField()


class QuestionEstimatesSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="question.id")
    key = serializers.CharField(source="question.key", help_text="q<order>, as in the exports.")
    order = serializers.IntegerField(source="question.order")
    text = serializers.CharField(source="question.text")
    kind = serializers.ChoiceField(source="question.kind", choices=["yes_no", "single_choice"])
    n = serializers.IntegerField(help_text="Number of reports.")
    mechanism = MechanismSerializer()
    counts_are = serializers.CharField()
    interval_level = serializers.FloatField(source="level", help_text="Each interval's level (Bonferroni-adjusted).")
    options = OptionEstimateSerializer(source="rows", many=True)
    planner = PlannerSerializer(source="*")


class EstimatedSurveySerializer(serializers.Serializer):
    slug = serializers.SlugField(source="survey.slug")
    title = serializers.CharField(source="survey.title")
    status = serializers.ChoiceField(source="survey.status", choices=["draft", "open", "closed"])
    epsilon_total = serializers.FloatField(help_text="Sum of the questions' effective epsilons.")
    epsilon_budget = serializers.FloatField(source="survey.epsilon_budget")
    responses = serializers.IntegerField()


class SurveyEstimatesSerializer(serializers.Serializer):
    """A `results.SurveyResults`."""

    survey = EstimatedSurveySerializer(source="*")
    confidence = serializers.FloatField(source="options.confidence")
    interval = serializers.ChoiceField(source="options.interval", choices=["wilson", "exact"])
    simultaneous = serializers.BooleanField(source="options.simultaneous")
    questions = QuestionEstimatesSerializer(many=True)
