"""The respondent page in the browser's language (Playwright's locale sets Accept-Language and
navigator.language): Arabic mirrored right to left (screenshots of en and ar under the test's tmp
path, and the geometry compared: legends, options, radios and the button hug the right edge in
Arabic and the left in English), no axe-core violation in Spanish, French or Arabic, and the receipt
the script writes in Spanish with the browser's figure in Spanish decimals."""

import pytest

from surveys.collection import demo
from tests.e2e.conftest import agree, axe_violations

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def in_language(page_in_locale):
    return lambda locale: page_in_locale(locale, viewport={"width": 900, "height": 1400})


def edges(page, selector: str) -> list[tuple[float, float]]:
    """(distance from the left of the main column, distance from its right) of every match."""
    return page.evaluate("""(selector) => {
        const main = document.querySelector("main").getBoundingClientRect();
        return [...document.querySelectorAll(selector)].map((element) => {
          const box = element.getBoundingClientRect();
          return [box.left - main.left, main.right - box.right];
        });
      }""", selector)


MIRRORED = ["fieldset.question legend .number", "fieldset.question input[type=radio]", "#send"]


def test_the_arabic_page_is_mirrored(live_server, in_language, tmp_path):
    demo.create_demo_survey()
    found = {}
    for locale in ("en", "ar"):
        page = in_language(locale)
        page.goto(f"{live_server.url}/s/demo/")
        assert page.evaluate("[document.documentElement.lang, document.documentElement.dir]") == [
            locale, "rtl" if locale == "ar" else "ltr"]
        agree(page)
        page.screenshot(path=str(tmp_path / f"respond-{locale}.png"), full_page=True)
        found[locale] = {selector: edges(page, selector) for selector in MIRRORED}
    for selector in MIRRORED:
        assert found["en"][selector] and len(found["en"][selector]) == len(found["ar"][selector])
        for (en_left, en_right), (ar_left, ar_right) in zip(found["en"][selector], found["ar"][selector], strict=True):
            assert en_left < en_right and ar_right < ar_left, selector  # hugs the start edge of its language
            assert abs(ar_right - en_left) <= 2, selector  # the same inset, from the other side
    assert (tmp_path / "respond-en.png").stat().st_size > 10_000 and (tmp_path / "respond-ar.png").exists()


@pytest.mark.parametrize("locale", ["es", "fr", "ar"])
def test_the_page_and_receipt_have_no_violations_in_each_language(live_server, in_language, locale):
    demo.create_demo_survey()
    page = in_language(locale)
    page.goto(f"{live_server.url}/s/demo/")
    assert axe_violations(page) == []
    agree(page)
    assert axe_violations(page) == []
    for question in page.locator("fieldset.question").all():
        question.locator("input[type=radio]").first.check()
    page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")
    assert axe_violations(page) == []


def test_the_receipt_is_written_in_spanish(live_server, in_language):
    survey, _ = demo.create_demo_survey()
    page = in_language("es")
    page.goto(f"{live_server.url}/s/demo/")
    agree(page)
    for question in page.locator("fieldset.question").all():
        question.locator("input[type=radio]").first.check()
    page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")
    assert page.locator("#receipt-heading").inner_text() == "Gracias. Esto es exactamente lo que envió su navegador"
    # ln 3 + ln 3 + 1 = 3.197..., rounded up from the integers to thousandths, then a decimal comma.
    assert page.locator("#receipt-epsilon").inner_text() == ("Pérdida de privacidad de lo enviado, calculada por "
                                                             "su navegador a partir de los números que usó: como "
                                                             "mucho ε\xa0=\xa03,198.")
    first = page.locator("#receipt-list li").first.locator(".report").inner_text()
    assert first in ("“No”", "“Sí”")  # the yes/no report named in Spanish
