"""A real headless Debian Chromium, driven by Playwright, against pytest-django's live server.

Playwright's own browser download cannot work here; we launch the system `chromium`.
"""

import os

import pytest

from bench.audit_randomizer import launch_chromium

# Playwright's sync API runs an event loop in this thread; Django must still allow ORM calls.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


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
