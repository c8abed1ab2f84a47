"""The shuffled release, whose central privacy cost is far below the local one: the randomized reports of chosen
questions, one column per question as
reports.csv names it, the rows in an order drawn from the operating system's randomness, and nothing else: no
response id, day, version, weight or direct answer. So released, the reports are the output of n shuffled local
randomizers, and the statement's central epsilon (`statement`, Feldman, McMillan & Talwar's bound) holds for it;
next to a direct answer in the same row, or in stored order, it would not.

Asked for as .../export/release.csv?questions=key1,key2 (or the parameter repeated; default: every randomized
question); written whole through the prepared exports (surveys.aggregation.exports.prepared), the chosen question ids
its
variant.
"""

from __future__ import annotations

import csv
import random
from collections.abc import Iterator, Sequence

from django.utils.translation import gettext as _

from surveys.collection.models import Response, Survey
from surveys.collection.plan import PlannedQuestion, SurveyPlan

from .. import params
from . import blocks as report_blocks
from . import reports as exports

PARAMETER = "questions"
SHUFFLE = random.SystemRandom()  # os.urandom: nobody, the server included, can reproduce or predict the order


def chosen(current: SurveyPlan, asked: Sequence[str]) -> tuple[PlannedQuestion, ...]:
    """The questions named in `asked` (keys, comma-separated or repeated), in the survey's order; every randomized
    one when none is named. A 400 naming `questions` for an unknown key or a question sent as given."""
    keys = [key.strip() for value in asked for key in value.split(",") if key.strip()]
    by_key = {question.key: question for question in current}
    for key in keys:
        if key not in by_key:
            raise params.BadParameter(PARAMETER, _("no question of this survey has the key “%(key)s”") % {"key": key})
        if not by_key[key].randomized:
            raise params.BadParameter(PARAMETER, _("“%(key)s” is sent as given, not randomized: its answers would "
                                                   "single respondents out, so it is never released") % {"key": key})
    found = tuple(q for q in current if (q.key in keys if keys else q.randomized))
    if not found:
        raise params.BadParameter(PARAMETER, _("the survey has no randomized question to release"))
    return found


def variant(questions: Sequence[PlannedQuestion]) -> str:
    """The prepared export's variant: the chosen question ids."""
    return ",".join(str(question.id) for question in questions)


def of_variant(current: SurveyPlan, stored: str) -> tuple[PlannedQuestion, ...]:
    ids = [int(part) for part in stored.split(",") if part]
    return tuple(question for question in current if question.id in ids)


def header(questions: Sequence[PlannedQuestion]) -> list[str]:
    return [column for question in questions for column in exports.columns(question)]


def rows(survey: Survey, questions: Sequence[PlannedQuestion]) -> list[list[object]]:
    """The responses with a report of one of `questions`: their report cells (empty where a question was not
    asked), shuffled."""
    found = []
    widths = [len(exports.columns(question)) for question in questions]
    for block in report_blocks.blocks(survey, list(questions)):
        for values in zip(*block.values, strict=True):
            found.append([cell for question, value, width in zip(questions, values, widths, strict=True)
                          for cell in (exports.cells(question, value) if value is not None else [""] * width)])
    SHUFFLE.shuffle(found)
    return found


def csv_lines(survey: Survey, questions: Sequence[PlannedQuestion]) -> Iterator[str]:
    writer = csv.writer(_Echo())
    yield writer.writerow(header(questions))
    for row in rows(survey, questions):
        yield writer.writerow(row)


def expected(survey: Survey, questions: Sequence[PlannedQuestion]) -> int:
    """The rows a whole release has: the responses with a report of one of the questions."""
    return Response.objects.filter(survey=survey, reports__question_id__in=[q.id for q in questions]) \
        .distinct().count()


class _Echo:
    """A file-like object whose write returns the line (as exports' own)."""

    def write(self, value: str) -> str:
        return value
