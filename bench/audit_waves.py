"""The series mode of bench/audit_randomizer.py (`--next-wave URL`): one browser answers two waves of a series with
the same truth, as a respondent who answers every wave would.

Each of `pairs` rounds is a browser new to the series (its localStorage, where the page keeps its secret, is
cleared): it loads the first wave's page, fills the real form with known true answers (bench/audit_form.py), presses
send, and the post is intercepted and answered 201 as the server would (nothing reaches the server, nothing is
stored; the page records that it answered, as after a real send); then it loads the second wave's page, gives every
question the same true answer (a remembered question is matched to its first-wave self by its lineage) and sends.

Three tests, at family-wise false-alarm rate alpha over all their cells (Bonferroni):
* each wave's reports against the channel a browser new to the series follows (bench/audit_form.py; a remembered
  question's two layers composed);
* for each remembered question, how many rounds sent the same report in both waves, against the published two-layer
  channel's agreement (`ldp.waves.agreement.remembered_agreement`: the same permanent response randomized afresh in each
  wave), by an exact binomial test (the Clopper-Pearson interval at the family's level must hold it). A page that
  re-draws the permanent response every wave agrees as two independent reports do (`independent_agreement`), less
  often; one that sends the permanent response without the instantaneous layer agrees every time. Each line says
  whether either would be caught at its expected agreement. With `changed` (`--changed ID,...`, first-wave question
  ids) those questions get the next audited answer in the second wave: a new answer's permanent response is a new
  draw, so the two reports agree as independent ones for two answers do, and a page that reuses the old permanent
  response agrees as often as for an unchanged answer;
* the payloads' word on the series: the first wave's says it answered no earlier wave, the second's that it did.
"""

from __future__ import annotations

import functools
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from audit_form import (
    FormAudit,
    FormRun,
    _fill_and_send,
    _record,
    _wait_for_post,
    audited_questions,
    family_size,
    form_answer,
    form_audits,
    new_tabs,
    page_config,
    remembers,
    report_value,
)

from ldp.offline.audit import audit_truths
from ldp.stats.intervals import clopper_pearson
from ldp.waves.agreement import composed_sampler, independent_agreement, remembered_agreement

if TYPE_CHECKING:
    from playwright.sync_api import Page, Route



@dataclass(frozen=True)
class Pair:
    """A remembered question in both waves (matched by lineage) and what their reports' agreement should be."""

    first: dict[str, Any]
    second: dict[str, Any]
    published: Fraction  # the same answer: one permanent response, randomized afresh in each wave
    redrawn: Fraction  # two independent permanent responses (a page re-drawing it every wave)
    changed: bool = False  # the answer changes: then `published` is of independent permanent responses to two
    # answers, and `redrawn` stands for a page that reuses the old permanent response (one, randomized twice)


@dataclass
class PairRun:
    """Each wave's forms, per pair of questions how many rounds sent both reports and how many agreed, and what each
    round's payloads said of an earlier wave."""

    waves: tuple[FormRun, FormRun]
    both: dict[int, int]
    agreed: dict[int, int]
    earlier: list[tuple[Any, Any]] = field(default_factory=list)
    seconds: float = 0.0


@dataclass(frozen=True)
class AgreementAudit:
    pair: Pair
    pairs: int
    agreed: int
    failures: tuple[str, ...]
    note: str

    @property
    def passed(self) -> bool:
        return not self.failures


@dataclass(frozen=True)
class SeriesAudit:
    waves: tuple[list[FormAudit], list[FormAudit]]
    agreements: list[AgreementAudit]
    problems: tuple[str, ...]  # of the series as a whole (the payloads' word on an earlier wave)
    run: PairRun

    @property
    def passed(self) -> bool:
        return not self.problems and all(a.passed for a in self.agreements) \
            and all(item.result.passed for wave in self.waves for item in wave)


def pairs_of(first: dict[str, Any], second: dict[str, Any], changed: frozenset[int] = frozenset()) -> list[Pair]:
    """The questions that remember in both waves' configs, matched by lineage, with their agreements; the answers
    of those whose first-wave id is in `changed` change between the waves."""
    later = {q["remembered"]["lineage"]: q for q in second["questions"] if remembers(second, q)}
    found = []
    for q in first["questions"]:
        other = later.get(q["remembered"]["lineage"]) if remembers(first, q) else None
        if other is None:
            continue
        if other["remembered"]["sampler"] != q["remembered"]["sampler"]:
            continue  # a changed permanent layer starts afresh (remember.js): the waves share nothing
        composed = [composed_sampler(question["remembered"]["sampler"], question["sampler"]) for question in (q, other)]
        kept = remembered_agreement(q["remembered"]["sampler"], q["sampler"], other["sampler"])
        if q["id"] in changed:  # the same for every two different answers (the channels are symmetric)
            found.append(Pair(q, other, independent_agreement(composed[0], composed[1], 0, 1), kept, changed=True))
        else:
            found.append(Pair(q, other, kept, independent_agreement(composed[0], composed[1], 0, 0)))
    return found


