"""The end-to-end mode of bench/audit_randomizer.py: what respondents run, as they run it.

For each of `forms` rounds it loads the survey page afresh in headless Chromium, fills the real form with
known true answers through the DOM (radios, checkboxes, number inputs), presses the real send button and
intercepts the page's POST with Playwright routing: the JSON payload is recorded and the request aborted,
so nothing reaches the server and nothing is stored. Every request that is not a GET or HEAD is aborted,
and one that is not the page's single post to its endpoint fails the audit. localStorage is cleared before
each load: the page keeps an unacknowledged payload there and would otherwise offer to resend it instead of
randomizing again. Round r gives question q its audited truth `audit_truths(sampler)[r % len]`, so every
truth gets forms / len(truths) payloads; the payloads are tested with `ldp.offline.audit` against the published
probabilities, whatever code (respond.js, the randomizer, anything they import) produced them.

A question that remembers its randomization across the waves of a series is audited against its two layers
composed: every round's storage is fresh, so every form is a browser new to the series, whose report is a fresh
randomization of a new permanent response (ldp.waves.agreement; `--next-wave` in bench/audit_waves.py tests what one
browser sends in two waves).

Power is small next to the module-draw mode's 10^5 draws per truth: each question's line says about how
far a cell's frequency must move to be flagged, and whether a page that sent the true answers would fail.
"""

from __future__ import annotations

import functools
import json
import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from statistics import NormalDist
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from ldp.offline.audit import AuditResult, audit, audit_truths, report_probabilities, tabulate
from ldp.waves.agreement import composed_sampler

if TYPE_CHECKING:
    from playwright.sync_api import Page, Route

# One form: each fieldset answered by its kind, as a respondent would (a click on a box or an option, a
# number typed and left); boxes already ticked are unticked first.
FILL = """(answers) => {
  document.querySelectorAll("fieldset.question").forEach((fieldset) => {
    const answer = answers[fieldset.dataset.question];
    if (fieldset.dataset.kind === "multi_select") {
      fieldset.querySelectorAll("input[type=checkbox]").forEach((box, j) => {
        if (box.checked !== answer.includes(j)) box.click();
      });
    } else if (fieldset.dataset.kind === "numeric") {
      const input = fieldset.querySelector("input[data-answer=number]");
      input.focus();
      input.value = answer;
      input.dispatchEvent(new Event("input", { bubbles: true }));
      input.dispatchEvent(new Event("change", { bubbles: true }));
      input.blur();
    } else {
      fieldset.querySelectorAll("input[type=radio]")[answer].click();
    }
  });
}"""
FORM_READY = "#send:enabled, #refusal:not([hidden]), #unsent:not([hidden])"
READY = f"#agree:enabled, {FORM_READY}"  # a consent text comes first when the survey has one


@dataclass
class FormRun:
    """What the rounds gave: per question {truth: {report value: count}}, per truth its number of forms, and
    problems (reports that are not reports of the sampler, posts elsewhere); the rounds' wall-clock time."""

    histograms: dict[int, dict[int, dict[int, int]]]
    forms: dict[int, dict[int, int]]
    problems: dict[int, list[str]]
    seconds: float
    rounds: int


def form_answer(question: dict[str, Any], truth: int) -> Any:
    """The input a respondent gives for `truth`: option indexes ticked, a number as text, or an option."""
    sampler = question["sampler"]
    if question["kind"] == "multi_select":
        return [j for j in range(sampler["k"]) if (truth >> j) & 1]
    if question["kind"] == "numeric":
        index = question["edges"][truth] if question.get("edges") else truth  # a bin's lowest grid value
        scale = question["scale"]
        return format(Decimal(scale["lo"]) + index * Decimal(scale["step"]), "f")
    return truth


def report_value(report: Any) -> int:
    """A report as ldp counts it: an integer, or for a list of bits its bitmask (bit j = option j)."""
    if isinstance(report, list) and all(bit in (0, 1) for bit in report):
        return sum(bit << j for j, bit in enumerate(report))
    if isinstance(report, int) and not isinstance(report, bool):
        return report
    raise ValueError(f"{json.dumps(report)} is not a report")


def truth_report(sampler: dict[str, Any], truth: int) -> int | None:
    """The report a page that sent the true answer would post (None for the 1-bit mean: no such report)."""
    kind = sampler["kind"]
    if kind == "onebit":
        return None
    return 1 << truth if kind == "unary" else truth


def _load(page: Page, url: str) -> None:
    page.goto(url, wait_until="commit")


