"""The dashboard's "Synthetic data" section: what the rows are and are not, the download, and the quality report
of the prepared file (its largest difference in standard errors, its warnings)."""

import re

import pytest
from django.urls import reverse

from surveys.aggregation import synthetic
from surveys.collection import builder, plan

from .test_exports_of_ticks_and_numbers import TRUTH


@pytest.fixture
def answered(client, owner, kinds_survey):
    builder.simulate_responses(kinds_survey, 250, TRUTH, seed=8)
    client.force_login(owner)
    return kinds_survey


def section(client, survey):
    page = client.get(reverse("aggregation:dashboard", args=[survey.slug])).content.decode()
    found = re.search(r'<section class="exports" aria-labelledby="synthetic-heading">.*?</section>', page, re.S)
    assert found, "no Synthetic data section"
    return re.sub(r"\s+", " ", found.group(0))


def test_it_says_what_the_rows_are_not_and_links_the_file(client, answered):
    shown = section(client, answered)
    assert "no row is a respondent." in shown
    assert "A figure computed from these rows is an estimate without its interval" in shown
    assert f'href="/results/{answered.slug}/export/synthetic.csv"' in shown
    assert "Its quality report comes with the file, once it is prepared." in shown


def test_it_states_the_prepared_files_quality(client, answered):
    assert client.get(reverse("aggregation:export-synthetic-csv", args=[answered.slug])).status_code == 200
    stated = synthetic.synthetic_data(answered, plan.of(answered)).quality
    shown = section(client, answered)
    assert f"is {stated.largest:.1f} standard errors of that estimate." in shown
    worst = max(stated.marginals, key=lambda m: m.ratio)
    assert f'<span class="note">({" × ".join(worst.variables)})</span>' in shown
    assert re.findall(r"<li>([^<]*)</li>", shown.split("<details>")[1]) == stated.warnings
    assert "Its quality report comes with the file" not in shown
