"""The respondent API: GET /api/v1/surveys/<slug>/ and POST /api/v1/surveys/<slug>/responses/."""

import json
import math
import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db.models import Sum
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

import ldp
from surveys.collection import plan
from surveys.collection.models import Question, Report, Response, Survey, Tally
from tests.collection.helpers import qid, question, stored
from tests.factories import INEXACT_BITFLIP_EPSILONS, assert_q_of_the_effective_epsilon, valid_payload


def detail_url(slug):
    return f"/api/v1/surveys/{slug}/"


def responses_url(slug):
    return f"/api/v1/surveys/{slug}/responses/"


def post(client, survey_or_slug, body):
    slug = getattr(survey_or_slug, "slug", survey_or_slug)
    return client.post(responses_url(slug), data=json.dumps(body), content_type="application/json")


def assert_error(response, status, field):
    """Every refusal: the status, and {"error": {"code", "field", "reason"}} naming the field and why."""
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "field", "reason"}
    assert body["error"]["field"] == field
    assert isinstance(body["error"]["reason"], str) and body["error"]["reason"].strip()


def _set_window(survey, status=Survey.Status.OPEN, opens=None, closes=None):
    now = timezone.now()
    Survey.objects.filter(pk=survey.pk).update(
        status=status, opens_at=now + opens if opens is not None else None,
        closes_at=now + closes if closes is not None else None)
    survey.refresh_from_db()


# --- GET the definition ---------------------------------------------------------------------


def test_the_definition_is_public_and_carries_each_mechanisms_exact_integers(client, survey):
    response = client.get(detail_url("health"))
    assert response.status_code == 200
    body = response.json()
    assert body["version"] == plan.of(survey).version
    expected = [ldp.QRandomizedResponse(Decimal("0.5")), ldp.BitFlip(math.log(3)), ldp.KaryRR(1.0, 3),
                ldp.OptimizedUnary(1.0, 4)]
    assert [q["id"] for q in body["questions"]] == [question(survey, i).pk for i in (1, 2, 3, 4)]
    for described, mechanism in zip(body["questions"], expected, strict=True):
        assert described["mechanism"]["sampler"] == mechanism.sampler()
        assert described["mechanism"]["effective_epsilon"] == pytest.approx(mechanism.effective_epsilon, abs=1e-15)
        assert described["mechanism"]["name"] == mechanism.name
    assert body["questions"][0]["mechanism"]["parameters"]["q"] == "0.5"
    assert body["questions"][1]["mechanism"]["parameters"]["epsilon"] == pytest.approx(math.log(3))
    assert body["questions"][2]["mechanism"]["parameters"]["k"] == 3
    assert [q["options"] for q in body["questions"]] == [
        ["No", "Yes"], ["No", "Yes"], ["Never", "Sometimes", "Often"], ["A", "B", "C", "D"]]
    assert [q["mechanism"]["encoding"] for q in body["questions"]] == ["index", "index", "index", "bits"]
    assert body["epsilon_total"] == pytest.approx(sum(m.effective_epsilon for m in expected), abs=1e-12)


def test_the_definition_of_a_closed_survey_says_it_is_not_accepting(client, survey):
    _set_window(survey, status=Survey.Status.CLOSED)
    response = client.get(detail_url("health"))
    assert response.status_code == 200 and response.json()["accepting_responses"] is False


@pytest.mark.parametrize("slug", ["health", "nope"])
def test_the_definition_of_a_draft_or_unknown_survey_is_not_found(client, survey, slug):
    _set_window(survey, status=Survey.Status.DRAFT)
    assert_error(client.get(detail_url(slug)), 404, "request")


def test_the_definition_cannot_be_posted_to(client, survey):
    response = client.post(detail_url("health"), data="{}", content_type="application/json")
    assert response.status_code == 405


# --- POST a response ------------------------------------------------------------------------


