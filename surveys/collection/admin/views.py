"""The survey admin's own small views: live privacy figures (JSON) and the Open / Close buttons (a wave's Open
closes the earlier waves ticked beside it, in the same step and history)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest, HttpResponseRedirect, JsonResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from rest_framework.exceptions import NotAuthenticated
from rest_framework.exceptions import PermissionDenied as DRFPermissionDenied

import ldp
from ldp.mechanisms import remembered
from surveys import refusals
from surveys.errors import body
from surveys.history import recorder

from .. import figures, kinds, lifecycle, scales, sharing, wave_costs, waves
from ..models import MAX_OPTIONS, Question, Survey
from ..models.exact_q import ExactQFormField

MAX_TOTAL_QUESTIONS = 500  # far more than a survey has: a bound on the work one request asks for


class FiguresQuery(forms.Form):
    """?mechanism=qrr&q=0.5 (or q=2/3), ?mechanism=krr&epsilon=1&k=5, ?mechanism=direct&k=5 (no parameter: not
    randomized), ?mechanism=multiselect&epsilon=2&k=5&at_most=2, ?mechanism=onebit&epsilon=1&lo=0&hi=10&step=1.
    k: the number of options (levels, bins), default 2; at_most: multi-select only; lo, hi, step: a numeric
    question asked for its mean (onebit, dlaplace) only; kind: the question's kind, whose mechanisms the advice on the
    lowest variance chooses among."""

    mechanism = forms.ChoiceField(choices=Question.MechanismName.choices)
    kind = forms.ChoiceField(choices=kinds.CHOICES, required=False)  # for advice among the kind's mechanisms
    q = ExactQFormField(required=False)  # "0.5" or "2/3", refused when the browser cannot sample it exactly
    epsilon = forms.FloatField(required=False)
    k = forms.IntegerField(required=False, min_value=2, max_value=MAX_OPTIONS,
                           error_messages={"min_value": gettext_lazy("a single-choice question needs at least "
                                                                     "two options")})
    at_most = forms.IntegerField(required=False, min_value=1, max_value=MAX_OPTIONS)
    lo = forms.DecimalField(required=False, max_digits=15, decimal_places=6)
    hi = forms.DecimalField(required=False, max_digits=15, decimal_places=6)
    step = forms.DecimalField(required=False, max_digits=15, decimal_places=6)
    # A question that remembers its randomization (a wave of a series that remembers): its permanent layer, so that
    # the figures are of its reports read through both layers, as the estimates and the dashboard read them.
    permanent_q = forms.DecimalField(required=False, max_digits=7, decimal_places=6)
    permanent_epsilon = forms.FloatField(required=False)

    def mechanism_or_error(self) -> ldp.Mechanism | tuple[str, str]:
        """The mechanism asked about, or (field, reason)."""
        if not self.is_valid():
            field, errors = next(iter(self.errors.items()))
            return field, " ".join(str(error) for error in errors)
        data = self.cleaned_data
        name = data["mechanism"]
        mechanism, kind = ldp.MECHANISMS[name], kinds.of_mechanism(name)
        if kind.fixed_labels and data["k"] not in (None, len(kind.fixed_labels)):
            return "k", _("yes/no questions have two answers")
        parameter = mechanism.parameter
        if parameter is not None and data[parameter] is None:
            return parameter, _("required for this mechanism")
        for other in ("q", "epsilon", "at_most", "lo", "hi", "step"):  # the fields it takes: its declared keys
            if other not in mechanism.keys and data[other] is not None:
                return other, _("not used by this mechanism")
        problem = _shape_problem(mechanism, kind, data)
        if problem:
            return problem
        scale = scales.scale_of(data["lo"], data["hi"], data["step"]) if mechanism.estimates_mean else None
        try:
            found = kind.build(name, data["q"], data["epsilon"], data["k"] or 2, scale=scale, at_most=data["at_most"])
        except (ValueError, TypeError) as error:
            return parameter or "k", str(error)
        return self._remembered(found, kind, scale)

    def _remembered(self, instant: ldp.Mechanism, kind: kinds.Kind, scale: Any) -> ldp.Mechanism | tuple[str, str]:
        """`instant` read through the permanent layer asked for, or itself when none is."""
        data = self.cleaned_data
        field = "permanent_q" if data["permanent_q"] is not None else "permanent_epsilon"
        if data[field] is None:
            return instant
        try:
            permanent = kind.build(data["mechanism"], data["permanent_q"], data["permanent_epsilon"], data["k"] or 2,
                                   scale=scale, at_most=data["at_most"])
            return remembered.composed(remembered.Remembered(permanent=permanent, instant=instant))
        except (ValueError, TypeError) as error:
            return field, str(error)


def _shape_problem(mechanism: type[ldp.Mechanism], kind: kinds.Kind, data: dict[str, Any]) -> tuple[str, str] | None:
    """A mean's scale, or the at-most limit of a kind of many ticks, that cannot be."""
    if mechanism.estimates_mean:
        problems = scales.scale_problems(data["lo"], data["hi"], data["step"])
        if problems:
            return next(iter(problems.items()))
    if kind.many and data["at_most"] is not None and data["at_most"] >= (data["k"] or 2):
        return "at_most", _("must be below the number of options")
    return None


