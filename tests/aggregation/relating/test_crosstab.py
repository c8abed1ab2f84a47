"""The cross-tab service: pair counts from one grouped query, ldp's estimates on them, refusals.

Relating answers with multi-select, numeric and ordinal questions: a multi-select's options (as its bits), an ordinal
question's levels and a numeric question's bins relate like any options; a numeric question asked for its mean has no
answers to put in a table, so a cross-tab or break-down by it is a 400 naming the parameter, and the dashboard's pickers
leave it out and say so."""

import itertools
import math
import re

import numpy as np
import pytest
from django.urls import reverse

import ldp
from surveys.aggregation.params import BadParameter, ResultOptions
from surveys.aggregation.relating import crosstab
from surveys.collection import answer_rows, builder, plan
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Report, Response, Survey
from surveys.collection.plan import PlannedQuestion
from surveys.errors import status_of
from tests.aggregation.support import add_responses

# Answers that depend on each other: question 3 (k-RR, 3 options) is mostly question 1's answer.
TRUTH = {1: [0.6, 0.4], 3: [0.5, 0.3, 0.2]}


def options(a, b, **more):
    return ResultOptions(a=a.pk, b=b.pk, **more)


def by_order(survey):
    return {q.order: q for q in survey.ordered_questions()}


def test_the_counts_equal_a_count_of_the_stored_reports_for_every_pair_of_mechanisms(survey):
    reports = add_responses(survey, 120, seed=3)
    for (qa, ra), (qb, rb) in itertools.permutations(reports.items(), 2):
        found = crosstab.crosstab(survey, options(qa, qb))
        expected = ldp.JointCounts.from_reports(qa.mechanism(), ra, qb.mechanism(), rb)
        assert found.counts.pairs.tolist() == expected.pairs.tolist(), (qa.order, qb.order)
        assert found.counts.a_counts.tolist() == expected.a_counts.tolist()
        assert found.counts.b_counts.tolist() == expected.b_counts.tolist()
        assert found.n == 120


def test_a_pair_some_respondents_skipped_is_counted_over_those_who_answered_both(survey):
    """Reports of q3 missing for 30 responses: the two questions' columns do not line up, so the pair is counted
    by the self-join, over the 90 responses with both (its tallies, left stale here, still say 120)."""
    add_responses(survey, 120, seed=6)
    q = by_order(survey)
    skipped = list(Response.objects.filter(survey=survey).order_by("submission_key").values_list("pk", flat=True))[:30]
    Report.objects.filter(question=q[3], response__in=skipped).delete()
    answer_rows.rebuild(survey.pk, plan.of(survey))  # as after any edit by hand: theirs are then none
    stored: dict = {}
    for response, question, value in Report.objects.filter(question__in=[q[1], q[3]]).values_list(
            "response", "question", "value"):
        stored.setdefault(response, {})[question] = value
    both = [values for values in stored.values() if len(values) == 2]
    expected = ldp.JointCounts.from_reports(q[1].mechanism(), np.array([v[q[1].pk] for v in both]),
                                            q[3].mechanism(), np.array([v[q[3].pk] for v in both]))
    found = crosstab.crosstab(survey, options(q[1], q[3]))
    assert found.n == len(both) == 90
    assert found.counts.pairs.tolist() == expected.pairs.tolist()


def test_the_counts_equal_a_plain_count_in_python(survey):
    """Without ldp: index report of q3 against the bits of q4's unary reports, one respondent at a time."""
    reports = add_responses(survey, 90, seed=4)
    q = by_order(survey)
    r3, r4 = reports[q[3]], reports[q[4]]
    plain = np.zeros((3, 4), dtype=int)
    for value, bits in zip(r3, r4, strict=True):
        for j in range(4):
            plain[value, j] += int(bits[j])
    assert crosstab.crosstab(survey, options(q[3], q[4])).counts.pairs.tolist() == plain.tolist()