def test_a_valid_submission_is_stored_and_answered_with_a_receipt(client, survey):
    payload = valid_payload(survey, values={1: 1, 2: 1, 3: 2, 4: [0, 1, 0, 1]})
    response = post(client, survey, payload)
    assert response.status_code == 201
    receipt = response.json()
    assert receipt == {"id": receipt["id"], "reports": payload["reports"]}
    stored_response = Response.objects.get()
    assert str(stored_response.pk) == receipt["id"]
    assert stored_response.submission_key == uuid.UUID(payload["key"])
    assert stored_response.mechanism_version == payload["version"]
    reports = {r.question.order: r.value for r in Report.objects.select_related("question")}
    assert reports == {1: 1, 2: 1, 3: 2, 4: (1 << 1) + (1 << 3)}


def test_a_retry_of_the_same_payload_is_answered_200_with_the_same_id(client, survey):
    payload = valid_payload(survey, values={3: 1})
    first = post(client, survey, payload)
    again = post(client, survey, payload)
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert stored() == (1, 4)


def test_a_key_reused_with_other_reports_is_a_conflict_and_changes_nothing(client, survey):
    key = uuid.uuid4()
    assert post(client, survey, valid_payload(survey, key=key, values={3: 0})).status_code == 201
    assert_error(post(client, survey, valid_payload(survey, key=key, values={3: 1})), 409, "key")
    assert stored() == (1, 4)
    assert Report.objects.get(question__order=3).value == 0


def _without(name):
    return lambda payload, survey: {k: v for k, v in payload.items() if k != name}


def _with(**fields):
    return lambda payload, survey: {**payload, **fields}


def _report(order, value):
    return lambda payload, survey: {**payload, "reports": {**payload["reports"], qid(survey, order): value}}


def _report_field(order):
    return lambda survey: f"reports.{qid(survey, order)}"


def _no_report(order):
    return lambda payload, survey: {
        **payload, "reports": {k: v for k, v in payload["reports"].items() if k != qid(survey, order)}}


def _foreign_question(payload, survey):
    other = Survey.objects.create(slug="other", title="Other")
    foreign = Question.objects.create(survey=other, order=1, text="?", kind="yes_no", mechanism_name="bitflip",
                                      epsilon=1.0)
    return {**payload, "reports": {**payload["reports"], str(foreign.pk): 0}}


INVALID = {  # name: (payload change, status, field at fault)
    "version-missing": (_without("version"), 400, "version"),
    "key-missing": (_without("key"), 400, "key"),
    "reports-missing": (_without("reports"), 400, "reports"),
    "unknown-top-level-field": (_with(answers={"1": 1}), 400, "answers"),
    "key-not-a-uuid": (_with(key="not-a-uuid"), 400, "key"),
    "key-a-number": (_with(key=12345), 400, "key"),
    "key-a-uuid-shaped-number": (_with(key=12345678901234567890123456789012), 400, "key"),
    "key-null": (_with(key=None), 400, "key"),
    "version-not-a-string": (_with(version=1), 400, "version"),
    "reports-a-list": (_with(reports=[0, 0, 0, [0, 1, 0, 0]]), 400, "reports"),
    "reports-a-string": (_with(reports="0,0,0"), 400, "reports"),
    "reports-null": (_with(reports=None), 400, "reports"),
    "unknown-question-id": (lambda p, s: {**p, "reports": {**p["reports"], "999999": 0}}, 400,
                            lambda s: "reports.999999"),
    "question-id-not-a-number": (lambda p, s: {**p, "reports": {**p["reports"], "drugs": 0}}, 400,
                                 lambda s: "reports.drugs"),
    "question-of-another-survey": (_foreign_question, 400,
                                   lambda s: f"reports.{Question.objects.get(survey__slug='other').pk}"),
    "question-missing": (_no_report(2), 400, _report_field(2)),
    "yes-no-out-of-range": (_report(1, 2), 400, _report_field(1)),
    "choice-out-of-range": (_report(3, 3), 400, _report_field(3)),
    "negative": (_report(2, -1), 400, _report_field(2)),
    "bool": (_report(1, True), 400, _report_field(1)),
    "float": (_report(3, 1.0), 400, _report_field(3)),
    "string": (_report(3, "1"), 400, _report_field(3)),
    "null": (_report(1, None), 400, _report_field(1)),
    "huge": (_report(3, 2**70), 400, _report_field(3)),
    "object": (_report(3, {"value": 1}), 400, _report_field(3)),
    "unary-too-short": (_report(4, [0, 1, 0]), 400, _report_field(4)),
    "unary-too-long": (_report(4, [0, 1, 0, 0, 0]), 400, _report_field(4)),
    "unary-empty": (_report(4, []), 400, _report_field(4)),
    "unary-bit-2": (_report(4, [0, 2, 0, 0]), 400, _report_field(4)),
    "unary-bit-negative": (_report(4, [0, -1, 0, 0]), 400, _report_field(4)),
    "unary-bit-bool": (_report(4, [0, True, 0, 0]), 400, _report_field(4)),
    "unary-bit-float": (_report(4, [0, 1.0, 0, 0]), 400, _report_field(4)),
    "unary-bit-string": (_report(4, [0, "1", 0, 0]), 400, _report_field(4)),
    "index-for-unary-question": (_report(4, 1), 400, _report_field(4)),
    "list-for-index-question": (_report(3, [0, 1, 0]), 400, _report_field(3)),
    "list-for-yes-no-question": (_report(1, [0, 1]), 400, _report_field(1)),
}


