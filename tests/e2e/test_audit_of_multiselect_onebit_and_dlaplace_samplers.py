"""bench/audit_randomizer.py audits the multi-select, 1-bit mean and discrete Laplace samplers in real Chromium: a page
publishing multiselect, onebit and dlaplace samplers (served by Playwright, no Django needed) passes with the real
randomizer.js and fails with a planted off-by-one in the 1-bit mean's rounding or a Laplace sampler that counts 0 twice
(at a small scale; at a large one the audit's cells are too wide to see it)."""

import json
from pathlib import Path

import pytest

import ldp
from bench.audit_randomizer import audit_page

ROOT = Path(__file__).resolve().parents[2]
SITE = "http://audit.test"
MECHANISMS = [ldp.MultiSelect(2.0, 4, at_most=2), ldp.MultiSelect(3.0, 10), ldp.OneBitMean(1.0, "0", "10", "1"),
              ldp.DiscreteLaplace(3.0, "0", "4", "1"), ldp.DiscreteLaplace(1.0, "0", "200", "1")]
OFF_BY_ONE = ("const bit = uniform(sampler.steps) < truth ? 1 : 0;",
              "const bit = uniform(sampler.steps) <= truth ? 1 : 0;")
ZERO_TWICE = ("if (negative && y === 0n) return null;", "")


def serve(page, replacements=()):
    data = {"questions": [{"id": n, "sampler": m.sampler()} for n, m in enumerate(MECHANISMS, start=1)]}
    html = (f'<!doctype html><script id="survey-data" type="application/json">{json.dumps(data)}</script>'
            f'<script type="module" src="{SITE}/static/js/respond.js"></script>')
    source = (ROOT / "static/js/randomizer.js").read_text()
    for original, replacement in replacements:
        assert original in source
        source = source.replace(original, replacement)
    page.route(f"{SITE}/s/demo/", lambda route: route.fulfill(body=html, content_type="text/html"))
    # The page's entry module loads the randomizer, as respond.js does: the audit draws from that one.
    page.route(f"{SITE}/static/js/respond.js",
               lambda route: route.fulfill(body='import "./randomizer.js";', content_type="text/javascript"))
    page.route(f"{SITE}/static/js/randomizer.js",
               lambda route: route.fulfill(body=source, content_type="text/javascript"))
    page.goto(f"{SITE}/s/demo/")


def test_the_new_kinds_pass_with_the_real_randomizer(page):
    # The conformity bar: alpha = 1e-6 and at least 10^5 draws per true answer.
    serve(page)
    audits = audit_page(page, draws=100_000, alpha=1e-6)
    assert [a.sampler["kind"] for a in audits] == ["multiselect", "multiselect", "onebit", "dlaplace", "dlaplace"]
    for item, m in zip(audits, MECHANISMS, strict=True):
        assert item.result.passed, item.result.failures
        assert item.result.claimed_epsilon == pytest.approx(m.effective_epsilon, rel=1e-12)
        assert 0 < item.result.epsilon_lower_bound <= item.result.claimed_epsilon


def test_planted_sampler_bugs_are_caught(page):
    serve(page, [OFF_BY_ONE, ZERO_TWICE])
    audits = {a.question_id: a.result for a in audit_page(page, draws=30_000, alpha=1e-6)}
    assert audits[1].passed and audits[2].passed  # multi-select untouched
    assert not audits[3].passed and any("truth 0" in failure for failure in audits[3].failures)
    # Counting 0 twice moves P(0) by (1 - a) / (1 + a): 0.27 at scale 4/3, visible in 30000 draws; at scale 200
    # it is 0.0025 spread over a cell of 50 reports, below what 30000 draws can see (question 5).
    assert not audits[4].passed
