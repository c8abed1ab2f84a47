"""An admin types questions of multi-select, numeric and ordinal questions on the survey page: each kind shows its own
boxes (options or bins, lo/hi/step, at most, "Prefer not to say") and offers only its mechanisms; the live figures say a
multi-select's per-box and total epsilon and which numeric mean is less noisy; the running total counts each question's
effective epsilon; under the strict CSP; and the save keeps it."""

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


def offered(row, index):
    return row.locator(f"[name=questions-{index}-mechanism_name] option:not([hidden])").evaluate_all(
        "options => options.map(o => o.value)")


def visible(row, *fields):
    return [field for field in fields if row.locator(f".field-{field}").is_visible()]


def test_an_admin_types_each_new_kind_and_sees_its_boxes_and_figures(live_server, page):
    get_user_model().objects.create_superuser(username="admin", password=PASSWORD)
    survey = Survey.objects.create(slug="new", title="New", epsilon_budget=4)
    violations = csp_violations(page)
    log_in(page, f"{live_server.url}/admin/login/", "admin", f"/admin/collection/survey/{survey.pk}/change/")
    total = page.locator("#privacy-total")
    boxes = ("options_text", "prefer_not_to_say", "exclusive_options", "at_most", "lo", "hi", "step", "q", "epsilon")

    multi = add_question(page)
    multi.locator("[name=questions-0-text]").fill("Used?")
    multi.locator("[name=questions-0-kind]").select_option("multi_select")
    assert offered(multi, 0) == ["multiselect"]
    assert visible(multi, *boxes) == ["options_text", "prefer_not_to_say", "exclusive_options", "at_most", "epsilon"]
    multi.locator("[name=questions-0-options_text]").fill("Tobacco\nAlcohol\nCannabis")
    multi.locator("[name=questions-0-prefer_not_to_say]").check()  # one click: a fourth option
    multi.locator("[name=questions-0-at_most]").fill("1")
    multi.locator("[name=questions-0-epsilon]").fill("2")
    chosen = ldp.MultiSelect(2.0, 4, at_most=1)  # d = 2: each box at epsilon 1
    figures = multi.locator(".field-privacy .readonly")
    expect(figures).to_contain_text(f"each box is flipped at ε = {chosen.per_bit_epsilon:.4f} per box")
    expect(figures).to_contain_text("differ in at most 2 boxes")
    expect(total).to_have_attribute("data-total", saved_total(chosen))

    hours = add_question(page)
    hours.locator("[name=questions-1-text]").fill("Hours?")
    hours.locator("[name=questions-1-kind]").select_option("numeric")
    assert offered(hours, 1) == ["krr", "onebit", "dlaplace", "direct_number"]  # in the list's order
    assert hours.locator("[name=questions-1-mechanism_name]").input_value() == "onebit"  # the kind's first
    assert visible(hours, *boxes) == ["lo", "hi", "step", "epsilon"]  # a mean: no options
    for name, value in (("lo", "0"), ("hi", "10"), ("step", "1"), ("epsilon", "0.2")):
        hours.locator(f"[name=questions-1-{name}]").fill(value)
    expect(hours.locator(".field-privacy .readonly")).to_contain_text(
        re.compile(r"1-bit mean [\d,.]+, discrete Laplace [\d,.]+: the 1-bit mean is lower at this ε and range"))
    hours.locator("[name=questions-1-epsilon]").fill("8")
    expect(total).to_contain_text("Over the budget")
    expect(hours.locator(".field-privacy .readonly")).to_contain_text("discrete Laplace is lower")
    hours.locator("[name=questions-1-mechanism_name]").select_option("dlaplace")
    hours.locator("[name=questions-1-epsilon]").fill("1")
    laplace = ldp.DiscreteLaplace(1.0, "0", "10", "1")
    expect(total).to_have_attribute("data-total", saved_total(chosen, laplace))

    # The same kind asked for a histogram: its bins box comes.
    hours.locator("[name=questions-1-mechanism_name]").select_option("krr")
    assert visible(hours, *boxes) == ["options_text", "lo", "hi", "step", "epsilon"]
    hours.locator("[name=questions-1-mechanism_name]").select_option("dlaplace")

    agree = add_question(page)
    agree.locator("[name=questions-2-text]").fill("Agree?")
    agree.locator("[name=questions-2-kind]").select_option("ordinal")
    assert offered(agree, 2) == ["krr", "sue", "oue"]
    assert visible(agree, *boxes) == ["options_text", "prefer_not_to_say", "epsilon"]
    agree.locator("[name=questions-2-options_text]").fill("No = 0\nYes = 1")
    agree.locator("[name=questions-2-epsilon]").fill("0.5")
    expect(total).not_to_contain_text("Over the budget")

    page.click("input[name=_continue]")
    page.wait_for_selector(".messagelist")
    saved = list(survey.ordered_questions())
    assert [q.mechanism() for q in saved] == [chosen, laplace, ldp.KaryRR(0.5, 2)]
    assert saved[0].labels()[-1] == "Prefer not to say"
    assert violations == []
