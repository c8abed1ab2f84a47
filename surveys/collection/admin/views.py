"""The survey admin's own small views: live privacy figures (JSON) and the Open / Close buttons."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import ldp
from surveys.errors import body
from surveys.history import recorder

from .. import figures, lifecycle, sharing
from ..models import MAX_OPTIONS, Question, Survey, build_mechanism


class FiguresQuery(forms.Form):
    """?mechanism=qrr&q=0.5, ?mechanism=krr&epsilon=1&k=5, or ?mechanism=direct&k=5 (no parameter: not
    randomized). k: single choice only, default 2."""

    mechanism = forms.ChoiceField(choices=Question.MechanismName.choices)
    q = forms.DecimalField(required=False, max_digits=7, decimal_places=6)
    epsilon = forms.FloatField(required=False)
    k = forms.IntegerField(required=False, min_value=2, max_value=MAX_OPTIONS,
                           error_messages={"min_value": gettext_lazy("a single-choice question needs at least "
                                                                     "two options")})

    def mechanism_or_error(self) -> ldp.Mechanism | tuple[str, str]:
        """The mechanism asked about, or (field, reason)."""
        if not self.is_valid():
            field, errors = next(iter(self.errors.items()))
            return field, " ".join(str(error) for error in errors)
        data = self.cleaned_data
        name = data["mechanism"]
        yes_no = name in ldp.YES_NO
        if yes_no and data["k"] not in (None, 2):
            return "k", _("yes/no questions have two answers")
        kind = Question.Kind.YES_NO if yes_no else Question.Kind.SINGLE_CHOICE
        parameter = {"qrr": "q", "direct": None}.get(name, "epsilon")
        if parameter is not None and data[parameter] is None:
            return parameter, _("required for this mechanism")
        for other in ("q", "epsilon"):
            if other != parameter and data[other] is not None:
                return other, _("not used by this mechanism")
        try:
            return build_mechanism(name, kind, data["q"], data["epsilon"], data["k"] or 2)
        except (ValueError, TypeError) as error:
            return parameter or "k", str(error)


def privacy_figures(model_admin: admin.ModelAdmin, request: HttpRequest) -> HttpResponse:
    """GET: the figures of one mechanism (surveys.collection.figures.of) or 400 {"error": {field, reason}}."""
    if request.method != "GET":
        return JsonResponse(body("request", _("GET only")), status=405, headers={"Allow": "GET"})
    if not (model_admin.has_view_or_change_permission(request) or model_admin.has_add_permission(request)):
        raise PermissionDenied
    found = FiguresQuery(request.GET).mechanism_or_error()
    if isinstance(found, tuple):
        return JsonResponse(body(*found), status=400)
    return JsonResponse(figures.of(found))


def transition(model_admin: admin.ModelAdmin, request: HttpRequest, object_id: str, verb: str) -> HttpResponse:
    """POST from the Open / Close button: the lifecycle's verb, told as a message, back to the page."""
    if request.method != "POST":
        return HttpResponse(status=405, headers={"Allow": "POST"})
    survey = model_admin.get_object(request, object_id)
    if survey is None:
        raise Http404
    if not model_admin.has_change_permission(request, survey):
        raise PermissionDenied
    change = reverse("admin:collection_survey_change", args=[survey.pk])
    act: Callable[[Survey], None] = lifecycle.open_survey if verb == "open" else lifecycle.close_survey
    try:
        with recorder.recording(request.user, survey.pk):
            act(survey)
    except ValidationError as error:
        model_admin.message_user(request, f"{survey}: {' '.join(error.messages)}", messages.ERROR)
        return HttpResponseRedirect(change)
    model_admin.message_user(request, done_message(request, survey, verb), messages.SUCCESS)
    return HttpResponseRedirect(change)


def done_message(request: HttpRequest, survey: Survey, verb: str) -> Any:
    if verb == "close":
        return _("%(survey)s: closed.") % {"survey": survey}
    url = sharing.respondent_url(request, survey)
    return format_html(_("{survey}: opened. Respondents answer at <a href=\"{url}\">{url}</a>"), survey=survey, url=url)
