"""The shuffled release, .../export/release.csv (surveys.aggregation.exports.release): the chosen questions' reports and
nothing else, in an order nobody can reproduce, prepared whole; refused with a 400 naming `questions`."""

import csv
import io
import math
from collections import Counter

import pytest
from django.urls import reverse

from surveys.aggregation.exports import reports as exports
from surveys.aggregation.models import PreparedExport
from surveys.collection import builder, plan
from tests.aggregation.support import add_responses
from tests.conftest import login

N = 300


def url(survey, query=""):
    return reverse("aggregation:export-release", args=[survey.slug]) + query


def body(response):
    return b"".join(response.streaming_content) if response.streaming else response.content


def table(data):
    return list(csv.reader(io.StringIO(data.decode())))


def stored(survey):
    """reports.csv as the app writes it (stored order, every column)."""
    return table("".join(exports.report_csv_lines(survey, plan.of(survey))).encode())


def projected(rows, names):
    where = [rows[0].index(name) for name in names]
    return [[row[i] for i in where] for row in rows[1:]]


@pytest.fixture
def answered(direct_survey):
    add_responses(direct_survey, N, seed=11)
    return direct_survey


def test_it_releases_every_randomized_questions_reports_shuffled_and_nothing_else(client, owner, answered):
    response = login(client, owner).get(url(answered))
    assert response.status_code == 200
    released = table(body(response))
    randomized = [q for q in plan.of(answered) if q.randomized]
    names = [c for q in randomized for c in exports.columns(q)]
    assert released[0] == names  # no response id, day, version, weight or direct answer
    whole = stored(answered)
    assert sorted(released[1:]) == sorted(projected(whole, names))  # the same multiset of rows
    # Its order is not the stored one. A uniform shuffle gives the stored order with probability
    # prod(m!) / n! over the multiplicities m of the distinct rows: below 1e-100 here.
    chance = math.prod(math.factorial(m) for m in Counter(map(tuple, released[1:])).values()) / math.factorial(N)
    assert chance < 1e-100
    assert released[1:] != projected(whole, names)


def test_two_releases_of_the_same_reports_are_shuffled_apart(client, owner, answered):
    login(client, owner)
    first = table(body(client.get(url(answered))))
    PreparedExport.objects.all().delete()  # a new file, shuffled anew (the odds of the same order as above)
    second = table(body(client.get(url(answered))))
    assert sorted(first) == sorted(second) and first[1:] != second[1:]


def test_it_releases_only_the_chosen_questions_in_the_surveys_order(client, owner, answered):
    current = plan.of(answered)
    qrr, krr = (q for q in current if q.randomized)
    response = login(client, owner).get(url(answered, f"?questions={krr.key}&questions={qrr.key}"))
    released = table(body(response))
    assert released[0] == [qrr.key, krr.key]
    assert sorted(released[1:]) == sorted(projected(stored(answered), [qrr.key, krr.key]))
    alone = table(body(client.get(url(answered, f"?questions={krr.key}"))))
    assert alone[0] == [krr.key]
    assert sorted(alone[1:]) == sorted(projected(stored(answered), [krr.key]))
    assert PreparedExport.objects.filter(format="rel").count() == 2  # one file per choice


def test_it_writes_a_multi_selects_bits_as_reports_csv_names_them(client, owner, kinds_survey):
    builder.simulate_responses(kinds_survey, 60, {1: [0.6, 0.3, 0.2, 0.05], 2: [1 / 101] * 101,
                                                  5: [0.4, 0.3, 0.2, 0.1]}, seed=3)
    current = plan.of(kinds_survey)
    names = [c for q in current if q.randomized for c in exports.columns(q)]
    released = table(body(login(client, owner).get(url(kinds_survey))))
    assert released[0] == names
    assert sorted(released[1:]) == sorted(projected(stored(kinds_survey), names))


@pytest.mark.parametrize("asked, reason", [
    ("nosuch", "no question of this survey has the key “nosuch”"),
    ("DIRECT", "is sent as given, not randomized"),
])
def test_it_refuses_an_unknown_or_a_direct_question_naming_the_field_and_prepares_nothing(
        client, owner, answered, asked, reason):
    direct = next(q for q in plan.of(answered) if not q.randomized)
    response = login(client, owner).get(url(answered, "?questions=" + asked.replace("DIRECT", direct.key)))
    assert response.status_code == 400
    text = response.content.decode()
    assert text.startswith("questions") and reason in text
    assert not PreparedExport.objects.exists()


def test_the_surveys_researcher_and_a_superuser_get_it_others_get_404_and_strangers_sign_in(
        client, owner, other_researcher, superuser, answered):
    assert client.get(url(answered)).status_code == 302
    assert login(client, other_researcher).get(url(answered)).status_code == 404
    assert login(client, owner).get(url(answered)).status_code == 200
    assert login(client, superuser).get(url(answered)).status_code == 200


def test_the_dashboard_lists_its_files_and_no_release(client, owner, answered):
    login(client, owner).get(url(answered))
    from surveys.aggregation.exports import prepared

    assert sorted(prepared.states(answered)) == ["csv", "dta", "json", "sav", "sdta", "ssav", "syn"]


def test_the_statement_offers_it_and_states_the_chosen_questions_central_epsilon(client, owner, answered):
    from surveys.aggregation.privacy import statement
    from tests.collection.pages import parse

    current = plan.of(answered)
    qrr, krr = (q for q in current if q.randomized)
    login(client, owner)
    page = parse(client.get(reverse("aggregation:statement", args=[answered.slug])).content)
    form = page.by_id("release-form")
    assert [(box.attrs["value"], "checked" in box.attrs) for box in form.find_all("input")] == [(qrr.key, True),
                                                                                           (krr.key, True)]
    assert form.find_all("button")[1].attrs["formaction"] == url(answered)
    whole = statement.generated(answered)
    assert page.by_id("statement-chosen").text == (
        f"The release of the chosen questions (2): 1, 3: ε = {whole.record_central_text}")
    one = parse(client.get(reverse("aggregation:statement", args=[answered.slug]) + f"?questions={krr.key}").content)
    row = next(r for r in whole.randomized if r.question.id == krr.id)
    assert one.by_id("statement-chosen").text == f"The release of the chosen question (1): 3: ε = {row.central_text}"
    assert "beside a question sent as given" in one.by_id("statement-release-limits").text


def test_the_statement_refuses_an_unknown_question_naming_the_field(client, owner, answered):
    response = login(client, owner).get(reverse("aggregation:statement", args=[answered.slug]) + "?questions=nosuch")
    assert response.status_code == 400 and response.content.decode().startswith("questions")
