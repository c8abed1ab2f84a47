"""A question's grid as the API writes it: a numeric question's scale, a histogram's bins, an ordinal question's
scores (their shapes and the functions that fill them, for the definition, the estimates and the exports)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from .plan import PlannedQuestion


class ScaleSerializer(serializers.Serializer):
    lo = serializers.CharField(help_text="The smallest answer (decimal text).")
    hi = serializers.CharField(help_text="The largest answer.")
    step = serializers.CharField(help_text="Answers are lo, lo + step, ..., hi; grid index i is lo + i step.")


class BinSerializer(serializers.Serializer):
    label = serializers.CharField()  # type: ignore[assignment]  # a field, not Field.label
    lower = serializers.CharField(help_text="The bin's smallest answer (decimal text): it holds the answers from "
                                            "here up to the next bin's lower edge (the last one up to hi).")
    lower_index = serializers.IntegerField(help_text="The same as a grid index.")


SCALE_SCHEMA = ScaleSerializer(allow_null=True, help_text="Numeric questions only.")
BINS_SCHEMA = BinSerializer(many=True, allow_null=True, help_text=(
    "A numeric question asked for a histogram (k-ary randomized response over these bins): the browser reports the "
    "bin of the answer. null otherwise."))
SCORES_SCHEMA = serializers.ListField(child=serializers.CharField(allow_null=True), allow_null=True, help_text=(
    "Ordinal questions: each level's score (decimal text; null: left out of the mean score). null otherwise."))


def scale_of(question: PlannedQuestion) -> dict[str, str] | None:
    return None if question.scale is None else question.scale.as_dict()


def bins_of(question: PlannedQuestion, every: bool = False) -> list[dict[str, Any]] | None:
    """A histogram's bins; with `every`, a direct number's too (the analysis's: its browser sends the number)."""
    if not (question.histogram or (every and question.edges)):
        return None
    return [{"label": label, "lower": str(edge), "lower_index": index}
            for label, edge, index in zip(question.options, question.edges, question.edge_indexes, strict=True)]


def scores_of(question: PlannedQuestion) -> list[str | None] | None:
    if not question.scores:
        return None
    return [None if score is None else str(score) for score in question.scores]
