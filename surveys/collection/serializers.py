"""The respondent API's JSON shapes, each described once: these serializers both write the JSON
and feed the OpenAPI schema (surveys/collection/schema.py), so the two cannot drift.

`MechanismSerializer` writes `ldp.Mechanism.describe()`, the one description of a mechanism that
the definition, the estimates and the codebook all carry.
"""

from __future__ import annotations

import math
from typing import Any

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers
from rest_framework.fields import SkipField

import ldp

from . import kinds, wording
from .grid_serializers import BINS_SCHEMA, SCALE_SCHEMA, SCORES_SCHEMA
from .grid_serializers import bins_of as bins_of  # re-exported: the exports read a question's grid from here
from .grid_serializers import scale_of as scale_of
from .grid_serializers import scores_of as scores_of
from .plan import PlannedQuestion


class FiniteFloatField(serializers.FloatField):
    """JSON has no NaN or infinity: undefined values (no reports yet) and a direct question's
    infinite epsilon become null."""

    def __init__(self, **kwargs: Any):
        super().__init__(allow_null=True, **kwargs)

    def to_representation(self, value: Any) -> float | None:  # type: ignore[override]
        number = float(value)
        return number if math.isfinite(number) else None


class GivenOrNullInteger(serializers.IntegerField):
    """An integer that may be null (multi-select's at_most) and is left out where the mechanism has no such key."""

    def __init__(self, **kwargs: Any):
        super().__init__(required=False, allow_null=True, **kwargs)

    def get_attribute(self, instance: Any) -> Any:
        if isinstance(instance, dict) and self.source not in instance:
            raise SkipField
        return super().get_attribute(instance)


# Each sampler serializer's kinds, as ldp's classes name them (the schema's enums name these lists: settings.py).
ONE_OF_K_SAMPLER_KINDS = list(dict.fromkeys(cls.sampler_kind for cls in ldp.MECHANISMS.values() if cls.one_of_k))
MULTI_SELECT_SAMPLER_KINDS = [ldp.MultiSelect.sampler_kind]
ONE_BIT_SAMPLER_KINDS = [ldp.OneBitMean.sampler_kind]
DISCRETE_LAPLACE_SAMPLER_KINDS = [ldp.DiscreteLaplace.sampler_kind]


class SamplerSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=ONE_OF_K_SAMPLER_KINDS, help_text=(
        "grr (keep, other), unary (one_if_*), or direct: not randomized, the answer is sent as given "
        "(k only, no integers, no random words drawn)."))
    k = serializers.IntegerField()
    modulus = serializers.IntegerField(required=False, help_text="All but direct.")
    keep = serializers.IntegerField(required=False)
    other = serializers.IntegerField(required=False)
    one_if_true = serializers.IntegerField(required=False)
    one_if_false = serializers.IntegerField(required=False)


class MultiSelectSamplerSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=MULTI_SELECT_SAMPLER_KINDS, help_text=(
        "k bits, the true answer with at most at_most ones (any number when null); each bit kept when U < keep, "
        "U uniform in [0, modulus), flipped otherwise, in order 0..k-1."))
    k = serializers.IntegerField()
    at_most = serializers.IntegerField(allow_null=True)
    modulus = serializers.IntegerField()
    keep = serializers.IntegerField()


class GridSerializer(serializers.Serializer):
    steps = serializers.IntegerField(help_text="N = (hi - lo) / step: the true answer is a grid index i in [0, N].")
    lo = serializers.CharField(help_text="Decimal text; the value of index i is lo + i * step.")
    hi = serializers.CharField()
    step = serializers.CharField()


class OneBitSamplerSerializer(GridSerializer):
    kind = serializers.ChoiceField(choices=ONE_BIT_SAMPLER_KINDS, help_text=(
        "U1 uniform in [0, steps): bit = U1 < i; U2 uniform in [0, modulus): report = bit if U2 < keep, else "
        "1 - bit."))
    modulus = serializers.IntegerField()
    keep = serializers.IntegerField()


