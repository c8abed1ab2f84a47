"""The confidence sequences' level is the survey's planned confidence, fixed at Open with its planned size (issue 39,
item 6): the results page's confidence box, the API's `confidence` and the export's never change it; they set the
fixed-n intervals and the planner. The page says so in words, the API answers with the level and a note, estimates.csv
carries it. A survey opened before plans were stored keeps the level asked for, as it did."""

import csv
import io
import json

import pytest
from django.urls import reverse

from ldp.sequences.fractions import anytime_respondents_needed, fraction_sequence, streams
from ldp.sequences.means import laplace_sequence, onebit_sequence
from surveys.aggregation.api.serializers import SurveyEstimatesSerializer
from surveys.aggregation.params import ResultOptions
from surveys.aggregation.results import means
from surveys.aggregation.results import service as results
from surveys.collection import builder, plan
from surveys.collection.models import Survey
from tests.aggregation.support import add_responses, counts
from tests.collection.pages import parse

PLANNED, LEVEL, N = 800, 0.9, 300
NOTE = ("The intervals valid however often you look are at 90%, the confidence fixed when the survey opened; the "
        "confidence asked for (99%) sets the fixed-n intervals and the planner only.")


def opened_at_90(survey):
    Survey.objects.filter(pk=survey.pk).update(planned_size=PLANNED, planned_confidence=LEVEL)
    return Survey.objects.get(pk=survey.pk)


def result_of(found, question):
    return next(r for r in found.questions if r.question.id == question.pk)


@pytest.mark.parametrize("box", [0.95, 0.99, 0.9])
def test_the_sequences_are_at_the_planned_confidence_whatever_the_box(survey, box):
    reports = add_responses(opened_at_90(survey), N, seed=71)
    found = results.survey_results(survey, ResultOptions(confidence=box, margin=0.3))
    assert (found.options.interval, found.planned, found.sequence_confidence) == ("anytime", PLANNED, LEVEL)
    for question, values in reports.items():
        result, mechanism = result_of(found, question), question.mechanism()
        fixed = mechanism.estimate(counts(question, values), N, confidence=box)
        seq = fraction_sequence(mechanism, [N], [fixed.counts], confidence=LEVEL, planned=PLANNED)
        e = result.estimate
        assert (e.estimate, e.std_error, e.ci_low, e.ci_high, e.confidence) == (
            fixed.estimate, fixed.std_error, tuple(seq.ci_low[0]), tuple(seq.ci_high[0]), LEVEL)
        # Each interval at its share of the planned level; the planner (and its warning) at the box's.
        assert result.level == 1 - (1 - LEVEL) / streams(mechanism)
        assert result.planner_at == 1 - (1 - box) / streams(mechanism)
        assert result.needed == anytime_respondents_needed(mechanism, 0.3, box)


@pytest.mark.parametrize("box", [0.95, 0.99])
def test_the_fixed_n_intervals_follow_the_box(survey, box):
    reports = add_responses(opened_at_90(survey), N, seed=72)
    found = results.survey_results(survey, ResultOptions(confidence=box, interval="wilson"))
    assert (found.planned, found.sequence_confidence, found.sequence_note) == (None, None, None)
    for question, values in reports.items():
        assert result_of(found, question).estimate == question.mechanism().estimate(counts(question, values), N,
                                                                                    confidence=box)


