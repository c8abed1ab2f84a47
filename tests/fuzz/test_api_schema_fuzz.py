"""The public API fuzzed from its own OpenAPI schema with schemathesis, in process through the
WSGI application: requests that follow the schema ("positive") and requests that break it
("negative"), for every operation the schema lists.

Most generated requests carry the fixture survey's real slug, a valid CSRF cookie and header,
and, for submissions, often the survey's real version and well-formed reports, so they get past
the 404 and 403 to the views' own validation and sometimes store a response.
"""

import json
from collections import Counter
from urllib.parse import unquote, urlsplit

import pytest
from django.conf import settings
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from tests.factories import valid_payload

from .checks import CSRF_TOKEN, api_route, assert_error_shape, assert_stored_only_if_accepted, rolled_back, stored

EXAMPLES = 600  # per generation mode (8 operations): with fewer, some outcomes it must reach are missed by chance

FUZZ_SETTINGS = hypothesis_settings(
    max_examples=EXAMPLES, deadline=None, derandomize=True, database=None, print_blob=False,
    # Each operation's strategy is drawn inside the test (it needs the fixtures), and negative
    # generation rejects operations it cannot break (a plain string path parameter), hence filtering.
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)

# Who sends the request, listed twice for twice the examples. Without a fixed X-CSRFToken,
# schemathesis generates one (the schema declares it as a security scheme), which the CSRF check refuses.
IDENTITIES = ("researcher", "respondent", "researcher", "respondent", "respondent without CSRF token")

# What the fuzzing must have reached for its verdict to mean anything, per mode:
# (operation, status) pairs that the real code answers only past the 404s and 403s.
MUST_REACH = {
    GenerationMode.POSITIVE: {
        ("GET /api/v1/surveys/{slug}/", 200),
        ("GET /api/v1/surveys/{slug}/estimates/", 200),
        # Not the estimates' 400: valid parameters refuse only weighted=true (the survey has no margins), which
        # the examples, drawn differently on each engine (the questions' ids), reached on one engine and not the
        # other; the negative mode reaches it every time.
        ("GET /api/v1/surveys/{slug}/crosstab/", 200),
        ("GET /api/v1/surveys/{slug}/crosstab/", 400),
        ("GET /api/v1/surveys/{slug}/models/", 400),
        ("GET /api/v1/surveys/{slug}/waves/", 200),
        ("GET /api/v1/surveys/{slug}/waves/", 400),
        ("GET /api/v1/surveys/{slug}/margins/", 200),
        ("PUT /api/v1/surveys/{slug}/margins/", 400),
        ("POST /api/v1/surveys/{slug}/responses/", 201),
        ("POST /api/v1/surveys/{slug}/responses/", 400),
        ("POST /api/v1/surveys/{slug}/responses/", 403),
        ("POST /api/v1/surveys/{slug}/responses/", 409),
    },
    GenerationMode.NEGATIVE: {
        ("GET /api/v1/surveys/{slug}/estimates/", 400),
        ("GET /api/v1/surveys/{slug}/crosstab/", 400),
        ("GET /api/v1/surveys/{slug}/models/", 400),
        ("GET /api/v1/surveys/{slug}/waves/", 400),
        ("POST /api/v1/surveys/{slug}/responses/", 400),
    },
}


