"""The models API's JSON (surveys.aggregation.regression.fitting.FittedModel), described once for the answer and the
OpenAPI schema. Lists run over `terms`, one entry per term; a linear model has no odds ratios, likelihood or
test (null)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from surveys.collection.serializers import FiniteFloatField

from .serializers import WeightsSerializer


def _floats(help_text: str, allow_null: bool = False) -> serializers.ListField:
    return serializers.ListField(child=FiniteFloatField(), allow_null=allow_null, help_text=help_text)


class OutcomeSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="outcome.id")
    order = serializers.IntegerField(source="outcome.order")
    text = serializers.CharField(source="outcome.text")
    level = serializers.IntegerField(allow_null=True, help_text="The option modelled (0-based); null for a mean.")
    level_label = serializers.CharField(allow_null=True)


class ReferenceSerializer(serializers.Serializer):
    question = serializers.IntegerField(help_text="A single-choice covariate's id.")
    option = serializers.CharField(help_text="Its reference option: the indicators are against it.")


class TestSerializer(serializers.Serializer):
    name = serializers.CharField(source="test", help_text=(
        "likelihood ratio (unweighted): against the intercept-only model; wald (weighted): the slopes all zero."))
    statistic = FiniteFloatField()
    df = serializers.IntegerField()
    p_value = FiniteFloatField()


class PowerSerializer(serializers.Serializer):
    odds_ratio = serializers.FloatField()
    baseline = serializers.FloatField(help_text="The outcome's present prevalence (debiased, kept within 1-99%).")
    exposed = serializers.FloatField(help_text="The share holding the binary covariate.")
    alpha = serializers.FloatField()
    power = serializers.FloatField()
    respondents = serializers.IntegerField(help_text="Respondents needed to detect odds_ratio (two-sided Wald test).")


class ModelSerializer(serializers.Serializer):
    model = serializers.ChoiceField(source="kind", choices=["logistic", "linear"], help_text=(
        "logistic: P(report = 1 | x) = q + (p - q) / (1 + exp(-x'b)), the mechanism's exact channel; linear: least "
        "squares of the unbiased per-report values of a numeric mean."))
    outcome = OutcomeSerializer(source="*")
    terms = serializers.ListField(child=serializers.CharField(), source="term_keys", help_text=(
        '"(Intercept)", q<order>=<j> (option j of a single choice against its reference), q<order> (a number), '
        "q<order>^2 (its square); a formula's terms as formulaic names them: q3[T.1], I(q4 / 10), q3[T.1]:q4."))
    labels = serializers.ListField(child=serializers.CharField(), source="term_labels", help_text="The terms in words.")
    references = ReferenceSerializer(many=True, source="reference_rows")
    estimate = _floats("Coefficients (log odds for a logistic model).")
    std_error = _floats("Standard errors (kind in se).")
    ci_low = _floats("Interval at confidence.")
    ci_high = _floats("Interval at confidence.")
    z = _floats("estimate / std_error: each term's Wald statistic (a linear model's t).")
    p_value = serializers.ListField(child=FiniteFloatField(), source="p_values", help_text=(
        "Each term's two-sided p-value: 2 Phi(-|z|) (logistic); a linear model's from Student's t with "
                      "n - k degrees of freedom, as its intervals."))
    odds_ratio = _floats("exp(estimate); null for a linear model.", allow_null=True)
    odds_ratio_low = _floats("exp(ci_low).", allow_null=True)
    odds_ratio_high = _floats("exp(ci_high).", allow_null=True)
    n = serializers.IntegerField(help_text="Responses used: with a report for every question used.")
    dropped = serializers.IntegerField(help_text="The survey's other responses, left out.")
    log_likelihood = FiniteFloatField()
    null_log_likelihood = FiniteFloatField(help_text="The intercept-only model's maximum.")
    test = serializers.SerializerMethodField()
    se = serializers.ChoiceField(choices=["observed", "opg", "sandwich", "HC1"])
    confidence = serializers.FloatField()
    weights = WeightsSerializer(allow_null=True)
    power = PowerSerializer(allow_null=True)

    @extend_schema_field(TestSerializer(allow_null=True))
    def get_test(self, found: Any) -> dict[str, Any] | None:
        return None if found.test is None else dict(TestSerializer(found).data)