class DiscreteLaplaceSamplerSerializer(GridSerializer):
    kind = serializers.ChoiceField(choices=DISCRETE_LAPLACE_SAMPLER_KINDS, help_text=(
        "report r = i + Z, Z two-sided geometric with P(Z = z) proportional to exp(-|z| scale_den / scale_num), "
        "sampled exactly with integers, then clamped to [-bound, steps + bound]."))
    scale_num = serializers.IntegerField()
    scale_den = serializers.IntegerField()
    bound = serializers.IntegerField()


SAMPLERS: dict[str, type[serializers.Serializer]] = {
    ldp.MultiSelect.sampler_kind: MultiSelectSamplerSerializer, ldp.OneBitMean.sampler_kind: OneBitSamplerSerializer,
    ldp.DiscreteLaplace.sampler_kind: DiscreteLaplaceSamplerSerializer}
ANY_SAMPLER = PolymorphicProxySerializer(
    component_name="AnySampler", resource_type_field_name=None,
    serializers=[SamplerSerializer, MultiSelectSamplerSerializer, OneBitSamplerSerializer,
                 DiscreteLaplaceSamplerSerializer])


def sampler_data(sampler: dict[str, Any]) -> dict[str, Any]:
    """A published sampler as its own kind's serializer writes it."""
    return dict(SAMPLERS.get(sampler["kind"], SamplerSerializer)(sampler).data)


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
    q_exact = serializers.CharField(required=False, help_text=(
        "qrr: q exactly as configured, a decimal (0.5) or a fraction (2/3); p_exact = (1 + q)/2 exactly."))
    q_decimal = serializers.FloatField(required=False, help_text="qrr: q as a decimal number.")
    p = serializers.FloatField(allow_null=True, help_text=(
        "P(report = truth); per bit for unary encodings and multi-select; the kept bit of the 1-bit mean. null for "
        "discrete Laplace (an integer report)."))
    q_other = serializers.FloatField(allow_null=True, help_text=(
        "P(report = a given other option); per bit for unary encodings and multi-select; null for discrete Laplace."))
    p_exact = serializers.CharField(allow_null=True, help_text="p as the sampler's fraction, numerator/modulus.")
    q_other_exact = serializers.CharField(allow_null=True, help_text="q_other as the sampler's fraction, "
                                                                     "numerator/modulus.")
    sampler = serializers.SerializerMethodField(help_text="The integers the browser samples exactly.")
    sampler_rule = serializers.CharField()
    per_bit_epsilon = serializers.FloatField(required=False, help_text="multiselect: ln(keep / (modulus - keep)).")
    hamming_d = serializers.IntegerField(required=False, help_text=(
        "multiselect: the most boxes two answers differ in (k, or min(k, 2 at_most)); effective epsilon = "
        "hamming_d * per_bit_epsilon."))
    at_most = GivenOrNullInteger(help_text="multiselect: null for any number.")
    lo = serializers.CharField(required=False, help_text="onebit, dlaplace: the grid lo, lo + step, ..., hi.")
    hi = serializers.CharField(required=False)
    step = serializers.CharField(required=False)
    steps = serializers.IntegerField(required=False, help_text="onebit, dlaplace: (hi - lo) / step.")
    scale_num = serializers.IntegerField(required=False, help_text="dlaplace: the noise scale t (integer).")
    scale_den = serializers.IntegerField(required=False, help_text="dlaplace: s, with P(Z = z) proportional to "
                                                                   "exp(-|z| s / t).")
    scale_exact = serializers.CharField(required=False, help_text="dlaplace: t/s.")
    bound = serializers.IntegerField(required=False, help_text="dlaplace: reports are clamped to [-bound, steps + "
                                                               "bound] and stored as report + bound.")
    noise_variance = serializers.FloatField(required=False, help_text="dlaplace: Var(Z) in grid steps squared.")
    encoding = serializers.ChoiceField(choices=["index", "bits", "integer"], help_text=(
        "index: an option index (onebit: the bit); bits: one bit per option (bit j = option j); integer: "
        "discrete Laplace's report r in [-bound, steps + bound] (stored as r + bound)."))

    def to_representation(self, instance: ldp.Mechanism) -> Any:
        return super().to_representation({**instance.describe(), "randomized": instance.randomized})

    @extend_schema_field(ANY_SAMPLER)
    def get_sampler(self, described: dict[str, Any]) -> dict[str, Any]:
        return sampler_data(described["sampler"])


