"""A signed-in researcher who opens the results of a survey they may not see gets a page saying what to do,
404 and the same page as for a survey that does not exist (a 403 would confirm the slug); anonymous visitors
are sent to log in alike; the API answers the same error for both."""

import json
import re

import pytest
from django.urls import reverse

from tests.collection.pages import parse

WORDS = {
    "en": ["No survey you may see",
           "You do not have access to a survey at this address: either there is none, or you are not among its "
           "researchers.",
           "If you should see its results, ask the site's administrators to add you to the survey's researchers."],
    "es": ["Ninguna encuesta que pueda ver",
           "No tiene acceso a ninguna encuesta en esta dirección: o no la hay, o usted no está entre sus "
           "investigadores.",
           "Si debería ver sus resultados, pida a los administradores del sitio que le añadan a los investigadores "
           "de la encuesta."],
}


def page_text(response):
    """The main part's heading and paragraphs."""
    main = parse(response.content).find("main")
    return [" ".join(part.text.split()) for part in [main.find("h1"), *main.find_all("p")]]


@pytest.mark.parametrize("language", WORDS)
def test_a_researcher_without_access_is_told_whom_to_ask(client, other_researcher, survey, language):
    client.force_login(other_researcher)
    response = client.get(reverse("aggregation:dashboard", args=[survey.slug]), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 404
    assert page_text(response)[:3] == WORDS[language]


def test_the_contact_setting_names_whom_to_ask(client, other_researcher, survey, settings):
    settings.SURVEY_ACCESS_CONTACT = "surveys@example.org"
    client.force_login(other_researcher)
    response = client.get(reverse("aggregation:dashboard", args=[survey.slug]))
    assert page_text(response)[2] == ("If you should see its results, ask surveys@example.org to add you to the "
                                      "survey's researchers.")


@pytest.mark.parametrize("route", ["aggregation:dashboard", "aggregation:export-estimates",
                                   "aggregation:export-reports-csv", "aggregation:api-estimates"])
@pytest.mark.parametrize("who", ["other_researcher", "anonymous"])
def test_a_survey_one_may_not_see_answers_as_one_that_does_not_exist(client, request, survey, who, route):
    if who != "anonymous":
        client.force_login(request.getfixturevalue(who))

    def answer(slug):
        response = client.get(reverse(route, args=[slug]))
        page = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", response.content.decode())  # masked anew
        return response.status_code, response.get("Location", "").replace(slug, "SLUG"), page.replace(slug, "SLUG")

    assert answer(survey.slug) == answer("no-such-survey")


def test_the_api_says_the_same_in_its_error_shape(client, other_researcher, survey):
    client.force_login(other_researcher)
    response = client.get(reverse("aggregation:api-estimates", args=[survey.slug]))
    assert (response.status_code, json.loads(response.content)) == (404, {"error": {
        "code": "not_found", "field": "request", "reason": "no survey you may see has this address: it does not "
        "exist, or you are not among its researchers (the survey's administrators can add you)"}})
