"""Population margins, the verbs: validate what a researcher or an admin entered, replace a survey's margins whole,
copy them from another wave of its series, and check stored ones before any figure uses them.

A margin is sound when its question is direct (sent as given, one option per answer: a randomized answer does not
say whom to weight), every option of the question has a share, each share is above 0 and the shares add up to 1
(within SUM_TOLERANCE: a census table's rounding at six decimals). Every way in (the API's PUT, the results page,
the admin's form) is validated here; what was stored and went stale since (a mechanism or an option changed behind
the admin's back) is found by `check`, which the weights call before raking (surveys.aggregation.weighting.weights).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils.translation import gettext as _

import ldp
from surveys import refusals
from surveys.collection import cell_tallies
from surveys.collection.models import Option, Question, Survey
from surveys.history import recorder

from ..models import MarginShare, PopulationMargin

SUM_TOLERANCE = Decimal("0.000001")  # six decimals each: a census table's rounding may leave this much
PLACES = Decimal("0.000001")  # what the database keeps of a share
SOURCE_LENGTH = PopulationMargin._meta.get_field("source").max_length or 200
FIELD = "margins"


def direct_names() -> list[str]:
    """The mechanisms that send an answer as given, as one of its options."""
    return [name for name, mechanism in ldp.MECHANISMS.items() if mechanism.shape is ldp.Shape.DIRECT]


def is_direct(question: Question) -> bool:
    return question.mechanism_name in direct_names()


def direct_questions() -> QuerySet[Question]:
    """Questions whose answer is one of their options, sent as given: a respondent's category is known."""
    return Question.objects.filter(mechanism_name__in=direct_names())


def direct_of(survey: Survey) -> list[Question]:
    """The survey's questions that can have a margin, in order, with their options."""
    return list(direct_questions().filter(survey=survey).prefetch_related("options").order_by("order", "pk"))


def named(question: Question) -> str:
    return _("question %(order)s “%(text)s”") % {"order": question.order, "text": question.text}


@dataclass(frozen=True)
class Margin:
    """One margin as it will be stored: every option of the question with its share, in the options' order."""

    question: Question
    source: str
    shares: tuple[tuple[Option, Decimal], ...]


@dataclass(frozen=True)
class Problem:
    field: str  # margins[i].question, margins[i].shares[j].share, ...
    reason: str
    entry: int | None  # which margin of the request (None: the request as a whole)


class Refused(refusals.Refusal):
    """Margins that cannot be stored: the first problem's field and reason (the API's one error), and every
    problem found (the results page shows each beside its question)."""

    def __init__(self, problems: list[Problem]):
        super().__init__(problems[0].field, problems[0].reason, refusals.INVALID)
        self.problems = problems


def validate(survey: Survey, entries: Any) -> list[Margin]:
    """Margins entered as [{"question": id, "source": text, "shares": [{"option": label or index, "share": number},
    ...]}, ...]; Refused naming each field at fault."""
    if not isinstance(entries, list):
        raise Refused([Problem(FIELD, _("A list of margins is expected (an empty list removes them)."), None)])
    questions = {q.pk: q for q in direct_of(survey)}
    found, problems, seen = [], [], set()
    for i, entry in enumerate(entries):
        at = f"{FIELD}[{i}]"
        if not isinstance(entry, dict):
            problems.append(Problem(at, _("A margin is an object with question, source and shares."), i))
            continue
        question = _question(entry.get("question"), questions, survey)
        if isinstance(question, str):
            problems.append(Problem(f"{at}.question", question, i))
            continue
        if question.pk in seen:
            problems.append(Problem(f"{at}.question", _("%(question)s has two margins: give it one.")
                                    % {"question": named(question)}, i))
            continue
        seen.add(question.pk)
        source = entry.get("source")
        if not isinstance(source, str) or not source.strip():
            problems.append(Problem(f"{at}.source", _("%(question)s: say where the shares come from (the source, "
                                                      "e.g. a census table).") % {"question": named(question)}, i))
        elif len(source.strip()) > SOURCE_LENGTH:
            problems.append(Problem(f"{at}.source", _("%(question)s: the source is longer than %(max)s characters.")
                                    % {"question": named(question), "max": SOURCE_LENGTH}, i))
        shares, wrong = shares_of(question, entry.get("shares"), at, i)
        problems += wrong
        if not wrong and isinstance(source, str) and source.strip():
            found.append(Margin(question, source.strip(), shares))
    if problems:
        raise Refused(problems)
    return found


