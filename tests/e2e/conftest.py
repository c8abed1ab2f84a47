"""A real headless Debian Chromium, driven by Playwright, against pytest-django's live server.

Playwright's own browser download cannot work here; we launch the system `chromium`.
"""

import os
from functools import cache
from pathlib import Path

import pytest

from bench.audit_randomizer import launch_chromium

# Playwright's sync API runs an event loop in this thread; Django must still allow ORM calls.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def pytest_collection_modifyitems(config, items):
    """Every browser test is `slow` (a real Chromium against a live server): `pytest -m "not slow"` leaves
    them out. The hook sees the whole session's items; only this folder's are marked."""
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        yield browser
        browser.close()


@pytest.fixture
def context(browser):
    context = browser.new_context()
    yield context
    context.close()


@pytest.fixture
def page(context):
    page = context.new_page()
    page.set_default_timeout(15_000)
    return page


# The languages the accessibility tests show every page in (Playwright's `locale`: the
# Accept-Language header and navigator.language). Extend it here, and every such test runs per language.
LANGUAGES_UNDER_TEST = ["en", "es", "fr", "ar"]


@pytest.fixture(params=LANGUAGES_UNDER_TEST)
def language(request) -> str:
    return request.param


@pytest.fixture
def page_in_locale(browser):
    """Opens a page in a fresh context whose locale (Accept-Language and navigator.language) is the one
    given, with any other context options (viewport, device_scale_factor...); all closed after the test."""
    contexts = []

    def open_page(locale: str, **options):
        context = browser.new_context(locale=locale, **options)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15_000)
        return page

    yield open_page
    for context in contexts:
        context.close()


@pytest.fixture
def page_in_language(page_in_locale, language):
    """`page_in_locale` in the language under test."""
    return lambda **options: page_in_locale(language, **options)


AXE = Path(__file__).resolve().parents[1] / "js" / "node_modules" / "axe-core" / "axe.min.js"
WCAG_22_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


@cache
def _axe_source() -> str:
    return AXE.read_text()


def axe_violations(page) -> list[dict]:
    """axe-core's WCAG 2.2 A and AA violations on the page as it is now (id, impact, help,
    nodes' selectors). Evaluated through the DevTools protocol, so the page's CSP (which allows
    no inline script) does not stop it; `npm ci --prefix tests/js` installs it (make test)."""
    if not AXE.exists():
        raise RuntimeError(f"{AXE} is missing: run `npm ci --prefix tests/js` (make test does)")
    if not page.evaluate("typeof window.axe === 'object'"):  # once per document, not once per check
        page.evaluate(_axe_source())
    found = page.evaluate("async (tags) => (await axe.run(document, {runOnly: {type: 'tag', values: tags}}))"
                          ".violations", WCAG_22_AA)
    return [{"id": v["id"], "impact": v["impact"], "help": v["help"],
             "nodes": [node["target"] for node in v["nodes"]]} for v in found]


def agree(page):
    """Agree to a survey's consent text (the demo has one), which shows its questions."""
    page.click("#agree")
    page.wait_for_selector("#survey:not([hidden])")
