"""The dashboard's "Synthetic data" section: what the rows are and are not, the download, and the quality report
of the prepared file (its largest difference in standard errors, its warnings)."""

import html
import re

from django.urls import reverse

from surveys.aggregation.synthetic import respondents as synthetic
from surveys.aggregation.synthetic import words as synthetic_words
from surveys.collection import plan


def section(client, survey):
    page = client.get(reverse("aggregation:dashboard", args=[survey.slug])).content.decode()
    found = re.search(r'<section class="exports" aria-labelledby="synthetic-heading">.*?</section>', page, re.S)
    assert found, "no Synthetic data section"
    return re.sub(r"\s+", " ", found.group(0))


def test_it_says_what_the_rows_are_not_and_links_the_file(client, answered_kinds):
    shown = section(client, answered_kinds)
    assert "no row is a respondent." in shown
    assert "A figure computed from these rows is an estimate without its interval" in shown
    assert f'href="/results/{answered_kinds.slug}/export/synthetic.csv"' in shown
    assert "Its quality report comes with the file, once it is prepared." in shown


def test_it_states_the_prepared_files_quality(client, answered_kinds):
    assert client.get(reverse("aggregation:export-synthetic-csv", args=[answered_kinds.slug])).status_code == 200
    stated = synthetic.synthetic_data(answered_kinds, plan.of(answered_kinds)).quality
    shown = section(client, answered_kinds)
    assert f"is {stated.largest:.1f} standard errors of that estimate." in shown
    worst = max(stated.marginals, key=lambda m: m.ratio)
    assert f'<span class="note">({" × ".join(worst.variables)})</span>' in shown
    assert [html.unescape(w) for w in re.findall(r"<li>([^<]*)</li>", shown.split("<details>")[1])] == [
        synthetic_words.sentence(w.to_dict()) for w in stated.warnings]
    assert "Its quality report comes with the file" not in shown
