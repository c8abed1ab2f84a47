"""Every state of every page passes axe-core's WCAG 2.2 A and AA checks, in every language under test:
the respondent page answering, with its problems shown, refused by the server, kept unsent, sent (the
receipt), already sent, in preview, closed, and of the question kinds demo; the front page signed out
and in; the sign-in pages with their errors and the two-factor page; the researcher's list and
dashboards (early, with results, a cross-tab, the question kinds' charts, a bad parameter); the 404
page. Each state is checked to be the one shown before axe runs, and each has one home: this module
(the admin's survey pages and the direct questions' pages, in English, are in test_accessibility)."""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from surveys.collection import builder, demo, plan
from surveys.collection.models import Response, Survey
from tests.e2e.answering import answer
from tests.e2e.conftest import agree, axe_violations
from tests.e2e.test_accessibility import log_in
from tests.e2e.test_dashboard_early_results import small_survey
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def in_language(page, language):
    """The page says it is in `language` (lang="es", lang="es-ar"...): what screen readers speak it in."""
    assert page.locator("html").get_attribute("lang").split("-")[0] == language


def visible(page, selector):
    # Waits: a click that submits a form returns before the answer's page has loaded.
    expect(page.locator(selector)).to_be_visible()
    return True


def answer_with_the_last_option(page):
    for fieldset in page.locator("fieldset.question:visible").all():
        fieldset.locator("input[type=radio]").last.check()


def test_the_demo_respondent_page_has_no_violations_in_any_state(live_server, page_in_language, language):
    survey, _ = demo.create_demo_survey()
    page = page_in_language()
    page.goto(f"{live_server.url}/s/demo/")
    page.wait_for_selector("#agree:enabled")
    in_language(page, language)
    assert axe_violations(page) == [], "asking for consent"
    agree(page)
    page.wait_for_selector("#send:enabled")
    assert axe_violations(page) == [], "answering"

    page.locator("fieldset.question").first.locator("input[type=radio]").first.check()
    page.click("#send")
    assert page.locator(".problem:visible").count() == 2
    assert axe_violations(page) == [], "problems shown"

    answer_with_the_last_option(page)
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED)  # closed while the page was open
    # The server's answer, not the button: it is disabled from the moment sending starts, and a survey
    # opened again before the request arrives would take it.
    with page.expect_response(lambda answer: answer.request.method == "POST") as refusal:
        page.click("#send")
    assert 400 <= refusal.value.status < 500
    expect(page.locator("#status")).to_contain_text(refusal.value.json()["error"]["reason"])
    assert page.locator("#send").is_disabled() and visible(page, "#survey")  # sending again would not help
    assert Response.objects.count() == 0
    assert axe_violations(page) == [], "refused by the server"

    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.OPEN)
    page.reload()
    assert visible(page, "#unsent") and page.locator("#survey").is_hidden()
    assert axe_violations(page) == [], "kept unsent"

    page.click("#resend")
    page.wait_for_selector("#receipt:not([hidden])")
    assert Response.objects.count() == 1
    page.locator("#receipt details summary").click()  # the request body too
    assert axe_violations(page) == [], "receipt"

    page.reload()
    assert visible(page, "#already-sent") and page.locator("#survey").is_hidden()
    assert axe_violations(page) == [], "already sent"
    page.click("#respond-again")
    agree(page)  # another person agrees for themselves
    assert visible(page, "#survey")
    page.locator(".protection summary").click()  # how it works, open
    assert axe_violations(page) == [], "answering again, the explanation open"

    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED)
    page.reload()
    assert page.locator("#survey").count() == 0 and visible(page, ".notice")
    assert axe_violations(page) == [], "closed"


def test_the_question_kinds_demo_has_no_violations_in_any_state(live_server, page_in_language):
    survey, _ = demo.create_types_survey()
    page = page_in_language()
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.wait_for_selector("#send:enabled")
    assert axe_violations(page) == [], "answering"

    answer(page, [[0, 1, 2], "12.5", "31", "", 0])  # too many ticks, off the grid, out of range, missing
    page.click("#send")
    assert page.locator(".problem:visible").count() == 4
    assert page.locator("[aria-invalid=true]").count() == 3
    assert axe_violations(page) == [], "problems shown"

    page.reload()
    page.wait_for_selector("#send:enabled")
    answer(page, [[1], "12", "3", "40", 2])
    page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")
    assert axe_violations(page) == [], "receipt"


def test_the_preview_the_404_and_the_no_access_pages_have_no_violations(live_server, page_in_language, language):
    survey, _ = demo.create_demo_survey()
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.DRAFT)
    make_user("editor", is_staff=True)
    page = page_in_language()
    log_in(page, f"{live_server.url}/admin/login/", "editor", f"/s/{survey.slug}/preview/")
    assert visible(page, "#preview-banner")
    answer_with_the_last_option(page)
    assert axe_violations(page) == [], "preview"

    response = page.goto(f"{live_server.url}/s/no-such-survey/")
    assert response.status == 404
    in_language(page, language)
    assert axe_violations(page) == [], "404"

    response = page.goto(f"{live_server.url}/results/{survey.slug}/")  # signed in, not among its researchers
    assert response.status == 404
    in_language(page, language)
    assert axe_violations(page) == [], "no access"


