"""Shared pieces of the privacy audit tests: a survey using every mechanism, tampering, recording."""

import json
import re
from decimal import Decimal

from surveys.collection import builder
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey

# (kind, mechanism, parameter, number of options) for every mechanism the app offers, a direct
# question (not randomized: the identity channel, sent as given) among them.
EVERY_MECHANISM = [
    ("yes_no", "qrr", Decimal("0.5"), 2),
    ("yes_no", "bitflip", 2.0, 2),
    ("single_choice", "krr", 1.0, 3),
    ("single_choice", "direct", None, 4),
    ("single_choice", "krr", 2.0, 5),
    ("single_choice", "krr", 3.0, 10),
    ("single_choice", "sue", 1.5, 4),
    ("single_choice", "oue", 1.0, 6),
]
CANARY = "canary-5f1e"


def survey_with(mechanisms, slug="audit"):
    def spec(order, kind, name, parameter, k):
        if name == "qrr":
            return QuestionSpec(f"Question {order} {CANARY}", name, q=parameter)
        options = [f"{CANARY} option {i}" for i in range(k)] if kind == "single_choice" else ()
        return QuestionSpec(f"Question {order} {CANARY}", name, epsilon=parameter, options=options)

    questions = [spec(order, *mechanism) for order, mechanism in enumerate(mechanisms, start=1)]
    return builder.create_survey(slug, "Audit", questions, status=Survey.Status.OPEN, epsilon_budget=50)


def serve_modified(page, path_suffix, *replacements, unpin=True):
    """Serve a static file with (original, replacement) text swaps, for negative controls.

    The caller checks the served text afterwards: a failed swap must not pass silently. With `unpin` the
    survey page is served without its subresource integrity pins (the integrity attributes of the entry's
    script and of the modulepreload links) too, as a server that swaps the code would have to: else the
    browser refuses the module.
    """
    if unpin:
        def unpinned(route):
            body = route.fetch().text()
            body = re.sub(r' integrity="[^"]*"', "", body)
            route.fulfill(body=body, content_type="text/html; charset=utf-8")
        page.route(re.compile(r"/s/[^/]+/(preview/)?(\?.*)?$"), unpinned)

    def handle(route):
        body = route.fetch().text()
        for original, replacement in replacements:
            body = body.replace(original, replacement)
        route.fulfill(body=body, content_type="text/javascript")
    page.route(f"**/{path_suffix}", handle)


def served_text(page, path):
    return page.evaluate("(path) => fetch(path).then(r => r.text())", path)


# crypto.getRandomValues made deterministic (xorshift32), so two runs differ only by their truths.
DETERMINISTIC_CRYPTO = """(() => {
  let state = 2463534242;
  const next = () => {
    state ^= state << 13; state >>>= 0; state ^= state >>> 17; state ^= state << 5; return state >>>= 0;
  };
  Object.defineProperty(globalThis.crypto, "getRandomValues", {
    value: (array) => { for (let i = 0; i < array.length; i++) array[i] = next(); return array; },
  });
})();"""


def record(page):
    """Every request the page makes: method, URL, headers, body."""
    seen = []
    page.on("request", lambda r: seen.append({"method": r.method, "url": r.url,
                                             "headers": r.all_headers(), "body": r.post_data}))
    return seen


def without_reports(request):
    """A request with what may legitimately differ between respondents masked out."""
    headers = {k: v for k, v in request["headers"].items() if k not in ("cookie", "x-csrftoken")}
    body = request["body"]
    if body:
        try:
            data = json.loads(body)
            if isinstance(data, dict) and "reports" in data:
                data["reports"] = "<reports>"
            body = json.dumps(data, sort_keys=True)
        except ValueError:
            pass
    return {**request, "headers": headers, "body": body}