def test_a_and_b_are_not_swapped(survey):
    """Rows are A's options: q1 (2 options) by q3 (3 options) is 2 x 3, and its transpose is 3 x 2."""
    reports = add_responses(survey, 200, seed=5, truth=TRUTH)
    q = by_order(survey)
    one_three = crosstab.crosstab(survey, options(q[1], q[3]))
    three_one = crosstab.crosstab(survey, options(q[3], q[1]))
    assert (one_three.a.id, one_three.b.id) == (q[1].pk, q[3].pk)
    assert one_three.counts.pairs.shape == (2, 3)
    assert three_one.counts.pairs.tolist() == one_three.counts.pairs.T.tolist()
    # Two questions with two options each: a swap would transpose an asymmetric table.
    one_two = crosstab.crosstab(survey, options(q[1], q[2])).counts.pairs
    expected = ldp.JointCounts.from_reports(q[1].mechanism(), reports[q[1]], q[2].mechanism(), reports[q[2]])
    assert one_two.tolist() == expected.pairs.tolist() != expected.pairs.T.tolist()


def test_another_surveys_reports_are_not_counted(survey):
    add_responses(survey, 50, seed=6)
    twin = builder.create_survey("twin", "Twin", [
        QuestionSpec("Cheated?", "qrr", q="0.5"), QuestionSpec("Drove drunk?", "bitflip", epsilon=math.log(3)),
    ], status=Survey.Status.OPEN)
    add_responses(twin, 70, seed=7)
    q = by_order(survey)
    found = crosstab.crosstab(survey, options(q[1], q[2]))
    assert found.n == 50 and int(found.counts.pairs.sum()) == 50


def test_only_responses_with_both_answers_count(survey):
    add_responses(survey, 30, seed=8)
    q = by_order(survey)
    builder.write_responses(survey, {q[1].pk: [1] * 5})  # five responses with question 1 only
    found = crosstab.crosstab(survey, options(q[1], q[2]))
    assert found.n == 30 and found.counts.a_counts.sum() == 30


def test_a_pair_is_counted_from_the_reports_once_then_read_from_its_running_counts(
        survey, django_assert_num_queries, django_assert_max_num_queries):
    add_responses(survey, 40, seed=9)
    current = plan.of(survey)
    a, b = current.questions[2], current.questions[3]
    with django_assert_max_num_queries(11) as captured:  # the plan among them: the layout of the answers
        first = crosstab.pair_counts(a, b)
    # One read of the stored values: the responses' answers, half of this survey's questions (report_columns)
    reads = [q["sql"].upper() for q in captured.captured_queries
             if ("COLLECTION_REPORT" in q["sql"].upper() and not q["sql"].upper().startswith("LOCK"))
             or "ANSWERS" in q["sql"].upper()]
    assert len(reads) == 1 and "COLLECTION_REPORT" not in reads[0] and "FROM \"COLLECTION_RESPONSE\"" in reads[0], reads
    with django_assert_num_queries(2) as captured:  # is it watched, then one grouped read of its counts
        again = crosstab.pair_counts(b, a)
    assert not any("COLLECTION_REPORT" in q["sql"].upper() for q in captured.captured_queries)
    assert again.pairs.tolist() == first.pairs.T.tolist() and again.n == first.n == 40


def test_the_estimates_are_ldps_on_the_same_counts(survey):
    add_responses(survey, 300, seed=10, truth=TRUTH)
    q = by_order(survey)
    for qa, qb in [(q[1], q[3]), (q[3], q[4]), (q[4], q[2])]:
        found = crosstab.crosstab(survey, options(qa, qb, confidence=0.9, margin=0.1))
        a, b, c = qa.mechanism(), qb.mechanism(), found.counts
        assert found.joint == ldp.estimate_joint(a, b, c, confidence=0.9)
        assert found.b_given_a == ldp.estimate_conditional(a, b, c, given="a", confidence=0.9)
        assert found.a_given_b == ldp.estimate_conditional(a, b, c, given="b", confidence=0.9)
        assert found.relation.test == ldp.independence(a, b, c)
        assert found.needed == ldp.joint_respondents_needed(a, b, 0.1, 0.9)
        assert [(cell.a_index, cell.b_index) for cell in found.cells] == list(itertools.product(range(a.k), range(b.k)))
        for cell in found.cells:
            i, j = cell.a_index, cell.b_index
            e, ba, ab = found.joint, found.b_given_a, found.a_given_b
            assert cell.count == c.pairs[i, j]
            assert cell.joint == (e.estimate[i][j], e.std_error[i][j], e.ci_low[i][j], e.ci_high[i][j])
            assert cell.b_given_a[:4] == (ba.estimate[i][j], ba.std_error[i][j], ba.ci_low[i][j], ba.ci_high[i][j])
            assert cell.a_given_b[:4] == (ab.estimate[j][i], ab.std_error[j][i], ab.ci_low[j][i], ab.ci_high[j][i])
            assert (cell.b_given_a[4], cell.a_given_b[4]) == (ba.bounded[i], ab.bounded[j])


