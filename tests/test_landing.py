"""GET /: a small front page instead of a 404. Anonymous visitors are told to open their survey's
link and offered the researchers' sign-in; a signed-in researcher gets their surveys' results,
staff the admin too. In the browser's language; never cached; nothing but GET and HEAD."""

import pytest
from django.contrib.auth import get_user_model

from tests.collection.pages import parse
from tests.factories import PASSWORD, make_user


def links(response) -> list[tuple[str, str]]:
    """(href, text) of every link in the page's main content."""
    return [(a.attrs["href"], a.text) for a in parse(response.content).find("main").find_all("a")]


@pytest.mark.django_db
def test_it_offers_anonymous_visitors_the_researchers_sign_in(client):
    response = client.get("/")
    assert (response.status_code, response["Content-Type"]) == (200, "text/html; charset=utf-8")
    assert links(response) == [("/accounts/login/", "Sign in to see your surveys' results")]
    assert parse(response.content).find("h1").text == "Private surveys"
    assert "Open the link you were given" in response.content.decode()


def test_it_takes_a_researcher_to_their_surveys_results(owner_client):
    response = owner_client.get("/")
    assert links(response) == [("/results/", "Your surveys' results")]
    assert parse(response.content).find("nav", **{"class": "researcher"}).find("a").attrs["href"] == "/results/"


def test_it_takes_staff_to_the_admin_too(client, db):
    client.force_login(make_user("staff", is_staff=True))
    assert links(client.get("/")) == [("/results/", "Your surveys' results"),
                                      ("/admin/", "Administration: create and manage surveys")]


def test_it_takes_a_superuser_to_the_admin_too(client, db):
    client.force_login(get_user_model().objects.create_superuser(username="root", password=PASSWORD))
    assert [href for href, _ in links(client.get("/"))] == ["/results/", "/admin/"]


@pytest.mark.django_db
def test_it_speaks_the_browsers_language(client):
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="ar")
    assert parse(response.content).find("html").attrs == {"lang": "ar", "dir": "rtl"}
    assert links(response) == [("/accounts/login/", "سجّل الدخول لرؤية نتائج استبياناتك")]


@pytest.mark.django_db
def test_it_is_never_cached_and_answers_only_get_and_head(client):
    response = client.get("/")
    assert "no-cache" in response["Cache-Control"] and "no-store" in response["Cache-Control"]
    assert (client.head("/").status_code, client.post("/").status_code) == (200, 405)
