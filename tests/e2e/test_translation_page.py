"""The translation page in a real browser: the survey's texts and every question's on one page, each
label with its field and the survey's own text beside it, at a desktop width and at 390 px, into a
left-to-right and a right-to-left language, with axe-core at 0 (the page as given and with a refused
field)."""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from surveys.collection.models import SurveyTranslation
from tests.e2e.conftest import axe_violations
from tests.e2e.layout import label_problems, layout_problems
from tests.e2e.test_staff_pages import csp_violations, log_in
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)
WIDTHS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.fixture
def admin_page(live_server, page):
    get_user_model().objects.create_superuser(username="admin", password=PASSWORD)
    log_in(page, f"{live_server.url}/admin/login/", "admin", "/admin/")
    return page


def source_beside(page):
    """Each row's default text beside its field: on the field's line (wide) or just under it (narrow)."""
    found = []
    for row in page.locator(".translation-row").all():
        source, field = row.locator(".translation-source").bounding_box(), row.locator("input, textarea").bounding_box()
        found.append(abs(source["y"] - field["y"]) <= 16 or 0 <= source["y"] - (field["y"] + field["height"]) <= 16)
    return found


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("language", ["es", "ar"])
def test_each_label_sits_with_its_field_and_the_page_passes_axe(live_server, admin_page, survey, width, language):
    page = admin_page
    violations = csp_violations(page)
    page.set_viewport_size(WIDTHS[width])
    page.goto(f"{live_server.url}/admin/collection/survey/{survey.pk}/translate/{language}/")
    expect(page.locator("legend")).to_have_count(1 + 4)  # the survey's texts, then its four questions
    assert page.locator(".translation-row").count() == 3 + 4 + 3 + 4
    assert label_problems(page, "form.translation") == []
    assert all(source_beside(page))
    assert layout_problems(page) == []
    assert axe_violations(page) == []

    page.fill("#id_title", "   ")  # refused by the server (blank): the same page again, the error at its field
    page.click("input[type=submit]")
    expect(page.locator(".errornote")).to_contain_text("nothing was saved")
    expect(page.locator(".translation-row.errors")).to_have_count(1)
    assert label_problems(page, "form.translation") == [] and layout_problems(page) == []
    assert axe_violations(page) == []
    assert SurveyTranslation.objects.count() == 0 and violations == []


def test_a_language_is_added_from_the_survey_page_and_translated_on_one_page(live_server, admin_page, survey):
    page = admin_page
    page.goto(f"{live_server.url}/admin/collection/survey/{survey.pk}/change/")
    page.click("text=Add French (fr)")
    page.fill("#id_title", "Santé")
    for i, box in enumerate(page.locator(".translation-field :is(input, textarea)").all()):
        if not box.input_value():
            box.fill(f"fr {i}")
    page.click("input[type=submit]")
    expect(page.locator(".messagelist")).to_contain_text("French (fr) texts saved.")
    expect(page.locator(".field-translations")).to_contain_text("Translate into French (fr)")
    assert SurveyTranslation.objects.get().title == "Santé"