def test_a_strong_relation_is_found_and_said_in_words(survey):
    q = by_order(survey)
    first = np.repeat([0, 1], 500)
    rng = np.random.default_rng(1)
    values = {q[1].pk: q[1].mechanism().randomize(first, rng),
              q[3].pk: q[3].mechanism().randomize(first * 2, rng)}  # No -> Never, Yes -> Often
    builder.write_responses(survey, values)
    found = crosstab.crosstab(survey, options(q[1], q[3]))
    assert found.relation.related and found.relation.test.p_value < 1e-6
    assert "The answers are related" in found.relation.statement
    assert "(p < 0.0001, below 0.05)." in found.relation.statement  # never "p = < 0.0001 < 0.05"
    assert found.b_given_a.estimate[1][2] > 0.7


@pytest.mark.parametrize("p,related,words", [
    (0.00009, True, "(p < 0.0001, below 0.05)"), (0.0001, True, "(p = 0.0001, below 0.05)"),
    (0.0499, True, "(p = 0.0499, below 0.05)"), (0.05, False, "(p = 0.05, not below 0.05)"),
    (0.5, False, "(p = 0.5, not below 0.05)"),
])
def test_the_independence_test_says_its_p_value_once_in_words(p, related, words):
    test = ldp.Independence(p_value=p, statistic=1.0, df=1, tables=1, phi_squared=0.01, cramers_v=0.1)
    relation = crosstab.Relation(test)
    assert relation.related is related and words in relation.statement


def test_a_direct_question_is_computed_like_any_other():
    """Direct questions are not stored yet (another change adds them); the computation takes them."""
    direct = PlannedQuestion(1, 1, "Age band", "single_choice", ("<30", "30+"), ldp.Direct(2))
    qrr = PlannedQuestion(2, 2, "Cheated?", "yes_no", ("No", "Yes"), ldp.QRandomizedResponse("0.5"))
    counts = ldp.JointCounts.from_values(direct.mechanism, qrr.mechanism, [0, 0, 1, 1], [0, 1, 0, 1],
                                         [40, 10, 20, 30])
    found = crosstab.from_counts(None, direct, qrr, counts, ResultOptions(margin=0.1))
    assert found.joint == ldp.estimate_joint(direct.mechanism, qrr.mechanism, counts)
    assert found.b_given_a == ldp.estimate_conditional(direct.mechanism, qrr.mechanism, counts)
    assert found.needed == ldp.joint_respondents_needed(direct.mechanism, qrr.mechanism, 0.1)
    assert found.b_given_a.bounded == (True, True)


def test_no_response_with_both_gives_counts_only(survey):
    q = by_order(survey)
    found = crosstab.crosstab(survey, options(q[1], q[2]))
    assert (found.n, found.counts, found.joint, found.b_given_a, found.relation, found.cells) == (
        0, None, None, None, None, [])
    assert found.needed == ldp.joint_respondents_needed(q[1].mechanism(), q[2].mechanism(), 0.05)


def test_it_refuses_a_question_twice_unknown_ids_and_another_surveys_questions(survey):
    q = by_order(survey)
    twin = builder.create_survey("twin", "Twin", [QuestionSpec("Cheated?", "qrr", q="0.5")])
    theirs = twin.questions.get()
    for given, field in [(ResultOptions(a=q[1].pk, b=q[1].pk), "b"), (ResultOptions(a=999999, b=q[1].pk), "a"),
                         (ResultOptions(a=q[1].pk, b=theirs.pk), "b"), (ResultOptions(a=theirs.pk, b=q[2].pk), "a"),
                         (ResultOptions(b=q[2].pk), "a"), (ResultOptions(a=q[2].pk), "b")]:
        with pytest.raises(BadParameter) as refused:
            crosstab.crosstab(survey, given)
        assert (status_of(refused.value), refused.value.field) == (400, field), given


