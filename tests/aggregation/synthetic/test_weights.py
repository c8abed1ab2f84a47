"""A weighted survey's synthetic rows (surveys.aggregation.synthetic.weights): with population margins the rows are
fitted to the responses' raking weights, the dashboard's own, so they reproduce the weighted figures; a survey whose
responses cannot be weighted says why instead of being silently unweighted."""

import html
import json
import re

import numpy as np
import pytest
from django.urls import reverse

from surveys.aggregation.models import PreparedExport
from surveys.aggregation.synthetic import respondents as synthetic
from surveys.collection import builder, plan
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey
from tests.aggregation.weighting_support import enter

N = 4000
GROUP = {"A": 0.5, "B": 0.5}  # the population's; the sample has 80% B
Y_GIVEN = [0.2, 0.7]  # P(y = "yes" | group): the population's share 0.45, the sample's 0.6


@pytest.fixture
def biased(db, owner, client):
    """1 direct group (A, B), 2 y by k-RR (no, yes) depending on the group, 3 z by OUE (3 options); N responses with
    group B over-sampled."""
    survey = builder.create_survey("biased", "Biased", [
        QuestionSpec("Group?", "direct", options=list(GROUP)),
        QuestionSpec("Y?", "krr", epsilon=1.5, options=["no", "yes"]),
        QuestionSpec("Z?", "oue", epsilon=2.0, options=["low", "mid", "high"]),
    ], status=Survey.Status.OPEN, epsilon_budget=10.0)
    survey.researchers.add(owner)
    rng = np.random.default_rng(5)
    group = (rng.random(N) < 0.8).astype(np.int64)
    truth = {1: group, 2: (rng.random(N) < np.take(Y_GIVEN, group)).astype(np.int64),
             3: np.minimum(group + rng.integers(0, 2, N), 2)}
    builder.write_responses(survey, {q.id: q.mechanism.encode_many(q.mechanism.randomize(truth[q.order], rng))
                                     for q in plan.of(survey)})
    client.force_login(owner)
    return survey


def weighted_figures(client, survey, order):
    body = client.get(reverse("aggregation:api-estimates", args=[survey.slug]) + "?weighted=true").json()
    found = next(q for q in body["questions"] if q["order"] == order)
    return np.array([o["estimate"] for o in found["options"]]), np.array([o["std_error"] for o in found["options"]])


def shares(survey, column, labels):
    data = synthetic.synthetic_data(survey, plan.of(survey))
    cells = data.columns[data.header.index(column)]
    return np.array([cells.count(label) for label in labels]) / data.rows


def test_the_rows_reproduce_the_weighted_figures_once_the_survey_has_margins(client, biased):
    unweighted = shares(biased, "q2", ["no", "yes"])
    enter(biased, 1, GROUP)
    estimate, std_error = weighted_figures(client, biased, 2)
    assert abs(estimate[1] - 0.45) < 4 * std_error[1]  # the weighted figure is the population's
    weighted = shares(biased, "q2", ["no", "yes"])
    assert np.all(np.abs(weighted - estimate) < 2.5 * std_error), (weighted, estimate, std_error)
    assert np.all(np.abs(unweighted - estimate) > 8 * std_error), (unweighted, estimate, std_error)
    # the margin's shares, fixed by the raking (no standard error), up to the model's fit: a quarter of a sampling
    # standard error
    assert np.abs(shares(biased, "q1", list(GROUP)) - 0.5).max() < 0.25 * (0.25 / N) ** 0.5


def test_the_quality_report_compares_with_the_dashboards_weighted_estimates(client, biased):
    enter(biased, 1, GROUP)
    estimate, std_error = weighted_figures(client, biased, 2)
    stated = synthetic.synthetic_data(biased, plan.of(biased)).quality
    y = next(m for m in stated.marginals if m.variables == ("q2",))
    assert y.estimate == pytest.approx(estimate[y.cell[0]], abs=1e-9)
    assert y.std_error == pytest.approx(std_error[y.cell[0]], rel=1e-6)


def section(client, survey, **headers):
    page = client.get(reverse("aggregation:dashboard", args=[survey.slug]), **headers).content.decode()
    found = re.search(r'aria-labelledby="synthetic-heading">.*?</section>', page, re.S).group(0)
    return html.unescape(re.sub(r"\s+", " ", found))


def prepare(client, survey):
    assert client.get(reverse("aggregation:export-synthetic-csv", args=[survey.slug])).status_code == 200
    return json.loads(PreparedExport.objects.get(format="syn").codebook)["export"]["synthetic"]


def test_the_codebook_and_the_dashboard_say_the_rows_are_weighted_to_the_margins(client, biased):
    enter(biased, 1, GROUP)
    made = prepare(client, biased)
    assert made["weights"]["weighted"] is True and made["weights"]["margins"] == ["q1"]
    assert "raking weight" in made["weights"]["rule"]
    assert "These rows are weighted to the survey’s population margins" in section(client, biased)
    api = client.get(reverse("aggregation:api-synthetic", args=[biased.slug])).json()
    assert api["quality"]["weighted"] is True and api["quality"]["not_weighted"] is None


def test_a_survey_without_margins_says_nothing_of_weights(client, biased):
    made = prepare(client, biased)
    assert made["weights"] is None
    shown = section(client, biased)
    assert "weighted" not in shown


def test_responses_that_cannot_be_weighted_are_said_so_not_silently_unweighted(client, biased):
    enter(biased, 1, GROUP)
    current = {q.order: q.id for q in plan.of(biased)}
    builder.write_responses(biased, {current[1]: [0], current[2]: [1]})  # a weighted response without question 3
    made = prepare(client, biased)
    assert made["weights"] == {"weighted": False, "refused": {
        "code": "unanswered", "values": {"question": 3},
        "text": "Question 3 was not answered by every weighted response."}}
    assert ("This survey has population margins, but these rows are not weighted to them: Question 3 was not "
            "answered by every weighted response.") in section(client, biased)
    assert "These rows are weighted" not in section(client, biased)
    spanish = section(client, biased, HTTP_ACCEPT_LANGUAGE="es")
    assert "No todas las respuestas ponderadas contestaron la pregunta 3." in spanish, spanish
    assert "Esta encuesta tiene márgenes poblacionales, pero estas filas no están ponderadas a ellos" in spanish