def _post_answered(route: Route, posts: list[tuple[str, str | None]]) -> None:
    request = route.request
    if request.method in ("GET", "HEAD"):
        route.fallback()
        return
    posts.append((request.url, request.post_data))
    # As if stored: the page marks the wave answered (as after a real send), and nothing reaches the server.
    route.fulfill(status=201, content_type="application/json", body="{}")


def _payload(posts: list[tuple[str, str | None]], endpoint: str) -> dict[str, Any]:
    mine = [body for target, body in posts if target == endpoint]
    try:
        found = json.loads(mine[0] or "") if len(mine) == 1 else {}
    except ValueError:
        found = {}
    return found if isinstance(found, dict) else {}


def run_pairs(tabs: list[Page], urls: tuple[str, str], configs: tuple[dict[str, Any], dict[str, Any]],
              endpoints: tuple[str, str], pairs: list[Pair], rounds: int) -> PairRun:
    """`rounds` browsers new to the series, `tabs` at a time, each answering both waves with the same truths."""
    questions = tuple(audited_questions(config) for config in configs)
    truths = {q["id"]: audit_truths(q["sampler"]) for wave in questions for q in wave}
    partner = {pair.second["id"]: pair.first["id"] for pair in pairs}
    shift = {pair.second["id"]: int(pair.changed) for pair in pairs}  # a changed answer: the next audited truth
    run = PairRun(tuple(FormRun({q["id"]: {x: {} for x in truths[q["id"]]} for q in wave},  # type: ignore[arg-type]
                                {q["id"]: dict.fromkeys(truths[q["id"]], 0) for q in wave},
                                {q["id"]: [] for q in wave}, 0.0, rounds) for wave in questions),
                  {pair.first["id"]: 0 for pair in pairs}, {pair.first["id"]: 0 for pair in pairs})
    posts: list[list[tuple[str, str | None]]] = [[] for _ in tabs]
    for page, seen in zip(tabs, posts, strict=True):
        page.route("**/*", functools.partial(_post_answered, posts=seen))
    started = time.perf_counter()
    for start in range(0, rounds, len(tabs)):
        batch = list(zip(range(start, min(start + len(tabs), rounds)), tabs, posts, strict=False))
        first = {r: {q["id"]: truths[q["id"]][r % len(truths[q["id"]])] for q in questions[0]} for r, _, _ in batch}
        chosen = [first, {r: {q["id"]: _second_truth(truths[q["id"]], first[r][partner[q["id"]]], shift[q["id"]])
                              if q["id"] in partner else truths[q["id"]][r % len(truths[q["id"]])]
                              for q in questions[1]} for r, _, _ in batch}]
        sent: dict[int, list[dict[str, Any]]] = {r: [] for r, _, _ in batch}
        for wave in (0, 1):
            for _, page, _ in batch:
                page.goto(urls[wave], wait_until="commit")
            for r, page, _ in batch:
                _fill_and_send(page, {str(q["id"]): form_answer(q, chosen[wave][r][q["id"]]) for q in questions[wave]})
            for r, page, seen in batch:
                _wait_for_post(page, seen)
                _wait_for_receipt(page)
                _record(run.waves[wave], questions[wave], chosen[wave][r], endpoints[wave], seen)
                sent[r].append(_payload(seen, endpoints[wave]))
                del seen[:]
        for r, page, _ in batch:
            page.evaluate("() => localStorage.clear()")  # the next round is a browser new to the series
            one, two = (payload.get("reports", {}) for payload in sent[r])
            run.earlier.append((sent[r][0].get("earlier_wave"), sent[r][1].get("earlier_wave")))
            for pair in pairs:
                try:
                    reports = report_value(one[str(pair.first["id"])]), report_value(two[str(pair.second["id"])])
                except (KeyError, TypeError, ValueError):
                    continue  # no report: the wave's own audit says so
                run.both[pair.first["id"]] += 1
                run.agreed[pair.first["id"]] += reports[0] == reports[1]
    run.seconds = time.perf_counter() - started
    return run


