"""From nothing to a live survey, as a new admin plays it in a real browser: sign in, build a survey
of three questions (a yes/no q-RR, a yes/no bit flip, a five-option single choice with its options
typed in place) watching the live privacy figures and the running total, open it from its own page,
copy its link, answer it as a respondent, and see the response on the results page.

Every click, keystroke sequence (a fill), choice and address typed counts as one interaction; the
journey must take fewer than 25. Screenshots of the builder at 1280 and 390 px go to
$SCREENSHOTS (default: none)."""

import os
import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

import ldp
from surveys.collection.models import Response, Survey
from tests.e2e.conftest import TIMEOUT, add_question, axe_violations
from tests.e2e.test_staff_pages import csp_violations
from tests.factories import PASSWORD, saved_total

pytestmark = pytest.mark.django_db(transaction=True)
MOST_INTERACTIONS = 24  # "fewer than 25"
DRUGS = ["Never", "Once or twice", "Monthly", "Weekly", "Daily"]


class Journey:
    """The page, with a count of what the person did on it."""

    def __init__(self, page, base_url):
        self.page, self.base_url, self.count = page, base_url, 0

    def goto(self, path_or_url):
        self.count += 1
        self.page.goto(path_or_url if path_or_url.startswith("http") else self.base_url + path_or_url)

    def click(self, selector):
        self.count += 1
        self.page.click(selector)

    def add_question(self):
        self.count += 1
        return add_question(self.page)

    def fill(self, selector, text):
        self.count += 1
        self.page.fill(selector, text)

    def choose(self, selector, value):
        self.count += 1
        self.page.select_option(selector, value)

    def check(self, locator):
        self.count += 1
        locator.check()


def shot(page, name):
    folder = os.environ.get("SCREENSHOTS")
    if folder:
        page.screenshot(path=os.path.join(folder, f"{name}.png"), full_page=True)


def test_a_new_admin_gets_a_survey_live_and_answered_in_fewer_than_25_interactions(live_server, browser):
    get_user_model().objects.create_superuser(username="admin", password=PASSWORD)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    violations = csp_violations(page)
    you = Journey(page, live_server.url)

    you.goto("/admin/login/?next=/admin/collection/survey/add/")
    you.fill("#id_username", "admin")
    you.fill("#id_password", PASSWORD)
    you.click("[type=submit]")
    you.fill("#id_title", "Campus life")  # the slug follows the title
    total = page.locator("#privacy-total")

    # The new survey has one question row: a q-RR with q = 0.5 (epsilon = ln 3) unless changed.
    you.fill("[name=questions-0-text]", "Have you ever cheated on an exam?")
    first = page.locator("#questions-0 .field-privacy .readonly")
    expect(first).to_have_text(re.compile(r"^ε = 1\.0987 \(q = 0\.5, p = 3/4\)"))  # ln 3 = 1.098612..., rounded up
    you.add_question()
    you.fill("[name=questions-1-text]", "Have you driven after drinking?")
    you.choose("[name=questions-1-mechanism_name]", "bitflip")  # epsilon = 1 unless changed
    you.add_question()
    you.fill("[name=questions-2-text]", "How often do you use recreational drugs?")
    you.choose("[name=questions-2-kind]", "single_choice")  # k-ary RR, epsilon = 1, offered first
    you.fill("[name=questions-2-options_text]", "\n".join(DRUGS))
    mechanisms = [ldp.QRandomizedResponse("0.5"), ldp.BitFlip(1.0), ldp.KaryRR(1.0, 5)]
    expect(page.locator("#questions-2 .field-privacy .readonly")).to_contain_text(
        f"{ldp.respondents_needed(mechanisms[2], 0.05):,} respondents")
    expect(total).to_have_attribute("data-total", saved_total(*mechanisms))
    expect(total).to_contain_text("Over the budget")  # 3.0986 > 3: the admin sees it before saving
    shot(page, "builder-1280")
    page.set_viewport_size({"width": 390, "height": 844})
    shot(page, "builder-390")
    page.set_viewport_size({"width": 1280, "height": 900})
    you.fill("#id_epsilon_budget", "3.5")
    you.fill("#id_retention_days", "365")  # required before it opens (the privacy statement gives the date)
    expect(total).not_to_contain_text("Over the budget")
    you.click("input[name=_continue]")  # save and stay on the survey's own page
    page.wait_for_selector(".messagelist")  # the click returns before the save's answer: wait for it

    survey = Survey.objects.get(slug="campus-life")
    assert [(q.text, q.mechanism()) for q in survey.ordered_questions()] == [
        (text, m) for text, m in zip(["Have you ever cheated on an exam?", "Have you driven after drinking?",
                                      "How often do you use recreational drugs?"], mechanisms, strict=True)]
    assert survey.questions.get(order=3).labels() == DRUGS
    you.click("button.survey-open")
    expect(page.locator(".messagelist")).to_contain_text("opened")
    you.click("button[data-copy=share-url]")
    link = page.evaluate("navigator.clipboard.readText()")
    assert link == f"{live_server.url}/s/campus-life/"

    you.goto(link)  # the respondent's browser (here the admin's own)
    for question in page.locator("fieldset.question").all():
        you.check(question.locator("input[type=radio]").last)
    you.click("#send")
    expect(page.locator("#receipt")).to_be_visible()
    assert Response.objects.filter(survey=survey).count() == 1

    you.goto("/results/campus-life/")
    expect(page.locator("main")).to_contain_text("Campus life")
    assert page.locator("dt:text-is('Responses') + dd").inner_text().strip() == "1"
    assert axe_violations(page) == []
    assert violations == []
    print(f"\nfirst survey journey: {you.count} interactions")
    assert you.count <= MOST_INTERACTIONS, you.count
    context.close()
