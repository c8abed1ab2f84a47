"""An admin types questions on the survey page and sees their privacy figures and the running
total change as they type, under the strict CSP, with the parameter box following the mechanism."""

import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

import ldp
from surveys.collection.models import Survey
from tests.e2e.conftest import add_question
from tests.e2e.test_staff_pages import csp_violations, log_in
from tests.factories import PASSWORD, saved_total

pytestmark = pytest.mark.django_db(transaction=True)


def eps(mechanism):
    return f"ε = {mechanism.effective_epsilon:.4f}"


def test_an_admin_sees_live_figures_and_the_running_total_while_typing(live_server, page):
    get_user_model().objects.create_superuser(username="admin", password=PASSWORD)
    survey = Survey.objects.create(slug="new", title="New", epsilon_budget=3)
    violations = csp_violations(page)
    change = f"/admin/collection/survey/{survey.pk}/change/"
    log_in(page, f"{live_server.url}/admin/login/", "admin", change)
    total = page.locator("#privacy-total")

    row = add_question(page)
    row.locator("[name=questions-0-text]").fill("Cheated?")
    assert row.locator(".field-q").is_visible() and not row.locator(".field-epsilon").is_visible()
    row.locator("[name=questions-0-q]").fill("0.5")
    figures = row.locator(".field-privacy .readonly")
    expect(figures).to_have_text(re.compile(r"^ε = 1\.0987 \(q = 0\.5, p = 3/4\)"))  # ln 3 = 1.098612..., rounded up
    expect(total).to_have_attribute("data-total", "1.0987")  # rounded up, as the saved figure

    # The bit flip takes epsilon: the q box goes, the epsilon box comes.
    row.locator("[name=questions-0-mechanism_name]").select_option("bitflip")
    assert row.locator(".field-epsilon").is_visible() and not row.locator(".field-q").is_visible()
    row.locator("[name=questions-0-epsilon]").fill("2")
    bitflip = ldp.BitFlip(2.0)
    expect(figures).to_have_text(re.compile("^" + re.escape(eps(bitflip))))
    expect(total).to_have_attribute("data-total", saved_total(bitflip))

    # A second, single-choice question: only the mechanisms that fit, its options counted.
    second = add_question(page)
    second.locator("[name=questions-1-text]").fill("Colour?")
    second.locator("[name=questions-1-kind]").select_option("single_choice")
    offered = second.locator("[name=questions-1-mechanism_name] option:not([hidden])").evaluate_all(
        "options => options.map(o => o.value)")
    assert offered == ["krr", "sue", "oue", "direct"]
    assert second.locator("[name=questions-1-position]").input_value() == "2"
    second.locator("[name=questions-1-options_text]").fill("Red\nGreen\nBlue")
    second.locator("[name=questions-1-epsilon]").fill("1.5")
    krr = ldp.KaryRR(1.5, 3)
    expect(total).to_have_attribute("data-total", saved_total(bitflip, krr))
    expect(total).to_contain_text("Over the budget")  # 2 + 1.5 > 3
    expect(second.locator(".field-privacy .readonly")).to_contain_text(
        f"{ldp.respondents_needed(krr, 0.05):,} respondents")

    # Move the second question up: the positions follow, and the save keeps that order.
    second.locator(".move-up").click()
    assert page.locator("[name=questions-1-position]").input_value() == "1"
    assert page.locator("[name=questions-0-position]").input_value() == "2"
    page.fill("#id_epsilon_budget", "4")
    expect(total).not_to_contain_text("Over the budget")
    page.click("input[name=_continue]")
    page.wait_for_selector(".messagelist")
    assert list(survey.questions.order_by("order").values_list("order", "text")) == [(1, "Colour?"), (2, "Cheated?")]
    # The live total was the figure the saved survey shows.
    expect(page.locator(".field-epsilon_summary .readonly")).to_have_text(f"{saved_total(bitflip, krr)} of 4")
    assert violations == []


def test_a_direct_question_has_no_parameter_box_and_stays_out_of_the_total(live_server, page):
    get_user_model().objects.create_superuser(username="admin", password=PASSWORD)
    survey = Survey.objects.create(slug="new", title="New", epsilon_budget=1)
    violations = csp_violations(page)
    change = f"/admin/collection/survey/{survey.pk}/change/"
    log_in(page, f"{live_server.url}/admin/login/", "admin", change)
    total = page.locator("#privacy-total")

    first = add_question(page)
    first.locator("[name=questions-0-text]").fill("Cheated?")
    first.locator("[name=questions-0-q]").fill("0.5")
    expect(total).to_have_attribute("data-total", "1.0987")
    expect(total).to_contain_text("Over the budget")

    age = add_question(page)
    age.locator("[name=questions-1-text]").fill("Age band?")
    age.locator("[name=questions-1-kind]").select_option("single_choice")
    age.locator("[name=questions-1-options_text]").fill("18-34\n35-54\n55+")
    age.locator("[name=questions-1-mechanism_name]").select_option("direct")
    assert not age.locator(".field-q").is_visible() and not age.locator(".field-epsilon").is_visible()
    expect(age.locator(".field-privacy .readonly")).to_have_text(re.compile("^not randomized: sent as given"))
    expect(total).to_contain_text("1 not randomized (direct)")
    expect(total).to_have_attribute("data-total", "1.0987")  # the direct question adds nothing

    # A yes/no question is never asked directly: the kind change picks a randomized mechanism.
    age.locator("[name=questions-1-kind]").select_option("yes_no")
    assert age.locator("[name=questions-1-mechanism_name]").input_value() == "qrr"
    age.locator("[name=questions-1-kind]").select_option("single_choice")
    age.locator("[name=questions-1-mechanism_name]").select_option("direct")
    expect(total).to_contain_text("1 not randomized (direct)")

    page.fill("#id_epsilon_budget", "1.2")
    expect(total).not_to_contain_text("Over the budget")
    page.click("input[name=_continue]")
    page.wait_for_selector(".messagelist")
    saved = survey.questions.get(order=2)
    assert (saved.mechanism_name, saved.q, saved.epsilon, saved.k()) == ("direct", None, None, 3)
    assert violations == []
