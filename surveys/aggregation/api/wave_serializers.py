"""The waves API's JSON (a `waves.SeriesResults`), described once for the answer and the OpenAPI schema."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from surveys.collection.serializers import FiniteFloatField, MechanismSerializer

from ..waves.means import MeanTrend
from ..waves.series import Point, Trend
from ..waves.words import correlation_words, mean_words
from .serializers import WeightsSerializer


def floats(help_text: str) -> serializers.ListField:
    return serializers.ListField(child=FiniteFloatField(), help_text=help_text)


class WaveSerializer(serializers.Serializer):
    wave = serializers.IntegerField(source="number")
    slug = serializers.SlugField(source="survey.slug")
    title = serializers.CharField(source="survey.title")
    status = serializers.ChoiceField(source="survey.status", choices=["draft", "open", "closed"])
    opens_at = serializers.DateTimeField(source="survey.opens_at", allow_null=True, help_text=(
        "When it opens for responses, as configured (null: when an admin opens it)."))
    closes_at = serializers.DateTimeField(source="survey.closes_at", allow_null=True, help_text=(
        "When it stops accepting responses, as configured (null: when an admin closes it)."))
    first_response_on = serializers.DateField(source="first_day", allow_null=True, help_text=(
        "The day of its first response (a response keeps its day only); null without responses."))
    last_response_on = serializers.DateField(source="last_day", allow_null=True, help_text=(
        "The day of its last response; null without responses."))
    responses = serializers.IntegerField()
    answered_an_earlier_wave = serializers.IntegerField(source="repeated", help_text=(
        "Responses whose browser said it had answered an earlier wave of the series (it links nothing)."))
    unavailable = serializers.CharField(allow_null=True, help_text=(
        "Why this wave's figures cannot be read (its stored configuration), else null; it is then left out."))
    weights = WeightsSerializer(allow_null=True, help_text=(
        "With weighted=true: the margins this wave's responses were raked to (its own) and what the weights cost; "
        "null for unweighted figures or a wave without responses."))


class PermanentLayerSerializer(serializers.Serializer):
    mechanism = MechanismSerializer(source="permanent", help_text="The permanent layer, remembered across waves.")
    all_waves_epsilon = serializers.FloatField(help_text=(
        "Any number of waves with an unchanged answer cost at most this: the permanent layer's epsilon."))
    p = serializers.SerializerMethodField(help_text="P(report = truth) of the composed channel of both layers.")
    q_other = serializers.SerializerMethodField(help_text="P(report = a given other option) of the composed channel.")

    def get_p(self, remembered: Any) -> float:
        return float(remembered.exact_channel()[0])

    def get_q_other(self, remembered: Any) -> float:
        return float(remembered.exact_channel()[1])


class PointSerializer(serializers.Serializer):
    wave = serializers.IntegerField()
    n = serializers.IntegerField(help_text="Reports in this wave.")
    mechanism = MechanismSerializer(help_text="This wave's own mechanism (the instantaneous layer when remembered).")
    remembered = PermanentLayerSerializer(allow_null=True, help_text=(
        "The permanent layer when this wave remembers randomization (the estimates debias through the composed "
        "channel of both layers), else null (through the mechanism alone)."))
    epsilon = FiniteFloatField(help_text="One report's privacy loss in this wave (the composed channel's).")
    same_as_this_wave = serializers.BooleanField(source="same", help_text=(
        "Its reports were made as those of the wave asked about (the same channel and layers)."))
    estimate = serializers.SerializerMethodField()
    std_error = serializers.SerializerMethodField()
    ci_low = serializers.SerializerMethodField()
    ci_high = serializers.SerializerMethodField()
    confidence = serializers.FloatField(source="estimate.confidence")

    @extend_schema_field(floats("Per option: the unbiased estimate; null without reports."))
    def get_estimate(self, point: Point) -> list[float | None]:
        return _finite(point.estimate.estimate)

    @extend_schema_field(floats("Per option."))
    def get_std_error(self, point: Point) -> list[float | None]:
        return _finite(point.estimate.std_error)

    @extend_schema_field(floats("Per option: Wilson interval (continuity-corrected) mapped through the channel, "
                                "clipped to [0, 1]."))
    def get_ci_low(self, point: Point) -> list[float | None]:
        return _finite(point.estimate.ci_low)

    @extend_schema_field(floats("Per option."))
    def get_ci_high(self, point: Point) -> list[float | None]:
        return _finite(point.estimate.ci_high)


class ChangeSerializer(serializers.Serializer):
    first = serializers.IntegerField()
    second = serializers.IntegerField()
    estimate = floats("Per option: second wave's estimate minus the first's.")
    std_error = floats("Per option.")
    ci_low = floats("Per option: normal interval at the confidence.")
    ci_high = floats("Per option.")
    z = floats("Per option: estimate / std_error (null where the standard error is 0).")
    p_value = floats("Per option: two-sided test of no change.")
    shared = serializers.IntegerField(help_text=(
        "Reports taken to come from respondents who answered both waves: the later wave's responses whose browser "
        "answered an earlier wave, at most the smaller wave."))
    correlation = serializers.ChoiceField(choices=["independent", "fewest_changes", "unknown"], help_text=(
        "independent: no respondent in both; fewest_changes: the shared respondents changed their answers as "
        "little as the estimates allow (reports are never linked, so this is assumed); unknown: the waves remember "
        "different permanent layers, or (weighted) the waves share respondents, whose covariance through the "
        "weights is not worked out; the variance is then the largest any correlation allows, (se1 + se2)^2 from the "
        "two waves' standard errors."))
    assumption = serializers.CharField(help_text="The same, in words (the request's language).")


class TrendSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="question.id")
    key = serializers.CharField(source="question.key")
    order = serializers.IntegerField(source="question.order")
    text = serializers.CharField(source="question.text")
    options = serializers.ListField(source="question.options", child=serializers.CharField())
    waves = PointSerializer(source="points", many=True, help_text="Every visible wave that asked it with these "
                                                                  "options, in wave order.")
    missing = serializers.ListField(child=serializers.IntegerField(), help_text=(
        "Visible waves that did not ask it, or asked it with other options."))
    mechanisms_differ = serializers.BooleanField(source="differs")
    fixed_by_margins = serializers.BooleanField(source="fixed", help_text=(
        "Weighted, and in both waves compared the responses are raked to this question's population margins: its "
        "figures are the margins' shares and its change theirs, with no sampling error (no interval, no test)."))
    change = serializers.SerializerMethodField()

    @extend_schema_field(ChangeSerializer(allow_null=True, help_text=(
        "From first to second; null when either has no reports or fewer than two waves are visible.")))
    def get_change(self, trend: Trend) -> dict[str, Any] | None:
        if trend.change is None:
            return None
        words = correlation_words(trend)
        return dict(ChangeSerializer({**vars(trend.change), "first": trend.first, "second": trend.second,
                                      "assumption": words}).data)


class MeanPointSerializer(serializers.Serializer):
    wave = serializers.IntegerField()
    n = serializers.IntegerField(help_text="Reports in this wave.")
    mechanism = MechanismSerializer(help_text="This wave's mechanism.")
    mean = FiniteFloatField(source="mean.mean", help_text=(
        "The unbiased mean in the question's units (weighted: raked to this wave's margins); null without reports."))
    std_error = FiniteFloatField(source="mean.std_error")
    ci_low = FiniteFloatField(source="mean.ci_low", help_text=(
        "The wave's interval, as its own dashboard gives it at fixed n, clipped to the scale."))
    ci_high = FiniteFloatField(source="mean.ci_high")
    confidence = serializers.FloatField(source="mean.confidence")


class MeanChangeSerializer(serializers.Serializer):
    first = serializers.IntegerField()
    second = serializers.IntegerField()
    estimate = FiniteFloatField(help_text="The second wave's mean minus the first's, in the question's units.")
    std_error = FiniteFloatField()
    ci_low = FiniteFloatField(help_text="Normal interval at the confidence.")
    ci_high = FiniteFloatField()
    z = FiniteFloatField(help_text="estimate / std_error (null where the standard error is 0).")
    p_value = FiniteFloatField(help_text="Two-sided test of no change.")
    shared = serializers.IntegerField(help_text=(
        "The later wave's responses whose browser answered an earlier wave, at most the smaller wave."))
    correlation = serializers.ChoiceField(choices=["independent", "unknown"], help_text=(
        "independent: no respondent in both, the two variances added; unknown: respondents in both, whose answers "
        "covary in a way their reports (never linked) do not tell: the largest variance any correlation allows, "
        "(se1 + se2)^2."))
    assumption = serializers.CharField(help_text="The same, in words (the request's language).")


class MeanTrendSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="question.id")
    key = serializers.CharField(source="question.key")
    order = serializers.IntegerField(source="question.order")
    text = serializers.CharField(source="question.text")
    waves = MeanPointSerializer(source="points", many=True, help_text=(
        "Every visible wave that asked it for its mean, in wave order."))
    missing = serializers.ListField(child=serializers.IntegerField(), help_text=(
        "Visible waves that did not ask it, or not for its mean."))
    change = serializers.SerializerMethodField()

    @extend_schema_field(MeanChangeSerializer(allow_null=True, help_text=(
        "From first to second; null when either has no reports or fewer than two waves are visible.")))
    def get_change(self, trend: MeanTrend) -> dict[str, Any] | None:
        change = trend.change
        if change is None:
            return None
        one = {name: getattr(change, name)[0] for name in ("estimate", "std_error", "ci_low", "ci_high", "z",
                                                           "p_value")}
        return dict(MeanChangeSerializer({**one, "first": trend.first, "second": trend.second, "shared": change.shared,
                                          "correlation": change.correlation,
                                          "assumption": mean_words(trend)}).data)


class NotComparedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    key = serializers.CharField()
    order = serializers.IntegerField()
    text = serializers.CharField()


class SeriesResultsSerializer(serializers.Serializer):
    series = serializers.CharField(source="series.title")
    remembered = serializers.BooleanField(source="series.remembered", help_text=(
        "The series remembers randomization: each wave sends a fresh randomization of a permanent one."))
    wave = serializers.IntegerField(source="survey.wave", help_text="The wave asked about.")
    confidence = serializers.FloatField()
    weighted = serializers.BooleanField(help_text=(
        "Each wave's figures are weighted to its own population margins (Wilson intervals at each option's "
        "effective sample size); a change's variance is then the sum of the two waves' weighted variances when they "
        "share no respondents, else the largest any correlation allows (correlation unknown)."))
    first = serializers.IntegerField(allow_null=True)
    second = serializers.IntegerField(allow_null=True)
    waves = WaveSerializer(many=True, help_text="The waves you may see, in order; the others are left out.")
    questions = TrendSerializer(source="trends", many=True, help_text=(
        "The questions with one answer of k, compared across waves."))
    means = MeanTrendSerializer(source="mean_trends", many=True, help_text=(
        "The numeric questions asked for their mean, compared across waves as means."))
    not_compared = NotComparedSerializer(many=True, help_text="Multi-select: not compared here.")


def _finite(values: tuple[float, ...]) -> list[float | None]:
    field = FiniteFloatField()
    return [field.to_representation(v) for v in values]
