"""The results page's population margins, /results/<slug>/margins/: a researcher of the survey sets, for each
question sent as given, the population's share of each option and their source, typed one by one or pasted as a
table (a census table's two columns, option and share), or copies another wave's. The same rules as the API's and
the admin's (surveys.aggregation.weighting.margins); a refusal shows every problem beside its question and stores
nothing.
"""

from __future__ import annotations

import csv
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from surveys.accounts import guards
from surveys.collection.models import Question, Survey

from .. import access
from ..weighting import margins

HEADER = ("option", "label", "category")  # a pasted table's first line, when it names its columns


@guards.signed_in
@never_cache
@require_http_methods(["GET", "POST"])
def margins_page(request: HttpRequest, slug: str) -> HttpResponse:
    survey = access.survey_for(request.user, slug)
    if request.method != "POST":
        return _render(request, survey, None, [])
    entries: list[dict[str, Any]] | None = None
    try:
        if "copy_from" in request.POST:
            wave = request.POST["copy_from"]
            found = margins.copy_from(survey, int(wave) if wave.isdigit() else wave, request.user)
        else:
            entries, unread = entered(survey, request.POST)
            found = _validated(survey, entries, unread)
        margins.replace(survey, found, request.user)
    except margins.Refused as refused:
        return _render(request, survey, entries, refused.problems, status=400)
    return redirect(reverse("aggregation:margins", args=[survey.slug]) + "?saved=1")


def _validated(survey: Survey, entries: list[dict[str, Any]], unread: list[margins.Problem]) -> list[margins.Margin]:
    """Every problem at once: the tables that cannot be read, and what the rules find in the rest."""
    try:
        found = margins.validate(survey, entries)
    except margins.Refused as refused:
        unreadable = {problem.entry for problem in unread}
        unread = unread + [problem for problem in refused.problems if problem.entry not in unreadable]
    if unread:
        raise margins.Refused(sorted(unread, key=lambda problem: problem.entry or 0))
    return found


def offer(survey: Survey) -> dict[str, Any]:
    """The dashboard's link to this page, when the survey has a question a margin can be set for."""
    return {"can_set_margins": margins.direct_questions().filter(survey=survey).exists(),
            "margins_url": reverse("aggregation:margins", args=[survey.slug])}


def entered(survey: Survey, posted: Any) -> tuple[list[dict[str, Any]], list[margins.Problem]]:
    """The form as margins for `margins.validate`: a question whose boxes are all empty has none; a pasted table,
    when there is one, gives its shares. And the tables that cannot be read."""
    entries: list[dict[str, Any]] = []
    unread: list[margins.Problem] = []
    for question in margins.direct_of(survey):
        source = posted.get(f"source-{question.pk}", "")
        table = posted.get(f"table-{question.pk}", "")
        typed = [{"option": j, "share": posted.get(f"share-{question.pk}-{j}", "").strip()}
                 for j in range(len(question.ordered_options()))]
        typed = [row for row in typed if row["share"]]
        if not (source.strip() or table.strip() or typed):
            continue
        try:
            shares = pasted(question, table, len(entries)) if table.strip() else typed
        except margins.Refused as refused:
            shares, unread = [], unread + refused.problems
        entries.append({"question": question.pk, "source": source, "shares": shares})
    return entries, unread


def pasted(question: Question, table: str, entry: int) -> list[dict[str, str]]:
    """A pasted table's rows (comma- or tab-separated: option, share), its header line skipped."""
    rows: list[dict[str, str]] = []
    for number, line in enumerate(table.splitlines(), start=1):
        if not line.strip():
            continue
        cells = [cell.strip() for cell in (line.split("\t") if "\t" in line else next(csv.reader([line])))]
        if not rows and cells and cells[0].casefold() in HEADER:
            continue
        if len(cells) != 2:
            raise margins.Refused([margins.Problem(
                f"{margins.FIELD}[{entry}].shares", _("%(question)s, line %(line)s of the table: give two columns, "
                                                      "the option and its share.")
                % {"question": margins.named(question), "line": number}, entry)])
        rows.append({"option": cells[0], "share": cells[1]})
    return rows


def _render(request: HttpRequest, survey: Survey, entries: list[dict[str, Any]] | None,
            problems: list[margins.Problem], status: int = 200) -> HttpResponse:
    kept = margins.stored(survey)
    by_question = {m.question_id: m for m in kept}
    posted = request.POST if entries is not None else None
    said: dict[int | None, list[str]] = {}
    for problem in problems:
        question = entries[problem.entry]["question"] if entries and problem.entry is not None else None
        said.setdefault(question, []).append(problem.reason)
    rows = [_row(question, by_question.get(question.pk), posted, said.get(question.pk, []))
            for question in margins.direct_of(survey)]
    waves = (Survey.objects.visible_to(request.user).filter(series_id=survey.series_id).exclude(pk=survey.pk)
             .order_by("wave") if survey.series_id else Survey.objects.none())
    return render(request, "aggregation/margins.html", {
        "survey": survey, "rows": rows, "problems": said.get(None, []), "refused": bool(problems),
        "stale": margins.check(kept), "saved": request.GET.get("saved") == "1" and not problems, "waves": waves,
    }, status=status)


def _row(question: Question, stored: Any, posted: Any, problems: list[str]) -> dict[str, Any]:
    """One question's boxes: what was posted (after a refusal), else what is stored."""
    shares = {s.option_id: f"{s.share.normalize():f}" for s in stored.shares.all()} if stored else {}
    options = []
    for j, option in enumerate(question.ordered_options()):
        value = posted.get(f"share-{question.pk}-{j}", "") if posted is not None else shares.get(option.pk, "")
        options.append({"index": j, "label": option.label, "value": value})
    return {"question": question, "options": options, "problems": problems,
            "source": posted.get(f"source-{question.pk}", "") if posted is not None else (stored.source if stored
                                                                                            else ""),
            "table": posted.get(f"table-{question.pk}", "") if posted is not None else ""}