def _second_truth(truths: list[int], first: int, shift: int) -> int:
    """The second wave's answer: the first's, or with `shift` the audited truth after it."""
    return truths[(truths.index(first) + shift) % len(truths)]


def _wait_for_receipt(page: Page) -> None:
    """The page took the 201 (and marked the wave answered) before the next load."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_selector("#receipt:not([hidden])", timeout=15_000)
    except PlaywrightTimeout as error:
        raise RuntimeError("the page showed no receipt within 15 s of its post being answered 201") from error


def _caught(count: int, pairs: int, published: Fraction, level: float) -> bool:
    low, high = clopper_pearson(count, pairs, level)
    return not low <= published <= high


def agreement_audit(pair: Pair, pairs: int, agreed: int, alpha: float, family: int) -> AgreementAudit:
    """The agreement's exact binomial test, and whether the two wrong pages would fail it at their expected counts."""
    level = 1.0 - alpha / family
    published = pair.published
    failures: tuple[str, ...] = ()
    if not pairs:
        failures = ("no browser sent both reports",)
    elif _caught(agreed, pairs, published, level):
        failures = (f"the two waves' reports agreed in {agreed} of {pairs} browsers ({agreed / pairs:.5f}), "
                    f"published {float(published):.5f}",)
    se = math.sqrt(published * (1 - published) / pairs) if pairs else math.inf

    def verdict(rate: Fraction) -> str:
        return "caught" if pairs and _caught(round(rate * pairs), pairs, published, level) else "NOT caught"

    if pair.changed:
        note = (f"a changed answer: {agreed} of {pairs} agreed, published {float(published):.4f} (binomial SE "
                f"{se:.4f}); a page reusing the old permanent response ({float(pair.redrawn):.4f}): "
                f"{verdict(pair.redrawn)}")
    else:
        note = (f"{agreed} of {pairs} agreed, published {float(published):.4f} (binomial SE {se:.4f}); a page "
                f"re-drawing the permanent response each wave ({float(pair.redrawn):.4f}): {verdict(pair.redrawn)}; "
                f"sending it without the instantaneous layer (1): {verdict(Fraction(1))}")
    return AgreementAudit(pair, pairs, agreed, failures, note)


def audit_series(page: Page, urls: tuple[str, str], rounds: int, alpha: float, tabs: int = 4,
                 watch: Callable[[Page], None] | None = None, changed: frozenset[int] = frozenset()) -> SeriesAudit:
    """Audit two waves of a series (`page` has the first loaded) through `rounds` browsers new to the series, `tabs`
    at a time in browser contexts of their own; `watch` is called with each new page (to record scripts). The
    remembered questions whose first-wave ids are in `changed` get a different answer in the second wave."""
    configs: list[dict[str, Any]] = [page_config(page)]
    with new_tabs(page, max(1, min(tabs, rounds)), watch) as pages:
        pages[0].goto(urls[1])
        configs.append(page_config(pages[0]))
        endpoints = (urljoin(urls[0], configs[0]["endpoint"]), urljoin(urls[1], configs[1]["endpoint"]))
        series = [config.get("series") or {} for config in configs]
        if not series[0] or series[0].get("id") != series[1].get("id") or not series[0]["wave"] < series[1]["wave"]:
            raise RuntimeError("the two pages are not two waves of one series, the earlier one first")
        pairs = pairs_of(configs[0], configs[1], changed)
        unknown = changed - {pair.first["id"] for pair in pairs}
        if unknown:
            raise RuntimeError(f"--changed names no remembered question of both waves: {sorted(unknown)}")
        run = run_pairs(pages, urls, (configs[0], configs[1]), endpoints, pairs, rounds)
    questions = [audited_questions(config) for config in configs]
    family = family_size(questions[0]) + family_size(questions[1]) + len(pairs)
    agreements = [agreement_audit(pair, run.both[pair.first["id"]], run.agreed[pair.first["id"]], alpha, family)
                  for pair in pairs]
    said = [(one, two) for one, two in run.earlier if (one, two) != (False, True)]
    problems = (f"{len(said)} of {len(run.earlier)} browsers did not say (no, yes) to 'answered an earlier wave' in "
                f"the two waves: {said[0]}",) if said else ()
    return SeriesAudit((form_audits(questions[0], run.waves[0], alpha, family),
                        form_audits(questions[1], run.waves[1], alpha, family)), agreements, problems, run)
