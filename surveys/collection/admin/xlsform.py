"""The survey admin's XLSForm pages: "Import an XLSForm" (a form file made into a draft survey, or an open one,
as `import_survey` makes it) and "Download as XLSForm" (the survey as `export_survey` writes it)."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from ..xlsform import importing, writing
from ..xlsform.reading import Refused

MAX_BYTES = 5 * 1024 * 1024  # a form of a thousand questions is well under a megabyte


class ImportForm(forms.Form):
    form = forms.FileField(label=gettext_lazy("XLSForm (.xlsx)"), help_text=gettext_lazy(
        "A survey sheet with a privacy column, a choices sheet and a settings sheet: see docs/xlsform.md."))
    slug = forms.SlugField(label=gettext_lazy("Slug"), required=False, help_text=gettext_lazy(
        "Blank: the settings sheet's form_id."))
    open_it = forms.BooleanField(label=gettext_lazy("Open it for responses (after the Open button's checks)"),
                                 required=False)
    skip_unsupported = forms.BooleanField(label=gettext_lazy(
        "Drop questions of a type the app cannot ask (free text, GPS, photo, calculate), with a warning"),
        required=False)

    def clean_form(self) -> bytes:
        upload = self.cleaned_data["form"]
        if upload.size > MAX_BYTES:
            raise forms.ValidationError(_("An XLSForm here is at most 5 MB."))
        return upload.read()


def import_view(model_admin: admin.ModelAdmin, request: HttpRequest) -> HttpResponse:
    """GET: the form; POST: the survey made, or every problem listed and nothing stored."""
    if not model_admin.has_add_permission(request):
        raise PermissionDenied
    form = ImportForm(request.POST or None, request.FILES or None)
    problems: list[str] = []
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            done = importing.import_form(data["form"], slug=data["slug"] or None, open_it=data["open_it"],
                                         skip_unsupported=data["skip_unsupported"], user=request.user)
        except Refused as refused:
            problems = [str(problem) for problem in refused.problems]
        else:
            for warning in done.warnings:
                model_admin.message_user(request, warning, messages.WARNING)
            model_admin.message_user(request, _("%(survey)s: imported (%(status)s).") % {
                "survey": done.survey, "status": done.survey.get_status_display()}, messages.SUCCESS)
            return HttpResponseRedirect(reverse("admin:collection_survey_change", args=[done.survey.pk]))
    context = {**model_admin.admin_site.each_context(request), "opts": model_admin.model._meta, "form": form,
               "problems": problems, "title": _("Import an XLSForm")}
    return TemplateResponse(request, "admin/collection/import_xlsform.html", context,
                            status=400 if problems or form.errors else 200)


def download_view(model_admin: admin.ModelAdmin, request: HttpRequest, object_id: str) -> HttpResponse:
    """The survey as an XLSForm workbook."""
    survey = model_admin.get_object(request, object_id)
    if survey is None:
        raise Http404
    if not model_admin.has_view_permission(request, survey):
        raise PermissionDenied
    return HttpResponse(writing.workbook(survey), headers={
        "Content-Type": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "Content-Disposition": f'attachment; filename="{survey.slug}.xlsx"'})
