"""What singles a respondent out: how many respondents are alone, or in a group smaller than k, on the
combination of their direct answers (the questions sent as given, stored as given).

Randomized reports are deniable; direct answers are not, and a rare combination of them (an age in years,
a region, a sex) can pick one person out of the stored data or an export: the linkage that defeats
"anonymized" microdata. Counted in SQL on both engines, whatever the number of responses: one LEFT JOIN of
the reports per direct question on the response (each a seek in the index REPORTS_BY_QUESTION), grouped by
their values; the groups' sizes are grouped again, so Python sees a histogram of group sizes (a few rows)
and at most LISTED small groups. A response without a report of a direct question (none is expected) is
grouped with the others missing it.

`of(survey)` answers for the whole combination, for each direct question alone (which ones do it), and, for
each direct number (an age in years), the same combination with that number in bands of a few widths: the
coarsening suggested is the narrowest band that leaves nobody in a group smaller than k (else the widest).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from django.db import connection

from surveys.collection import plan
from surveys.collection.models import Report, Response, Survey
from surveys.collection.plan import PlannedQuestion

K = 5  # a group smaller than this singles its members out (k-anonymity's usual threshold)
LISTED = 10  # small groups named at most
BANDS = (5, 10, 20)  # band widths tried for a direct number, in its own units (years)
MOST_GROUPS = 200_000  # combinations held in memory at most (a few MB); past it each count is grouped in SQL


@dataclass(frozen=True)
class Group:
    """One combination of direct answers (labels, in the questions' order) and its respondents."""

    answers: tuple[str, ...]
    respondents: int


@dataclass(frozen=True)
class Count:
    """Respondents alone (`unique`) or in a group smaller than k (`below_k`, the unique ones included) on the
    direct answers of `questions`; `small` the groups smaller than k, smallest first (at most LISTED)."""

    questions: tuple[PlannedQuestion, ...]
    respondents: int
    unique: int
    below_k: int
    groups_below_k: int
    small: tuple[Group, ...] = ()


@dataclass(frozen=True)
class Banding:
    """A direct number in bands of `width` (its units): the whole combination's count then."""

    question: PlannedQuestion
    width: Decimal
    count: Count


@dataclass(frozen=True)
class Uniqueness:
    k: int
    combination: Count | None  # None without direct questions: nothing stored as given
    alone: tuple[Count, ...]  # each direct question by itself
    bandings: tuple[Banding, ...]  # every band tried, by question then width
    suggested: tuple[Banding, ...]  # per direct number: the narrowest band that leaves nobody below k, else widest

    @property
    def singles_out(self) -> bool:
        return self.combination is not None and self.combination.below_k > 0


def measured(survey: Survey, k: int = K, current: plan.SurveyPlan | None = None) -> Uniqueness:
    current = current or plan.of(survey)
    direct = tuple(current.direct)
    if not direct:
        return Uniqueness(k, None, (), (), ())
    kept = table(survey, direct)
    if kept is None:  # too many combinations to hold: each count grouped in the database
        def counted(questions: Sequence[PlannedQuestion], banded: dict[int, int] | None = None,
                    listed: int = 0) -> Count:
            return count(survey, questions, k, listed=listed, banded=banded)
    else:  # every count from the one table of combinations (one grouped read of the responses)
        def counted(questions: Sequence[PlannedQuestion], banded: dict[int, int] | None = None,
                    listed: int = 0) -> Count:
            return from_table(kept, direct, questions, k, listed=listed, banded=banded)
    combination = counted(direct, listed=LISTED)
    alone = tuple(counted((question,)) for question in direct) if len(direct) > 1 else (combination,)
    bandings = tuple(Banding(question, width, counted(direct, banded={question.id: steps}))
                     for question in direct if question.given_number and question.scale is not None
                     for width, steps in _widths(question))
    suggested = []
    for question in direct:
        tried = [banding for banding in bandings if banding.question is question]
        if tried and combination.below_k:
            suggested.append(next((b for b in tried if b.count.below_k == 0), tried[-1]))
    return Uniqueness(k, combination, alone, bandings, tuple(suggested))


def table(survey: Survey, questions: Sequence[PlannedQuestion]) -> dict[tuple[int | None, ...], int] | None:
    """Every combination of these questions' stored values and its respondents, or None past MOST_GROUPS."""
    joins, values, params = direct_joins(questions, {})
    response = connection.ops.quote_name(Response._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(values)}, COUNT(*) FROM {response} r {' '.join(joins)} "
                       f"WHERE r.survey_id = %s GROUP BY {', '.join(values)}", [*params, survey.pk])
        rows = cursor.fetchmany(MOST_GROUPS + 1)
    if len(rows) > MOST_GROUPS:
        return None
    return {tuple(row[:-1]): row[-1] for row in rows}