def test_the_break_down_relates_every_other_question_to_the_groups(survey):
    add_responses(survey, 80, seed=12)
    q = by_order(survey)
    found = crosstab.break_down(survey, ResultOptions(by=q[3].pk))
    assert found.by.id == q[3].pk
    assert [t.b.id for t in found.tables] == [q[1].pk, q[2].pk, q[4].pk]
    for table in found.tables:
        assert table.a.id == q[3].pk
        assert table.b_given_a == crosstab.crosstab(survey, ResultOptions(a=q[3].pk, b=table.b.id)).b_given_a
    with pytest.raises(BadParameter) as refused:
        crosstab.break_down(survey, ResultOptions(by=123456))
    assert refused.value.field == "by"


@pytest.fixture
def answered(kinds_survey):
    builder.simulate_responses(kinds_survey, 400, {}, seed=71)
    return kinds_survey


def ids(survey):
    return {q.order: q.pk for q in survey.ordered_questions()}


def stored_pairs(survey, a, b):
    """The co-occurrence table counted in Python from the stored reports (independently of the service)."""
    questions = {q.id: q for q in plan.of(survey)}
    values = {}
    for response, question, value in Report.objects.values_list("response_id", "question_id", "value"):
        values.setdefault(response, {})[question] = value
    qa, qb = questions[a], questions[b]
    table = np.zeros((qa.mechanism.k, qb.mechanism.k), dtype=int)
    for row in values.values():
        for i in qa.mechanism.slots(row[a]):
            for j in qb.mechanism.slots(row[b]):
                table[i, j] += 1
    return table


@pytest.mark.parametrize("a, b", [(1, 5), (4, 5), (1, 4), (5, 1)])
def test_multi_select_ordinal_and_bins_relate_with_counts_from_the_stored_reports(answered, a, b):
    q = ids(answered)
    table = crosstab.crosstab(answered, ResultOptions(a=q[a], b=q[b]))
    assert table.n == 400 and np.array_equal(table.counts.pairs, stored_pairs(answered, q[a], q[b]))
    assert table.joint is not None and table.relation is not None and len(table.cells) == 16


@pytest.mark.parametrize("mean", [2, 3])
@pytest.mark.parametrize("name", ["a", "b"])
def test_a_numeric_mean_in_a_cross_tab_is_refused_naming_its_parameter(answered, mean, name):
    q = ids(answered)
    picked = {"a": q[1], "b": q[5], name: q[mean]}
    with pytest.raises(BadParameter) as error:
        crosstab.crosstab(answered, ResultOptions(**picked))
    assert error.value.field == name and "not available for this type of question" in error.value.reason


def test_the_api_and_the_export_answer_400_for_a_numeric_mean(client, owner, answered):
    client.force_login(owner)
    q = ids(answered)
    api = client.get(reverse("aggregation:api-crosstab", args=[answered.slug]) + f"?a={q[2]}&b={q[1]}")
    assert api.status_code == 400 and api.json()["error"]["field"] == "a"
    export = client.get(reverse("aggregation:export-crosstab", args=[answered.slug]) + f"?a={q[1]}&b={q[3]}")
    assert export.status_code == 400 and "not available" in export.content.decode()


def test_a_break_down_leaves_the_means_out_and_refuses_one_as_its_grouping(answered):
    q = ids(answered)
    down = crosstab.break_down(answered, ResultOptions(by=q[4]))
    assert [table.b.order for table in down.tables] == [1, 5]
    with pytest.raises(BadParameter, match="not available"):
        crosstab.break_down(answered, ResultOptions(by=q[2]))


@pytest.mark.slow
def test_the_pickers_offer_only_questions_that_relate_and_say_which_are_left_out(client, owner, answered):
    client.force_login(owner)
    html = client.get(reverse("aggregation:dashboard", args=[answered.slug])).content.decode()
    q = ids(answered)
    for name in ("a", "b", "by"):
        select = re.search(rf'<select name="{name}">(.*?)</select>', html, re.S).group(1)
        assert re.findall(r'<option value="(\d+)"', select) == [str(q[i]) for i in (1, 4, 5)]
    assert "Not available for numeric questions asked for their mean (question 2, 3)" in html


def test_the_dashboard_shows_a_refused_mean_as_a_400_with_the_reason(client, owner, answered):
    client.force_login(owner)
    q = ids(answered)
    response = client.get(reverse("aggregation:dashboard", args=[answered.slug]) + f"?a={q[1]}&b={q[3]}")
    assert response.status_code == 400 and "not available for this type of question" in response.content.decode()
