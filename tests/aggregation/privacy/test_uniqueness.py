"""What singles a respondent out: respondents alone or in a group smaller than k on their direct answers,
counted in SQL, against a count in Python of the same stored values."""

import random
from collections import Counter
from decimal import Decimal

import pytest

from surveys.aggregation.privacy import uniqueness
from surveys.aggregation.privacy.uniqueness import Count, Group
from surveys.collection import builder, plan, submission
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey
from tests.factories import valid_payload

AGE, BAND, REGION = 2, 3, 4  # question orders in `people`


def submit(survey, values=None):
    assert submission.submit(survey, valid_payload(survey, values=values)).created


@pytest.fixture
def people(db, owner):
    """Smoked? (qrr), age in years (direct number 18..99), age band (direct, 3), region (direct, 4)."""
    survey = builder.create_survey("people", "People", [
        QuestionSpec("Smoked?", "qrr", q="0.5"),
        QuestionSpec("Age in years?", "direct_number", kind="numeric", scale=("18", "99", "1")),
        QuestionSpec("Age band?", "direct", options=["18-34", "35-54", "55+"]),
        QuestionSpec("Region?", "direct", options=["North", "East", "South", "West"]),
    ], status=Survey.Status.OPEN, retention_days=30)
    survey.researchers.add(owner)
    return survey


def reference(rows, k):
    """(respondents, unique, below k, groups below k) of these tuples, counted in Python."""
    sizes = Counter(rows).values()
    return (len(rows), sum(1 for s in sizes if s == 1), sum(s for s in sizes if s < k),
            sum(1 for s in sizes if s < k))


def figures(found):
    return found.respondents, found.unique, found.below_k, found.groups_below_k


def test_it_counts_and_names_the_small_groups_on_the_direct_answers(direct_survey):
    for age, region, times in ((0, 0, 6), (1, 1, 3), (2, 3, 1)):
        for _ in range(times):
            submit(direct_survey, {2: age, 4: region})
    current = plan.of(direct_survey)
    found = uniqueness.measured(direct_survey, current=current)
    assert found.combination == Count(current.direct, 10, 1, 4, 2, (Group(("55+", "West"), 1),
                                                                     Group(("35-54", "East"), 3)))
    assert found.alone == (Count(current.direct[:1], 10, 1, 4, 2), Count(current.direct[1:], 10, 1, 4, 2))
    assert found.singles_out and found.bandings == () and found.suggested == ()


def test_k_is_the_size_a_group_must_reach(direct_survey):
    for _ in range(5):
        submit(direct_survey, {2: 0, 4: 0})
    assert figures(uniqueness.measured(direct_survey).combination) == (5, 0, 0, 0)
    assert figures(uniqueness.measured(direct_survey, k=6).combination) == (5, 0, 5, 1)


def test_its_counts_equal_a_count_in_python_of_the_stored_answers_and_bands(people):
    rng = random.Random(44)
    rows = []
    for _ in range(150):
        age, band, region = max(18, min(int(rng.gauss(25, 15)) + 18, 99)) if rng.random() < 0.9 else 18, \
            rng.randrange(3), rng.choice([0, 0, 0, 1, 2, 3])
        rows.append((age, band, region))
        submit(people, {AGE: age - 18, BAND: band, REGION: region})
    found = uniqueness.measured(people)
    assert figures(found.combination) == reference(rows, 5)
    assert [figures(count) for count in found.alone] == [reference([(row[i],) for row in rows], 5) for i in range(3)]
    expected_bands = {width: reference([((age - 18) // width, band, region) for age, band, region in rows], 5)
                      for width in (5, 10, 20)}
    assert {int(b.width): figures(b.count) for b in found.bandings} == expected_bands
    assert found.combination.small == tuple(sorted(
        (Group((str(age), ("18-34", "35-54", "55+")[band], ("North", "East", "South", "West")[region]), size)
         for (age, band, region), size in Counter(rows).items() if size < 5),
        key=lambda group: (group.respondents, int(group.answers[0]),
                           ("18-34", "35-54", "55+").index(group.answers[1]),
                           ("North", "East", "South", "West").index(group.answers[2]))))[:uniqueness.LISTED]


def test_it_suggests_the_narrowest_band_that_leaves_nobody_below_k(people):
    for age in (18, 19, 20, 21, 22) * 2:  # every year twice; in 5-year bands from 18 (lo), 10 together
        submit(people, {AGE: age - 18, BAND: 0, REGION: 0})
    found = uniqueness.measured(people, k=5)
    assert figures(found.combination) == (10, 0, 10, 5)
    (suggested,) = found.suggested
    assert (suggested.question.order, suggested.width, figures(suggested.count)) == (AGE, Decimal(5), (10, 0, 0, 0))
    assert uniqueness.label(suggested.question, 0, 5) == "18-22"


def test_a_survey_without_direct_questions_stores_nothing_that_singles_out(survey):
    submit(survey)
    found = uniqueness.measured(survey)
    assert (found.combination, found.alone, found.singles_out) == (None, (), False)


def test_past_the_groups_it_holds_every_count_is_grouped_in_the_database_with_the_same_answer(people, monkeypatch):
    rng = random.Random(7)
    for _ in range(60):
        submit(people, {AGE: rng.randrange(30), BAND: rng.randrange(3), REGION: rng.randrange(4)})
    held = uniqueness.measured(people)
    monkeypatch.setattr(uniqueness, "MOST_GROUPS", 1)
    assert uniqueness.table(people, plan.of(people).direct) is None
    assert uniqueness.measured(people) == held