def test_the_front_and_sign_in_pages_have_no_violations_with_or_without_errors(live_server, page_in_language,
                                                                               language):
    get_user_model().objects.create_superuser(username="admin", password=PASSWORD)
    page = page_in_language()
    page.goto(f"{live_server.url}/")
    assert page.locator("html").get_attribute("lang") == language
    assert page.locator("main a").count() == 1  # signing in
    assert axe_violations(page) == [], "front page signed out"

    page.goto(f"{live_server.url}/accounts/login/")
    in_language(page, language)
    assert axe_violations(page) == [], "sign in"
    page.fill("#id_username", "admin")
    page.fill("#id_password", "wrong")
    page.click("[type=submit]")
    assert visible(page, ".notice[role=alert]")
    assert axe_violations(page) == [], "sign in refused"

    page.goto(f"{live_server.url}/admin/login/")
    in_language(page, language)
    assert axe_violations(page) == [], "admin sign in"
    page.fill("#id_username", "admin")
    page.fill("#id_password", "wrong")
    page.click("[type=submit]")
    assert visible(page, ".errornote")
    assert axe_violations(page) == [], "admin sign in refused"

    log_in(page, f"{live_server.url}/admin/login/", "admin", "/")
    assert page.url == f"{live_server.url}/" and page.locator("main a").count() == 2  # results, the admin
    assert axe_violations(page) == [], "front page signed in"
    page.goto(f"{live_server.url}/accounts/two-factor/")
    assert visible(page, ".two-factor-qr svg")
    page.fill("#id_password", PASSWORD)
    page.fill("#id_code", "000000")
    page.click("#content-main [type=submit]")
    assert visible(page, ".errorlist")
    assert axe_violations(page) == [], "two-factor enrolment with a wrong code"


def test_the_researchers_list_and_dashboards_have_no_violations_in_any_state(live_server, page_in_language, language):
    owner = make_user("researcher")
    early, enough = small_survey("early", owner), small_survey("enough", owner)
    builder.simulate_responses(early, 2, {}, seed=1)
    builder.simulate_responses(enough, 400, {1: [0.7, 0.3], 2: demo.TRUTH[3]}, seed=2)
    kinds, _ = demo.create_types_survey()
    kinds.researchers.add(owner)
    demo.simulate_types_responses(kinds, 300, seed=3)
    page = page_in_language()
    log_in(page, f"{live_server.url}/accounts/login/", "researcher", "/results/")
    in_language(page, language)
    assert page.locator("tbody tr").count() == 3
    assert axe_violations(page) == [], "list"

    page.goto(f"{live_server.url}/results/early/")
    assert page.locator(".notice.early").count() == 2
    assert axe_violations(page) == [], "early results"

    first, second = plan.of(enough).questions
    page.goto(f"{live_server.url}/results/enough/?margin=0.1&interval=wilson&a={first.id}&b={second.id}")
    assert page.locator(".notice.early").count() == 0 and page.locator("svg.chart.estimates").count() == 2
    assert visible(page, "#relating table.joint")
    page.locator("details.per-day summary").click()
    assert axe_violations(page) == [], "results and a cross-tab"

    ids = [q.id for q in plan.of(kinds).questions]
    page.goto(f"{live_server.url}/results/{kinds.slug}/?margin=0.5&a={ids[4]}&b={ids[0]}")
    assert page.locator("svg.chart.mean").count() == 3 and page.locator("svg.chart.histogram").count() == 1
    assert axe_violations(page) == [], "the question kinds' results"

    response = page.goto(f"{live_server.url}/results/enough/?margin=abc")
    assert response.status == 400 and visible(page, "[role=alert]")
    assert axe_violations(page) == [], "a bad parameter"


def test_the_probe_sees_a_missing_text_alternative_and_a_wcag_22_violation(live_server, page):
    """The check can fail, and it runs the rules of WCAG 2.2 AA too: an image without a text alternative
    is reported, and two tiny buttons side by side break 2.5.8 (target size)."""
    demo.create_demo_survey()
    page.goto(f"{live_server.url}/s/demo/")
    page.evaluate("""() => {
      document.querySelector("h1").insertAdjacentHTML("afterend", '<img src="/x.png">');
      for (const word of ["a", "b"]) {
        const button = document.createElement("button");
        button.textContent = word;
        Object.assign(button.style, { width: "10px", height: "10px", padding: "0", margin: "0", fontSize: "6px" });
        document.querySelector("h1").after(button);
      }
    }""")  # styled through the CSSOM: the page's CSP refuses style attributes
    found = [v["id"] for v in axe_violations(page)]
    assert "image-alt" in found and "target-size" in found
