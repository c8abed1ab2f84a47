"""Below the planner's respondents, a question sent as given (not randomized) is not said to be dominated by a
randomization it does not have: the dashboard's banner, the pilot figures' warning, the estimates API's warning and
the generated scripts' warning line each say that its answers are not randomized but its intervals are wide, while
a randomized question beside it keeps the randomization's words.

The survey: a 3-option k-RR question (eps 2) and a direct one, five responses: both below their planners.
Spanish words come from the catalogs once the lead merges tr-figures.json (the Spanish test)."""

import re

import pytest
from django.urls import reverse

from surveys.collection import builder
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey
from tests.aggregation.scripts.test_analysis_scripts import fetch, run_python, run_r
from tests.aggregation.support import add_responses

N = 5
PILOT = "Tick “Show pilot figures” above to see them, marked as such."
RANDOMIZED_BANNER = ("With fewer reports the randomization dominates: an estimate can lie far outside 0–100% and its "
                     "interval span almost everything. The randomized counts below, the planner and the exports are "
                     "available now. " + PILOT)
DIRECT_BANNER = ("These answers are not randomized, but with fewer of them an interval can still span much of "
                 "0–100%. The counts below, the planner and the exports are available now. " + PILOT)


@pytest.fixture
def few(db, owner):
    survey = builder.create_survey("few-direct", "Few", [
        QuestionSpec("Colour?", "krr", epsilon=2.0, options=["Red", "Green", "Blue"]),
        QuestionSpec("Region?", "direct", options=["North", "South", "West"]),
    ], status=Survey.Status.OPEN, epsilon_budget=3.0)
    survey.researchers.add(owner)
    add_responses(survey, N, seed=4)
    return survey


def dashboard(client, owner, survey, query="?interval=wilson", language="en"):
    client.force_login(owner)
    response = client.get(reverse("aggregation:dashboard", args=[survey.slug]) + query,
                          HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def banners(html):
    """Each question's early notice, its words without tags and with spaces collapsed."""
    found = re.findall(r'<p class="notice early"[^>]*>(.*?)</p>', html, flags=re.S)
    return [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", text)).strip() for text in found]


def needed_sentence(n, needed):
    return f"{n} of {needed} respondents needed for ±5.0 points at 95%; estimates are not shown yet. "


def api(client, owner, survey):
    client.force_login(owner)
    return client.get(reverse("aggregation:api-estimates", args=[survey.slug]) + "?interval=wilson").json()


def warning(n, needed, randomized):
    why = ("The randomization dominates: an estimate can lie far from the truth and its interval span almost "
           "everything." if randomized else "These answers are not randomized, but with so few of them the "
           "interval is wide.")
    return f"Too few respondents: {n} of the {needed} needed for ±5.0 points at 95%. {why}"


def test_the_banner_of_a_question_sent_as_given_does_not_blame_a_randomization(client, owner, few):
    needs = [q["planner"]["respondents_needed"] for q in api(client, owner, few)["questions"]]
    assert banners(dashboard(client, owner, few)) == [
        needed_sentence(N, needs[0]) + RANDOMIZED_BANNER, needed_sentence(N, needs[1]) + DIRECT_BANNER]


def test_the_api_and_the_pilot_figures_warn_in_the_same_words(client, owner, few):
    body = api(client, owner, few)
    assert [(q["too_few"], q["warning"]) for q in body["questions"]] == [
        (True, warning(N, q["planner"]["respondents_needed"], randomized)) for q, randomized in
        zip(body["questions"], (True, False), strict=True)]
    html = dashboard(client, owner, few, "?interval=wilson&pilot=on")
    marked = re.findall(r'<strong class="pilot-mark">Pilot figures</strong> ([^<]*)</p>', html)
    assert marked == [q["warning"] for q in body["questions"]]


def test_the_spanish_banner_of_a_question_sent_as_given(client, owner, few):
    """Needs the catalogs with tr-figures.json merged."""
    html = dashboard(client, owner, few, "?interval=wilson", "es")
    assert "no están aleatorizadas" in banners(html)[1] and "domina la aleatorización" in banners(html)[0]


@pytest.mark.slow
def test_the_scripts_warning_names_no_randomization_for_a_question_sent_as_given(client, owner, few, tmp_path):
    client.force_login(owner)
    folder = fetch(client, few, tmp_path)
    needs = {q["key"]: q["planner"]["respondents_needed"] for q in api(client, owner, few)["questions"]}

    def line(key, why):
        return (f"  WARNING: too few respondents: n = {N} of the {needs[key]} needed for a margin of 0.05 at 0.95 "
                f"(worst case); {why} and the dashboard does not show these estimates: do not read them alone")

    want = [line("q1", "the randomization dominates"),
            line("q2", "these answers are not randomized, but their intervals are wide")]
    for who, (printed, _rows) in (("R", run_r(folder, few.slug, ["--interval", "wilson"])),
                                  ("Python", run_python(folder, few.slug, ["--interval", "wilson"]))):
        assert [text for text in printed.splitlines() if "WARNING" in text] == want, who
