"""The generated scripts, downloaded from a dashboard page by its own links and run without options, print that
page's intervals: an open survey's page shows the intervals valid however often you look (the confidence sequence)
and so do its scripts; a page asked for other options (exact intervals at 90%, Bonferroni) gives scripts with those
defaults; a closed survey's page and its scripts show the fixed-n Wilson intervals.

Compared whole: every row of the script's output (its columns that estimates.csv has: key, option, count, n,
interval, level, needed, too few, and every number to scripts/test_anytime.py's TOLERANCE) with
the page's estimates.csv (its link, the page's options), and every interval the page prints with the script's,
formatted as the page formats it. Runs R and Python (about 10 s)."""

import csv
import io
import re
import sys
from html import unescape

import pytest
from django.urls import reverse

from surveys.aggregation.templatetags.results_format import percent
from surveys.collection import builder
from surveys.collection.models import Survey
from tests.aggregation.scripts.test_analysis_scripts import FILES, read_csv, rscript, run
from tests.aggregation.scripts.test_anytime import TOLERANCE
from tests.aggregation.scripts.test_every_question import TRUTH

PAGES = {
    "open-default": ("", "anytime"),
    "exact-90-bonferroni": ("?confidence=0.9&interval=exact&simultaneous=on", "exact"),
}


@pytest.fixture
def answered(client, owner, all_kinds_survey):
    builder.simulate_responses(all_kinds_survey, 300, TRUTH, seed=27)
    client.force_login(owner)
    return all_kinds_survey


def body(response):
    assert response.status_code == 200, response.content[:300]
    return b"".join(response.streaming_content) if response.streaming else response.content


def from_the_page(client, survey, query, folder):
    """The page's HTML (with pilot figures, so every estimate shows) and its exports, the scripts by its links."""
    page = body(client.get(reverse("aggregation:dashboard", args=[survey.slug]) + (query or "?") + "&pilot=on"))
    html = page.decode()
    for name, file in FILES.items():
        url = reverse(f"aggregation:export-{name}", args=[survey.slug])
        if name.startswith("analysis"):
            url = unescape(re.search(rf'href="({re.escape(url)}[^"]*)"', html).group(1))
        (folder / f"{survey.slug}-{file}").write_bytes(body(client.get(url)))
    return html


SAME = ("question_key", "option_index", "n", "count", "interval",
        "respondents_needed", "too_few")
NUMBERS = ("estimate", "std_error", "ci_low", "ci_high", "confidence", "interval_level")


def estimates_csv(client, html):
    """The page's estimates.csv, by its link (the page's options)."""
    url = unescape(re.search(r'href="([^"]*/export/estimates\.csv[^"]*)"', html).group(1))
    return list(csv.DictReader(io.StringIO(body(client.get(url)).decode())))


def assert_same(rows, page_rows, who):
    assert [tuple(r[c].lower() for c in SAME) for r in rows] == [
        tuple(r[c].lower() for c in SAME) for r in page_rows], who
    for row, want in zip(rows, page_rows, strict=True):
        for column in NUMBERS:
            assert (row[column] == "") == (want[column] == ""), (who, row["question_key"], column)
            if want[column]:
                assert abs(float(row[column]) - float(want[column])) <= TOLERANCE, (who, row["question_key"], column)


def shown_intervals(html):
    """Every option's interval as the page prints it, in order ("12.3% – 45.6%")."""
    tables = re.findall(r'<table class="estimates">(.*?)</table>', html, flags=re.S)
    return [cells[1] for table in tables
            for cells in re.findall(r'<tr><th scope="row">[^<]*</th><td class="num">([^<]*)</td><td class="num">'
                                    r'([^<]*)</td>', table)]


def printed_as_the_page(rows):
    return [f"{percent(float(r['ci_low']))} – {percent(float(r['ci_high']))}" for r in rows
            if r["option_index"] not in ("mean", "mean_score")]


def runs(survey, folder):
    run([sys.executable, f"{survey.slug}-analysis.py", "--csv", "py.csv"], folder)
    run([rscript(), "--vanilla", f"{survey.slug}-analysis.R", f"{survey.slug}-reports.csv", "--csv", "r.csv"], folder)
    return {"Python": read_csv(folder / "py.csv"), "R": read_csv(folder / "r.csv")}


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=list(PAGES))
def test_the_scripts_defaults_print_the_intervals_of_the_page_they_came_from(client, answered, tmp_path, page):
    query, interval = PAGES[page]
    html = from_the_page(client, answered, query, tmp_path)
    page_rows = estimates_csv(client, html)
    assert {r["interval"] for r in page_rows} >= {interval}
    for who, rows in runs(answered, tmp_path).items():
        assert_same(rows, page_rows, who)
        assert printed_as_the_page(rows) == shown_intervals(html), who


@pytest.mark.slow
def test_a_closed_surveys_page_and_scripts_show_the_fixed_n_intervals(client, answered, tmp_path):
    Survey.objects.filter(pk=answered.pk).update(status=Survey.Status.CLOSED)
    html = from_the_page(client, answered, "", tmp_path)
    page_rows = estimates_csv(client, html)
    assert {r["interval"] for r in page_rows} == {"wilson", "normal", "t"}  # the means' own, none valid at any time
    for who, rows in runs(answered, tmp_path).items():
        assert_same(rows, page_rows, who)
        assert printed_as_the_page(rows) == shown_intervals(html), who


def test_the_page_links_its_scripts_with_its_options(client, answered):
    html = body(client.get(reverse("aggregation:dashboard", args=[answered.slug]) + "?interval=exact&margin=0.1"))
    links = re.findall(r'href="([^"]*/export/analysis\.(?:R|py)[^"]*)"', html.decode())
    query = "?confidence=0.95&amp;interval=exact&amp;simultaneous=off&amp;margin=0.1"
    assert links == [f"/results/{answered.slug}/export/analysis.R{query}",
                     f"/results/{answered.slug}/export/analysis.py{query}"]
