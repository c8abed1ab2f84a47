"""Multi-select, numeric and ordinal questions fuzzed: submissions to a survey with a multi-select, a 1-bit mean,
discrete Laplace, a numeric histogram and an ordinal question (arbitrary JSON in every report, valid payloads with one
report changed), and the API's schema fuzzed against that survey, so that every new shape the API answers with
(samplers, scales, bins, scores, means) is checked against the schema it publishes. Nothing is refused with a 5xx; every
refusal is a 4xx naming the field; a refusal stores nothing."""

import json
import uuid
from collections import Counter
from urllib.parse import unquote, urlsplit  # noqa: I001

import pytest
from django.conf import settings
from hypothesis import given
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import content_type_conformance, response_schema_conformance, status_code_conformance

from surveys.collection import plan, submission
from tests.factories import valid_payload
from tests.fuzz.checks import (
    CSRF_TOKEN,
    api_route,
    assert_error_shape,
    assert_stored_only_if_accepted,
    rolled_back,
    stored,
)
from tests.fuzz.test_api_schema_fuzz import FUZZ_SETTINGS, IDENTITIES, _aim_at_the_survey
from tests.fuzz.test_submission_payload_fuzz import JSON, NEAR_REPORTS, check_answer, examples, post, valid_key


def domains(survey):
    """Question id -> a predicate on its report, written from each kind's contract (not the app's code)."""
    found = {}
    for q in plan.of(survey):
        m = q.mechanism
        if m.name == "multiselect":
            found[str(q.id)] = lambda r, k=m.k: (isinstance(r, list) and len(r) == k
                                                 and all(type(b) is int and b in (0, 1) for b in r))
        elif m.name == "dlaplace":
            found[str(q.id)] = lambda r, lo=-m.bound, hi=m.steps + m.bound: type(r) is int and lo <= r <= hi
        else:  # an option index: the 1-bit mean's bit, a bin, a level
            found[str(q.id)] = lambda r, k=m.k: type(r) is int and 0 <= r < k
    return found


def is_valid(payload, version, checks):
    return (isinstance(payload, dict) and set(payload) == {"version", "key", "reports"}
            and payload["version"] == version and valid_key(payload["key"])
            and isinstance(payload["reports"], dict) and set(payload["reports"]) == set(checks)
            and all(check(payload["reports"][q]) for q, check in checks.items()))


def near(survey):
    """Reports near each kind's domain: indexes, bit lists, and integers about discrete Laplace's clamp."""
    bound = plan.of(survey).questions[2].mechanism.bound
    return NEAR_REPORTS | st.sampled_from([-bound - 1, -bound, 20 + bound, 21 + bound, 2**63])


@pytest.mark.slow
def test_any_report_to_a_new_kind_is_stored_only_when_in_its_domain(respondent, kinds_survey):
    version, checks = plan.of(kinds_survey).version, domains(kinds_survey)
    reports = st.fixed_dictionaries({q: near(kinds_survey) | JSON for q in checks})

    @examples(200)
    @given(reports=reports, key=st.uuids())
    def fuzz(reports, key):
        payload = {"version": version, "key": str(key), "reports": reports}
        with rolled_back():
            before = stored()
            response = post(respondent, kinds_survey, json.dumps(payload))
            after = stored()
        request = f"POST {payload!r}"
        error = check_answer(response, before, after, kinds_survey, request, is_valid(payload, version, checks))
        if error is not None:
            wrong = [f"reports.{q}" for q, check in checks.items() if not check(reports[q])]
            assert error["field"] in wrong, f"{request}: the refusal names {error['field']!r}, not one of {wrong}"

    fuzz()


