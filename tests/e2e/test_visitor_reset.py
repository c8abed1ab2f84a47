"""The browser tests' kept page (tests/e2e/conftest.py `Visitor`): the next test gets the same page, with nothing of
the last one's visit left (cookies, local storage, listeners, routes, viewport), and a test that does what a reset
cannot undo gets a new context."""

import pytest

from tests.e2e.conftest import Visitors

pytestmark = pytest.mark.django_db(transaction=True)


def visit(page, live_server):
    page.goto(f"{live_server.url}/healthz")
    page.evaluate("localStorage.setItem('kept', 'payload'); document.cookie = 'seen=1; path=/'")


def test_the_next_test_gets_the_same_page_with_nothing_of_the_last_visit(browser, live_server):
    visitors = Visitors(browser, live_server.url)
    used: set = set()
    page = visitors.take(used).page
    visit(page, live_server)
    page.context.add_cookies([{"name": "elsewhere", "value": "1", "url": "http://elsewhere.test/"}])  # never visited
    heard = []
    page.on("request", lambda request: heard.append(request.url))
    page.route("**/healthz", lambda route: route.fulfill(body="routed"))
    page.set_viewport_size({"width": 390, "height": 844})
    visitors.give_back(used)

    used = set()
    again = visitors.take(used).page
    assert again is page
    heard.clear()
    again.goto(f"{live_server.url}/healthz")
    assert again.evaluate("[localStorage.length, document.cookie]") == [0, ""]
    assert again.context.cookies() == []
    assert heard == [] and "routed" not in again.content()
    assert again.viewport_size == {"width": 1280, "height": 720}
    visitors.give_back(used)
    again.context.close()


def test_a_test_that_adds_an_init_script_leaves_a_new_context_to_the_next(browser, live_server):
    visitors = Visitors(browser, live_server.url)
    used: set = set()
    page = visitors.take(used).page
    page.add_init_script("window.planted = true;")
    visitors.give_back(used)
    assert page.is_closed()
    used = set()
    fresh = visitors.take(used).page
    fresh.goto(f"{live_server.url}/healthz")
    assert fresh is not page and fresh.evaluate("window.planted === undefined")
    visitors.give_back(used)
    fresh.context.close()
