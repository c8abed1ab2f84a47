"""The submission payload fuzzed with hypothesis, posted through the view with a valid CSRF token:
arbitrary JSON in every position, valid payloads with one field changed, valid payloads, and
hostile bodies. Nothing is refused with a 5xx; every refusal is a 4xx naming the field at fault;
a refusal stores nothing; and a valid payload is stored, once.
"""

import json
import uuid

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from surveys.collection import invitations, plan
from surveys.collection.models import Survey
from tests.factories import valid_payload

from .checks import CSRF_TOKEN, assert_error_shape, assert_stored_only_if_accepted, rolled_back, stored

BASE_SETTINGS = hypothesis_settings(
    deadline=None, derandomize=True, database=None, print_blob=False,
    # The survey and client fixtures are shared by the examples on purpose: each example runs
    # in a savepoint that is rolled back, so they start from the same state.
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                           HealthCheck.filter_too_much, HealthCheck.data_too_large],
)


def examples(count: int) -> hypothesis_settings:
    return hypothesis_settings(BASE_SETTINGS, max_examples=count)


PAYLOAD_FIELDS = ("version", "key", "reports")

# Strings: any code point, NUL, lone surrogates (json.dumps sends them as "\ud800" escapes).
TEXT = st.text(st.characters(exclude_categories=()), max_size=12) | st.sampled_from(
    ["", "\x00", "\ud800", "a\udfffb", "0", "1", "-1", "true", "null", "[]", "{}", "💥", "x" * 5000])
# Object keys: the same (an error names the key it refuses, so it must survive being echoed).
KEYS = TEXT | st.sampled_from(["", " ", "version", "key", "reports", "invitation", "__proto__", "0", "-1", "1.0"])
INTEGERS = st.integers() | st.sampled_from([0, 1, -1, 2, 3, 4, 2**31, 2**63, -(2**63) - 1, 2**64, 10**100, 10**4000])
FLOATS = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from([0.0, -0.0, 1.0, 0.5, 1e308, 5e-324])
SCALARS = st.none() | st.booleans() | INTEGERS | FLOATS | TEXT
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(KEYS, inner, max_size=5),
                    max_leaves=10)
# Reports near their domains: indexes around 0..k-1, bit lists around length k.
NEAR_REPORTS = st.integers(-2, 5) | st.lists(st.integers(-1, 2) | st.booleans(), max_size=6)


def url(survey):
    return f"/api/v1/surveys/{survey.slug}/responses/"


def post(client, survey, body, content_type="application/json"):
    return client.post(url(survey), body, content_type=content_type, HTTP_X_CSRFTOKEN=CSRF_TOKEN)


def domains(survey) -> dict[str, tuple[str, int]]:
    """Question id (as in `reports`) -> ("index", k) or ("bits", k)."""
    return {str(q.pk): ("bits" if q.mechanism_name in ("sue", "oue") else "index", q.k())
            for q in survey.ordered_questions()}


def valid_report(report, domain) -> bool:
    kind, k = domain
    if kind == "bits":
        return isinstance(report, list) and len(report) == k and all(type(bit) is int and bit in (0, 1)
                                                                    for bit in report)
    return type(report) is int and 0 <= report < k


def valid_key(key) -> bool:
    if not isinstance(key, str):
        return False
    try:
        uuid.UUID(key)
    except ValueError:
        return False
    return True


def is_valid(payload, version, survey_domains) -> bool:
    """The API's contract for a link survey's submission, written independently of the app."""
    return (isinstance(payload, dict) and set(payload) == set(PAYLOAD_FIELDS)
            and payload["version"] == version and isinstance(payload["version"], str)
            and valid_key(payload["key"])
            and isinstance(payload["reports"], dict) and set(payload["reports"]) == set(survey_domains)
            and all(valid_report(payload["reports"][q], d) for q, d in survey_domains.items()))


def valid_values(survey):
    """Random in-domain reports, as valid_payload's `values` (question order -> report)."""
    return st.fixed_dictionaries({
        q.order: st.lists(st.integers(0, 1), min_size=q.k(), max_size=q.k())
        if q.mechanism_name in ("sue", "oue") else st.integers(0, q.k() - 1)
        for q in survey.ordered_questions()})


