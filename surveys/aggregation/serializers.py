"""The estimates API's JSON, described once: these serializers write it from the results service's
values and feed the OpenAPI schema, so the two cannot drift."""

from __future__ import annotations

from rest_framework import serializers

from surveys.collection.serializers import FiniteFloatField, MechanismSerializer


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
    enough = serializers.BooleanField(help_text=(
        "n has reached respondents_needed; below it the dashboard shows the counts and the planner, "
        "not the estimates."))


class SurveyPlannerSerializer(serializers.Serializer):
    margin = serializers.FloatField(source="options.margin")
    respondents_needed = serializers.IntegerField(
        source="needed", help_text="The most any question needs for the margin: it then holds on every question.")
    still_needed = serializers.IntegerField(help_text="respondents_needed minus the responses so far, at least 0.")


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
    epsilon_total = serializers.FloatField(help_text="Sum of the randomized questions' effective epsilons "
                                                     "(direct questions, sent as given, are not in it).")
    epsilon_budget = serializers.FloatField(source="survey.epsilon_budget")
    responses = serializers.IntegerField()
    planner = SurveyPlannerSerializer(source="*")


class SurveyEstimatesSerializer(serializers.Serializer):
    """A `results.SurveyResults`."""

    survey = EstimatedSurveySerializer(source="*")
    confidence = serializers.FloatField(source="options.confidence")
    interval = serializers.ChoiceField(source="options.interval", choices=["wilson", "exact"])
    simultaneous = serializers.BooleanField(source="options.simultaneous")
    questions = QuestionEstimatesSerializer(many=True)