def test_the_means_sequences_are_at_the_planned_confidence_and_a_mean_score_at_the_box(kinds_survey):
    builder.simulate_responses(opened_at_90(kinds_survey), N, {}, seed=73)
    found = results.survey_results(kinds_survey, ResultOptions(confidence=0.99))
    by_order = {r.question.order: r for r in found.questions}
    onebit, laplace, ordinal = by_order[2], by_order[3], by_order[5]
    current = plan.of(kinds_survey)
    one, noisy = current.questions[1], current.questions[2]
    n_ones = int(results.tallies.read([one])[one.id][0][1])
    seq = onebit_sequence(one.mechanism, [N], [n_ones], confidence=LEVEL, planned=PLANNED)
    assert (onebit.mean.ci_low, onebit.mean.ci_high, onebit.mean.confidence) == (
        seq.ci_low[0, 0], seq.ci_high[0, 0], LEVEL)
    values, tally = means.histograms([noisy])[noisy.id]
    seq = laplace_sequence(noisy.mechanism, [N], [float(tally @ (values - noisy.mechanism.bound))],
                           confidence=LEVEL, planned=PLANNED)
    assert (laplace.mean.ci_low, laplace.mean.ci_high, laplace.mean.confidence) == (
        seq.ci_low[0, 0], seq.ci_high[0, 0], LEVEL)
    assert (onebit.level, laplace.level, onebit.planner_at, laplace.planner_at) == (LEVEL, LEVEL, 0.99, 0.99)
    fixed = results.survey_results(kinds_survey, ResultOptions(confidence=0.99, interval="wilson"))
    assert ordinal.mean == {r.question.order: r for r in fixed.questions}[5].mean  # no sequence: at the box
    assert ordinal.mean.confidence == 0.99


def test_a_means_margin_reached_is_at_the_sequences_level_and_its_planner_at_the_box(kinds_survey):
    builder.simulate_responses(opened_at_90(kinds_survey), N, {}, seed=79)
    found = results.survey_results(kinds_survey, ResultOptions(confidence=0.99, margin=0.1))
    by_order = {r.question.order: r for r in found.questions}
    current = plan.of(kinds_survey)
    for order in (2, 3):  # the 1-bit mean, the discrete Laplace mean
        result, question = by_order[order], current.questions[order - 1]
        # `ldp` has no sequence planner for a mean: the worst-case margin of the fixed-n formula, spoken of at the
        # level its interval is shown at; the respondents needed at the box's.
        assert result.margin_now == pytest.approx(means.margin_at(question, N, LEVEL), rel=1e-12)
        assert result.margin_now < means.margin_at(question, N, 0.99)
        assert (result.needed, result.margin) == (means.needed(question, 0.1, 0.99), means.units(question, 0.1))


def estimates(client, owner, survey, query=""):
    client.force_login(owner)
    response = client.get(reverse("aggregation:api-estimates", args=[survey.slug]) + query)
    assert response.status_code == 200
    return response.json()


def test_the_api_takes_confidence_for_the_fixed_n_intervals_and_says_the_sequences_keep_theirs(client, owner,
                                                                                               survey):
    add_responses(opened_at_90(survey), N, seed=74)
    data = estimates(client, owner, survey, "?confidence=0.99")
    found = results.survey_results(survey, ResultOptions(confidence=0.99))
    assert data == json.loads(json.dumps(SurveyEstimatesSerializer(found).data))
    assert (data["confidence"], data["interval"], data["sequence_confidence"], data["sequence_note"]) == (
        0.99, "anytime", LEVEL, NOTE)
    default = estimates(client, owner, survey)  # at 95%: the same sequences
    assert [q["options"] for q in data["questions"]] == [q["options"] for q in default["questions"]]
    at_level = estimates(client, owner, survey, "?confidence=0.9")
    assert (at_level["sequence_confidence"], at_level["sequence_note"]) == (LEVEL, None)
    fixed = estimates(client, owner, survey, "?confidence=0.99&interval=wilson")
    assert (fixed["sequence_confidence"], fixed["sequence_note"], fixed["planned"]) == (None, None, None)
    assert fixed["questions"][0]["interval_level"] == 0.99


def test_the_schema_says_confidence_leaves_the_sequences_alone(client, owner):
    client.force_login(owner)
    schema = json.loads(client.get(reverse("aggregation:api-schema")).content)
    path = next(p for p in schema["paths"] if p.endswith("/estimates/"))
    confidence = next(p for p in schema["paths"][path]["get"]["parameters"] if p["name"] == "confidence")
    assert "The anytime intervals keep the survey's planned confidence" in confidence["description"]
    assert {"sequence_confidence", "sequence_note"} <= set(schema["components"]["schemas"]["SurveyEstimates"][
        "properties"])