@pytest.fixture
def answered_kinds(kinds_survey):
    for i in range(12):
        values = {1: [i % 2, (i // 2) % 2, 0, 1], 2: i % 2, 3: i - 3, 4: i % 4, 5: i % 4}
        submission.submit(kinds_survey, valid_payload(kinds_survey, key=uuid.UUID(int=i + 1), values=values))
    return kinds_survey


# What the random part must reach; the answers that need a researcher's real query or a whole valid
# submission are requested on purpose afterwards (`CHOSEN`), so that they are checked whatever is drawn.
MUST_REACH = {("GET /api/v1/surveys/{slug}/", 200), ("POST /api/v1/surveys/{slug}/responses/", 400)}


def chosen(survey):
    """(operation, identity, query, body, status) requested on purpose: every shape multi-select, numeric and ordinal
    questions answer with."""
    relatable = [q.id for q in plan.of(survey) if q.relatable]
    return [
        ("GET /api/v1/surveys/{slug}/", "respondent", {}, None, 200),
        ("GET /api/v1/surveys/{slug}/estimates/", "researcher", {}, None, 200),
        ("GET /api/v1/surveys/{slug}/estimates/", "researcher", {"simultaneous": "true", "margin": "0.5"}, None, 200),
        ("GET /api/v1/surveys/{slug}/crosstab/", "researcher", {"a": relatable[0], "b": relatable[-1]}, None, 200),
        ("GET /api/v1/surveys/{slug}/crosstab/", "researcher", {"a": plan.of(survey).questions[1].id,
                                                                "b": relatable[0]}, None, 400),
        ("POST /api/v1/surveys/{slug}/responses/", "respondent", {}, valid_payload(survey), 201),
    ]


@pytest.mark.slow
def test_every_answer_about_the_new_kinds_conforms_to_the_published_schema(
        api_schema, answered_kinds, owner_session, in_process, server_errors):
    survey = answered_kinds
    operations = {result.ok().label: result.ok() for result in api_schema.get_all_operations()}
    cookies = {"respondent": {"csrftoken": CSRF_TOKEN}, "respondent without CSRF token": {},
               "researcher": {"csrftoken": CSRF_TOKEN, settings.SESSION_COOKIE_NAME: owner_session}}
    reached = Counter()

    @FUZZ_SETTINGS
    @given(data=st.data())
    def fuzz(data):
        operation = operations[data.draw(st.sampled_from(sorted(operations)), label="operation")]
        identity = data.draw(st.sampled_from(IDENTITIES), label="identity")
        headers = {} if identity == "respondent without CSRF token" else {"X-CSRFToken": CSRF_TOKEN}
        case = data.draw(operation.as_strategy(generation_mode=GenerationMode.POSITIVE, headers=headers,
                                               cookies=cookies[identity]))
        _aim_at_the_survey(data, case, survey, True)
        with rolled_back():
            before = stored()
            response = case.call()
            after = stored()
        request = f"{case.method} {response.request.url} body={case.body!r}"
        assert response.status_code < 500, f"{request}: {response.status_code}\n" + "\n".join(server_errors[-1:])
        path = unquote(urlsplit(response.request.url).path)
        if response.status_code >= 400:
            assert_error_shape(response.status_code, (response.headers.get("content-type") or [""])[0],
                               response.content, request)
        if api_route(path) is not None:
            case.validate_response(response, checks=[status_code_conformance, content_type_conformance,
                                                     response_schema_conformance])
        assert_stored_only_if_accepted(response.status_code, before, after, 5, request)
        if path.strip("/").split("/")[3:4] == [survey.slug]:
            reached[(operation.label, response.status_code)] += 1

    fuzz()
    assert not MUST_REACH - set(reached), f"the fuzzing never reached {sorted(MUST_REACH - set(reached))}: {reached}"
    for label, identity, query, body, status in chosen(survey):
        case = operations[label].Case(path_parameters={"slug": survey.slug}, query=query, cookies=cookies[identity],
                                      headers={"X-CSRFToken": CSRF_TOKEN}, **({} if body is None else {"body": body}))
        response = case.call()
        assert response.status_code == status, f"{label} {query}: {response.status_code} {response.content[:300]!r}"
        case.validate_response(response, checks=[status_code_conformance, content_type_conformance,
                                                 response_schema_conformance])
