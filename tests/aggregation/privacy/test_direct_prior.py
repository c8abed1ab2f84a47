"""The statement's breach with the direct answers as prior (surveys.aggregation.privacy.direct_prior), against the same
figure from the stored reports counted in Python; higher than the population prior's where a direct answer
predicts the randomized one; and a remembered question's one wave and every wave (ldp.disclosure.remembered)."""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np
import pytest
from django.urls import reverse

from ldp.disclosure import fitted, remembered
from surveys.aggregation.privacy import direct_prior, disclosure, statement
from surveys.aggregation.results.service import survey_results
from surveys.collection import builder, plan
from surveys.collection.models import Report
from tests.aggregation.series_support import monthly, panel_reports
from tests.collection.pages import parse
from tests.conftest import login

CHEATED = [[0.9, 0.1], [0.5, 0.5], [0.1, 0.9]]  # by age band: the direct answer predicts the randomized one
DRUGS = [[0.7, 0.2, 0.1], [0.3, 0.4, 0.3], [0.1, 0.2, 0.7]]


def url(survey):
    return reverse("aggregation:statement", args=[survey.slug])


def answered(survey, n, seed):
    """n responses: age band and region drawn, the two randomized answers drawn by the age band, randomized."""
    rng = np.random.default_rng(seed)
    questions = {q.order: q for q in survey.ordered_questions()}
    age = rng.choice(3, size=n, p=[0.3, 0.4, 0.3])
    region = rng.choice(4, size=n)
    cheated = np.array([rng.choice(2, p=CHEATED[a]) for a in age])
    drugs = np.array([rng.choice(3, p=DRUGS[a]) for a in age])
    values = {questions[2].pk: age, questions[4].pk: region}
    for order, truths in ((1, cheated), (3, drugs)):
        mechanism = questions[order].mechanism()
        values[questions[order].pk] = mechanism.encode_many(mechanism.randomize(truths, rng))
    builder.write_responses(survey, values)


def python_cells(survey, question):
    """Per combination of (age band, region): the per-option counts of the question's reports, counted in Python
    from every stored report."""
    direct = {q.id for q in plan.of(survey).direct}
    answers = defaultdict(dict)
    for response, q, value in Report.objects.filter(response__survey=survey).values_list(
            "response_id", "question_id", "value"):
        answers[response][q] = value
    by_combination = defaultdict(Counter)
    for reports in answers.values():
        combination = tuple(reports.get(q) for q in sorted(direct))
        if question.id in reports:
            by_combination[combination][reports[question.id]] += 1
    return [([seen[j] for j in range(question.mechanism.k)], sum(seen.values()))
            for _, seen in sorted(by_combination.items())]


def test_each_questions_figure_is_the_fitted_prior_breach_of_the_stored_reports(owner_client, direct_survey):
    answered(direct_survey, 600, seed=44)
    soup = parse(owner_client.get(url(direct_survey)).content)
    found = statement.generated(direct_survey)
    assert found.given is not None and found.given.combinations == 12
    for question in plan.of(direct_survey):
        if not question.randomized:
            continue
        expected = fitted.breach(question.mechanism, python_cells(direct_survey, question))
        row = next(r for r in found.rows if r.question.id == question.id)
        assert row.given.attacker == pytest.approx(expected.attacker_accuracy, abs=1e-12)
        cells = [td.text for td in soup.by_id(f"breach-{question.order}").find_all("td")]
        assert cells[2] == f"{100 * expected.attacker_accuracy:.1f}%"
        # The age band predicts the answer: the thief who reads it does better than with the population's shares.
        assert row.given.attacker > row.breach.attacker + 0.05
    assert found.given.record.attacker > found.record.attacker
    assert soup.by_id("statement-record-given").text == f"With the answers sent as given beside them: " \
                                                        f"{100 * found.given.record.attacker:.1f}%."
    assert "(combinations in the data: 12)" in soup.by_id("statement-given").text


def test_before_any_response_it_says_when_it_will_be_stated(owner_client, direct_survey):
    soup = parse(owner_client.get(url(direct_survey)).content)
    assert soup.by_id("statement-given").text == (
        "With the answers sent as given: stated once there are responses, from each combination's shares.")
    assert len(soup.by_id("breach-1").find_all("td")) == 3


def test_past_the_rows_it_reads_at_most_it_is_not_stated(owner_client, direct_survey, monkeypatch):
    answered(direct_survey, 60, seed=1)
    monkeypatch.setattr(direct_prior, "MOST_ROWS", 5)
    assert direct_prior.computed(direct_survey) is None
    assert statement.generated(direct_survey).given is None


def test_its_read_is_one_query(direct_survey, django_assert_num_queries):
    answered(direct_survey, 50, seed=2)
    current = plan.of(direct_survey)
    with django_assert_num_queries(1):
        direct_prior.computed(direct_survey, current)


def test_a_remembered_question_states_one_wave_and_every_wave(client, owner):
    surveys = monthly(owner, waves=2)
    for wave, values in panel_reports(surveys, 300, seed=5).items():
        builder.write_responses(surveys[wave - 1], values)
    login(client, owner)
    survey = surveys[0]
    html = client.get(url(survey)).content
    soup = parse(html)
    found = statement.generated(survey)
    for order in (1, 2):
        row = next(r for r in found.rows if r.question.order == order)
        layers = row.question.mechanism.layers
        shares = next(r for r in survey_results(survey).questions if r.question.order == order).estimate.simplex
        pi = disclosure.prior(row.question, list(shares))
        one, every = remembered.accuracy(layers, pi, 1), remembered.accuracy(layers, pi, None)
        assert row.breach.attacker == pytest.approx(float(one)) and row.breach.every_wave == pytest.approx(float(every))
        assert one < every
        text = soup.by_id(f"breach-waves-{order}").text
        assert f"at most {100 * float(every):.1f}% of the time, however many waves" in text
        assert soup.by_id(f"breach-{order}").find_all("td")[1].text == f"{100 * float(one):.1f}%"
    assert b"breach-waves-3" not in html  # the multi-select is randomized afresh
