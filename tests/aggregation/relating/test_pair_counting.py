"""Pairs of questions counted in the background the first time they are related, when the survey is
large (surveys.aggregation.relating.pair_counting; the threshold set low here): the cross-tab API answers 202
{"status": "counting"} with Retry-After, the dashboard a notice in place of the table and a Refresh
header, the cross-tab CSV 202 as the export pages; one count at a time per pair; a failure is logged
and retried; small surveys are counted in the request as before. On committed data
(transactional_db): the count runs on the thread's own connection. The thread is held before it
counts (`Held`), so the test, not the machine's speed, decides what happens meanwhile."""

import csv
import io
import json
import logging
import threading
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.renderers import JSONRenderer

from surveys.aggregation.api.crosstab_serializers import CrossTabSerializer
from surveys.aggregation.exports import figure_tables
from surveys.aggregation.params import ResultOptions
from surveys.aggregation.relating import crosstab, pair_counting
from surveys.collection import pair_tallies, plan, tallies
from surveys.collection.models import PairCounting, PairWatch, Report, Response
from tests.aggregation.support import add_responses
from tests.collection.test_pair_tallies import from_the_reports

watch_now = pair_tallies.watch  # the real one: `Held` holds the threads'

pytestmark = pytest.mark.django_db(transaction=True)
RESPONSES = 32
# The work of reading one or three questions' columns (one pair, or two pairs sharing a question), in
# RELATE_NOW_RESPONSES' unit: an eighth of a response counted by the self-join. Every test survey's questions are
# answered by all here.
ONE_PAIR = RESPONSES * 2 * pair_counting.COLUMN // pair_counting.SELF_JOIN
TWO_PAIRS = RESPONSES * 3 * pair_counting.COLUMN // pair_counting.SELF_JOIN


class Held:
    """Every count started (`started`), each held before it counts until the test opens `go`; `fail`
    makes the next count raise instead."""

    def __init__(self, monkeypatch):
        self.started, self.go, self.fail, self.waits = [], threading.Event(), False, []
        start, watch = pair_counting.start, pair_tallies.watch_all

        def recorded(claim, pairs):
            thread = start(claim, pairs)
            self.started.append((thread, [(a.id, b.id) for a, b in pairs]))
            join = thread.join
            thread.join = lambda timeout=None: self.waits.append(timeout) or join(timeout)  # the request's wait
            return thread

        def held(pairs, *each):
            if not threading.current_thread().name.startswith("relate-"):
                return watch(pairs, *each)  # counted in the request
            assert self.go.wait(60)
            if self.fail:
                raise RuntimeError("planted failure")
            return watch(pairs, *each)

        monkeypatch.setattr(pair_counting, "start", recorded)
        monkeypatch.setattr(pair_tallies, "watch_all", held)

    def finish(self):
        self.go.set()
        for thread, _ in self.started:
            threading.Thread.join(thread, 60)  # not recorded
            assert not thread.is_alive()


@pytest.fixture
def held(monkeypatch, settings):
    settings.RELATE_NOW_RESPONSES = ONE_PAIR - 1  # one pair of RESPONSES responses is too much
    monkeypatch.setattr(pair_counting, "WAIT", 0.05)  # the held count does not end meanwhile
    gate = Held(monkeypatch)
    yield gate
    gate.finish()  # no thread outlives its test, and its database


@pytest.fixture
def answered(client, owner, survey):
    add_responses(survey, RESPONSES, seed=41)
    client.force_login(owner)
    return survey


def questions(survey):
    return {q.order: q for q in plan.of(survey)}


def api(client, survey, a, b):
    return client.get(reverse("aggregation:api-crosstab", args=[survey.slug]) + f"?a={a.id}&b={b.id}")


def straightforward_json(survey, a, b):
    """The API's JSON of the pair counted from the reports, the plain way."""
    table = crosstab.from_counts(survey, a, b, from_the_reports(a, b), ResultOptions(a=a.id, b=b.id))
    return json.loads(JSONRenderer().render(CrossTabSerializer(table).data))


def test_the_first_ask_is_answered_202_and_starts_one_count_then_the_whole_table(client, answered, held):
    q = questions(answered)
    first = api(client, answered, q[3], q[1])
    assert first.status_code == 202 and first["Retry-After"] == "5"
    assert first.json() == {"status": "counting", "counted": 0, "pairs": 1, "retry_after": 5}
    assert [pairs for _, pairs in held.started] == [[(q[1].id, q[3].id)]]
    assert not PairWatch.objects.exists()
    held.finish()
    assert not PairCounting.objects.exists()
    done = api(client, answered, q[3], q[1])
    assert done.status_code == 200 and done.json() == straightforward_json(answered, q[3], q[1])
    assert len(held.started) == 1


