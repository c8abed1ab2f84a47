"""Audit a running survey page's randomizer from outside, in headless Chromium.

    python bench/audit_randomizer.py https://survey.example.org/s/<slug>/ [--draws N] [--alpha A]

Draws from the page's own randomizer.js for every question and true answer, tests the reports
against the published probabilities (`ldp.audit`: exact binomial tests, family-wise false-alarm
rate alpha) and bounds the empirical epsilon from below. A direct question (sampler kind
"direct", not randomized) is audited as the identity channel: every report must be the answer
given (probabilities 1 and 0); its claimed epsilon is infinite and it is marked "(sent as given)".
The new kinds' samplers (multiselect, onebit, dlaplace) are drawn for the true answers
`ldp.audit.audit_truths` suggests (no option and two answers d bits apart; a numeric grid's ends and
middle), their reports counted per cell of `ldp.report_cells` (joint bit patterns, the bit, ranges of
the noisy report) and audited the same way.
Exits 1 if any question fails, 2 if the page cannot be audited. The page publishes its samplers
in the `survey-data` JSON block; we import the very randomizer.js module the page loads and draw
from it with the page's Web Crypto. Needs Debian's chromium and Playwright's Python package
(development requirements); the browser tests use the same functions.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # the project, for `ldp`

from ldp.audit import AuditResult, audit, audit_truths, report_edges, tabulate  # noqa: E402
from ldp.report_cells import bit_cells  # noqa: E402

if TYPE_CHECKING:
    from playwright.sync_api import Page

CHROMIUM_ARGS = [
    "--no-sandbox",  # CI runs as root
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

# Counts, per true answer, of each report (grr) or of each 1-bit (unary), over `draws` runs.
DRAW = """async ([sampler, draws]) => {
  const script = document.querySelector('script[type="module"][src]');
  const randomizer = await import(new URL("randomizer.js", script.src).href);
  const nextWord = randomizer.cryptoSource();
  const table = [];
  for (let truth = 0; truth < sampler.k; truth++) {
    const counts = new Array(sampler.k).fill(0);
    for (let i = 0; i < draws; i++) {
      const report = randomizer.randomizeAnswer(sampler, truth, nextWord);
      if (Array.isArray(report)) report.forEach((bit, j) => { counts[j] += bit; });
      else counts[report] += 1;
    }
    table.push(counts);
  }
  return table;
}"""


# Histograms of reports {value: count}, per true answer, over `draws` runs: a multi-select's truth and
# report as bitmasks (bit j = option j), a numeric one's truth as a grid index and its report as sent.
DRAW_REPORTS = """async ([sampler, truths, draws]) => {
  const script = document.querySelector('script[type="module"][src]');
  const randomizer = await import(new URL("randomizer.js", script.src).href);
  const nextWord = randomizer.cryptoSource();
  const bits = (mask) => Array.from({ length: sampler.k }, (_, j) => (mask >> j) & 1);
  return truths.map((truth) => {
    const counts = new Map();
    const answer = sampler.kind === "multiselect" ? bits(truth) : truth;
    for (let i = 0; i < draws; i++) {
      const report = randomizer.randomizeAnswer(sampler, answer, nextWord);
      const value = Array.isArray(report) ? report.reduce((mask, bit, j) => mask + bit * 2 ** j, 0) : report;
      counts.set(value, (counts.get(value) || 0) + 1);
    }
    return Array.from(counts.entries());
  });
}"""
OLD_KINDS = ("grr", "unary", "direct")


def cells(sampler: dict[str, Any]) -> int:
    """How many cells one true answer's row of a new kind has (its bits, or ranges of its reports)."""
    return sampler["k"] if bit_cells(sampler) else len(report_edges(sampler)) - 1


def family_size(samplers: list[dict[str, Any]]) -> int:
    """Every cell the audit tests: k x k for the one-of-k kinds, truths x cells for the new ones."""
    return sum(s["k"] ** 2 if s["kind"] in OLD_KINDS else len(audit_truths(s)) * cells(s) for s in samplers)