def _mechanisms_of(kind_name: str) -> tuple[str, ...]:
    """The mechanisms the advice on the lowest variance chooses among: the kind's, or none without one."""
    kind = kinds.find(kind_name)
    return kind.mechanisms if kind else ()


AdminEndpoint = Callable[[admin.ModelAdmin, HttpRequest], HttpResponse]


def answered_in_json(model_admin: admin.ModelAdmin, view: AdminEndpoint) -> Callable[[HttpRequest], HttpResponse]:
    """An admin endpoint a script calls, refusing in the API's error shape (docs/api-errors.md), not with the
    admin's login page or a 403 page: 403 `not_authenticated` for a session the admin would send to its login
    (none, not staff, or without its second factor), 403 `permission_denied` for staff who may not see surveys."""
    @never_cache
    def wrapped(request: HttpRequest) -> HttpResponse:
        if not model_admin.admin_site.has_permission(request):
            return JsonResponse(body("not_authenticated", "request", str(NotAuthenticated.default_detail)),
                                status=403)
        if not (model_admin.has_view_or_change_permission(request) or model_admin.has_add_permission(request)):
            return JsonResponse(body("permission_denied", "request", str(DRFPermissionDenied.default_detail)),
                                status=403)
        return view(model_admin, request)
    return wrapped


def privacy_figures(model_admin: admin.ModelAdmin, request: HttpRequest) -> HttpResponse:
    """GET: the figures of one mechanism (surveys.collection.figures.describe) or 400 {"error": {field, reason}}."""
    if request.method != "GET":
        return JsonResponse(body("method_not_allowed", "request", _("GET only")), status=405,
                            headers={"Allow": "GET"})
    query = FiguresQuery(request.GET)
    found = query.mechanism_or_error()
    if isinstance(found, tuple):
        return JsonResponse(body(refusals.INVALID, *found), status=400)
    return JsonResponse(figures.describe(found, _mechanisms_of(query.cleaned_data["kind"])))


def privacy_total(model_admin: admin.ModelAdmin, request: HttpRequest) -> HttpResponse:
    """GET ?loss=RATIO;RATIONAL per randomized question (its figures' "loss"): {"epsilon": the total as
    the saved survey shows it}, or 400 {"error": {field, reason}}."""
    if request.method != "GET":
        return JsonResponse(body("method_not_allowed", "request", _("GET only")), status=405,
                            headers={"Allow": "GET"})
    tokens = request.GET.getlist("loss")
    try:
        if len(tokens) > MAX_TOTAL_QUESTIONS:
            raise ValueError("too many")
        return JsonResponse({"epsilon": figures.total_shown(tokens)})
    except ValueError:
        return JsonResponse(body(refusals.INVALID, "loss", _("one loss from the figures per question, as "
                                                             "RATIO;RATIONAL")), status=400)


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
    closing = _closing(model_admin, request, survey) if verb == "open" else []
    if closing is None:
        return HttpResponseBadRequest(_("close_earlier: not an earlier wave of this series still open that you may "
                                        "close; nothing was changed."), content_type="text/plain; charset=utf-8")
    act: Callable[[Survey], None] = lifecycle.open_survey if verb == "open" else lifecycle.close_survey
    try:  # the wave opened and the earlier ones closed together, each in its history, or nothing
        with transaction.atomic(), recorder.recording(request.user, survey.pk, *(wave.pk for wave in closing)):
            act(survey)
            for wave in closing:
                lifecycle.close_survey(wave)
    except ValidationError as error:
        model_admin.message_user(request, f"{survey}: {' '.join(error.messages)}", messages.ERROR)
        return HttpResponseRedirect(change)
    tell_done(model_admin, request, survey, verb)
    for wave in closing:
        model_admin.message_user(request, done_message(request, wave, "close"), messages.SUCCESS)
    return HttpResponseRedirect(change)