class DeniabilitySerializer(serializers.Serializer):
    epsilon = FiniteFloatField(help_text="null for a direct question (not randomized).")
    odds = FiniteFloatField(help_text="null for a direct question (not randomized).")
    best_guess = serializers.FloatField()
    text = serializers.CharField()




KINDS = kinds.NAMES  # the API's enum of question kinds


class RememberedSerializer(serializers.Serializer):
    """A question that remembers its randomization across the waves of its series (`plan.Remembering`)."""

    lineage = serializers.UUIDField(help_text=(
        "The same question in every wave of the series: the browser derives its permanent response from a secret of "
        "its own (never sent), the series id, this and the true answer."))
    permanent = MechanismSerializer(source="layers.permanent", help_text=(
        "The permanent layer, drawn once per true answer and remembered; `mechanism` is then the instantaneous "
        "layer, applied afresh in every wave to the permanent response (for bits, to each bit)."))
    p = serializers.SerializerMethodField(help_text="P(report = truth) of the two layers composed (per bit for bits).")
    q_other = serializers.SerializerMethodField(help_text="P(report = a given other option) of the two layers "
                                                          "composed (per bit for bits).")
    wave_epsilon = serializers.FloatField(source="layers.wave_epsilon", help_text=(
        "One wave's privacy loss: the composed channel's, never above either layer's."))
    all_waves_epsilon = serializers.FloatField(source="layers.all_waves_epsilon", help_text=(
        "Every wave together while the answer stays the same: the permanent layer's loss. Each different answer "
        "draws a permanent response of its own and adds this again."))

    def get_p(self, remembering: Any) -> float:
        return float(remembering.layers.exact_channel()[0])

    def get_q_other(self, remembering: Any) -> float:
        return float(remembering.layers.exact_channel()[1])


class SeriesSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The series: a remembered layer is the same in all its waves.")
    wave = serializers.IntegerField(help_text="This survey's wave in it: 1, 2, ...")
    remembered = serializers.BooleanField(help_text="Whether its questions with a `remembered` layer remember it.")


class QuestionDefinitionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    order = serializers.IntegerField()
    name = serializers.CharField(source="key", help_text="Its name, else q<order>, as in the exports (an XLSForm's "
                                                         "`name`).")
    text = serializers.CharField()
    kind = serializers.ChoiceField(choices=KINDS)
    options = serializers.ListField(child=serializers.CharField(), help_text=(
        "Labels in report order (levels, bins); yes/no: No, Yes; none for a numeric question asked for its mean."))
    mechanism = MechanismSerializer()
    deniability = serializers.SerializerMethodField()
    scale = serializers.SerializerMethodField()
    bins = serializers.SerializerMethodField()
    scores = serializers.SerializerMethodField()
    exclusive = serializers.ListField(child=serializers.IntegerField(), help_text=(
        "Multi-select: the indexes of the options ticked alone (such as “None of these”): the browser refuses a true "
        "answer that ticks one of them with any other option, before randomizing. The server receives only "
        "randomized bits, so it cannot check this. Empty for every other kind."))
    remembered = RememberedSerializer(allow_null=True, help_text=(
        "A wave's question that remembers its randomization (null: each report randomized afresh)."))
    relevant = serializers.CharField(help_text=(
        "Skip logic (XLSForm's `relevant`): asked only when this condition on the direct answers above holds; a "
        "question not asked is not reported. Empty: asked of everyone."))
    choices = serializers.SerializerMethodField(help_text=(
        "A direct single-choice question: its options' XLSForm choice names in report order, which conditions "
        "compare its answer with. Empty for every other question."))

    def get_choices(self, question: PlannedQuestion) -> list[str]:
        return list(question.choices) if not question.randomized and question.scale is None else []

    @extend_schema_field(DeniabilitySerializer)
    def get_deniability(self, question: PlannedQuestion) -> dict[str, Any]:
        told = ldp.deniability(question.mechanism)  # its words in the respondent's language, same figures:
        told["text"] = wording.deniability_text(question.mechanism.sampler())
        return DeniabilitySerializer(told).data  # a direct question's inf as null

    @extend_schema_field(SCALE_SCHEMA)
    def get_scale(self, question: PlannedQuestion) -> dict[str, str] | None:
        return scale_of(question)

    @extend_schema_field(BINS_SCHEMA)
    def get_bins(self, question: PlannedQuestion) -> list[dict[str, Any]] | None:
        return bins_of(question)

    @extend_schema_field(SCORES_SCHEMA)
    def get_scores(self, question: PlannedQuestion) -> list[str | None] | None:
        return scores_of(question)


class ClientModuleSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="Its static name, e.g. js/randomizer.js.")
    url = serializers.CharField(help_text="Where it is served (a hashed name in production).")
    integrity = serializers.CharField(help_text="sha384-<base64> of the bytes served: the integrity the page pins.")
    sha256 = serializers.CharField(help_text="SHA-256 of the same bytes, hex.")


class SurveyDefinitionSerializer(serializers.Serializer):
    """A published survey as its respondents' browsers need it (`definition.Definition`)."""

    slug = serializers.SlugField(source="survey.slug")
    title = serializers.CharField(source="texts.title")
    description = serializers.CharField(source="texts.description")
    consent = serializers.CharField(source="texts.consent", help_text=(
        "Shown before the questions; empty: none. Respondents answer only after agreeing; nothing about the "
        "agreement is sent or stored."))
    language = serializers.CharField(source="texts.language", help_text=(
        "The language of the answer, also sent as Content-Language: ?lang= (one of `languages`), else the browser's "
        "(Accept-Language) if offered, else the survey's own. The texts and every explanation are in it. The "
        "mechanisms and the version are the same in every language, and a submission carries no language."))
    languages = serializers.ListField(source="texts.languages", child=serializers.CharField(),
                                      help_text="The languages offered, the survey's own first.")
    accepting_responses = serializers.BooleanField()
    version = serializers.CharField(source="plan.version", help_text="Mechanism version; send it back with "
                                                                     "the reports.")
    epsilon_total = serializers.FloatField(source="plan.epsilon_total", help_text=(
        "Sum of the randomized questions' effective epsilons; direct questions (sent as given) are not in it."))
    epsilon_budget = serializers.FloatField(source="survey.epsilon_budget")
    series = SeriesSerializer(allow_null=True, help_text="The series this survey is a wave of; null: none.")
    questions = QuestionDefinitionSerializer(many=True)
    client_code = ClientModuleSerializer(many=True, help_text=(
        "The respondent page's ES modules as this server sends them (entry first), with their subresource "
        "integrity: the page refuses to run any other bytes. Every module any survey's page may load is listed: "
        "the waves' (js/waves.js and what it imports) load only on the page of a wave of a series. Compare with a "
        "reviewed release (bench/audit_randomizer.py --expect NAME=SHA256)."))


class SubmissionSerializer(serializers.Serializer):
    """The request body (documentation only: `submission` checks it strictly, field by field)."""

    version = serializers.CharField(help_text="The survey definition's version.")
    key = serializers.UUIDField(help_text="Random per submission, made by the browser; a retry reuses it.")
    reports = serializers.DictField(
        help_text="Question id -> report: an option index (onebit: 0 or 1), a list of k bits (unary encodings, "
                  "multi-select), or an integer (dlaplace).",
        child=serializers.JSONField())
    invitation = serializers.CharField(
        required=False, max_length=128,
        help_text="Invitation-only surveys (and only those): the token from the link's fragment.")
    earlier_wave = serializers.BooleanField(
        required=False, help_text="A wave of a series only: true when this browser answered an earlier wave of the "
                                  "series (it remembers that it did, nothing more). Absent: false.")


class ReceiptSerializer(serializers.Serializer):
    id = serializers.UUIDField(source="response_id")
    reports = serializers.DictField(child=serializers.JSONField())
