"""Report exports without the direct columns, or with the direct numbers in bands: answers stored as given can
single a respondent out, their bands less than their exact values.

`?direct=omit` on reports.csv, .json, .dta and .sav leaves out every question sent as given (its answers are
stored as given and can single a respondent out: surveys.aggregation.privacy.uniqueness), and the weight column with
them
(a weight is a function of the direct answers it is raked on, so it would carry their combination).

`?direct=bands` keeps every column but writes each number sent as given (an age in years) as the lower end of its
band, lo + width * floor((x - lo) / width): the coarsening the statement suggests. The width per question is the
researcher's (`&band=<key>:<width>`, in the question's units, a whole number of at least two of its steps), else
the narrowest band width the uniqueness check tried that leaves nobody alone on the direct answers (else its
widest). The codebook records each question's band. The weight stays: it is raked on questions with options, never
on a number, so it carries no more than the columns beside it.

The one place the parameters are read and what they mean: the view turns them into the prepared export's variant
("direct=bands:<question id>/<grid steps per band>,..."), the writers and the preparation take the export's plan
from it; a bad choice is a 400 naming the parameter before anything is prepared.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal, InvalidOperation
from typing import Any

from django.utils.translation import gettext as _

from surveys.collection.models import Response, Survey
from surveys.collection.plan import PlannedQuestion, SurveyPlan

from .. import params
from ..privacy import uniqueness

PARAMETER = "direct"
BAND = "band"
OMIT = "direct=omit"  # the prepared export's variant; "" keeps them (the default)
BANDS = "direct=bands:"  # ... followed by each banded question's id and grid steps per band
CHOICES = {"keep": "", "omit": OMIT, "bands": BANDS}


def variant(query: Any, survey: Survey | None = None, current: SurveyPlan | None = None) -> str:
    """The variant `?direct=` asks for: keep (default), omit, or bands (with `band`); a 400 naming the parameter
    otherwise."""
    asked = query.get(PARAMETER, "keep")
    if asked not in CHOICES:
        raise params.BadParameter(PARAMETER, _("“keep”, “omit” or “bands”"))
    widths = query.getlist(BAND) if hasattr(query, "getlist") else [query[BAND]] if BAND in query else []
    if asked != "bands":
        if widths:
            raise params.BadParameter(BAND, _("only with direct=bands"))
        return CHOICES[asked]
    assert survey is not None and current is not None
    steps = _steps(current, widths, survey)
    return BANDS + ",".join(f"{question_id}/{count}" for question_id, count in sorted(steps.items()))


def plan_for(current: SurveyPlan, chosen: str) -> SurveyPlan:
    """The plan an export of this variant is written with: without the direct questions when they are omitted, with
    their bands (`PlannedQuestion.band`) when banded."""
    if chosen == OMIT:
        return replace(current, questions=tuple(question for question in current if question.randomized))
    if chosen.startswith(BANDS):
        steps = {int(pk): int(count) for pk, count in (pair.split("/") for pair in chosen[len(BANDS):].split(","))}
        return replace(current, questions=tuple(replace(q, band=steps[q.id]) if q.id in steps else q for q in current))
    return current


def described(chosen: str) -> str | None:
    """What the codebook's "direct" says of an export of this variant: "omitted", "banded", or None (kept)."""
    return "omitted" if chosen == OMIT else "banded" if chosen.startswith(BANDS) else None


def rows(survey: Survey, current: SurveyPlan, chosen: str) -> int:
    """The rows of a whole export: one per response; without the direct columns, one per response with a report
    of a randomized question (the blocks read only those)."""
    found = Response.objects.filter(survey=survey)
    if chosen == OMIT:
        found = found.filter(reports__question_id__in=[q.id for q in plan_for(current, chosen)]).distinct()
    return found.count()


def band_value(question: PlannedQuestion, index: int) -> Decimal:
    """The lower end of the band of a stored grid index: lo + (index // steps) * steps * step."""
    found = question.mechanism.value(index // question.band * question.band)  # type: ignore[attr-defined]  # a grid
    return Decimal(f"{found.normalize():f}")


def band_entry(question: PlannedQuestion) -> dict[str, Any]:
    """The codebook's record of a banded number."""
    scale = question.scale
    assert scale is not None
    width = scale.step * question.band
    return {"width": _plain(width), "steps": question.band,
            "value": f"the lower end of its band: {_plain(scale.lo)} + {_plain(width)} * floor((x - "
                     f"{_plain(scale.lo)}) / {_plain(width)}), x the number as given; the last band ends at "
                     f"{_plain(scale.hi)}"}


def defaults(found: uniqueness.Uniqueness) -> dict[int, Decimal]:
    """Per direct number the uniqueness check tried bands of: the narrowest width that leaves nobody alone on the
    direct answers, else the widest tried."""
    chosen: dict[int, Decimal] = {}
    for question_id in dict.fromkeys(banding.question.id for banding in found.bandings):
        tried = [banding for banding in found.bandings if banding.question.id == question_id]  # narrowest first
        chosen[question_id] = next((b.width for b in tried if b.count.unique == 0), tried[-1].width)
    return chosen


def _steps(current: SurveyPlan, widths: list[str], survey: Survey) -> dict[int, int]:
    numbers = {q.key: q for q in current if q.given_number and q.scale is not None}
    if not numbers:
        raise params.BadParameter(PARAMETER, _("this survey has no number sent as given to put in bands"))
    asked: dict[int, Decimal] = {}
    for given in widths:
        key, _colon, text = given.partition(":")
        if key not in numbers or numbers[key].id in asked:
            raise params.BadParameter(BAND, _("“key:width” once per number sent as given, such as age:10"))
        asked[numbers[key].id] = _width(text)
    missing = [q for q in numbers.values() if q.id not in asked]
    if missing:
        tried = defaults(uniqueness.measured(survey, current=current))
        for question in missing:
            if question.id not in tried:
                raise params.BadParameter(BAND, _("give a width for %(key)s, such as %(key)s:10")
                                          % {"key": question.key})
            asked[question.id] = tried[question.id]
    steps = {}
    for question in numbers.values():
        scale, width = question.scale, asked[question.id]
        assert scale is not None
        count = width / scale.step
        if count != int(count) or count < 2 or width > scale.hi - scale.lo:
            raise params.BadParameter(BAND, _("a width for %(key)s must be a whole number of at least two of its "
                                              "steps of %(step)s, within its range")
                                      % {"key": question.key, "step": _plain(scale.step)})
        steps[question.id] = int(count)
    return steps


def _width(text: str) -> Decimal:
    try:
        found = Decimal(text)
    except InvalidOperation:
        raise params.BadParameter(BAND, _("a width must be a number, such as age:10")) from None
    if not found.is_finite() or found <= 0:
        raise params.BadParameter(BAND, _("a width must be a number, such as age:10"))
    return found


def _plain(number: Decimal) -> str:
    return format(number.normalize(), "f")
