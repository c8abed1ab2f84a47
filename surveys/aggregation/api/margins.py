"""The population margins API, GET and PUT /api/v1/surveys/<slug>/margins/: the shares of the population a
survey's weights are raked to, per direct question, read and replaced whole by its researchers (the same ones who
may see its results: anyone else gets the 404 the other results endpoints give).

A PUT replaces every margin in one transaction (an empty list removes them), or copies another wave's
(`copy_from`); a refusal names the field at fault and stores nothing. Margins gone stale since they were stored
are read as a 409 naming each question (surveys.aggregation.weighting.margins.check), never as shares.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.decorators import api_view, permission_classes
from rest_framework.request import Request
from rest_framework.response import Response

from surveys import refusals
from surveys.accounts.guards import SignedIn
from surveys.collection.models import Survey
from surveys.errors import ErrorSerializer

from .. import access
from ..weighting import margins


@extend_schema_field({"oneOf": [{"type": "string"}, {"type": "integer", "minimum": 0}]})
class OptionField(serializers.Field):
    """An option by label (case and surrounding spaces aside) or by 0-based index."""


class StoredShareSerializer(serializers.Serializer):
    option = serializers.IntegerField(help_text="The option's 0-based index.")
    label = serializers.CharField()  # type: ignore[assignment]  # a field, not Field.label
    share = serializers.FloatField(help_text="Its share of the population, above 0 and at most 1.")


class StoredMarginSerializer(serializers.Serializer):
    question = serializers.IntegerField(help_text="The question's id.")
    order = serializers.IntegerField()
    text = serializers.CharField()
    shares = StoredShareSerializer(many=True, help_text="One per option, in the options' order; they add up to 1.")

    def get_fields(self) -> dict[str, serializers.Field]:
        # Declared here: a class attribute named `source` would shadow DRF's own Field.source.
        return {**super().get_fields(), "source": serializers.CharField(help_text="Where the shares come from.")}


class DirectQuestionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    order = serializers.IntegerField()
    text = serializers.CharField()
    options = serializers.ListField(child=serializers.CharField(), help_text="Labels, index 0 first.")


class MarginsSerializer(serializers.Serializer):
    margins = StoredMarginSerializer(many=True)
    questions = DirectQuestionSerializer(many=True, help_text="The survey's questions sent as given: the ones a "
                                                              "margin can be set for.")


class ShareInputSerializer(serializers.Serializer):
    option = OptionField(help_text="The option's label (compared case-insensitively, trimmed) or 0-based index.")
    share = serializers.FloatField(help_text="Above 0, at most 1; kept to six decimals.")


class MarginInputSerializer(serializers.Serializer):
    question = serializers.IntegerField(help_text="The id of a question of the survey sent as given.")
    shares = ShareInputSerializer(many=True, help_text="Every option once; the shares add up to 1 (within 1e-6).")

    def get_fields(self) -> dict[str, serializers.Field]:
        return {**super().get_fields(), "source": serializers.CharField(max_length=margins.SOURCE_LENGTH,
                                                                        help_text="Where the shares come from.")}


class MarginsInputSerializer(serializers.Serializer):
    margins = MarginInputSerializer(many=True, required=False, help_text=(
        "The survey's margins, all of them: they replace the stored ones (an empty list removes them)."))
    copy_from = serializers.IntegerField(required=False, min_value=1, help_text=(
        "Instead of margins: the number of another wave of the survey's series whose margins this wave takes "
        "(questions matched across waves, options by label)."))


@never_cache
@extend_schema(
    operation_id="survey_margins", tags=["results"], methods=["GET"],
    summary="The population margins the survey's weights are raked to (assigned researchers and superusers)",
    responses={200: MarginsSerializer, **dict.fromkeys((403, 404, 409, 503), ErrorSerializer)},
)
@extend_schema(
    operation_id="survey_margins_replace", tags=["results"], methods=["PUT"], request=MarginsInputSerializer,
    summary="Replace the survey's population margins whole, or copy another wave's (assigned researchers and "
            "superusers)",
    responses={200: MarginsSerializer, **dict.fromkeys((400, 403, 404, 409, 503), ErrorSerializer)},
)
@api_view(["GET", "PUT"])
@permission_classes([SignedIn])
def survey_margins(request: Request, slug: str) -> Response:
    """GET: each margin's question, source and shares, and the questions that can have one. PUT: validated whole,
    then stored in one transaction and recorded in the survey's configuration history."""
    survey = access.survey_for(request.user, slug)
    if request.method == "PUT":
        with transaction.atomic():
            margins.replace(survey, _entered(survey, request.data, request.user), request.user)
    return Response(MarginsSerializer(_read(survey)).data)


def _entered(survey: Survey, data: Any, user: Any) -> list[margins.Margin]:
    if isinstance(data, dict) and "copy_from" in data and "margins" not in data:
        return margins.copy_from(survey, data["copy_from"], user)
    if not isinstance(data, dict) or "margins" not in data:
        raise refusals.Refusal("body", _("Send {\"margins\": [...]} (an empty list removes them) or "
                                         "{\"copy_from\": <wave number>}."))
    return margins.validate(survey, data["margins"])


def _read(survey: Survey) -> dict[str, Any]:
    found = margins.stored(survey)
    stale = margins.check(found)
    if stale:
        raise refusals.Refusal(margins.FIELD, stale, refusals.UNAVAILABLE)
    return {"margins": [{"question": m.question_id, "order": m.question.order, "text": m.question.text,
                         "source": m.source, "shares": _shares(m)} for m in found],
            "questions": [{"id": q.pk, "order": q.order, "text": q.text,
                           "options": [option.label for option in q.ordered_options()]}
                          for q in margins.direct_of(survey)]}


def _shares(margin: Any) -> list[dict[str, Any]]:
    index = {option.pk: (j, option.label) for j, option in enumerate(margin.question.ordered_options())}
    return [{"option": index[s.option_id][0], "label": index[s.option_id][1], "share": float(s.share)}
            for s in sorted(margin.shares.all(), key=lambda s: index[s.option_id][0])]
