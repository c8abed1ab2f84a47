"""Every kind of API error carries its stable code beside the field and the reason (surveys.errors):
the services' refusals, DRF's own, and the admin's figures endpoints, which answer in the same shape.
The database outage's 503 and the 500 are in tests/test_api_database_outage.py."""

import json
import time
import uuid

from django.core.cache import cache
from django.urls import reverse
from rest_framework.test import APIClient

from surveys import errors, refusals
from surveys.collection import invitations, ratelimit
from surveys.collection.models import Survey
from tests.factories import make_user, valid_payload


def responses_url(slug):
    return f"/api/v1/surveys/{slug}/responses/"


def post(client, slug, body, content_type="application/json"):
    return client.post(responses_url(slug), data=body if isinstance(body, str) else json.dumps(body),
                       content_type=content_type)


def answer(response):
    return response.status_code, response["Content-Type"], response.json()


def refusal(code, field, reason):
    return {"error": {"code": code, "field": field, "reason": reason}}


# --- the services' refusals -------------------------------------------------------------------


def test_a_malformed_submission_is_invalid(client, survey):
    assert answer(post(client, survey.slug, {})) == (
        400, "application/json", refusal("invalid", "key", "this field is required"))


def test_a_language_the_survey_does_not_offer_is_invalid(client, survey):
    assert answer(client.get(f"/api/v1/surveys/{survey.slug}/?lang=fr")) == (
        400, "application/json", refusal("invalid", "lang", "this survey is not offered in that language"))


def test_a_results_parameter_out_of_range_is_a_bad_parameter(client, owner, survey):
    client.force_login(owner)
    response = client.get(reverse("aggregation:api-estimates", args=[survey.slug]) + "?confidence=2")
    assert answer(response) == (400, "application/json", refusal(
        "bad_parameter", "confidence", "must be a number between 0.5 and 0.999"))


def test_a_crosstab_question_of_another_survey_is_a_bad_parameter(client, owner, survey):
    client.force_login(owner)
    a = survey.ordered_questions()[0]
    response = client.get(reverse("aggregation:api-crosstab", args=[survey.slug]) + f"?a={a.pk}&b=999999")
    assert answer(response) == (400, "application/json", refusal(
        "bad_parameter", "b", "no question of this survey has this id"))


def test_a_missing_invitation_is_refused_as_such(client, invitation_only):
    assert answer(post(client, invitation_only.slug, valid_payload(invitation_only))) == (
        403, "application/json", refusal("invitation_refused", "invitation",
                                         "this survey is by invitation only: open the link from your invitation"))


def test_a_spent_invitation_is_refused_as_such(client, invitation_only):
    token = invitations.create(invitation_only, 1)[0]
    payload = {**valid_payload(invitation_only), "invitation": token}
    assert post(client, invitation_only.slug, payload).status_code == 201
    status, _, body = answer(post(client, invitation_only.slug, {**valid_payload(invitation_only),
                                                                 "invitation": token}))
    assert (status, body["error"]["code"], body["error"]["field"]) == (403, "invitation_refused", "invitation")


def test_a_closed_survey_is_gone(client, survey):
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED)
    assert answer(post(client, survey.slug, valid_payload(survey))) == (
        410, "application/json", refusal("gone", "survey", "this survey is not accepting responses"))


def test_a_stale_version_is_version_changed(client, survey):
    assert answer(post(client, survey.slug, {**valid_payload(survey), "version": "stale"})) == (
        409, "application/json", refusal("version_changed", "version",
                                         "the survey changed since this form was loaded; reload it"))


def test_a_key_used_for_other_reports_is_key_reused(client, survey):
    key = uuid.uuid4()
    assert post(client, survey.slug, valid_payload(survey, key=key, values={1: 0})).status_code == 201
    assert answer(post(client, survey.slug, valid_payload(survey, key=key, values={1: 1}))) == (
        409, "application/json", refusal("key_reused", "key", "this key was already used for different reports"))


def test_a_configuration_that_cannot_be_read_is_unavailable(client, owner, survey):
    survey.questions.filter(order=2).update(epsilon=50.0)  # only possible behind the admin's back
    client.force_login(owner)
    status, _, body = answer(client.get(reverse("aggregation:api-estimates", args=[survey.slug])))
    assert (status, body["error"]["code"], body["error"]["field"]) == (409, "unavailable", "survey")
    assert body["error"]["reason"].startswith("question 2: ")


# --- DRF's own, and addresses no route matches -------------------------------------------------


def test_an_unknown_survey_and_an_unknown_address_are_not_found(client, db):
    assert answer(post(client, "nope", {})) == (404, "application/json", refusal("not_found", "request",
                                                                                 "no such survey"))
    assert answer(client.get("/api/v1/nothing/")) == (404, "application/json",
                                                      refusal("not_found", "request", "not found"))