@dataclass(frozen=True)
class QuestionAudit:
    question_id: int
    sampler: dict[str, Any]
    result: AuditResult


def launch_chromium(playwright: Any) -> Any:
    executable = shutil.which("chromium")
    if executable is None:
        raise RuntimeError("Debian's chromium is not on PATH (apt-get install chromium)")
    return playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)


def published_questions(page: Page) -> list[dict[str, Any]]:
    return page.evaluate("JSON.parse(document.getElementById('survey-data').textContent).questions")


def draw_table(page: Page, sampler: dict[str, Any], draws: int) -> list[list[int]]:
    return page.evaluate(DRAW, [sampler, draws])


def draw_rows(page: Page, sampler: dict[str, Any], draws: int) -> dict[int, list[int]]:
    """A new kind's counts per cell, per suggested true answer, from the page's own randomizer."""
    truths = audit_truths(sampler)
    histograms = page.evaluate(DRAW_REPORTS, [sampler, truths, draws])
    return {truth: tabulate(sampler, dict(pairs)) for truth, pairs in zip(truths, histograms, strict=True)}


def audit_page(page: Page, draws: int = 100_000, alpha: float = 1e-6) -> list[QuestionAudit]:
    """Audit every question of the loaded page, with family-wise false-alarm rate `alpha`."""
    questions = published_questions(page)
    family = family_size([q["sampler"] for q in questions])
    audits = []
    for question in questions:
        sampler = question["sampler"]
        table: dict[int, Sequence[int]] | list[list[int]] = (
            draw_table(page, sampler, draws) if sampler["kind"] in OLD_KINDS else dict(draw_rows(page, sampler, draws)))
        result = audit(sampler, table, draws, alpha, cells_in_family=family)
        audits.append(QuestionAudit(question["id"], sampler, result))
    return audits


def audit_url(url: str, draws: int = 100_000, alpha: float = 1e-6) -> list[QuestionAudit]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_page()
            response = page.goto(url)
            if response is None or response.status != 200:
                raise RuntimeError(f"{url} answered {response.status if response else 'nothing'}")
            return audit_page(page, draws, alpha)
        finally:
            browser.close()


def report(audits: list[QuestionAudit], draws: int, alpha: float, out: TextIO) -> int:
    """Print one line per question and a verdict; 0 if every question passes, else 1."""
    out.write(f"{'question':>8}  {'kind':11} {'k':>7}  {'claimed eps':>11}  {'eps lower bound':>15}  result\n")
    for item in audits:
        r = item.result
        verdict = ("pass" if r.passed else "FAIL") + (" (sent as given)" if item.sampler["kind"] == "direct" else "")
        size = item.sampler.get("k", item.sampler.get("steps", 0) + 1)  # a numeric grid: its steps + 1 answers
        out.write(f"{item.question_id:>8}  {item.sampler['kind']:11} {size:>7}  "
                  f"{r.claimed_epsilon:>11.4f}  {r.epsilon_lower_bound:>15.4f}  {verdict}\n")
        for failure in r.failures:
            out.write(f"{'':>10}{failure}\n")
    failed = [a for a in audits if not a.result.passed]
    out.write(f"{len(audits) - len(failed)} of {len(audits)} questions pass "
              f"({draws:,} draws per true answer, family-wise alpha {alpha:g}).\n")
    return 1 if failed else 0


def main(argv: list[str] | None = None, out: TextIO = sys.stdout) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="a respondent page, e.g. https://survey.example.org/s/demo/")
    parser.add_argument("--draws", type=int, default=100_000, help="draws per true answer")
    parser.add_argument("--alpha", type=float, default=1e-6, help="family-wise false-alarm rate")
    args = parser.parse_args(argv)
    try:
        audits = audit_url(args.url, args.draws, args.alpha)
    except RuntimeError as error:
        out.write(f"error: {error}\n")
        return 2
    return report(audits, args.draws, args.alpha, out)


if __name__ == "__main__":
    sys.exit(main())
