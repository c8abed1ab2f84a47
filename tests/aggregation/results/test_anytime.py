"""The results service, the estimates API and the dashboard for a survey watched while it runs: intervals valid
however often you look (`ldp`'s confidence sequences, planned for the survey's planner target) by default while
it is open, fixed-n ones once it is closed, and whichever is asked for with ?interval= in either state.

Slower than ten seconds on one core: the anytime planner is a bisection over sequences (a fraction of a second
per channel, more under load), which the service remembers per process but the tests recompute to compare."""

import csv
import io
import json

import pytest
from django.urls import reverse

import ldp
from ldp.sequences.fractions import anytime_respondents_needed, binary_sequence, fraction_sequence, streams
from ldp.sequences.means import laplace_sequence, onebit_sequence
from surveys.aggregation.api.serializers import SurveyEstimatesSerializer
from surveys.aggregation.params import ResultOptions
from surveys.aggregation.results import means
from surveys.aggregation.results import service as results
from surveys.collection import builder, plan
from surveys.collection.models import Survey
from tests.aggregation.support import add_responses, counts

ANYTIME_WORDS = "Intervals valid however often you look (confidence sequences)"


def close(survey):
    survey.status = Survey.Status.CLOSED
    survey.save(update_fields=["status"])


def sequence_of(mechanism, fixed, confidence, planned):
    """ldp's confidence sequence at the question's one look, from its counts alone."""
    return fraction_sequence(mechanism, [fixed.n], [fixed.counts], confidence=confidence, planned=planned)


@pytest.mark.parametrize("confidence", [0.95, 0.9])
def test_an_open_survey_gets_ldps_sequence_from_its_counts_planned_for_its_target(survey, confidence):
    reports = add_responses(survey, 400, seed=41)
    found = results.survey_results(survey, ResultOptions(confidence=confidence))
    # No stored planned size (opened before they were stored): the planner's figure at the defaults, whatever
    # the confidence asked for; the respondents needed follow the confidence asked for.
    planned = max(anytime_respondents_needed(q.mechanism(), 0.05, 0.95) for q in survey.questions.all())
    needed = max(anytime_respondents_needed(q.mechanism(), 0.05, confidence) for q in survey.questions.all())
    assert (found.options.interval, found.planned, found.needed) == ("anytime", planned, needed)
    for question, values in reports.items():
        result = next(r for r in found.questions if r.question.id == question.pk)
        fixed = question.mechanism().estimate(counts(question, values), 400, confidence=confidence)
        seq = sequence_of(result.mechanism, fixed, confidence, planned)
        assert result.interval == "anytime" and result.anytime
        assert result.estimate.ci_low == tuple(seq.ci_low[0]) and result.estimate.ci_high == tuple(seq.ci_high[0])
        # The estimates and standard errors are the fixed-n ones; only the intervals differ, and are wider.
        assert (result.estimate.estimate, result.estimate.std_error) == (fixed.estimate, fixed.std_error)
        assert all(a <= b + 1e-15 for a, b in zip(result.estimate.ci_low, fixed.ci_low, strict=True))
        assert all(a >= b - 1e-15 for a, b in zip(result.estimate.ci_high, fixed.ci_high, strict=True))
        assert result.estimate.ci_low != fixed.ci_low
        assert result.needed == anytime_respondents_needed(result.mechanism, 0.05, confidence)


def test_a_closed_survey_gets_the_fixed_n_interval_and_no_planning_size(survey):
    reports = add_responses(survey, 300, seed=42)
    close(survey)
    found = results.survey_results(survey)
    assert (found.options.interval, found.planned) == ("wilson", None)
    for question, values in reports.items():
        result = next(r for r in found.questions if r.question.id == question.pk)
        assert result.estimate == question.mechanism().estimate(counts(question, values), 300)
        assert not result.anytime and result.needed == ldp.respondents_needed(result.mechanism, 0.05)


@pytest.mark.parametrize("status, asked", [("open", "exact"), ("open", "wilson"), ("closed", "anytime")])
def test_an_interval_asked_for_wins_whatever_the_status(survey, status, asked):
    add_responses(survey, 200, seed=43)
    survey.status = status
    survey.save(update_fields=["status"])
    found = results.survey_results(survey, ResultOptions(interval=asked))
    assert found.options.interval == asked and {r.interval for r in found.questions} == {asked}
    assert (found.planned is not None) == (asked == "anytime")