def _fill_and_send(page: Page, answers: dict[str, Any]) -> None:
    page.wait_for_selector(READY)
    if page.is_visible("#agree"):  # a consent text first: the auditor agrees, as a respondent would
        page.click("#agree")
        page.wait_for_selector(FORM_READY)
    if not page.is_enabled("#send"):
        said = page.inner_text("#refusal") if page.is_visible("#refusal") else "it offers to resend a kept payload"
        raise RuntimeError(f"the page does not offer its form: {said}")
    page.evaluate(FILL, answers)
    page.click("#send")


def _wait_for_post(page: Page, posts: list[tuple[str, str | None]]) -> None:
    deadline = time.monotonic() + 15
    while not posts:  # the route handler runs while Playwright waits
        if time.monotonic() > deadline:
            raise RuntimeError("the page sent nothing within 15 s of pressing its send button")
        page.wait_for_timeout(5)


def run_forms(tabs: list[Page], url: str, questions: list[dict[str, Any]], endpoint: str, rounds: int) -> FormRun:
    """Fill and send the form `rounds` times, a round in each of `tabs` (pages of contexts of their own) at a
    time, keeping the payloads; every post is aborted."""
    truths = {q["id"]: audit_truths(q["sampler"]) for q in questions}
    run = FormRun({q["id"]: {x: {} for x in truths[q["id"]]} for q in questions},
                  {q["id"]: dict.fromkeys(truths[q["id"]], 0) for q in questions}, {q["id"]: [] for q in questions},
                  0.0, rounds)
    posts: list[list[tuple[str, str | None]]] = [[] for _ in tabs]
    for page, seen in zip(tabs, posts, strict=True):
        page.context.add_init_script("window.localStorage.clear();")  # no kept payload: each round randomizes anew
        page.route("**/*", functools.partial(_post_or_pass, posts=seen))
    started = time.perf_counter()
    for start in range(0, rounds, len(tabs)):
        batch = list(zip(range(start, min(start + len(tabs), rounds)), tabs, posts, strict=False))
        chosen = {r: {q["id"]: truths[q["id"]][r % len(truths[q["id"]])] for q in questions} for r, _, _ in batch}
        for _, page, _ in batch:
            _load(page, url)
        for r, page, _ in batch:
            _fill_and_send(page, {str(q["id"]): form_answer(q, chosen[r][q["id"]]) for q in questions})
        for r, page, seen in batch:
            _wait_for_post(page, seen)
            _record(run, questions, chosen[r], endpoint, seen)
            del seen[:]
    run.seconds = time.perf_counter() - started
    tabs[0].wait_for_timeout(200)  # anything the last pages sent after their posts
    for seen in posts:
        if seen:
            _record(run, questions, {}, endpoint, seen)
    return run


def _post_or_pass(route: Route, posts: list[tuple[str, str | None]]) -> None:
    request = route.request
    if request.method in ("GET", "HEAD"):
        route.fallback()  # on to the network, or to a route registered before this one
        return
    posts.append((request.url, request.post_data))
    route.abort()  # nothing reaches the server: the audit stores nothing


def _record(run: FormRun, questions: list[dict[str, Any]], chosen: dict[int, int], endpoint: str,
            posts: list[tuple[str, str | None]]) -> None:
    elsewhere = [target for target, _ in posts if target != endpoint]
    mine = [body for target, body in posts if target == endpoint]
    if elsewhere or len(mine) != 1:
        for q in questions:
            run.problems[q["id"]].append(f"the page sent {len(mine)} posts to its endpoint and "
                                         f"{len(elsewhere)} elsewhere ({', '.join(sorted(set(elsewhere)))})")
    if len(mine) != 1 or not chosen:
        return
    try:
        reports = json.loads(mine[0] or "")["reports"]
    except (ValueError, KeyError, TypeError):
        reports = {}
    for q in questions:
        x = chosen[q["id"]]
        try:
            value = report_value(reports[str(q["id"])])
            tabulate(q["sampler"], {value: 1})  # ValueError: not a report this sampler can make
        except (KeyError, ValueError) as error:
            run.problems[q["id"]].append(f"truth {x}: {error if isinstance(error, ValueError) else 'no report'}")
            continue
        run.forms[q["id"]][x] += 1
        histogram = run.histograms[q["id"]][x]
        histogram[value] = histogram.get(value, 0) + 1


def family_size(questions: list[dict[str, Any]]) -> int:
    return sum(len(report_probabilities(q["sampler"], x)) for q in questions for x in audit_truths(q["sampler"]))