def _question(given: Any, questions: dict[int, Question], survey: Survey) -> Question | str:
    """The direct question of the survey with id `given`, or why not."""
    if isinstance(given, bool) or not isinstance(given, int):
        return _("Give the question's id (a number).")
    if given in questions:
        return questions[given]
    other = Question.objects.filter(survey=survey, pk=given).first()
    if other is None:
        return _("This survey has no question %(id)s.") % {"id": given}
    return _("%(question)s is randomized or not a single choice: only a question sent as given, one option per "
             "answer, can have a population margin.") % {"question": named(other)}


def shares_of(question: Question, given: Any, at: str, entry: int | None
              ) -> tuple[tuple[tuple[Option, Decimal], ...], list[Problem]]:
    """Each option's share as given (option by label, case and spaces aside, or by 0-based index), and the problems:
    an unknown option, an option twice, a share that is no number, at most 0 or above 1, an option without a
    share, shares whose sum is not 1."""
    name = named(question)
    if not isinstance(given, list) or not given:
        return (), [Problem(f"{at}.shares", _("%(question)s: give a list of shares, one per option.")
                            % {"question": name}, entry)]
    options = question.ordered_options()
    by_label = {option.label.strip().casefold(): option for option in options}
    shares: dict[int, Decimal] = {}
    problems = []
    for j, row in enumerate(given):
        here = f"{at}.shares[{j}]"
        raw = row.get("option") if isinstance(row, dict) else None
        option = _option(raw, by_label, options)
        if option is None:
            problems.append(Problem(f"{here}.option", _("%(question)s has no option “%(option)s” (give an option's "
                                                         "label or its index, 0 for the first).")
                                    % {"question": name, "option": raw}, entry))
            continue
        if option.pk in shares:
            problems.append(Problem(f"{here}.option", _("%(question)s: option “%(option)s” has two shares.")
                                    % {"question": name, "option": option.label}, entry))
            continue
        share, wrong = _share(row.get("share") if isinstance(row, dict) else None)
        if wrong:
            problems.append(Problem(f"{here}.share", _("%(question)s, option “%(option)s”: %(problem)s")
                                    % {"question": name, "option": option.label, "problem": wrong}, entry))
            continue
        shares[option.pk] = share
    if problems:
        return (), problems
    return whole(question, options, shares, at, entry)


def whole(question: Question, options: list[Option], shares: dict[int, Decimal], at: str, entry: int | None
           ) -> tuple[tuple[tuple[Option, Decimal], ...], list[Problem]]:
    """Every option has a share and the shares add up to 1."""
    name = named(question)
    missing = [option.label for option in options if option.pk not in shares]
    if missing:
        return (), [Problem(f"{at}.shares", _("%(question)s: give a share for every option of the question (the "
                                              "weights need the whole population); missing: %(options)s.")
                            % {"question": name, "options": ", ".join(f"“{label}”" for label in missing)}, entry)]
    total = sum(shares.values(), Decimal(0))
    if abs(total - 1) > SUM_TOLERANCE:
        hint = _(" Give fractions: 0.3 for 30%.") if abs(total - 100) <= 100 * SUM_TOLERANCE else ""
        said = _("%(question)s: the shares must add up to 1; they add up to %(total)s.") % {
            "question": name, "total": f"{total.normalize():f}"}
        return (), [Problem(f"{at}.shares", said + hint, entry)]
    return tuple((option, shares[option.pk]) for option in options), []


def _option(raw: Any, by_label: dict[str, Option], options: list[Option]) -> Option | None:
    """By label first (a label may be a number), then by index."""
    if isinstance(raw, str):
        found = by_label.get(raw.strip().casefold())
        if found is not None or not raw.strip().isdigit():
            return found
        raw = int(raw.strip())
    if isinstance(raw, int) and not isinstance(raw, bool) and 0 <= raw < len(options):
        return options[raw]
    return None


def _share(raw: Any) -> tuple[Decimal, str]:
    """The share kept to six decimals, or why it cannot be one."""
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        return Decimal(0), _("a share is a number above 0 and at most 1, such as 0.25.")
    try:
        share = Decimal(str(raw).strip())
    except InvalidOperation:
        return Decimal(0), _("“%(share)s” is no number; a share is a number above 0 and at most 1, such as 0.25.") \
            % {"share": raw}
    if not share.is_finite():
        return Decimal(0), _("a share is a number above 0 and at most 1, such as 0.25.")
    kept = share.quantize(PLACES, rounding=ROUND_HALF_EVEN) if share.adjusted() < 2 else share
    if kept <= 0:
        return Decimal(0), _("a share must be above 0 (at least 0.000001): nobody can be weighted to a group the "
                             "population does not have.")
    if kept > 1:
        return Decimal(0), _("a share is at most 1; they are fractions of the population (0.3 for 30%).")
    return kept, ""


