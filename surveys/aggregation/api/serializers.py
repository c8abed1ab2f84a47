"""The estimates API's JSON, described once: these serializers write it from the results service's
values and feed the OpenAPI schema, so the two cannot drift."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from surveys.collection.serializers import (
    BINS_SCHEMA,
    KINDS,
    SCALE_SCHEMA,
    SCORES_SCHEMA,
    FiniteFloatField,
    MechanismSerializer,
    bins_of,
    scale_of,
    scores_of,
)

from ..results.service import QuestionResult


class PostProcessedSerializer(serializers.Serializer):
    clipped = FiniteFloatField(help_text="Clipped to [0, 1]; no privacy cost.")
    simplex = FiniteFloatField(help_text="Projected onto the simplex; no privacy cost.")


class OptionEstimateSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    label = serializers.CharField()  # type: ignore[assignment]  # a field, not Field.label
    count = serializers.IntegerField(help_text="Randomized reports (or 1-bits) for this option.")
    estimate = FiniteFloatField(help_text="Unbiased; may lie outside [0, 1]. null without reports.")
    std_error = FiniteFloatField(help_text=(
        "At a count of 0 or n (where the plug-in one is 0), the Wilson-centred standard error."))
    ci_low = serializers.FloatField(help_text="Clipped to [0, 1].")
    ci_high = serializers.FloatField(help_text="Clipped to [0, 1].")
    ci_low_unclipped = FiniteFloatField(help_text="The interval's lower end before clipping to [0, 1].")
    ci_high_unclipped = FiniteFloatField(help_text="The interval's upper end before clipping to [0, 1].")
    inconsistent = serializers.BooleanField(help_text=(
        "The whole interval lies outside [0, 1] (the report rate's interval outside [q_other, p]): the reports "
        "do not fit the mechanism, and the clipped interval ([0, 0] or [1, 1]) is not a certainty. See the "
        "unclipped bounds."))
    post_processed = PostProcessedSerializer(source="*")


class MeanEstimateSerializer(serializers.Serializer):
    """An `ldp.MeanEstimate`: a numeric question's mean, or an ordinal question's mean score."""

    mean = FiniteFloatField(help_text="Unbiased, in the question's units (ordinal: its scores). null without reports.")
    std_error = FiniteFloatField()
    ci_low = FiniteFloatField(help_text="Clipped to the range the mean can take (lo..hi, or the scores' range).")
    ci_high = FiniteFloatField()
    confidence = serializers.FloatField()
    n = serializers.IntegerField()


class PlannerSerializer(serializers.Serializer):
    margin_now = FiniteFloatField(help_text="Worst-case half-width reached; null without reports.")
    margin = FiniteFloatField(help_text="A fraction (0.05 is ±5 points); for a numeric mean, in the question's units "
                                        "(the requested margin times hi - lo).")
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
    key = serializers.CharField(source="question.key", help_text="Its name, else q<order>, as in the exports.")
    order = serializers.IntegerField(source="question.order")
    text = serializers.CharField(source="question.text")
    kind = serializers.ChoiceField(source="question.kind", choices=KINDS)
    n = serializers.IntegerField(help_text="Number of reports: of a question with skip logic, those asked it.")
    relevant = serializers.CharField(source="question.relevant", help_text=(
        "Skip logic (XLSForm's `relevant`): the condition on direct answers under which it was asked; empty when "
        "asked of everyone. Its estimates are over those asked."))
    asked_of = serializers.SerializerMethodField(help_text=(
        "The condition in words (choices by their labels), in the request's language; null when asked of everyone."))
    mechanism = MechanismSerializer()
    counts_are = serializers.CharField()
    interval_level = serializers.FloatField(source="level", help_text=(
        "Each interval's level (Bonferroni-adjusted; with anytime intervals, its share of sequence_confidence, all "
        "of the question's holding together)."))
    interval = serializers.ChoiceField(choices=["anytime", "wilson", "exact", "weighted"], help_text=(
        "The kind of this question's option (or numeric mean) intervals: anytime where a confidence sequence "
        "exists, else the fixed-n one. An ordinal mean score's interval is always fixed-n (Student's t). "
        "weighted: under the survey's weights (see weights), Wilson at each option's effective sample size."))
    options = OptionEstimateSerializer(source="rows", many=True, help_text=(
        "Per option (level, bin): the fraction who chose it (multi-select: who ticked it; these need not add up to "
        "1, and have no simplex projection). Empty for a numeric question asked for its mean."))
    mean = MeanEstimateSerializer(allow_null=True, help_text=(
        "A numeric question's mean (1-bit mean, discrete Laplace) in its units, or an ordinal question's mean score "
        "over its scored levels; null for the other kinds."))
    scale = serializers.SerializerMethodField()
    bins = serializers.SerializerMethodField()
    scores = serializers.SerializerMethodField()
    planner = PlannerSerializer(source="*")
    too_few = serializers.BooleanField(help_text=(
        "n is below planner.respondents_needed (the one rule for too few respondents): the dashboard withholds "
        "these estimates; here they are given with `warning`. Do not read them alone."))
    warning = serializers.CharField(allow_null=True, help_text=(
        "Why the estimates are not to be read alone while too_few (in the request's language); null otherwise."))

    @extend_schema_field(SCALE_SCHEMA)
    def get_scale(self, result: QuestionResult) -> dict[str, str] | None:
        return scale_of(result.question)

    @extend_schema_field({"type": "string", "nullable": True})
    def get_asked_of(self, result: QuestionResult) -> str | None:
        return result.asked_of or None

    @extend_schema_field(BINS_SCHEMA)
    def get_bins(self, result: QuestionResult) -> list[dict[str, Any]] | None:
        return bins_of(result.question)

    @extend_schema_field(SCORES_SCHEMA)
    def get_scores(self, result: QuestionResult) -> list[str | None] | None:
        return scores_of(result.question)


class EstimatedSurveySerializer(serializers.Serializer):
    slug = serializers.SlugField(source="survey.slug")
    title = serializers.CharField(source="survey.title")
    status = serializers.ChoiceField(source="survey.status", choices=["draft", "open", "closed"])
    epsilon_total = serializers.FloatField(help_text="Sum of the randomized questions' effective epsilons "
                                                     "(direct questions, sent as given, are not in it).")
    epsilon_budget = serializers.FloatField(source="survey.epsilon_budget")
    responses = serializers.IntegerField()
    planner = SurveyPlannerSerializer(source="*")


class MarginSerializer(serializers.Serializer):
    question = serializers.CharField()
    shares = serializers.DictField(child=serializers.FloatField(), help_text="Option label: population share.")

    def get_fields(self) -> dict[str, serializers.Field]:
        # Declared here: a class attribute named `source` would shadow DRF's own Field.source.
        return {**super().get_fields(), "source": serializers.CharField(help_text="Where the shares come from.")}


class WeightsSerializer(serializers.Serializer):
    """A `weighting.Weights`: raked to every margin, capped at `cap` times the median weight."""

    margins = MarginSerializer(many=True)
    n = serializers.IntegerField(source="summary.n", help_text="Responses weighted.")
    left_out = serializers.IntegerField(source="summary.left_out",
                                        help_text="Responses without an answer to every margin question.")
    min = serializers.FloatField(source="summary.min")
    max = serializers.FloatField(source="summary.max")
    design_effect = serializers.FloatField(source="summary.design_effect", help_text="Kish: n sum w^2 / (sum w)^2.")
    effective_n = serializers.FloatField(source="summary.effective_n", help_text="(sum w)^2 / sum w^2.")
    cap = serializers.FloatField(source="summary.cap", help_text="Weights above cap times the median are capped.")
    cap_met = serializers.BooleanField(source="summary.cap_met")


class SurveyEstimatesSerializer(serializers.Serializer):
    """A `results.SurveyResults`."""

    survey = EstimatedSurveySerializer(source="*")
    confidence = serializers.FloatField(source="options.confidence")
    interval = serializers.ChoiceField(source="options.interval", choices=["anytime", "wilson", "exact"], help_text=(
        "With weighted=true always wilson (at each option's effective sample size). "
        "The intervals used. anytime (the default while the survey is open): confidence sequences, valid however "
        "often you look, all of a question's intervals together; an ordinal mean score keeps its fixed-n interval "
        "(see each question's interval). wilson (the default once closed) or exact: fixed-n intervals."))
    planned = serializers.IntegerField(allow_null=True, help_text=(
        "With anytime intervals: their planning size, where they are narrowest: the survey's planned size, fixed "
        "when it opened (margin does not change it); null with fixed-n intervals."))
    sequence_confidence = serializers.FloatField(allow_null=True, help_text=(
        "With anytime intervals: their confidence, the survey's planned confidence, fixed when it opened (the "
        "confidence parameter does not change it: it sets the fixed-n intervals, such as an ordinal mean score's, and "
        "the planner); for a survey opened before plans were stored, the confidence asked for. null with fixed-n "
        "intervals."))
    sequence_note = serializers.CharField(allow_null=True, help_text=(
        "When the anytime intervals' confidence differs from the confidence asked for: why (in the request's "
        "language); null otherwise."))
    simultaneous = serializers.BooleanField(source="options.simultaneous")
    weights = WeightsSerializer(allow_null=True, help_text=(
        "With weighted=true: the population margins the responses were raked to and what the weights cost; "
        "null for unweighted figures."))
    questions = QuestionEstimatesSerializer(many=True)