def power(sampler: dict[str, Any], forms: dict[int, int], alpha: float, family: int) -> tuple[float, str]:
    """(about how far a cell's frequency must move to be flagged: z sigma of the widest cell at the per-cell
    level, the one that has about even chances of being caught; whether a page sending the truth fails)."""
    z = NormalDist().inv_cdf(1 - alpha / family / 2)
    width = max((z * math.sqrt(p * (1 - p) / n) for x, n in forms.items() if n
                 for p in report_probabilities(sampler, x)), default=math.inf)
    if sampler["kind"] == "direct":
        return width, "sends the truth, as published"
    if truth_report(sampler, next(iter(forms))) is None:
        return width, "n/a"
    rows = {x: tabulate(sampler, {int(truth_report(sampler, x) or 0): n}) for x, n in forms.items() if n}
    caught = rows and not audit(sampler, rows, {x: n for x, n in forms.items() if n}, alpha, family).passed
    return width, "caught" if caught else "NOT caught"


def audit_rows(question: dict[str, Any], run: FormRun) -> dict[int, list[int]]:
    return {x: tabulate(question["sampler"], histogram) for x, histogram in run.histograms[question["id"]].items()
            if run.forms[question["id"]][x]}


def page_config(page: Page) -> dict[str, Any]:
    """The loaded survey page's data for respond.js; RuntimeError if it has nowhere to send to."""
    config = page.evaluate("JSON.parse(document.getElementById('survey-data').textContent)")
    if config.get("preview") or not config.get("endpoint"):
        raise RuntimeError("the page has nowhere to send to (a preview, or a closed survey)")
    return dict(config)


def remembers(config: dict[str, Any], question: dict[str, Any]) -> bool:
    """Whether the page answers `question` through a remembered permanent layer (respond.js's rule)."""
    return bool(config.get("series") and config["series"].get("remembered") and question.get("remembered"))


def audited_questions(config: dict[str, Any]) -> list[dict[str, Any]]:
    """The page's questions, each with the sampler its reports follow for a browser new to the series: a remembered
    question's two layers composed (ldp.waves.agreement), any other question's own sampler."""
    return [{**q, "sampler": composed_sampler(q["remembered"]["sampler"], q["sampler"])} if remembers(config, q)
            else q for q in config["questions"]]


@dataclass(frozen=True)
class FormAudit:
    question: dict[str, Any]
    result: AuditResult
    note: str  # forms per truth and the power they give


def audit_forms(page: Page, url: str, forms: int, alpha: float, tabs: int = 4,
                watch: Callable[[Page], None] | None = None) -> tuple[list[FormAudit], FormRun]:
    """Audit the page at `url` (loaded once in `page`) through `forms` filled and sent forms, `tabs` at a time in
    browser contexts of their own (no shared storage); `watch` is called with each new page (to record scripts)."""
    config = page_config(page)
    questions = audited_questions(config)
    with new_tabs(page, max(1, min(tabs, forms)), watch) as pages:
        run = run_forms(pages, url, questions, urljoin(page.url, config["endpoint"]), forms)
    return form_audits(questions, run, alpha, family_size(questions)), run


@contextmanager
def new_tabs(page: Page, count: int, watch: Callable[[Page], None] | None) -> Iterator[list[Page]]:
    """`count` tabs, each in a browser context of its own (no shared storage) in `page`'s browser, `watch` called
    with each; closed afterwards."""
    browser = page.context.browser
    assert browser is not None
    contexts = [browser.new_context() for _ in range(count)]
    try:
        pages = [context.new_page() for context in contexts]
        for tab in pages:
            tab.set_default_timeout(30_000)
            if watch is not None:
                watch(tab)
        yield pages
    finally:
        for context in contexts:
            context.close()


def form_audits(questions: list[dict[str, Any]], run: FormRun, alpha: float, family: int) -> list[FormAudit]:
    """Each question's reports in `run` tested against its (audited) sampler, Bonferroni over `family` cells."""
    found = []
    for q in questions:
        counted = {x: n for x, n in run.forms[q["id"]].items() if n}
        result = audit(q["sampler"], audit_rows(q, run), counted, alpha, family) if counted else \
            AuditResult(math.inf, math.inf, ())
        problems = tuple(dict.fromkeys(run.problems[q["id"]]))  # each problem once
        width, truth = power(q["sampler"], run.forms[q["id"]], alpha, family)
        note = (f"{min(counted.values(), default=0)}-{max(counted.values(), default=0)} forms per truth: a cell "
                f"off by {width:.3f} is caught about half the time; a page sending the truth: {truth}")
        found.append(FormAudit(q, AuditResult(result.claimed_epsilon, result.epsilon_lower_bound,
                                              result.failures + problems), note))
    return found