@transaction.atomic
def replace(survey: Survey, found: Sequence[Margin], user: Any) -> None:
    """The survey's margins become `found` (none: removed), in one transaction, recorded in its history."""
    Survey.objects.select_for_update().filter(pk=survey.pk).first()  # two replacements at once: one after the other
    with recorder.recording(user, survey.pk):
        PopulationMargin.objects.filter(question__survey=survey).delete()
        cell_tallies.drop(survey.pk)  # the cells of the margins' questions: counted anew when next weighted
        for margin in found:
            stored = PopulationMargin.objects.create(question=margin.question, source=margin.source)
            MarginShare.objects.bulk_create(MarginShare(margin=stored, option=option, share=share)
                                            for option, share in margin.shares)


def stored(survey: Survey) -> list[PopulationMargin]:
    """The survey's margins as stored, unchecked (what the page shows to be corrected)."""
    return list(PopulationMargin.objects.filter(question__survey=survey).select_related("question")
                .prefetch_related("shares", "question__options").order_by("question__order", "question_id"))


def check(found: Sequence[PopulationMargin]) -> str | None:
    """Why stored margins cannot be used, naming each question (`problems`); None when they are sound."""
    problems = stale(found)
    if not problems:
        return None
    return _("The population margins cannot be used: %(problems)s. A researcher of the survey sets them again on "
             "its results page (Population margins).") % {"problems": "; ".join(problems)}


def stale(found: Sequence[PopulationMargin]) -> list[str]:
    """What is wrong with stored margins (a question no longer direct, an option gone or without a share, shares
    that no longer add up to 1), one line per question. Reads what `found` prefetched."""
    problems = []
    for margin in found:
        question, name = margin.question, named(margin.question)
        if not is_direct(question):
            problems.append(_("%(question)s is no longer sent as given (its mechanism is %(mechanism)s): a "
                              "randomized answer does not say whom to weight") % {
                "question": name, "mechanism": _mechanism_label(question.mechanism_name)})
            continue
        options = {option.pk: option for option in question.ordered_options()}
        shares = {share.option_id: share.share for share in margin.shares.all()}
        if any(pk not in options for pk in shares):
            problems.append(_("%(question)s: its margin has a share for an option that no longer exists")
                            % {"question": name})
            continue
        missing = [option.label for pk, option in options.items() if pk not in shares]
        total = sum(shares.values(), Decimal(0))
        if missing:
            problems.append(_("%(question)s: option %(options)s has no population share (the options changed "
                              "since the margin was entered)") % {
                "question": name, "options": ", ".join(f"“{label}”" for label in missing)})
        elif any(share <= 0 for share in shares.values()) or abs(total - 1) > SUM_TOLERANCE:
            problems.append(_("%(question)s: its population shares add up to %(total)s, not 1, or one is not above "
                              "0") % {"question": name, "total": f"{total.normalize():f}"})
    return problems


def _mechanism_label(name: str) -> str:
    mechanism = ldp.MECHANISMS.get(name)
    return mechanism.label if mechanism is not None else name


def copy_from(survey: Survey, wave: Any, user: Any) -> list[Margin]:
    """The margins of another wave of the survey's series (one the user may see), validated for this wave: each
    question matched by its lineage, each option by its label. Nothing is stored (`replace` stores them)."""
    source = None
    if isinstance(wave, int) and not isinstance(wave, bool) and survey.series_id is not None:
        source = (Survey.objects.visible_to(user).filter(series_id=survey.series_id, wave=wave)
                  .exclude(pk=survey.pk).first())
    if source is None:
        raise Refused([Problem("copy_from", _("This survey's series has no other wave %(wave)s that you may see.")
                               % {"wave": wave}, None)])
    mine = {q.lineage: q.pk for q in survey.questions.all()}
    entries = []
    for margin in stored(source):
        if margin.question.lineage not in mine:
            raise Refused([Problem("copy_from", _("Wave %(wave)s's %(question)s is not in this wave: its margin "
                                                  "cannot be copied.") % {"wave": wave,
                                                                          "question": named(margin.question)},
                                   None)])
        labels = {option.pk: option.label for option in margin.question.options.all()}
        entries.append({"question": mine[margin.question.lineage], "source": margin.source,
                        "shares": [{"option": labels[s.option_id], "share": str(s.share)}
                                   for s in margin.shares.all()]})
    return validate(survey, entries)