def test_a_count_that_ends_while_the_first_ask_waits_is_answered_whole_at_once(client, answered, monkeypatch,
                                                                               settings):
    settings.RELATE_NOW_RESPONSES = ONE_PAIR - 1  # counted in the background, which takes far less than WAIT
    start, started = pair_counting.start, []

    def recorded(claim, pairs):
        started.append([(a.id, b.id) for a, b in pairs])
        return start(claim, pairs)

    monkeypatch.setattr(pair_counting, "start", recorded)
    q = questions(answered)
    first = api(client, answered, q[3], q[1])
    assert first.status_code == 200 and first.json() == straightforward_json(answered, q[3], q[1])
    assert started == [[(q[1].id, q[3].id)]] and not PairCounting.objects.exists()


def test_a_second_ask_while_counting_starts_none(client, answered, held):
    q = questions(answered)
    assert api(client, answered, q[1], q[2]).status_code == 202
    again = api(client, answered, q[2], q[1])
    assert again.status_code == 202 and again.json()["status"] == "counting"
    assert len(held.started) == 1 and PairCounting.objects.count() == 1
    held.finish()
    assert api(client, answered, q[1], q[2]).json() == straightforward_json(answered, q[1], q[2])


def test_a_failure_is_logged_and_the_next_ask_retries(client, answered, held, caplog):
    q = questions(answered)
    held.fail = True
    with caplog.at_level(logging.ERROR, logger="surveys.aggregation.relating.pair_counting"):
        assert api(client, answered, q[1], q[4]).status_code == 202
        held.finish()
    assert [r.exc_info[1].args for r in caplog.records] == [("planted failure",)]
    assert not PairCounting.objects.exists() and not PairWatch.objects.exists()
    held.fail, held.go = False, threading.Event()
    assert api(client, answered, q[1], q[4]).status_code == 202
    assert len(held.started) == 2
    held.finish()
    assert api(client, answered, q[1], q[4]).json() == straightforward_json(answered, q[1], q[4])


def test_a_claim_left_by_a_worker_that_died_is_taken_over(client, answered, held):
    q = questions(answered)
    PairCounting.objects.create(question_a_id=q[2].id, question_b_id=q[3].id, claim="0" * 32,
                                touched_at=timezone.now() - timedelta(seconds=pair_counting.STALE + 1))
    assert api(client, answered, q[2], q[3]).status_code == 202
    assert [pairs for _, pairs in held.started] == [[(q[2].id, q[3].id)]]
    held.finish()
    assert api(client, answered, q[2], q[3]).json() == straightforward_json(answered, q[2], q[3])


def test_a_small_survey_is_counted_in_the_request(client, answered, held, settings):
    settings.RELATE_NOW_RESPONSES = ONE_PAIR  # exactly the work of one pair: still in the request
    held.go.set()
    q = questions(answered)
    response = api(client, answered, q[1], q[3])
    assert response.status_code == 200 and response.json() == straightforward_json(answered, q[1], q[3])
    assert held.started == [] and PairWatch.objects.count() == 1


def test_a_pair_some_respondents_skipped_costs_the_self_join_and_is_counted_in_the_background(client, answered,
                                                                                            held, settings):
    """Its columns do not line up, so the pair is counted by the self-join: four times a pair read as columns."""
    q = questions(answered)
    Report.objects.filter(question_id=q[3].id, response__in=Response.objects.filter(survey=answered)[:2]).delete()
    tallies.rebuild(answered)
    settings.RELATE_NOW_RESPONSES = RESPONSES - 1  # a pair of the survey by the self-join is too much, as columns not
    assert api(client, answered, q[1], q[2]).status_code == 200  # both answered by all: in the request
    assert api(client, answered, q[1], q[3]).status_code == 202
    held.finish()
    done = api(client, answered, q[1], q[3])
    assert done.status_code == 200 and done.json() == straightforward_json(answered, q[1], q[3])
    assert done.json()["n"] == RESPONSES - 2


def straightforward_break_down(survey, q):
    """The cells of the break-down by question 1, each pair counted from the reports, the plain way."""
    return [crosstab.from_counts(survey, q[1], other, from_the_reports(q[1], other)).cells
            for other in (q[2], q[3], q[4])]


def dashboard(client, survey, query):
    return client.get(reverse("aggregation:dashboard", args=[survey.slug]) + query)