def check_answer(response, before, after, survey, request, valid: bool):
    """Valid: stored (201). Otherwise a 4xx in the error shape, nothing stored. Returns the error."""
    assert response.status_code < 500, f"{request}: {response.status_code}"
    error = None
    if valid:
        assert response.status_code == 201, f"{request}: valid, yet {response.status_code}: {response.content!r}"
    else:
        error = assert_error_shape(response.status_code, response["Content-Type"], response.content, request)
    assert_stored_only_if_accepted(response.status_code, before, after, survey.questions.count(), request)
    return error


@pytest.mark.slow
def test_arbitrary_json_in_any_position_is_refused_with_a_4xx_naming_a_field_and_stores_nothing(respondent, survey):
    version, survey_domains = plan.of(survey).version, domains(survey)
    # Every position: the body itself, each field's value, each report's value, extra fields and
    # reports, missing fields; each value often right, so that later checks are reached too.
    reports = st.builds(
        lambda known, extra: {**extra, **known},
        st.fixed_dictionaries({q: NEAR_REPORTS | JSON for q in survey_domains}),
        st.dictionaries(KEYS, NEAR_REPORTS | JSON, max_size=2)) | JSON
    fields = st.fixed_dictionaries({"version": st.just(version) | JSON, "key": st.uuids().map(str) | JSON,
                                    "reports": reports})
    shaped = st.builds(
        lambda given, missing, extra: {name: value for name, value in {**extra, **given}.items()
                                       if name not in missing},
        fields, st.sets(st.sampled_from(PAYLOAD_FIELDS), max_size=3), st.dictionaries(KEYS, JSON, max_size=2))
    bodies = JSON | fields | shaped

    @examples(150)
    @given(payload=bodies)
    def fuzz(payload):
        with rolled_back():
            before = stored()
            response = post(respondent, survey, json.dumps(payload))
            after = stored()
        check_answer(response, before, after, survey, f"POST {payload!r}", is_valid(payload, version, survey_domains))

    fuzz()


@st.composite
def one_field_changed(draw, survey):
    """A valid payload with one field replaced by arbitrary JSON, removed, or one field added;
    and the error field a refusal must name: a predicate on it."""
    payload = valid_payload(survey, key=draw(st.uuids()), values=draw(valid_values(survey)))
    reports = payload["reports"]
    where = draw(st.sampled_from([*PAYLOAD_FIELDS, *(f"reports.{q}" for q in reports), "new field", "new report"]))
    if where == "new field":
        name = draw(KEYS.filter(lambda name: name not in PAYLOAD_FIELDS))
        payload[name] = draw(JSON)
        return payload, name.__eq__
    if where == "new report":
        name = draw(KEYS.filter(lambda name: name not in reports))
        reports[name] = draw(JSON | NEAR_REPORTS)
        return payload, f"reports.{name}".__eq__
    parent, name = (reports, where.split(".", 1)[1]) if where.startswith("reports.") else (payload, where)
    if draw(st.booleans()):
        del parent[name]
    else:
        parent[name] = draw(JSON | NEAR_REPORTS if parent is reports else
                            JSON | st.uuids().map(str) | st.just(plan.of(survey).version))
    if where == "reports" and isinstance(payload.get("reports"), dict):
        # A whole new reports object: the refusal names the report at fault within it.
        return payload, lambda field: field.startswith("reports.")
    return payload, where.__eq__


@pytest.mark.slow
def test_a_valid_payload_with_one_field_changed_is_refused_naming_that_field_unless_still_valid(respondent, survey):
    version, survey_domains = plan.of(survey).version, domains(survey)

    @examples(150)
    @given(changed=one_field_changed(survey))
    def fuzz(changed):
        payload, names_the_field = changed
        with rolled_back():
            before = stored()
            response = post(respondent, survey, json.dumps(payload))
            after = stored()
        request = f"POST {payload!r}"
        error = check_answer(response, before, after, survey, request, is_valid(payload, version, survey_domains))
        if error is not None:
            assert names_the_field(error["field"]), f"{request}: the refusal names {error['field']!r}: {error}"

    fuzz()


