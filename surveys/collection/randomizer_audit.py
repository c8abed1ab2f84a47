"""Drive a respondent page's own randomizer.js in headless Chromium and audit its output.

Used by `manage.py audit_randomizer <url>` and by the browser tests. The page publishes its
samplers in the `survey-data` JSON block; we import the very randomizer.js module the page
loads and draw from it with the page's Web Crypto, then test with `ldp.audit`.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass

from ldp.audit import AuditResult, audit

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


@dataclass(frozen=True)
class QuestionAudit:
    question_id: int
    sampler: dict
    result: AuditResult


def launch_chromium(playwright):
    executable = shutil.which("chromium")
    if executable is None:
        raise RuntimeError("Debian's chromium is not on PATH (apt-get install chromium)")
    return playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)


def published_questions(page) -> list[dict]:
    return page.evaluate("JSON.parse(document.getElementById('survey-data').textContent).questions")


def draw_table(page, sampler: dict, draws: int) -> list[list[int]]:
    return page.evaluate(DRAW, [sampler, draws])


def audit_page(page, draws: int = 100_000, alpha: float = 1e-6) -> list[QuestionAudit]:
    """Audit every question of the loaded page, with family-wise false-alarm rate `alpha`."""
    questions = published_questions(page)
    family = sum(q["sampler"]["k"] ** 2 for q in questions)
    audits = []
    for question in questions:
        table = draw_table(page, question["sampler"], draws)
        result = audit(question["sampler"], table, draws, alpha, cells_in_family=family)
        audits.append(QuestionAudit(question["id"], question["sampler"], result))
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
