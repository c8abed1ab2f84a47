"""The cross-tab API's JSON, described once: these serializers write it from a `crosstab.CrossTab`
and feed the OpenAPI schema. Tables are lists of rows; rows are A's options (B's for the
conditional fractions given B), columns the other question's."""

from __future__ import annotations

from rest_framework import serializers

from surveys.collection.serializers import KINDS, MechanismSerializer

from .serializers import FiniteFloatField, WeightsSerializer


def _table(help_text: str) -> serializers.ListField:
    return serializers.ListField(child=serializers.ListField(child=FiniteFloatField()), help_text=help_text)


def _floats(help_text: str) -> serializers.ListField:
    return serializers.ListField(child=FiniteFloatField(), help_text=help_text)


class CrossTabQuestionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    key = serializers.CharField(help_text="q<order>, as in the exports.")
    order = serializers.IntegerField()
    text = serializers.CharField()
    kind = serializers.ChoiceField(choices=KINDS)
    options = serializers.ListField(child=serializers.CharField(), help_text="Labels in report order.")
    mechanism = MechanismSerializer()


class PairCountsSerializer(serializers.Serializer):
    pairs = serializers.ListField(child=serializers.ListField(child=serializers.IntegerField()), help_text=(
        "Responses whose report to A counts for option a (index: is a; unary: has bit a set) and whose "
        "report to B counts for b."))
    a = serializers.ListField(child=serializers.IntegerField(), source="a_counts",
                              help_text="Per option of A, over the same responses.")
    b = serializers.ListField(child=serializers.IntegerField(), source="b_counts",
                              help_text="Per option of B, over the same responses.")


class JointSerializer(serializers.Serializer):
    estimate = _table("Unbiased joint fractions P(A = a and B = b); may lie outside [0, 1].")
    std_error = _table("Standard errors.")
    ci_low = _table("Score interval with continuity correction, clipped to [0, 1] (weighted: at each cell's "
                    "effective sample size).")
    ci_high = _table("Upper ends of the same intervals.")
    row_sums = _floats("Sums over B's options: A's own estimate when B is index-encoded.")
    column_sums = _floats("Sums over A's options: B's own estimate when A is index-encoded.")


class ConditionalSerializer(serializers.Serializer):
    estimate = _table("pi_ab / pi_a with the conditioning question's own estimate as denominator; null when it is 0.")
    std_error = _table("Delta-method standard errors.")
    ci_low = _table("Fieller's interval, clipped to [0, 1]; [0, 1] in a row that is not bounded.")
    ci_high = _table("Upper ends of the same intervals.")
    bounded = serializers.ListField(child=serializers.BooleanField(), help_text=(
        "Per row: false when the denominator's interval reaches 0, so the fraction is not determined."))


class IndependenceSerializer(serializers.Serializer):
    method = serializers.ChoiceField(source="test.method", choices=["pearson", "rao_scott"], help_text=(
        "pearson: Pearson's chi-square on the reports; rao_scott (weighted=true): Rao and Scott's F on the weighted "
        "reports, as R's survey::svychisq. Bonferroni over bit tables for unary questions."))
    p_value = serializers.FloatField(source="test.p_value")
    statistic = serializers.FloatField(source="test.statistic", help_text="X^2 (pearson) or F (rao_scott).")
    df = serializers.FloatField(source="test.df", help_text="Degrees of freedom; rao_scott: the F's numerator's, "
                                                             "not an integer.")
    denominator_df = serializers.FloatField(source="test.denominator_df", allow_null=True, help_text=(
        "rao_scott: the F's denominator degrees of freedom; null for pearson."))
    tables = serializers.IntegerField(source="test.tables")
    phi_squared = serializers.FloatField(source="test.phi_squared", help_text="Debiased, not clipped; of the "
                                                                               "unweighted reports.")
    cramers_v = serializers.FloatField(source="test.cramers_v", help_text="Debiased effect size, clipped to [0, 1]; of "
                                                                           "the unweighted reports.")
    alpha = serializers.FloatField()
    related = serializers.BooleanField(help_text="p_value < alpha.")
    statement = serializers.CharField(help_text="The test's result in words.")


class JointPlannerSerializer(serializers.Serializer):
    margin = serializers.FloatField()
    respondents_needed = serializers.IntegerField(source="needed", help_text=(
        "Respondents answering both for this half-width on every joint cell, worst case."))
    still_needed = serializers.IntegerField()
    enough = serializers.BooleanField()


class CrossTabSerializer(serializers.Serializer):
    """A `crosstab.CrossTab`. Without a response answering both (n = 0) the estimates are null."""

    slug = serializers.SlugField(source="survey.slug")
    confidence = serializers.FloatField()
    a = CrossTabQuestionSerializer()
    b = CrossTabQuestionSerializer()
    n = serializers.IntegerField(help_text="Responses with a report to both questions (weighted=true: the weighted "
                                           "responses).")
    weights = WeightsSerializer(allow_null=True, help_text=(
        "With weighted=true: the population margins the responses were raked to and what the weights cost (the "
        "estimates' weights); joint and conditional fractions are then weighted, with linearization standard "
        "errors through the raking, and the independence test is Rao and Scott's; the counts and the effect size "
        "stay those of the unweighted reports. Null for unweighted figures."))
    counts = PairCountsSerializer(allow_null=True)
    joint = JointSerializer(allow_null=True)
    b_given_a = ConditionalSerializer(allow_null=True, help_text="P(B = b | A = a); rows: A's options.")
    a_given_b = ConditionalSerializer(allow_null=True, help_text="P(A = a | B = b); rows: B's options.")
    independence = IndependenceSerializer(source="relation", allow_null=True)
    planner = JointPlannerSerializer(source="*")
    too_few = serializers.BooleanField(help_text=(
        "n is below planner.respondents_needed (the one rule for too few respondents): the figures are given "
        "with `warning`, as on the dashboard. Do not read them alone."))
    warning = serializers.CharField(allow_null=True, help_text=(
        "Why the figures are not to be read alone while too_few (in the request's language); null otherwise."))


class CountingSerializer(serializers.Serializer):
    """202: the pair is being counted in the background (`pair_counting.Counting`); ask again."""

    status = serializers.SerializerMethodField(help_text='"counting".')
    counted = serializers.IntegerField(help_text="Pairs of questions asked for that are counted already.")
    pairs = serializers.IntegerField(help_text="Pairs of questions asked for.")
    retry_after = serializers.IntegerField(help_text="Seconds to wait before asking again (also Retry-After).")

    def get_status(self, _: object) -> str:
        return "counting"