def _closing(model_admin: admin.ModelAdmin, request: HttpRequest, survey: Survey) -> list[Survey] | None:
    """The earlier waves ticked to close as this one opens (`close_earlier`, their ids); None when one is not an
    earlier wave still open, or not the admin's to change."""
    still = {str(wave.pk): wave for wave in waves.still_open_before(survey)}
    ticked = request.POST.getlist("close_earlier")
    if any(pk not in still or not model_admin.has_change_permission(request, still[pk]) for pk in ticked):
        return None
    return [still[pk] for pk in dict.fromkeys(ticked)]


def done_message(request: HttpRequest, survey: Survey, verb: str) -> Any:
    if verb == "close":
        return _("%(survey)s: closed.") % {"survey": survey.listed_title}  # a wave by its number: they share a title
    url = sharing.respondent_url(request, survey)
    return format_html(_("{survey}: opened. Respondents answer at <a href=\"{url}\">{url}</a>"),
                       survey=survey.listed_title, url=url)


def tell_done(model_admin: admin.ModelAdmin, request: HttpRequest, survey: Survey, verb: str) -> None:
    """The verb's message and, for an opened survey nobody is assigned to, a warning: its results
    would be missing from every researcher's list."""
    model_admin.message_user(request, done_message(request, survey, verb), messages.SUCCESS)
    if verb == "open" and survey.planned_size is not None:  # fixed before anyone looks: say what was fixed
        model_admin.message_user(request, _(
            "%(survey)s: its intervals valid however often you look are planned for %(size)d respondents at "
            "%(confidence)s.") % {"survey": survey.listed_title, "size": survey.planned_size,
                                  "confidence": f"{(survey.planned_confidence or 0.95) * 100:g}%"}, messages.INFO)
    if verb == "open":
        _tell_still_open(model_admin, request, survey)
    if verb == "open" and not survey.researchers.exists():
        model_admin.message_user(request, _("%(survey)s: no researcher is assigned, so only superusers see its "
                                            "results. Choose its researchers under Results.")
                                 % {"survey": survey.listed_title},
                                 messages.WARNING)


def _tell_still_open(model_admin: admin.ModelAdmin, request: HttpRequest, survey: Survey) -> None:
    """A wave opened beside earlier waves still open: say so, with a link to each (its page closes it)."""
    for wave in waves.still_open_before(survey):
        url = reverse("admin:collection_survey_change", args=[wave.pk])
        model_admin.message_user(request, format_html(
            _("{survey}: wave {wave} of its series still accepts responses, from anyone with its own link. If this "
              "wave replaces it, <a href=\"{url}\">close wave {wave}</a>."), survey=survey.listed_title, wave=wave.wave,
            url=url),
            messages.WARNING)


def new_wave(model_admin: admin.ModelAdmin, request: HttpRequest, object_id: str) -> HttpResponse:
    """"Run again as a new wave": GET shows what the wave would cost both ways (surveys.collection.wave_costs) and, for
    a survey in no series yet, asks whether the series remembers randomization; POST makes the wave, a draft, and goes
    back to the page, whose message links to it. A choice missing or not one of the two: 400, nothing made."""
    if request.method not in ("GET", "POST"):
        return HttpResponse(status=405, headers={"Allow": "GET, POST"})
    survey = model_admin.get_object(request, object_id)
    if survey is None:
        raise Http404
    if not (model_admin.has_change_permission(request, survey) and model_admin.has_add_permission(request)):
        raise PermissionDenied
    chosen = {"remembered": True, "afresh": False}.get(request.POST.get("remembered", ""))
    if request.method == "GET" or (survey.series is None and chosen is None):
        problem = request.method == "POST"
        return TemplateResponse(request, "admin/collection/survey/new_wave.html", {
            **model_admin.admin_site.each_context(request), "opts": model_admin.model._meta, "survey": survey,
            "costs": wave_costs.costs(survey), "problem": problem, "title": _("Run %(survey)s again as a new wave") % {
                "survey": survey}}, status=400 if problem else 200)
    with recorder.recording(request.user, survey.pk) as recording:
        wave = waves.run_again(survey, remembered=chosen if survey.series is None else None)
        recording.watch_new(wave.pk)
    url = reverse("admin:collection_survey_change", args=[wave.pk])
    model_admin.message_user(request, format_html(
        _("{survey}: wave {wave} is a draft with its own link and dates, at <a href=\"{url}\">{slug}</a>; check them "
          "and its questions, then open it."), survey=survey.title, wave=wave.wave, url=url, slug=wave.slug),
        messages.SUCCESS)
    return HttpResponseRedirect(reverse("admin:collection_survey_change", args=[survey.pk]))