@pytest.mark.slow
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=lambda mode: mode.value)
def test_it_never_answers_a_fuzzed_request_with_a_5xx_a_shapeless_error_or_a_stored_refusal(
        mode, api_schema, answered_survey, owner_session, in_process, server_errors):
    survey = answered_survey
    questions = survey.questions.count()
    operations = {result.ok().label: result.ok() for result in api_schema.get_all_operations()}
    cookies = {
        "respondent": {"csrftoken": CSRF_TOKEN},
        "respondent without CSRF token": {},
        "researcher": {"csrftoken": CSRF_TOKEN, settings.SESSION_COOKIE_NAME: owner_session},
    }
    reached = Counter()

    @FUZZ_SETTINGS
    @given(data=st.data())
    def fuzz(data):
        operation = operations[data.draw(st.sampled_from(sorted(operations)), label="operation")]
        identity = data.draw(st.sampled_from(IDENTITIES), label="identity")
        headers = {} if identity == "respondent without CSRF token" else {"X-CSRFToken": CSRF_TOKEN}
        case = data.draw(operation.as_strategy(generation_mode=mode, headers=headers, cookies=cookies[identity]))
        edited = _aim_at_the_survey(data, case, survey, mode == GenerationMode.POSITIVE)
        with rolled_back():
            before = stored()
            response = case.call()
            after = stored()
        request = f"{case.method} {response.request.url} body={case.body!r}"
        assert response.status_code < 500, f"{request}: {response.status_code}\n" + "\n".join(server_errors[-1:])
        path = unquote(urlsplit(response.request.url).path)
        content_type = (response.headers.get("content-type") or [""])[0]
        if response.status_code >= 400:
            assert_error_shape(response.status_code, content_type, response.content, request)
        if api_route(path) is None:
            # Not a slug: no API view serves it; the API's JSON 404 (surveys.errors).
            assert response.status_code == 404, f"{request}: {response.status_code}"
        else:
            checks = [status_code_conformance, content_type_conformance, response_schema_conformance]
            # Only as generated: the edits above may turn a broken request into a valid one.
            case.validate_response(response, checks=checks if edited else [*checks, negative_data_rejection])
        assert_stored_only_if_accepted(response.status_code, before, after, questions, request)
        if path.strip("/").split("/")[3:4] == [survey.slug]:
            reached[(operation.label, response.status_code)] += 1

    fuzz()
    missing = MUST_REACH[mode] - set(reached)
    assert not missing, f"the fuzzing never reached {sorted(missing)}; it did reach {dict(reached)}"


def _aim_at_the_survey(data, case, survey, aim_questions) -> bool:
    """Mostly the real slug, for the cross-tab often two of the survey's real question ids (positive
    mode only: in negative mode the query is what is broken), and
    for submissions often the real version, or a whole valid submission under the generated key,
    so that requests reach validation and storage. Returns whether it changed the generated request."""
    edited = False
    if data.draw(st.sampled_from([True, True, True, False]), label="real slug"):
        edited |= case.path_parameters.get("slug") != survey.slug
        case.path_parameters["slug"] = survey.slug
    real_questions = aim_questions and data.draw(st.sampled_from([True, True, True, False]), label="real questions")
    if case.path.endswith("/crosstab/") and real_questions:
        first, second = survey.ordered_questions().values_list("pk", flat=True)[:2]
        case.query = {**(case.query or {}), "a": first, "b": second}
        edited = True
    if isinstance(case.body, dict):
        aim = data.draw(st.sampled_from(["as generated", "real version", "valid submission"]), label="body")
        valid = valid_payload(survey)
        if aim == "real version":
            case.body["version"] = valid["version"]
        elif aim == "valid submission":
            key = case.body.get("key")
            case.body.clear()
            case.body.update(valid, key=key if isinstance(key, str) else valid["key"])
        edited |= aim != "as generated"
    return edited


def test_a_survey_address_that_is_not_a_slug_gets_the_api_error_shape(respondent, survey):
    for url in ("/api/v1/surveys/caf%C3%A9/", "/api/v1/surveys/a%20b/responses/", "/api/v1/surveys/%2E%2E/estimates/"):
        response = respondent.get(url)
        assert_error_shape(response.status_code, response["Content-Type"], response.content, url)


def test_a_session_cookie_with_a_nul_byte_is_refused_without_a_5xx(respondent, survey):
    respondent.raise_request_exception = False
    # What a Cookie header `sessionid="abcdefgh\000ijkl"` decodes to: Django unquotes octal escapes.
    respondent.cookies[settings.SESSION_COOKIE_NAME] = "abcdefgh\x00ijkl"
    for url in (f"/api/v1/surveys/{survey.slug}/", f"/api/v1/surveys/{survey.slug}/estimates/"):
        response = respondent.get(url)
        assert response.status_code < 500, f"GET {url}: {response.status_code}"
    response = respondent.post(f"/api/v1/surveys/{survey.slug}/responses/", json.dumps(valid_payload(survey)),
                               content_type="application/json", HTTP_X_CSRFTOKEN=CSRF_TOKEN)
    assert response.status_code < 500, f"POST: {response.status_code}"
