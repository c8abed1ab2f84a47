"""The OpenAPI 3 schema at /api/v1/schema/: public, JSON, valid, and complete."""

import json

import pytest
from django.core.management import call_command
from django.urls import get_resolver, reverse
from django.urls.resolvers import URLPattern, URLResolver

from surveys import errors


def api_routes(patterns=None, prefix=""):
    """Every URL under api/ in the project's URLconf, in OpenAPI's {param} spelling."""
    found = set()
    for pattern in patterns if patterns is not None else get_resolver().url_patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            found |= api_routes(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern) and route.startswith("api/"):
            found.add("/" + route.replace("<slug:slug>", "{slug}"))
    return found


@pytest.fixture
def schema(client, db):
    response = client.get(reverse("aggregation:api-schema"))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/vnd.oai.openapi+json")
    return json.loads(response.content)


def test_it_is_public_json_openapi_3(schema):
    assert schema["openapi"].startswith("3.")
    assert schema["info"]["title"] == "Private surveys API"


def test_it_lists_every_api_path(schema):
    assert api_routes() <= set(schema["paths"])
    assert {"/api/v1/surveys/{slug}/", "/api/v1/surveys/{slug}/responses/",
            "/api/v1/surveys/{slug}/estimates/", "/api/v1/schema/"} <= set(schema["paths"])


def test_it_describes_the_respondent_endpoints_shapes(schema):
    definition = schema["paths"]["/api/v1/surveys/{slug}/"]["get"]
    assert definition["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/SurveyDefinition")
    submit = schema["paths"]["/api/v1/surveys/{slug}/responses/"]["post"]
    assert submit["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith("/Submission")
    assert {"200", "201", "400", "409", "410"} <= set(submit["responses"])
    submission = schema["components"]["schemas"]["Submission"]
    assert set(submission["required"]) == {"version", "key", "reports"}
    assert "csrfToken" in schema["components"]["securitySchemes"]


def test_it_describes_the_estimates_parameters_and_errors(schema):
    estimates = schema["paths"]["/api/v1/surveys/{slug}/estimates/"]["get"]
    names = {parameter["name"] for parameter in estimates["parameters"]}
    assert {"slug", "confidence", "interval", "simultaneous", "margin"} <= names
    assert {"200", "400", "403", "404"} <= set(estimates["responses"])
    option = schema["components"]["schemas"]["OptionEstimate"]["properties"]
    assert {"estimate", "std_error", "ci_low", "ci_high", "count", "post_processed"} <= set(option)
    assert schema["components"]["schemas"]["Error"]["properties"]["error"]


def test_it_validates_without_warnings(tmp_path):
    target = tmp_path / "schema.json"
    call_command("spectacular", "--validate", "--fail-on-warn", "--format", "openapi-json", "--file", str(target))
    assert "/api/v1/surveys/{slug}/estimates/" in json.loads(target.read_text())["paths"]


def test_every_api_operation_but_the_schema_documents_the_outage_answer(schema):
    # Any of them meets a database outage as a 503 in the error shape (surveys/errors.py).
    operations = {(path, method): operation for path, methods in schema["paths"].items()
                  for method, operation in methods.items() if path != "/api/v1/schema/"}
    assert {key: operation["responses"].get("503", {}).get("content", {}).get("application/json", {})
            .get("schema", {}).get("$ref") for key, operation in operations.items()} == dict.fromkeys(
        operations, "#/components/schemas/Error")


def test_the_error_shape_lists_every_code_the_api_answers(schema):
    components = schema["components"]["schemas"]
    detail = components[components["Error"]["properties"]["error"]["$ref"].rpartition("/")[2]]
    assert detail["required"] == ["code", "field", "reason"]
    assert detail["properties"]["code"]["allOf"] == [{"$ref": "#/components/schemas/ErrorCodeEnum"}]
    assert components["ErrorCodeEnum"]["enum"] == list(errors.CODES)
