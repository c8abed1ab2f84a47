"""Results of a question with skip logic: its figures are over those asked, and every reader says so: the
dashboard, the estimates API (n, the condition and its words), the codebook (which ldp reads), the generated
scripts, and the reports file (an empty cell where it was not asked)."""

import csv
import io
import json
import uuid
from decimal import Decimal

import pytest
from django.urls import reverse

from ldp.offline import analyze
from ldp.offline.codebook import designs
from surveys.aggregation.models import MarginShare, PopulationMargin
from surveys.collection import plan, submission
from tests.aggregation.exports.test_reports import download
from tests.collection.skip_logic_survey import KIDS, YOUNG_OR_NORTH, make

pytestmark = pytest.mark.django_db

# (region, kids, hit, age, drugs): None where the question was not asked.
ANSWERS = [(0, 1, 1, 25, 0), (1, 1, 0, 40, None), (1, 0, None, 29, 1), (1, 0, None, 50, None),
           (0, 0, None, 60, 1), (1, 1, 1, 18, 1), (1, 0, None, 33, None)]
HIT_ASKED, DRUGS_ASKED = 3, 4


@pytest.fixture
def family(owner):
    survey = make()
    survey.researchers.add(owner)
    keys = [str(q.id) for q in plan.of(survey)]
    version = plan.of(survey).version
    for row in ANSWERS:
        values = dict(zip(keys, (row[0], row[1], row[2], row[3] - 18, row[4]), strict=True))
        submission.submit(survey, {"version": version, "key": str(uuid.uuid4()),
                                   "reports": {key: value for key, value in values.items() if value is not None}})
    return survey


def estimates(client, owner, survey) -> dict:
    client.force_login(owner)
    return client.get(reverse("aggregation:api-estimates", args=[survey.slug]) + "?interval=wilson").json()


def test_the_estimates_api_counts_those_asked_and_gives_the_condition(client, owner, family):
    data = estimates(client, owner, family)

    assert data["survey"]["responses"] == len(ANSWERS)
    assert [(q["key"], q["n"], q["relevant"], q["asked_of"]) for q in data["questions"]] == [
        ("region", 7, "", None), ("kids", 7, "", None), ("hit", HIT_ASKED, KIDS, "kids: Yes"), ("age", 7, "", None),
        ("drugs", DRUGS_ASKED, YOUNG_OR_NORTH, "age < 30 or region: North")]


def test_the_dashboard_says_a_conditional_questions_figures_are_over_those_asked(client, owner, family):
    client.force_login(owner)
    page = client.get(reverse("aggregation:dashboard", args=[family.slug]) + "?pilot=on").content.decode()

    assert page.count('class="note asked-of"') == 2
    assert ("Asked only of those who answered kids: Yes (skip logic): these figures are over the 3 respondents "
            "asked.") in page
    assert "Asked only of those who answered age &lt; 30 or region: North (skip logic): these figures are over " \
           "the 4 respondents asked." in page


def test_the_codebook_and_ldp_carry_each_condition(client, owner, family):
    _, text = download(client, owner, family, "codebook")
    book = json.loads(text)

    assert [q.get("relevant") for q in book["questions"]] == [None, None, KIDS, None, YOUNG_OR_NORTH]
    assert [design.relevant for design in designs(book)] == ["", "", KIDS, "", YOUNG_OR_NORTH]


def test_the_reports_file_leaves_a_question_not_asked_empty_and_ldp_counts_those_asked(client, owner, family):
    _, text = download(client, owner, family, "reports-csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    book = designs(json.loads(download(client, owner, family, "codebook")[1]))

    assert sorted((row["hit"], row["drugs"]) for row in rows) == sorted(
        ("" if a[2] is None else str(a[2]), "" if a[4] is None else str(a[4])) for a in ANSWERS)
    tally = analyze.count_csv(text.splitlines(), book)
    assert [tally.n[design.key] for design in book] == [7, 7, HIT_ASKED, 7, DRUGS_ASKED]


@pytest.mark.parametrize("name", ["analysis.py", "analysis.R"])
def test_the_generated_scripts_name_each_condition(client, owner, family, name):
    client.force_login(owner)
    response = client.get(reverse(f"aggregation:export-{name.replace('.', '-').lower()}", args=[family.slug]))
    script = b"".join(response.streaming_content).decode() if response.streaming else response.content.decode()

    assert f"hit: asked only if {KIDS}" in script
    assert f"drugs: asked only if {YOUNG_OR_NORTH}" in script


def test_weighted_figures_are_refused_in_words_while_a_question_was_asked_of_only_some(client, owner, family):
    region = family.questions.get(name="region")
    margin = PopulationMargin.objects.create(question=region, source="Census")
    for option, share in zip(region.ordered_options(), [Decimal("0.4"), Decimal("0.6")], strict=True):
        MarginShare.objects.create(margin=margin, option=option, share=share)
    client.force_login(owner)

    response = client.get(reverse("aggregation:api-estimates", args=[family.slug]) + "?weighted=on")

    assert response.status_code == 409
    assert response.json()["error"] == {"code": "unavailable", "field": "weighted",
                                         "reason": "Question 3 was not answered by every weighted response."}


def test_a_cross_tab_of_a_question_asked_of_only_some_counts_those_who_answered_both(client, owner, family):
    ids = {q.key: q.id for q in plan.of(family)}
    client.force_login(owner)

    data = client.get(reverse("aggregation:api-crosstab", args=[family.slug])
                      + f"?a={ids['region']}&b={ids['hit']}").json()

    assert sum(map(sum, data["counts"]["pairs"])) == HIT_ASKED
    assert data["counts"]["pairs"][0] == [sum(1 for a in ANSWERS if a[0] == 0 and a[2] == v) for v in (0, 1)]
