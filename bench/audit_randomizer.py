"""Audit a running survey page from outside, in headless Chromium: what respondents run, as they run it.

    python bench/audit_randomizer.py https://survey.example.org/s/<slug>/ [--forms N] [--alpha A] [--tabs T]
    python bench/audit_randomizer.py https://survey.example.org/s/<slug>/ --draws N [--alpha A]
    python bench/audit_randomizer.py https://survey.example.org/s/<wave-1>/ --next-wave <wave-2 URL> [--forms N]

By default (end to end, bench/audit_form.py) it fills the page's real form N times (default 400) with known
true answers, each question's audited truths in turn, presses the real send button, intercepts the POST and
aborts it (nothing is stored), and tests those payloads: whatever respond.js, the randomizer and the modules
they import did, the reports must follow the published probabilities. Each question's line says how many
forms each truth got, about how far a cell's frequency must move to be caught (about half the time), and
whether a page that sent the true answers would fail; the summary times the forms. With `--draws N` it
instead draws N reports per true answer from the randomizer module the page loaded (its hashed name in
production), with the page's Web Crypto: fast and powerful for the sampler itself, but it never runs
respond.js, so a page that skips randomizing passes it. With `--next-wave URL` (a later wave of the same series)
each of the N rounds is a browser new to the series answering both waves with the same truth (bench/audit_waves.py):
each remembered question's two reports must agree as often as its two published layers say, each wave's reports
must follow the layers composed; `--changed ID,...` gives those questions a different answer in the second wave.

Either way the reports are tested against the published probabilities (`ldp.offline.audit`: exact binomial tests,
family-wise false-alarm rate alpha, 10^-3 end to end and 10^-6 with --draws) and the empirical epsilon is
bounded from below. A direct question (sampler kind "direct", not randomized) is audited as the identity
channel: every report must be the answer given; its claimed epsilon is infinite and it is marked "(sent as
given)". True answers are those `ldp.offline.audit.audit_truths` names, reports are counted over the cells of
`ldp.offline.cells` (report values or ranges of them; for unary and multi-select reports joint bit patterns,
or patterns of pairs of bits past 6 bits). Exits 1 if any question fails, 2 if the page cannot be audited.
It prints the SHA-256 of every script the page loaded (end to end, on every load: a URL that served
different bytes fails), and with `--expect NAME=SHA256` (repeatable) fails unless the page loaded NAME with
exactly that hash (compare with the survey definition API's `client_code`, or a reviewed release; it lists
every module any survey's page may load, and the waves' ones, waves.js, history.js and remember.js, only the page
of a wave of a series loads: expect those there only). Needs
Debian's chromium and Playwright's Python package (development requirements); the browser tests use the
same functions.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import urlsplit

sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # the project, for `ldp`
sys.path.insert(1, str(Path(__file__).resolve().parent))  # bench/, for `audit_form` when imported as bench.*

from audit_form import FormRun, audit_forms  # noqa: E402
from audit_waves import SeriesAudit, audit_series  # noqa: E402

from ldp.offline.audit import AuditResult, audit, audit_truths, tabulate  # noqa: E402

if TYPE_CHECKING:
    from playwright.sync_api import Page

FORMS, FORMS_ALPHA = 400, 1e-3  # about two minutes against a local server (docs/operations.md has figures)
DRAWS_ALPHA = 1e-6
CHROMIUM_ARGS = [
    "--no-sandbox",  # CI runs as root
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

# Per true answer a histogram {report value: count}, where a report value is the option index, the bit, r,
# or for a report of bits (unary, multi-select) their bitmask.
DRAW = """async ([sampler, truths, draws, randomizerUrl]) => {
  const randomizer = await import(randomizerUrl);
  const nextWord = randomizer.cryptoSource();
  const multi = sampler.kind === "multiselect";
  const table = [];
  for (const truth of truths) {
    const answer = multi ? Array.from({ length: sampler.k }, (_, j) => Math.floor(truth / 2 ** j) % 2) : truth;
    const counts = {};
    for (let i = 0; i < draws; i++) {
      const report = randomizer.randomizeAnswer(sampler, answer, nextWord);
      const value = Array.isArray(report) ? report.reduce((v, bit, j) => v + bit * 2 ** j, 0) : report;
      counts[value] = (counts[value] || 0) + 1;
    }
    table.push(counts);
  }
  return table;
}"""


@dataclass(frozen=True)
class QuestionAudit:
    question_id: int
    sampler: dict[str, Any]
    result: AuditResult
    note: str = ""  # the end-to-end mode's forms per truth and power


def launch_chromium(playwright: Any) -> Any:
    executable = shutil.which("chromium")
    if executable is None:
        raise RuntimeError("Debian's chromium is not on PATH (apt-get install chromium)")
    return playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)


def published_questions(page: Page) -> list[dict[str, Any]]:
    return page.evaluate("JSON.parse(document.getElementById('survey-data').textContent).questions")


# The randomizer the page itself loaded (in production its hashed name, randomizer.<hash>.js, whose
# imports the manifest storage rewrote), not a sibling "randomizer.js" that may differ from it.
LOADED_RANDOMIZER = """() => performance.getEntriesByType("resource").map((entry) => entry.name)
  .find((name) => /\\/randomizer(\\.[0-9a-f]+)?\\.js$/.test(new URL(name).pathname))"""
HASHED_NAME = re.compile(r"\.[0-9a-f]{12}(?=\.js$)")


def loaded_randomizer(page: Page) -> str:
    url = page.evaluate(LOADED_RANDOMIZER)
    if not url:
        raise RuntimeError("the page loaded no randomizer module")
    return str(url)


def draw_table(page: Page, sampler: dict[str, Any], draws: int) -> dict[int, list[int]]:
    """{true answer: counts per cell} for the answers `audit_truths` names."""
    truths = audit_truths(sampler)
    raw = page.evaluate(DRAW, [sampler, truths, draws, loaded_randomizer(page)])
    return {x: tabulate(sampler, {int(value): count for value, count in row.items()})
            for x, row in zip(truths, raw, strict=True)}


def audit_page(page: Page, draws: int = 100_000, alpha: float = 1e-6) -> list[QuestionAudit]:
    """Audit every question of the loaded page, with family-wise false-alarm rate `alpha`."""
    questions = published_questions(page)
    tables = [draw_table(page, question["sampler"], draws) for question in questions]
    family = sum(len(row) for table in tables for row in table.values())
    return [QuestionAudit(question["id"], question["sampler"],
                          audit(question["sampler"], table, draws, alpha, cells_in_family=family))
            for question, table in zip(questions, tables, strict=True)]


def audit_url(url: str, draws: int = 100_000, alpha: float = 1e-6, scripts: dict[str, set[str]] | None = None,
              forms: int | None = None, tabs: int = 4,
              next_wave: str | None = None,
              changed: frozenset[int] = frozenset()) -> tuple[list[QuestionAudit], FormRun | SeriesAudit | None]:
    """Audit the page at `url` through `forms` filled forms (bench/audit_form.py), or without `forms` by `draws`
    draws per truth from its randomizer module, or with `next_wave` (a later wave's page) through `forms` browsers
    answering both waves (bench/audit_waves.py: the questions are both waves'); `scripts`, if given, receives
    {URL: SHA-256 hex digests} of every script it loaded, each time it loaded it."""
    from playwright.sync_api import sync_playwright

    loaded = scripts if scripts is not None else {}
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_page()
            page.set_default_timeout(30_000)
            def watch(tab: Page) -> None:
                tab.on("response", lambda r: loaded.setdefault(r.url, set()).add(hashlib.sha256(r.body()).hexdigest())
                       if r.request.resource_type == "script" and r.ok else None)

            watch(page)
            response = page.goto(url)
            if response is None or response.status != 200:
                raise RuntimeError(f"{url} answered {response.status if response else 'nothing'}")
            page.wait_for_load_state("networkidle")
            if forms is None:
                return audit_page(page, draws, alpha), None
            if next_wave is not None:
                series = audit_series(page, (url, next_wave), forms, alpha, tabs, watch, changed)
                return [QuestionAudit(a.question["id"], a.question["sampler"], a.result, a.note)
                        for wave in series.waves for a in wave], series
            found, run = audit_forms(page, url, forms, alpha, tabs, watch)
            return [QuestionAudit(a.question["id"], a.question["sampler"], a.result, a.note) for a in found], run
        finally:
            browser.close()


def script_name(url: str) -> str:
    """A loaded script's file name without the manifest's hash: .../randomizer.0123456789ab.js -> randomizer.js."""
    return HASHED_NAME.sub("", urlsplit(url).path.rsplit("/", 1)[-1])


def check_scripts(scripts: dict[str, set[str]], expected: list[str], out: TextIO) -> int:
    """Print every loaded script's SHA-256; 1 if a URL served different bytes on different loads, or a script
    named in `expected` (NAME=SHA256) is missing or differs from the hash given on the command line, else 0."""
    failed = 0
    for url, digests in sorted(scripts.items()):
        for digest in sorted(digests):
            out.write(f"script {digest}  {url}\n")
        if len(digests) > 1:
            out.write(f"FAIL {url}: {len(digests)} different bodies on different loads\n")
            failed = 1
    for item in expected:
        name, _, digest = item.partition("=")
        name = name.rsplit("/", 1)[-1]
        found = [(url, got) for url, digests in sorted(scripts.items()) if script_name(url) == name
                 for got in sorted(digests)]
        if not found:
            out.write(f"FAIL {name}: not loaded by the page\n")
            failed = 1
        for url, got in found:
            if got != digest.strip().lower():
                out.write(f"FAIL {name}: served {got}, expected {digest} ({url})\n")
                failed = 1
            else:
                out.write(f"pass {name}: {got}\n")
    return failed


def report(audits: list[QuestionAudit], draws: int, alpha: float, out: TextIO, how: str = "") -> int:
    """Print one line per question (and its note) and a verdict; 0 if every question passes, else 1."""
    out.write(f"{'question':>8}  {'kind':6} {'k':>3}  {'claimed eps':>11}  {'eps lower bound':>15}  result\n")
    for item in audits:
        r = item.result
        verdict = ("pass" if r.passed else "FAIL") + (" (sent as given)" if item.sampler["kind"] == "direct" else "")
        size = item.sampler.get("k", item.sampler.get("steps"))  # options, or grid steps for numeric questions
        out.write(f"{item.question_id:>8}  {item.sampler['kind']:6} {size:>3}  "
                  f"{r.claimed_epsilon:>11.4f}  {r.epsilon_lower_bound:>15.4f}  {verdict}\n")
        for line in ([item.note] if item.note else []) + list(r.failures):
            out.write(f"{'':>10}{line}\n")
    failed = [a for a in audits if not a.result.passed]
    out.write(f"{len(audits) - len(failed)} of {len(audits)} questions pass "
              f"({how or f'{draws:,} draws per true answer'}, family-wise alpha {alpha:g}).\n")
    return 1 if failed else 0


def report_series(series: SeriesAudit, out: TextIO) -> int:
    """Print each remembered question's agreement across the two waves (and its note) and the series' problems;
    0 if all pass, else 1."""
    out.write(f"{'question':>8}  {'in wave':>8}  {'browsers':>8}  {'agreed':>6}  {'published':>9}  result\n")
    for item in series.agreements:
        out.write(f"{item.pair.first['id']:>8}  {item.pair.second['id']:>8}  {item.pairs:>8}  {item.agreed:>6}  "
                  f"{float(item.pair.published):>9.4f}  {'pass' if item.passed else 'FAIL'}\n")
        for line in (item.note, *item.failures):
            out.write(f"{'':>10}{line}\n")
    for problem in series.problems:
        out.write(f"FAIL {problem}\n")
    return 0 if series.passed else 1


def main(argv: list[str] | None = None, out: TextIO = sys.stdout) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="a respondent page, e.g. https://survey.example.org/s/demo/")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--forms", type=int, default=None, help=f"end to end (the default): fill, send and intercept "
                      f"the page's form this many times (default {FORMS})")
    mode.add_argument("--draws", type=int, default=None, help="instead, draw this many reports per true answer "
                      "from the page's randomizer module (fast; does not run respond.js)")
    parser.add_argument("--alpha", type=float, default=None, help="family-wise false-alarm rate (default "
                        f"{FORMS_ALPHA:g} end to end, {DRAWS_ALPHA:g} with --draws)")
    parser.add_argument("--tabs", type=int, default=4, help="end to end: forms in flight at a time, each in a "
                        "browser context of its own (default 4)")
    parser.add_argument("--next-wave", metavar="URL", help="a later wave of the same series: each of the --forms "
                        "rounds is a browser new to the series answering both waves with the same truth, and each "
                        "remembered question's two reports must agree as its two published layers say")
    parser.add_argument("--changed", default="", metavar="ID,ID", help="with --next-wave: first-wave ids of "
                        "remembered questions whose answer changes in the second wave (a new permanent response)")
    parser.add_argument("--expect", action="append", default=[], metavar="NAME=SHA256",
                        help="a script the page must load with this SHA-256 (hex), e.g. randomizer.js=<hash> from "
                             "a reviewed release; repeatable. The manifest's hash in a served name is ignored")
    args = parser.parse_args(argv)
    forms = None if args.draws is not None else FORMS if args.forms is None else args.forms
    alpha = args.alpha if args.alpha is not None else DRAWS_ALPHA if forms is None else FORMS_ALPHA
    if (forms is not None and forms < 1) or (args.draws is not None and args.draws < 1):
        parser.error("--forms and --draws must be at least 1")
    if args.next_wave and forms is None:
        parser.error("--next-wave audits end to end: not with --draws")
    try:
        changed = frozenset(int(item) for item in args.changed.split(",") if item.strip())
    except ValueError:
        parser.error("--changed takes question ids separated by commas")
    if changed and not args.next_wave:
        parser.error("--changed needs --next-wave")
    scripts: dict[str, set[str]] = {}
    try:
        audits, run = audit_url(args.url, args.draws or 0, alpha, scripts, forms, max(1, args.tabs), args.next_wave,
                                changed)
    except RuntimeError as error:
        out.write(f"error: {error}\n")
        return 2
    table = io.StringIO()
    verdict = report(audits, args.draws or 0, alpha, table, how_forms(run))
    *rows, summary = table.getvalue().splitlines(keepends=True)
    out.writelines(rows)  # the questions (with --next-wave their agreement), the scripts, the one-line summary
    if isinstance(run, SeriesAudit):
        verdict = max(verdict, report_series(run, out))
        agreeing = sum(item.passed for item in run.agreements)
        summary = summary.replace(" pass (", f" pass, {agreeing} of {len(run.agreements)} agree across the waves (", 1)
    pinned = check_scripts(scripts, args.expect, out)
    out.write(summary)
    return max(verdict, pinned)


def how_forms(run: FormRun | SeriesAudit | None) -> str:
    """How the reports were made, for the summary line ('' for module draws)."""
    if isinstance(run, SeriesAudit):
        rounds, seconds = run.run.waves[0].rounds, run.run.seconds
        return f"{rounds:,} browsers through both waves in {seconds:.1f} s, {1000 * seconds / rounds:.0f} ms per " \
               "browser"
    if run is None:
        return ""
    return f"{run.rounds:,} forms through the page in {run.seconds:.1f} s, {1000 * run.seconds / run.rounds:.0f} " \
           "ms per form"


if __name__ == "__main__":
    sys.exit(main())