def test_the_anytime_interval_of_a_yes_no_question_is_one_stream_and_its_mirror(survey):
    add_responses(survey, 500, seed=44)
    result = results.survey_results(survey).questions[0]  # q-RR yes/no: both options at the full level
    assert result.level == 0.95
    low, high = result.estimate.ci_low, result.estimate.ci_high
    assert low[0] == pytest.approx(1 - high[1], abs=1e-12) and high[0] == pytest.approx(1 - low[1], abs=1e-12)
    oue = results.survey_results(survey).questions[3]  # 4 bits: a union bound, 0.05 / 4 each
    assert oue.level == pytest.approx(1 - 0.05 / 4)


def test_the_early_results_rule_waits_for_the_anytime_planner(survey):
    options = ResultOptions(margin=0.3)
    needed = results.survey_results(survey, options).questions[0].needed
    assert needed == anytime_respondents_needed(plan.of(survey).questions[0].mechanism, 0.3)
    assert needed > ldp.respondents_needed(plan.of(survey).questions[0].mechanism, 0.3)
    add_responses(survey, needed - 1, seed=45)
    assert not results.survey_results(survey, options).questions[0].enough
    add_responses(survey, 1, seed=46)
    assert results.survey_results(survey, options).questions[0].enough


def test_the_margin_reached_while_open_is_the_sequences_worst_case_wider_than_the_fixed_n_one(survey):
    add_responses(survey, 400, seed=49)
    found = results.survey_results(survey)
    fixed = results.survey_results(survey, ResultOptions(interval="wilson"))
    for result, at_fixed_n in zip(found.questions, fixed.questions, strict=True):
        mechanism = result.mechanism
        # The worst case is a report rate of 1/2: the sequence's half-width there, at the question's share of 5%
        # and the survey's planned size, in fractions of the population.
        low, high = binary_sequence([200.0], [400], 0.05 / streams(mechanism), found.planned)
        worst = float(high[0] - low[0]) / (2 * (mechanism.p - mechanism.q_other))
        assert result.margin_now == pytest.approx(worst, rel=1e-9)
        assert result.margin_now > ldp.margin_at(mechanism, 400, result.level)  # valid at every look: wider
        assert result.margin_now > at_fixed_n.margin_now


def test_numeric_means_get_their_sequences_and_a_mean_score_keeps_its_fixed_n_interval(all_kinds_survey):
    builder.simulate_responses(all_kinds_survey, 300, {}, seed=47)
    found = results.survey_results(all_kinds_survey)
    by_order = {r.question.order: r for r in found.questions}
    onebit, laplace, ordinal, multi = by_order[8], by_order[9], by_order[11], by_order[7]
    assert onebit.anytime and laplace.anytime and ordinal.anytime and multi.anytime
    question = plan.of(all_kinds_survey).questions[8]
    values, tally = means.histograms([question])[question.id]
    total = float(tally @ (values - question.mechanism.bound))
    seq = laplace_sequence(question.mechanism, [300], [total], planned=found.planned)
    assert (laplace.mean.ci_low, laplace.mean.ci_high) == (seq.ci_low[0, 0], seq.ci_high[0, 0])
    fixed = results.survey_results(all_kinds_survey, ResultOptions(interval="wilson"))
    fixed_by_order = {r.question.order: r for r in fixed.questions}
    assert ordinal.mean == fixed_by_order[11].mean  # no sequence for a mean score: the fixed-n one
    assert onebit.mean.mean == fixed_by_order[8].mean.mean and onebit.mean != fixed_by_order[8].mean
    one = plan.of(all_kinds_survey).questions[7]
    n_ones = int(results.tallies.read([one])[one.id][0][1])
    seq = onebit_sequence(one.mechanism, [300], [n_ones], planned=found.planned)
    assert (onebit.mean.ci_low, onebit.mean.ci_high) == (seq.ci_low[0, 0], seq.ci_high[0, 0])


def get_json(client, owner, survey, query=""):
    client.force_login(owner)
    response = client.get(reverse("aggregation:api-estimates", args=[survey.slug]) + query)
    assert response.status_code == 200
    return response.json()