@pytest.mark.parametrize("name", INVALID)
def test_it_refuses_a_malformed_submission_naming_the_field_and_stores_nothing(client, survey, name):
    change, status, field = INVALID[name]
    body = change(valid_payload(survey), survey)
    before = stored()
    assert_error(post(client, survey, body), status, field(survey) if callable(field) else field)
    assert stored() == before == (0, 0)


@pytest.mark.parametrize("body", [[], "text", 3, None], ids=["list", "string", "number", "null"])
def test_it_refuses_a_body_that_is_not_a_json_object(client, survey, body):
    assert_error(post(client, survey, body), 400, "body")
    assert stored() == (0, 0)


@pytest.mark.parametrize("raw", ['{"version": ', "not json", '{"key": NaN}x'])
def test_it_refuses_malformed_json_with_400(client, survey, raw):
    response = client.post(responses_url("health"), data=raw, content_type="application/json")
    assert_error(response, 400, "body")
    assert stored() == (0, 0)


def test_it_refuses_a_form_encoded_body_with_415(client, survey):
    payload = valid_payload(survey)
    response = client.post(responses_url("health"), data={"version": payload["version"], "key": payload["key"]})
    assert_error(response, 415, "body")
    assert stored() == (0, 0)


def test_it_refuses_a_submission_made_from_an_outdated_form_with_409(client, survey):
    payload = valid_payload(survey)
    krr = question(survey, 3)
    krr.epsilon = 0.5
    krr.save()
    assert_error(post(client, survey, payload), 409, "version")
    assert stored() == (0, 0)


def tallied():
    """{(question id, slot): count}: the running tallies the dashboards read, summed over shards."""
    rows = Tally.objects.values("question_id", "slot").annotate(total=Sum("count")).order_by()
    return {(row["question_id"], row["slot"]): row["total"] for row in rows}


def test_it_rejects_an_empty_version_with_409_and_stores_nothing(client, survey):
    assert post(client, survey, valid_payload(survey, values={1: 1, 3: 2})).status_code == 201
    before = (stored(), tallied())
    assert before[0] == (1, 4) and sum(before[1].values()) > 0
    payload = {**valid_payload(survey), "version": ""}
    assert_error(post(client, survey, payload), 409, "version")
    assert (stored(), tallied()) == before
    assert not Response.objects.filter(submission_key=payload["key"]).exists()


@pytest.mark.parametrize("slug", ["health", "nope"])
def test_it_answers_404_for_a_draft_or_unknown_survey(client, survey, slug):
    payload = valid_payload(survey)
    _set_window(survey, status=Survey.Status.DRAFT)
    assert_error(post(client, slug, payload), 404, "request")
    assert stored() == (0, 0)


@pytest.mark.parametrize("window", [
    {"status": Survey.Status.CLOSED},
    {"closes": -timedelta(minutes=1)},
    {"opens": timedelta(days=1)},
    {"opens": -timedelta(days=2), "closes": -timedelta(days=1)},
], ids=["closed", "past-its-close", "not-yet-open", "window-over"])
def test_it_answers_410_when_the_survey_is_not_accepting(client, survey, window):
    payload = valid_payload(survey)
    _set_window(survey, **window)
    assert_error(post(client, survey, payload), 410, "survey")
    assert stored() == (0, 0)