def from_table(kept: dict[tuple[int | None, ...], int], direct: Sequence[PlannedQuestion],
               questions: Sequence[PlannedQuestion], k: int = K, listed: int = 0,
               banded: dict[int, int] | None = None) -> Count:
    """`count`'s answer from the table of `direct`'s combinations: merged on `questions`, in bands where asked."""
    banded = banded or {}
    where = [list(direct).index(question) for question in questions]
    steps = [banded.get(question.id) for question in questions]
    merged: Counter[tuple[int | None, ...]] = Counter()
    for key, size in kept.items():
        merged[tuple(_band(key[i], step) for i, step in zip(where, steps, strict=True))] += size
    sizes = Counter(merged.values())
    small = sorted(((size, key) for key, size in merged.items() if size < k),
                   key=lambda found: (found[0], tuple(-1 if v is None else v for v in found[1])))[:listed]
    return Count(tuple(questions), sum(merged.values()), sizes.get(1, 0),
                 sum(size * groups for size, groups in sizes.items() if size < k),
                 sum(groups for size, groups in sizes.items() if size < k),
                 tuple(Group(_labels(questions, key, banded), size) for size, key in small))


def _band(value: int | None, steps: int | None) -> int | None:
    """A stored grid index in bands of `steps` (as the SQL's integer division); None stays None."""
    return value // steps if steps and value is not None else value


def _widths(question: PlannedQuestion) -> list[tuple[Decimal, int]]:
    """(width, grid steps per band) for each band width that is a whole number of steps wider than one."""
    step = question.scale.step  # type: ignore[union-attr]  # a direct number has a grid
    return [(Decimal(width), int(Decimal(width) / step)) for width in BANDS
            if (Decimal(width) / step) == int(Decimal(width) / step) and int(Decimal(width) / step) > 1]


def count(survey: Survey, questions: Sequence[PlannedQuestion], k: int = K, listed: int = 0,
          banded: dict[int, int] | None = None) -> Count:
    """The counts on these direct questions' answers; `banded` maps a question id to grid steps per band (its
    stored index divided by it: bands start at lo)."""
    banded = banded or {}
    joins, values, params = direct_joins(questions, banded)
    response = connection.ops.quote_name(Response._meta.db_table)
    named = ", ".join(f"{value} AS v{i}" for i, value in enumerate(values))
    grouped = (f"SELECT {named}, COUNT(*) AS size FROM {response} r {' '.join(joins)} "
               f"WHERE r.survey_id = %s GROUP BY {', '.join(values)}")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT size, COUNT(*) FROM ({grouped}) g GROUP BY size", [*params, survey.pk])
        sizes = dict(cursor.fetchall())
        small: list[Group] = []
        if listed:
            cursor.execute(f"SELECT * FROM ({grouped}) g WHERE size < %s ORDER BY size, "
                           f"{', '.join(f'v{i}' for i in range(len(questions)))} LIMIT %s",
                           [*params, survey.pk, k, listed])
            small = [Group(_labels(questions, row[:-1], banded), row[-1]) for row in cursor.fetchall()]
    return Count(tuple(questions), sum(size * groups for size, groups in sizes.items()), sizes.get(1, 0),
                 sum(size * groups for size, groups in sizes.items() if size < k),
                 sum(groups for size, groups in sizes.items() if size < k), tuple(small))


def direct_joins(questions: Sequence[PlannedQuestion],
                 banded: dict[int, int]) -> tuple[list[str], list[str], list[int]]:
    """Each direct question's answer joined to its response (banded to `banded` grid steps where given): the joins,
    the selected value expressions and their parameters; the uniqueness counts and the direct prior group by them."""
    report = connection.ops.quote_name(Report._meta.db_table)
    joins, values, params = [], [], []
    for i, question in enumerate(questions):
        joins.append(f"LEFT JOIN {report} a{i} ON a{i}.response_id = r.id AND a{i}.question_id = %s")
        params.append(question.id)
        steps = banded.get(question.id)
        # Integer division on both engines (integer operands); NULL stays NULL.
        values.append(f"(a{i}.value / {int(steps)})" if steps else f"a{i}.value")
    return joins, values, params


def _labels(questions: Sequence[PlannedQuestion], values: Sequence[int | None],
            banded: dict[int, int]) -> tuple[str, ...]:
    return tuple(label(question, value, banded.get(question.id)) for question, value in zip(questions, values,
                                                                                             strict=True))


def label(question: PlannedQuestion, value: int | None, steps: int | None = None) -> str:
    """A stored direct value as the admin typed it: an option's label, a number (or its band "20-24")."""
    if value is None:
        return "-"
    if question.given_number and question.scale is not None:
        if steps:
            low = question.scale.value(value * steps)
            high = min(question.scale.value(value * steps + steps - 1), question.scale.hi)
            return f"{_plain(low)}-{_plain(high)}"
        return _plain(question.scale.value(value))
    return question.options[value] if 0 <= value < len(question.options) else str(value)


def _plain(number: Decimal) -> str:
    return format(number.normalize(), "f")
