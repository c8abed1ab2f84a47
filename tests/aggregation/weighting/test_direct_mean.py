"""The weighted mean of a number sent as given (age in years) has the interval its words name: Student t with
n - 1 degrees of freedom around the weighted mean's linearization standard error (the API's, the dashboard's
table, chart and note), and its words say weighted, never "as given" alone. The scripts give the same weighted
figures (scripts/test_weighted.py, whose survey ends with such a number).

The Spanish page needs the catalogs with tr-figures.json merged."""

import re

import pytest
from django.urls import reverse

from ldp.stats.intervals import t_value, z_value
from surveys.aggregation.templatetags.results_format import figures, mean_figures
from tests.aggregation.support import add_responses
from tests.aggregation.weighting_support import AGE, answer, enter, make_ages_survey, make_survey

N = 61


@pytest.fixture
def weighted(db, owner):
    made = make_ages_survey(owner, "weighted-ages")
    add_responses(made, N, seed=8, truth={1: [0.6, 0.25, 0.15]})
    enter(made, 1, AGE)
    return made


def get(client, owner, survey, name, query, language="en"):
    client.force_login(owner)
    response = client.get(reverse(f"aggregation:{name}", args=[survey.slug]) + query, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200, response.content[:300]
    return response


def section(html, heading):
    """The question's section of the dashboard, from its heading to the end of the section."""
    return html[html.index(heading):html.index("</section>", html.index(heading))]


def test_the_weighted_mean_of_a_number_sent_as_given_has_a_student_t_interval(client, owner, weighted):
    age = get(client, owner, weighted, "api-estimates", "?weighted=on").json()["questions"][1]
    mean = age["mean"]
    assert mean["n"] == N and mean["std_error"] > 0
    half = t_value(0.95, N - 1) * mean["std_error"]
    assert (mean["ci_low"], mean["ci_high"]) == pytest.approx((mean["mean"] - half, mean["mean"] + half), rel=1e-12)
    assert half / mean["std_error"] != pytest.approx(z_value(0.95), rel=1e-3)  # not the normal interval


def test_the_dashboard_says_weighted_and_shows_the_intervals_figures(client, owner, weighted):
    mean = get(client, owner, weighted, "api-estimates", "?weighted=on").json()["questions"][1]["mean"]
    html = get(client, owner, weighted, "dashboard", "?weighted=on&pilot=on").content.decode()
    part = section(html, "2. Age in years?")
    caption = re.search(r"<caption>(.*?)</caption>", part, flags=re.S).group(1)
    note = re.search(r'<p class="note which">(.*?)</p>', part, flags=re.S).group(1)
    desc = re.search(r"<desc [^>]*>(.*?)</desc>", part, flags=re.S).group(1)
    f = mean_figures(type("M", (), mean)())
    shown, low, high = figures(mean["mean"], mean["ci_low"], mean["ci_high"])
    assert (caption, note, desc) == (
        f"Weighted mean of the answers (not randomized; raked to the population margins) with its 95% Student t "
        f"interval, from {N} answers",
        f"The mean of the answers weighted to the population margins; its interval is Student's t with {N - 1} "
        "degrees of freedom around the weighted mean's standard error (linearization through the raking).",
        f"The dot shows the weighted estimate, the whiskers its 95% interval, on the scale from 18 to 99, from {N} "
        f"reports: mean {shown} (95% interval {low} to {high}).")
    row = re.search(r"<tbody>(.*?)</tbody>", part, flags=re.S).group(1)
    assert row == (f'<tr><th scope="row">Mean</th><td class="num">{f["mean"]}</td><td class="num">{f["ci_low"]} – '
                   f'{f["ci_high"]}</td><td class="num">{f["std_error"]}</td></tr>')


def test_the_unweighted_page_keeps_its_words(client, owner, weighted):
    part = section(get(client, owner, weighted, "dashboard", "?pilot=on").content.decode(), "2. Age in years?")
    assert "Exact mean of the answers (not randomized: sent as given) with its 95% Student t interval" in part
    assert "Weighted" not in part


def test_the_spanish_page_says_weighted(client, owner, weighted):
    """Needs the catalogs with tr-figures.json merged."""
    html = get(client, owner, weighted, "dashboard", "?weighted=on&pilot=on", "es").content.decode()
    part = section(html, "2. Age in years?")
    caption = re.search(r"<caption>(.*?)</caption>", part, flags=re.S).group(1)
    assert caption.startswith("Media ponderada de las respuestas") and "t de Student" in caption


def test_a_weighted_randomized_mean_says_weighted_too(client, owner):
    """The 1-bit mean's caption and note under the weights (its interval stays normal around the linearization
    standard error, clipped to the scale)."""
    made = make_survey(owner)
    answer(made)
    enter(made, 2, AGE)
    html = get(client, owner, made, "dashboard", "?weighted=on&pilot=on").content.decode()
    part = section(html, "6. Hours online?")
    caption = re.search(r"<caption>(.*?)</caption>", part, flags=re.S).group(1)
    note = re.search(r'<p class="note which">(.*?)</p>', part, flags=re.S).group(1)
    n = get(client, owner, made, "api-estimates", "?weighted=on").json()["questions"][5]["mean"]["n"]
    assert (caption, note) == (
        f"Weighted debiased mean (raked to the population margins) with its 95% confidence interval, from {n} "
        "reports",
        "The mean of the respondents' answers, debiased and weighted to the population margins: the interval is "
        "normal around the weighted mean's standard error (linearization through the raking) and clipped to the "
        "scale (0 to 10), the estimate is not.")
