"""A submission to a survey with skip logic (surveys/collection/submission.py): the server judges each condition on
the direct answers it receives, refuses a report of a question that was not asked and a missing report of one that
was (400 naming the question, nothing stored), and stores the questions asked."""

import json
import uuid

import pytest
from django.db.models import Sum

from surveys.collection import plan
from surveys.collection.models import Response, Tally
from tests.collection.helpers import stored
from tests.collection.skip_logic_survey import make

pytestmark = pytest.mark.django_db

NORTH, SOUTH, NO, YES = 0, 1, 0, 1


@pytest.fixture
def family():
    return make()


def ids(survey) -> dict[str, str]:
    return {q.key: str(q.id) for q in plan.of(survey)}


def payload(survey, **reports) -> dict:
    """A submission with these reports, by question name; an age as its grid index from 18."""
    keys = ids(survey)
    return {"version": plan.of(survey).version, "key": str(uuid.uuid4()),
            "reports": {keys[name]: value for name, value in reports.items()}}


def post(client, survey, body):
    return client.post(f"/api/v1/surveys/{survey.slug}/responses/", data=json.dumps(body),
                       content_type="application/json")


def refusal(response) -> dict:
    assert response.status_code == 400, response.content
    return response.json()["error"]


def test_it_stores_a_response_that_skips_the_questions_not_asked(client, family):
    response = post(client, family, payload(family, region=SOUTH, kids=NO, age=40 - 18))

    assert response.status_code == 201, response.content
    stored_reports = dict(Response.objects.get().reports.values_list("question__name", "value"))
    assert stored_reports == {"region": SOUTH, "kids": NO, "age": 22}
    assert Response.objects.get().answers is None  # not every question: read from the reports
    asked = dict(Tally.objects.filter(slot=-1).values("question__name").annotate(n=Sum("count"))
                 .values_list("question__name", "n"))
    assert asked == {"region": 1, "kids": 1, "age": 1}  # n of each question: those asked


def test_it_stores_every_report_of_a_respondent_asked_every_question(client, family):
    response = post(client, family, payload(family, region=NORTH, kids=YES, hit=1, age=40 - 18, drugs=0))

    assert response.status_code == 201, response.content
    assert stored() == (1, 5)
    assert Response.objects.get().answers == "0,1,1,22,0"


def test_it_refuses_a_report_of_a_question_that_was_not_asked_and_stores_nothing(client, family):
    body = payload(family, region=SOUTH, kids=NO, hit=1, age=40 - 18)

    error = refusal(post(client, family, body))

    assert error == {"code": "invalid", "field": f"reports.{ids(family)['hit']}",
                     "reason": "question hit was not asked: its condition (${kids} = 'yes') does not hold for the "
                               "answers given"}
    assert stored() == (0, 0)
    assert not Tally.objects.filter(count__gt=0).exists()


def test_it_refuses_a_missing_report_of_a_question_that_was_asked_and_stores_nothing(client, family):
    body = payload(family, region=SOUTH, kids=YES, age=40 - 18)

    error = refusal(post(client, family, body))

    assert error == {"code": "invalid", "field": f"reports.{ids(family)['hit']}",
                     "reason": "a report for every question asked is required (question hit)"}
    assert stored() == (0, 0)


@pytest.mark.parametrize(("age", "region", "asked"), [
    (29, SOUTH, True), (30, SOUTH, False), (31, SOUTH, False), (30, NORTH, True), (18, SOUTH, True)])
def test_a_condition_on_a_number_is_judged_at_its_edge(client, family, age, region, asked):
    reports = {"region": region, "kids": NO, "age": age - 18}
    with_drugs = post(client, family, payload(family, **reports, drugs=1))
    without = post(client, family, payload(family, **reports))

    assert (with_drugs.status_code, without.status_code) == ((201, 400) if asked else (400, 201))
    assert stored()[0] == 1


def test_a_report_of_a_question_not_asked_is_refused_however_its_value_looks(client, family):
    body = payload(family, region=SOUTH, kids=NO, hit=0, age=50 - 18)

    assert refusal(post(client, family, body))["field"] == f"reports.{ids(family)['hit']}"
    assert stored() == (0, 0)
