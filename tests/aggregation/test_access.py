"""Who sees what: every results route and format, for the fixed cast."""

import json

import pytest
from django.urls import reverse
from django_otp.plugins.otp_totp.models import TOTPDevice

ROUTES = {
    "dashboard": "aggregation:dashboard",
    "api-estimates": "aggregation:api-estimates",
    "estimates.csv": "aggregation:export-estimates",
    "reports.csv": "aggregation:export-reports-csv",
    "reports.json": "aggregation:export-reports-json",
    "codebook.json": "aggregation:export-codebook",
}
# Anonymous visitors of pages and downloads are sent to log in; the API answers 403 JSON
# (session authentication has no WWW-Authenticate challenge, so not 401).
EXPECTED = {
    "owner": {route: 200 for route in ROUTES},
    "superuser": {route: 200 for route in ROUTES},
    "other_researcher": {route: 404 for route in ROUTES},
    "anonymous": {**{route: 302 for route in ROUTES}, "api-estimates": 403},
}


def as_user(client, request, who):
    if who != "anonymous":
        client.force_login(request.getfixturevalue(who))
    return client


@pytest.mark.parametrize("who", EXPECTED)
@pytest.mark.parametrize("route", ROUTES)
def test_each_results_route_answers_each_user_as_expected(client, request, survey, who, route):
    url = reverse(ROUTES[route], args=[survey.slug])
    response = as_user(client, request, who).get(url)
    assert response.status_code == EXPECTED[who][route]
    if response.status_code == 302:
        assert response["Location"] == f"/accounts/login/?next={url}"
    if getattr(response, "streaming", False):
        b"".join(response.streaming_content)


@pytest.mark.parametrize("who", ["other_researcher", "anonymous"])
def test_the_api_refuses_in_its_json_error_shape(client, request, survey, who):
    response = as_user(client, request, who).get(reverse(ROUTES["api-estimates"], args=[survey.slug]))
    error = json.loads(response.content)["error"]
    assert set(error) == {"code", "field", "reason"}


def test_an_unknown_survey_is_404_for_a_superuser_too(client, superuser):
    client.force_login(superuser)
    assert client.get(reverse(ROUTES["dashboard"], args=["nope"])).status_code == 404
    assert client.get(reverse(ROUTES["api-estimates"], args=["nope"])).status_code == 404


@pytest.mark.parametrize("who,status", [("owner", 200), ("other_researcher", 200), ("superuser", 200),
                                        ("anonymous", 302)])
def test_the_survey_list_answers_each_user_as_expected(client, request, survey, who, status):
    response = as_user(client, request, who).get(reverse("aggregation:surveys"))
    assert response.status_code == status
    if status == 302:
        assert response["Location"] == "/accounts/login/?next=/results/"


def test_an_inactive_user_sees_nothing(client, owner, survey):
    owner.is_active = False
    owner.save()
    client.force_login(owner)
    assert client.get(reverse(ROUTES["dashboard"], args=[survey.slug])).status_code in (302, 404)


@pytest.mark.parametrize("route", ["dashboard", "reports.csv", "codebook.json"])
def test_results_are_never_cached(client, owner, survey, route):
    client.force_login(owner)
    response = client.get(reverse(ROUTES[route], args=[survey.slug]))
    assert "no-store" in response["Cache-Control"] and "private" in response["Cache-Control"]


def test_the_schema_is_public(client):
    assert client.get(reverse("aggregation:api-schema")).status_code == 200


def test_a_session_the_admin_would_refuse_gets_the_apis_anonymous_answer_word_for_word(client, survey, superuser):
    """A superuser with an authenticator app, signed in without its code (issue 24, item 2)."""
    url = reverse(ROUTES["api-estimates"], args=[survey.slug])
    anonymous = client.get(url)
    TOTPDevice.objects.create(user=superuser, name="phone", confirmed=True)
    client.force_login(superuser)
    refused = client.get(url)
    assert (refused.status_code, json.loads(refused.content)) == (anonymous.status_code, json.loads(anonymous.content))
    assert anonymous.status_code == 403