@pytest.mark.slow
def test_a_valid_payload_is_stored_once_and_a_retry_with_its_key_stores_nothing(respondent, survey):
    by_order = {q.order: q for q in survey.ordered_questions()}

    @examples(25)
    @given(key=st.uuids(), values=valid_values(survey), other=valid_values(survey))
    def fuzz(key, values, other):
        payload = valid_payload(survey, key=key, values=values)
        with rolled_back():
            before = stored()
            first = post(respondent, survey, json.dumps(payload))
            after = stored()
            retry = post(respondent, survey, json.dumps(payload))
            after_retry = stored()
            reused = post(respondent, survey, json.dumps(valid_payload(survey, key=payload["key"], values=other)))
            after_reuse = stored()
        request = f"POST {payload!r}"
        assert first.status_code == 201, f"{request}: {first.status_code} {first.content!r}"
        assert first.json()["reports"] == payload["reports"]
        assert_stored_only_if_accepted(201, before, after, len(by_order), request)
        # Each index report counts in its question's n and its option; a bit list in n and each 1-bit.
        counted = sum(1 + (sum(v) if isinstance(v, list) else 1) for v in values.values())
        assert after["tally total"] - before["tally total"] == counted, f"{request}: {before} -> {after}"
        assert (retry.status_code, retry.json()) == (200, first.json()), f"{request}: retry {retry.content!r}"
        assert after_retry == after, f"{request}: the retry stored something: {after} -> {after_retry}"
        if other == values:
            assert reused.status_code == 200
        else:
            error = assert_error_shape(reused.status_code, reused["Content-Type"], reused.content, request)
            assert (reused.status_code, error["field"]) == (409, "key")
        assert after_reuse == after, f"{request}: reusing the key stored something: {after} -> {after_reuse}"

    fuzz()


def _body_with_reports(survey, text_of_first_report: str) -> str:
    """A valid payload's JSON with the first report's value replaced by raw JSON text."""
    payload = valid_payload(survey)
    first = next(iter(payload["reports"]))
    payload["reports"][first] = "PLACEHOLDER"
    return json.dumps(payload).replace('"PLACEHOLDER"', text_of_first_report)


HOSTILE = {
    "empty": ("", "application/json"),
    "truncated": ('{"version": "', "application/json"),
    "not utf-8": (b'{"version": "\xff\xfe"}', "application/json"),
    "NaN": ("NaN", "application/json"),
    "Infinity in a report": (lambda s: _body_with_reports(s, "Infinity"), "application/json"),
    "1e999 in a report": (lambda s: _body_with_reports(s, "1e999"), "application/json"),
    "a 5000-digit integer in a report": (lambda s: _body_with_reports(s, "9" * 5000), "application/json"),
    "a 4000-digit integer in a report": (lambda s: _body_with_reports(s, "9" * 4000), "application/json"),
    "duplicate fields": (lambda s: json.dumps(valid_payload(s))[:-1] + ', "version": 1}', "application/json"),
    "nested 50 deep": ('{"version": ' + "[" * 50 + "]" * 50 + "}", "application/json"),
    "3 MB string": ('{"version": "' + "x" * 3_000_000 + '"}', "application/json"),
    "text/plain": (lambda s: json.dumps(valid_payload(s)), "text/plain"),
    "form-encoded": ("version=1&key=2", "application/x-www-form-urlencoded"),
    "lone surrogate as a value": ('{"version": "\\ud800", "key": "\\udfff", "reports": {}}', "application/json"),
    # Echoed as the error's field: it must still encode as UTF-8.
    "lone surrogate as a field name": ('{"\\ud800": 1}', "application/json"),
    "lone surrogate as a report's question id": (
        lambda s: json.dumps({**valid_payload(s), "reports": {"\ud800": 1}}), "application/json"),
    # json.loads raises RecursionError (not a ValueError) beyond ~900 levels.
    "nested 100000 deep": ('{"version": ' + "[" * 100_000 + "]" * 100_000 + "}", "application/json"),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_bodies_are_refused_with_a_4xx_and_store_nothing(respondent, survey, name):
    body, content_type = HOSTILE[name]
    body = body(survey) if callable(body) else body
    respondent.raise_request_exception = False  # a 500 is the failure to report, not an exception
    before = stored()
    response = post(respondent, survey, body, content_type=content_type)
    assert response.status_code < 500, f"{name}: {response.status_code}"
    assert_error_shape(response.status_code, response["Content-Type"], response.content, name)
    assert response.status_code != 403, f"{name}: refused by the CSRF check, not for its body"
    assert stored() == before


def test_a_lone_surrogate_as_an_invitation_token_is_refused_with_a_4xx(respondent, survey):
    survey.access = Survey.Access.INVITATION
    survey.save()
    invitations.create(survey, 1)
    respondent.raise_request_exception = False
    before = stored()
    response = post(respondent, survey, json.dumps({**valid_payload(survey), "invitation": "\ud800"}))
    assert response.status_code < 500, f"{response.status_code}"
    assert_error_shape(response.status_code, response["Content-Type"], response.content, "invitation")
    assert stored() == before