def test_the_estimates_csv_carries_the_sequences_level_beside_the_confidence_asked_for(client, owner, survey):
    add_responses(opened_at_90(survey), N, seed=75)
    client.force_login(owner)
    body = client.get(reverse("aggregation:export-estimates", args=[survey.slug]) + "?confidence=0.99")
    rows = list(csv.DictReader(io.StringIO(body.content.decode("utf-8-sig"))))
    api = estimates(client, owner, survey, "?confidence=0.99")
    options = [(q, o) for q in api["questions"] for o in q["options"]]
    assert len(rows) == len(options) == 11
    for row, (question, option) in zip(rows, options, strict=True):
        assert (row["confidence"], row["interval"], row["planned"], row["sequence_confidence"]) == (
            "0.99", "anytime", str(PLANNED), "0.9")
        assert (float(row["ci_low"]), float(row["ci_high"]), float(row["interval_level"])) == (
            option["ci_low"], option["ci_high"], question["interval_level"])
    fixed = client.get(reverse("aggregation:export-estimates", args=[survey.slug]) + "?interval=wilson")
    assert {row["sequence_confidence"] for row in csv.DictReader(io.StringIO(fixed.content.decode("utf-8-sig")))} == {
        ""}


def page(client, owner, survey, query=""):
    client.force_login(owner)
    response = client.get(reverse("aggregation:dashboard", args=[survey.slug]) + query)
    assert response.status_code == 200
    return parse(response.content), response.content.decode()


def test_the_page_says_the_level_was_fixed_at_open_and_the_box_leaves_it(client, owner, survey):
    add_responses(opened_at_90(survey), N, seed=76)
    shown, html = page(client, owner, survey, "?confidence=0.99&margin=0.5")
    assert shown.by_id("interval-kind").find("strong").text == (
        "Intervals valid however often you look (confidence sequences), at the 90% level fixed when the survey "
        f"opened, planned for {PLANNED} respondents.")
    assert shown.by_id("confidence-note").text == (
        "Sets the fixed-n intervals and the planner only: the intervals valid however often you look stay at 90%, "
        "the level fixed when the survey opened.")
    assert shown.find("select", name="confidence").attrs["aria-describedby"] == "confidence-note"
    captions = [caption.text for caption in shown.find_all("caption")]
    assert sum("all of this question's intervals hold together at 90%)" in c for c in captions) == 4
    assert not any("99%" in c for c in captions)
    found = results.survey_results(survey, ResultOptions(confidence=0.99, margin=0.5))
    for result in found.questions:
        for row in result.rows:
            assert f"{row.ci_low * 100:.1f}% – {row.ci_high * 100:.1f}%" in html


def test_the_pages_fixed_n_intervals_follow_the_box_and_no_note_stands_beside_it(client, owner, survey):
    add_responses(opened_at_90(survey), N, seed=77)
    shown, _ = page(client, owner, survey, "?confidence=0.99&interval=wilson&margin=0.5")
    assert shown.by_id("confidence-note") is None
    assert "aria-describedby" not in shown.find("select", name="confidence").attrs
    captions = [caption.text for caption in shown.find_all("caption")]
    assert sum("with 99% confidence intervals (Wilson" in c for c in captions) == 4


def test_a_survey_opened_before_plans_were_stored_keeps_the_level_asked_for(client, owner, survey):
    reports = add_responses(survey, N, seed=78)
    found = results.survey_results(survey, ResultOptions(confidence=0.99))
    assert (found.sequence_confidence, found.sequence_note) == (0.99, None)
    question, values = next(iter(reports.items()))
    seq = fraction_sequence(question.mechanism(), [N], [counts(question, values)], confidence=0.99,
                            planned=found.planned)
    assert result_of(found, question).estimate.ci_low == tuple(seq.ci_low[0])
    assert page(client, owner, survey, "?confidence=0.99")[0].by_id("confidence-note") is None
