"""A real headless Debian Chromium, driven by Playwright, against pytest-django's live server.

Playwright's own browser download cannot work here; we launch the system `chromium`.
"""

import os
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

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


TIMEOUT = 15_000  # ms: every page's default wait (the suite runs more workers than cores)


class Visitor:
    """A browser context and its page kept from test to test and reset in between to a new visitor's: a new
    context and page cost about 0.7 CPU-s of Chromium (two renderer processes: the blank tab's, then the
    site's, which its Cross-Origin-Opener-Policy isolates from it), a page load in an open page about 0.1
    (measured). The reset leaves the last page for /healthz, then clears what a visit leaves: every visited
    origin's cookies, storage (local, IndexedDB, caches, service workers) and permissions, the HTTP cache,
    routes, the page's listeners and viewport, the default timeout. What it cannot undo (an init script, an
    exposed function, extra headers, another page) marks the visitor spent: its context is closed and the
    next test gets a new one."""

    LASTING = ("add_init_script", "expose_function", "expose_binding", "set_extra_http_headers", "once",
               "set_offline", "grant_permissions", "set_geolocation", "route_from_har",
               "set_default_navigation_timeout", "new_page")

    def __init__(self, browser, **options):
        self.context = browser.new_context(**options)
        self.page = self.context.new_page()
        self.origins: set[str] = set()
        self.page.on("framenavigated", lambda frame: self.origins.add(_origin(frame.url)))
        self.spent, self.listeners, self.viewport = False, [], self.page.viewport_size
        on = self.page.on
        self.page.on = lambda event, handler: self.listeners.append((event, handler)) or on(event, handler)
        for target in (self.context, self.page):
            for name in self.LASTING:
                if hasattr(target, name):
                    setattr(target, name, self._spending(getattr(target, name)))
        self.page.set_default_timeout(TIMEOUT)

    def _spending(self, method):
        def called(*args, **kwargs):
            self.spent = True
            return method(*args, **kwargs)
        return called

    def usable(self) -> bool:
        return not self.spent and not self.page.is_closed() and self.context.pages == [self.page]

    def reset(self, home: str) -> None:
        """`home`: the live server's origin, whose /healthz the page is left on when it visited that origin (a
        page of the same origin and opener policy: no new renderer), else the page is left on about:blank."""
        self.context.unroute_all(behavior="ignoreErrors")
        self.page.unroute_all(behavior="ignoreErrors")
        for event, handler in self.listeners:
            self.page.remove_listener(event, handler)
        self.page.goto(home + "/healthz" if home in self.origins else "about:blank", wait_until="commit")
        session = self.context.new_cdp_session(self.page)
        for origin in self.origins:
            if origin.startswith("http"):
                session.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
        session.send("Network.clearBrowserCache")
        session.detach()
        self.context.clear_cookies()
        self.context.clear_permissions()
        if self.page.viewport_size != self.viewport:
            self.page.set_viewport_size(self.viewport)
        self.page.set_default_timeout(TIMEOUT)
        self.origins.clear()
        self.listeners.clear()


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


class Visitors:
    """The worker's kept visitors, one per set of context options; a test takes each at most once (`take`) and
    gives them back reset (`give_back`)."""

    def __init__(self, browser, home: str):
        self.browser, self.home, self.kept = browser, home, {}

    def take(self, used: set, **options) -> Visitor | None:
        """The visitor with these options, None if the test has it already (it then opens a context of its own)."""
        key = repr(sorted(options.items()))  # the options may hold dicts (a viewport)
        if key in used:
            return None
        visitor = self.kept.get(key)
        if visitor is None or not visitor.usable():
            if visitor is not None:
                visitor.context.close()
            visitor = self.kept[key] = Visitor(self.browser, **options)
        used.add(key)
        return visitor

    def give_back(self, used: set) -> None:
        for key in used:
            visitor = self.kept[key]
            if visitor.usable():
                visitor.reset(self.home)
            else:
                visitor.context.close()
                del self.kept[key]


@pytest.fixture(scope="session")
def visitors(browser, live_server):
    kept = Visitors(browser, _origin(live_server.url))
    yield kept
    for visitor in kept.kept.values():
        visitor.context.close()


@pytest.fixture
def page(visitors):
    """A page of a new visitor (`Visitor`), in the default context."""
    used: set = set()
    yield visitors.take(used).page
    visitors.give_back(used)


@pytest.fixture
def context(page):
    return page.context


# The languages the accessibility tests show every page in (Playwright's `locale`: the
# Accept-Language header and navigator.language). Extend it here, and every such test runs per language.
LANGUAGES_UNDER_TEST = ["en", "es", "fr", "ar"]


@pytest.fixture(params=LANGUAGES_UNDER_TEST)
def language(request) -> str:
    return request.param


@pytest.fixture
def page_in_locale(browser, visitors):
    """Opens a page whose context's locale (Accept-Language and navigator.language) is the one given, with any
    other context options (viewport, device_scale_factor...): the kept visitor's with those options, reset
    after the test; a second page with the same options in one test is a new context's, closed after it."""
    contexts, used = [], set()

    def open_page(locale: str, **options):
        visitor = visitors.take(used, locale=locale, **options)
        if visitor is not None:
            return visitor.page
        visitor = Visitor(browser, locale=locale, **options)  # not kept
        contexts.append(visitor.context)
        return visitor.page

    yield open_page
    for context in contexts:
        context.close()
    visitors.give_back(used)


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
    # resultTypes: every node of every violation, one node of each other result (passes...): the same violations
    # for about a quarter less of the renderer's CPU in the accessibility modules (measured).
    found = page.evaluate("async (tags) => (await axe.run(document, {runOnly: {type: 'tag', values: tags}, "
                          "resultTypes: ['violations']})).violations", WCAG_22_AA)
    return [{"id": v["id"], "impact": v["impact"], "help": v["help"],
             "nodes": [node["target"] for node in v["nodes"]]} for v in found]


def agree(page):
    """Agree to a survey's consent text (the demo has one), which shows its questions."""
    page.click("#agree")
    page.wait_for_selector("#survey:not([hidden])")


def add_question(page):
    """Click the survey page's "Add another Question" and return the new row. The click is made again if it added
    none: the live figures' answers change the rows' heights, and one arriving between the mouse's press and its
    release moves the link from under it (Playwright checks the target of the press, not of the click). The row is
    added in the click's own handler, so it is there when the click returns, or never."""
    index = int(page.input_value("#id_questions-TOTAL_FORMS"))
    row = page.locator(f"#questions-{index}")
    for _ in range(2):
        page.click("#questions-group .add-row a")
        if row.count():
            return row
    raise AssertionError("two clicks on the add link added no question")