def test_the_api_says_which_interval_it_used_and_the_planning_size(client, owner, survey):
    add_responses(survey, 250, seed=48)
    data = get_json(client, owner, survey)
    found = results.survey_results(survey)
    assert data == json.loads(json.dumps(SurveyEstimatesSerializer(found).data))
    assert (data["interval"], data["planned"]) == ("anytime", found.planned)
    assert data["planned"] == data["survey"]["planner"]["respondents_needed"]
    assert {q["interval"] for q in data["questions"]} == {"anytime"}
    fixed = get_json(client, owner, survey, "?interval=wilson")
    assert (fixed["interval"], fixed["planned"]) == ("wilson", None)
    close(survey)
    assert get_json(client, owner, survey)["interval"] == "wilson"
    assert get_json(client, owner, survey, "?interval=anytime")["planned"] == found.planned


def test_the_schema_documents_the_anytime_interval_and_the_planning_size(client, owner):
    client.force_login(owner)
    schema = json.loads(client.get(reverse("aggregation:api-schema")).content)
    estimates = schema["components"]["schemas"]["SurveyEstimates"]["properties"]
    assert "planned" in estimates and "anytime" in json.dumps(schema["components"]["schemas"])
    path = next(p for p in schema["paths"] if p.endswith("/estimates/"))
    parameters = schema["paths"][path]["get"]["parameters"]
    interval = next(p for p in parameters if p["name"] == "interval")
    assert "anytime" in interval["schema"]["enum"] and "however often you look" in interval["description"]


def test_the_estimates_csv_carries_the_anytime_interval_and_its_planning_size(client, owner, survey):
    add_responses(survey, 250, seed=53)
    client.force_login(owner)
    body = client.get(reverse("aggregation:export-estimates", args=[survey.slug])).content.decode("utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(body)))
    api = get_json(client, owner, survey)
    options = [o for q in api["questions"] for o in q["options"]]
    assert len(rows) == len(options) == 11
    for row, option in zip(rows, options, strict=True):
        assert (row["interval"], int(row["planned"])) == ("anytime", api["planned"])
        assert (float(row["ci_low"]), float(row["ci_high"])) == (option["ci_low"], option["ci_high"])
    close(survey)
    body = client.get(reverse("aggregation:export-estimates", args=[survey.slug])).content.decode("utf-8-sig")
    assert {(row["interval"], row["planned"]) for row in csv.DictReader(io.StringIO(body))} == {("wilson", "")}


def dashboard(client, owner, survey, query=""):
    client.force_login(owner)
    response = client.get(reverse("aggregation:dashboard", args=[survey.slug]) + query)
    assert response.status_code == 200
    return response.content.decode()


def test_the_dashboard_of_an_open_survey_says_its_intervals_hold_however_often_you_look(client, owner, survey):
    add_responses(survey, 300, seed=49)
    html = dashboard(client, owner, survey, "?margin=0.5")
    found = results.survey_results(survey, ResultOptions(margin=0.5))
    assert f"{ANYTIME_WORDS}, planned for {found.planned} respondents at 95%." in html
    assert 'data-interval="anytime"' in html and "Show fixed-n intervals instead" in html
    assert html.count("Debiased estimates with intervals valid however often you look") == 4
    assert "interval=wilson" in html  # the fixed-n interval on request
    for result in found.questions:
        for row in result.rows:
            assert f"{row.ci_low * 100:.1f}% – {row.ci_high * 100:.1f}%" in html


def test_the_dashboard_of_a_closed_survey_says_fixed_n(client, owner, survey):
    add_responses(survey, 300, seed=50)
    close(survey)
    html = dashboard(client, owner, survey, "?margin=0.5")
    assert "Fixed-n intervals (Wilson score (continuity-corrected))." in html and 'data-interval="wilson"' in html
    assert "valid however often you look" not in html.split('id="interval-kind"')[1].split("</p>")[0]
    assert "Debiased estimates with intervals valid however often you look" not in html


def test_a_fixed_n_interval_asked_for_on_an_open_survey_is_never_called_valid_at_any_time(client, owner, survey):
    add_responses(survey, 300, seed=51)
    html = dashboard(client, owner, survey, "?margin=0.5&interval=wilson")
    assert ANYTIME_WORDS not in html
    assert "Debiased estimates with intervals valid however" not in html
    assert "Show intervals valid however often you look" in html and "Fixed-n intervals" in html


def test_a_mean_score_is_labelled_fixed_n_beside_anytime_intervals(client, owner, all_kinds_survey):
    builder.simulate_responses(all_kinds_survey, 200, {}, seed=52)
    html = dashboard(client, owner, all_kinds_survey, "?margin=0.5")
    assert html.count("This interval is fixed-n (no confidence sequence exists for a mean score)") == 3