def test_a_results_survey_the_researcher_is_not_assigned_to_is_not_found(client, other_researcher, survey):
    client.force_login(other_researcher)
    response = client.get(reverse("aggregation:api-estimates", args=[survey.slug]))
    assert answer(response) == (404, "application/json", refusal(
        "not_found", "request", "no survey you may see has this address: it does not exist, or you are not among its "
        "researchers (the survey's administrators can add you)"))


def test_anonymous_results_are_not_authenticated(client, survey):
    response = client.get(reverse("aggregation:api-estimates", args=[survey.slug]))
    assert answer(response) == (403, "application/json", refusal(
        "not_authenticated", "request", "Authentication credentials were not provided."))


def test_a_post_without_the_csrf_token_is_permission_denied(survey):
    status, _, body = answer(post(APIClient(enforce_csrf_checks=True), survey.slug, valid_payload(survey)))
    assert (status, body["error"]["code"], body["error"]["field"]) == (403, "permission_denied", "request")
    assert body["error"]["reason"].startswith("CSRF Failed")


def test_bad_json_is_a_parse_error(client, survey):
    status, _, body = answer(post(client, survey.slug, "{not json"))
    assert (status, body["error"]["code"], body["error"]["field"]) == (400, "parse_error", "body")


def test_a_body_that_is_not_json_is_an_unsupported_media_type(client, survey):
    status, _, body = answer(post(client, survey.slug, "a=1", content_type="text/plain"))
    assert (status, body["error"]["code"], body["error"]["field"]) == (415, "unsupported_media_type", "body")


def test_a_body_over_the_limit_is_too_large(client, survey, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1_000
    assert answer(post(client, survey.slug, {**valid_payload(survey), "version": "x" * 1_000})) == (
        413, "application/json", refusal("too_large", "body", "request body too large"))


def test_a_get_of_the_responses_is_a_method_not_allowed(client, survey):
    assert answer(client.get(responses_url(survey.slug))) == (
        405, "application/json", refusal("method_not_allowed", "request", 'Method "GET" not allowed.'))


def test_too_many_submissions_are_throttled(client, survey, settings, monkeypatch):
    settings.SUBMISSION_RATE, settings.PROXY_COUNT = (1, 60), 0
    cache.clear()
    now = time.time() // 60 * 60 + 1  # one still window (see tests/collection/test_ratelimit.py)
    monkeypatch.setattr(ratelimit.time, "time", lambda: now)
    assert post(client, survey.slug, valid_payload(survey)).status_code == 201
    response = post(client, survey.slug, valid_payload(survey))
    assert answer(response) == (429, "application/json", refusal(
        "throttled", "request", f"too many submissions from your network; try again in {response['Retry-After']} "
                                "seconds"))


# --- the admin's figures endpoints, in the same shape ------------------------------------------------


def test_the_admins_figures_endpoints_refuse_with_codes_too(admin_client):
    figures = reverse("admin:collection_survey_privacy_figures")
    total = reverse("admin:collection_survey_privacy_total")
    assert answer(admin_client.get(f"{figures}?mechanism=qrr")) == (
        400, "application/json", refusal("invalid", "q", "required for this mechanism"))
    assert answer(admin_client.get(f"{total}?loss=3")) == (
        400, "application/json", refusal("invalid", "loss",
                                         "one loss from the figures per question, as RATIO;RATIONAL"))
    assert answer(admin_client.post(figures)) == (
        405, "application/json", refusal("method_not_allowed", "request", "GET only"))


def test_the_admins_figures_endpoints_refuse_a_visitor_the_admin_would_not_let_in_with_codes_not_a_login_page(
        client, owner):
    figures = reverse("admin:collection_survey_privacy_figures") + "?mechanism=krr&epsilon=1&k=4"
    total = reverse("admin:collection_survey_privacy_total") + "?loss=3;1"
    for path in (figures, total):
        assert answer(client.get(path)) == (403, "application/json", refusal(
            "not_authenticated", "request", "Authentication credentials were not provided."))
        assert answer(client.get(path, HTTP_ACCEPT_LANGUAGE="es")) == (403, "application/json", refusal(
            "not_authenticated", "request", "Las credenciales de autenticación no se proveyeron."))
    client.force_login(owner)  # a researcher: signed in, but not staff
    assert answer(client.get(figures)) == (403, "application/json", refusal(
        "not_authenticated", "request", "Authentication credentials were not provided."))


def test_the_admins_figures_endpoints_refuse_staff_without_the_permission_with_a_code(client, db):
    client.force_login(make_user("staff", is_staff=True))
    for path in (reverse("admin:collection_survey_privacy_figures"), reverse("admin:collection_survey_privacy_total")):
        assert answer(client.get(path)) == (403, "application/json", refusal(
            "permission_denied", "request", "You do not have permission to perform this action."))


# --- the one mapping -----------------------------------------------------------------------------


def test_every_refusal_code_has_its_status_and_is_documented():
    codes = {value for name, value in vars(refusals).items() if name.isupper() and isinstance(value, str)}
    assert codes == set(errors.STATUS)
    with open("docs/api-errors.md", encoding="utf-8") as documented:
        text = documented.read()
    assert [code for code in errors.CODES if f"`{code}`" not in text] == []