def test_the_dashboard_says_a_break_down_is_being_counted_and_refreshes_until_it_is_whole(client, answered, held,
                                                                                        settings):
    q = questions(answered)
    settings.RELATE_NOW_RESPONSES = TWO_PAIRS - 1  # the two pairs left are too much
    watch_now(*pair_tallies.ordered(q[1], q[2])[:2])
    page = dashboard(client, answered, f"?by={q[1].id}")
    assert page.status_code == 200 and page["Refresh"] == "5"
    assert page.context["break_down"] is None
    assert "The table is being counted (1 of 3 pairs of questions counted so far)" in page.content.decode()
    assert held.started[0][1] == [(q[1].id, q[3].id), (q[1].id, q[4].id)]
    held.finish()
    page = dashboard(client, answered, f"?by={q[1].id}")
    assert page.status_code == 200 and "Refresh" not in page
    assert "being counted" not in page.content.decode()
    assert [table.cells for table in page.context["break_down"].tables] == straightforward_break_down(answered, q)


def test_the_dashboard_cross_tab_is_counted_in_place(client, answered, held):
    q = questions(answered)
    page = dashboard(client, answered, f"?a={q[2].id}&b={q[4].id}")
    assert page.status_code == 200 and page["Refresh"] == "5" and page.context["crosstab"] is None
    assert "(0 of 1 pairs of questions counted so far)" in page.content.decode()
    held.finish()
    page = dashboard(client, answered, f"?a={q[2].id}&b={q[4].id}")
    assert "Refresh" not in page
    assert page.context["crosstab"].cells == crosstab.from_counts(answered, q[2], q[4],
                                                                  from_the_reports(q[2], q[4])).cells


def test_a_dashboard_with_a_cross_tab_and_a_break_down_waits_once_for_both(client, answered, held):
    q = questions(answered)
    page = dashboard(client, answered, f"?a={q[2].id}&b={q[4].id}&by={q[1].id}")
    assert page.status_code == 200 and page.context["crosstab"] is None and page.context["break_down"] is None
    assert len(held.started) == 2 and len(held.waits) == 2 and sum(held.waits) <= pair_counting.WAIT


def test_a_request_whose_pairs_another_is_counting_in_part_starts_the_rest_and_does_not_wait(client, answered,
                                                                                              held):
    q = questions(answered)
    PairCounting.objects.create(question_a_id=q[1].id, question_b_id=q[3].id, claim="0" * 32,
                                touched_at=timezone.now())
    page = dashboard(client, answered, f"?by={q[1].id}")
    assert page.status_code == 200 and page.context["break_down"] is None and page["Refresh"] == "5"
    assert [pairs for _, pairs in held.started] == [[(q[1].id, q[2].id), (q[1].id, q[4].id)]]
    assert held.waits == []


def csv_url(survey, a, b):
    return reverse("aggregation:export-crosstab", args=[survey.slug]) + f"?a={a.id}&b={b.id}"


def test_the_cross_tab_csv_answers_202_like_the_export_pages_then_the_whole_file(client, answered, held):
    q = questions(answered)
    url = csv_url(answered, q[3], q[4])
    page = client.get(url)
    assert page.status_code == 202 and page["Refresh"] == f"5; url={url}" and page["Retry-After"] == "5"
    assert "Counting the cross-tab" in page.content.decode()
    polled = client.get(url, headers={"Accept": "application/json"})
    assert polled.status_code == 202 and "Refresh" not in polled and polled["Retry-After"] == "5"
    assert polled.json() == {"status": "counting", "counted": 0, "pairs": 1, "retry_after": 5, "url": url}
    assert len(held.started) == 1
    held.finish()
    done = client.get(url)
    options = ResultOptions(a=q[3].id, b=q[4].id)
    table = crosstab.from_counts(answered, q[3], q[4], from_the_reports(q[3], q[4]), options)
    assert done.status_code == 200
    assert list(csv.reader(io.StringIO(done.content.decode()))) == [
        [str(cell) for cell in row] for row in figure_tables.spreadsheet_safe(figure_tables.crosstab_rows(table))]


def test_only_the_pairs_not_yet_watched_count_toward_the_work(client, answered, held, settings):
    q = questions(answered)
    settings.RELATE_NOW_RESPONSES = TWO_PAIRS  # the two pairs left, not all three (four columns)
    watch_now(*pair_tallies.ordered(q[1], q[2])[:2])
    page = dashboard(client, answered, f"?by={q[1].id}")
    assert page.status_code == 200 and "Refresh" not in page and held.started == []
    assert [table.cells for table in page.context["break_down"].tables] == straightforward_break_down(answered, q)