def test_a_survey_inside_its_window_accepts(client, survey):
    _set_window(survey, opens=-timedelta(days=1), closes=timedelta(days=1))
    assert post(client, survey, valid_payload(survey)).status_code == 201


def test_it_does_not_accept_get_on_the_responses_endpoint(client, survey):
    response = client.get(responses_url("health"))
    assert_error(response, 405, "request")


# --- CSRF -------------------------------------------------------------------------------------


@pytest.mark.parametrize("client_class", [APIClient, Client])
def test_an_anonymous_post_without_the_csrf_token_is_refused(survey, client_class):
    strict = client_class(enforce_csrf_checks=True)
    response = post(strict, survey, valid_payload(survey))
    assert response.status_code == 403
    assert response.json()["error"]["field"] == "request"
    assert stored() == (0, 0)


def test_an_anonymous_post_with_a_forged_token_is_refused(survey):
    strict = APIClient(enforce_csrf_checks=True)
    strict.get("/s/health/")
    response = strict.post(responses_url("health"), data=json.dumps(valid_payload(survey)),
                           content_type="application/json", HTTP_X_CSRFTOKEN="x" * 64)
    assert response.status_code == 403
    assert stored() == (0, 0)


@pytest.mark.parametrize("client_class", [APIClient, Client])
def test_an_anonymous_post_with_the_pages_csrf_cookie_and_header_is_accepted(survey, client_class):
    strict = client_class(enforce_csrf_checks=True)
    page = strict.get("/s/health/")
    token = page.cookies["csrftoken"].value
    response = strict.post(responses_url("health"), data=json.dumps(valid_payload(survey)),
                           content_type="application/json", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 201
    assert stored() == (1, 4)


def test_a_logged_in_researcher_also_needs_the_csrf_token(survey, owner):
    strict = APIClient(enforce_csrf_checks=True)
    strict.force_login(owner)
    assert post(strict, survey, valid_payload(survey)).status_code == 403
    assert stored() == (0, 0)


@pytest.mark.parametrize("origin, status", [
    ("http://testserver", 201),  # the app's own page
    ("https://evil.example", 403),
    ("null", 403),  # sandboxed frames and some redirects
    ("http://testserver.evil.example", 403),
])
def test_an_anonymous_post_with_a_valid_token_is_accepted_only_from_the_apps_own_origin(survey, origin, status):
    strict = APIClient(enforce_csrf_checks=True)
    token = strict.get("/s/health/").cookies["csrftoken"].value
    response = strict.post(responses_url("health"), data=json.dumps(valid_payload(survey)),
                           content_type="application/json", HTTP_X_CSRFTOKEN=token, HTTP_ORIGIN=origin)
    assert response.status_code == status
    assert stored() == ((1, 4) if status == 201 else (0, 0))


@pytest.mark.parametrize("content_type", ["text/plain", "multipart/form-data; boundary=x", "application/xml"])
def test_it_refuses_any_body_that_is_not_json_with_415(client, survey, content_type):
    response = client.post(responses_url("health"), data=json.dumps(valid_payload(survey)),
                           content_type=content_type)
    assert_error(response, 415, "body")
    assert stored() == (0, 0)


def test_it_refuses_a_body_over_the_upload_limit_with_413_and_stores_nothing(client, survey, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    payload = {**valid_payload(survey), "version": "x" * 10_000}
    assert_error(post(client, survey, payload), 413, "body")
    assert stored() == (0, 0)
    assert post(client, survey, valid_payload(survey)).status_code == 201  # under the limit: fine


def test_the_definitions_q_equivalent_is_that_of_the_effective_epsilon(client, every_mechanism_survey):
    body = client.get(detail_url("rounded")).json()
    by_order = {q["order"]: q["mechanism"] for q in body["questions"]}
    for order, epsilon in INEXACT_BITFLIP_EPSILONS.items():
        assert_q_of_the_effective_epsilon(by_order[order]["q_equivalent"], ldp.BitFlip(epsilon))
    assert [by_order[order]["q_equivalent"] for order in (5, 6, 7)] == [None, None, None]
