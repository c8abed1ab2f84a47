"""surveys.collection.report_columns and the grouping of its columns (model_rows.grouped): when every response
answers every question asked for, the rows are grouped from per-question columns read in response order, and must
be identical (values, counts, order) to the pivoting query's (model_rows._pivoted); otherwise that query answers."""

import threading
import time

import numpy as np
import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from surveys.aggregation.regression import rows as model_rows
from surveys.collection import builder, pair_tallies, plan, report_columns
from surveys.collection.models import Report, Response
from tests.aggregation.model_support import make_survey

ORDERS = (1, 2, 3, 4, 5, 6, 7, 8)  # qrr, direct index, direct index, direct number, krr, 1-bit mean, oue, multi-select


@pytest.fixture
def survey(owner):
    return make_survey(owner)


def write(survey, n: int, rng: np.random.Generator, orders=ORDERS, answers: bool = False) -> dict[int, np.ndarray]:
    """n responses with reports of `orders` (random stored values within each question's range). Without their
    answers unless asked (as rows written by hand): the survey's columns are then read from the reports."""
    current = {q.order: q for q in plan.of(survey)}
    highest = {1: 2, 2: 3, 3: 2, 4: 73, 5: 3, 6: 2, 7: 8, 8: 8}  # the stored values' range: indexes, bitmasks
    values = {order: rng.integers(0, highest[order], n) for order in orders}
    written = builder.write_responses(survey, {current[order].id: column for order, column in values.items()})
    if not answers:
        Response.objects.filter(pk__in=written).update(answers=None)
    return values


def ids(survey, orders) -> list[int]:
    current = {q.order: q for q in plan.of(survey)}
    return [current[order].id for order in orders]


def assert_identical(found: model_rows.Rows, expected: model_rows.Rows) -> None:
    assert found.questions == expected.questions
    assert found.values.dtype == expected.values.dtype and found.counts.dtype == expected.counts.dtype
    assert found.values.shape == expected.values.shape
    assert np.array_equal(found.values, expected.values) and np.array_equal(found.counts, expected.counts)


@pytest.mark.parametrize("answers", [False, True], ids=["from the reports", "from the answers"])
@pytest.mark.parametrize("orders", [ORDERS, (4, 1, 8, 2), (3, 7), (6,), (8, 4, 2, 5, 1, 3, 7, 6)])
def test_a_complete_survey_is_grouped_from_its_columns_exactly_as_the_query_groups_it(survey, orders, answers):
    rng = np.random.default_rng(11)
    written = [write(survey, n, rng, answers=answers) for n in (170, 90, 240)]  # batches: rows in no order
    columns = report_columns.complete(ids(survey, orders))
    assert columns is not None and [len(column) for column in columns] == [500] * len(orders)
    found, expected = model_rows.grouped(ids(survey, orders)), model_rows._pivoted(ids(survey, orders))
    assert_identical(found, expected)
    table = np.column_stack([np.concatenate([batch[order] for batch in written]) for order in orders])
    values, counts = np.unique(table, axis=0, return_counts=True)  # what was written, grouped
    assert np.array_equal(found.values, values) and np.array_equal(found.counts, counts)


def test_rows_too_many_to_code_in_one_integer_are_grouped_whole_in_the_same_order():
    rng = np.random.default_rng(2)
    huge = rng.choice(np.array([0, 1 << 40, (1 << 62) + 3]), 300)
    columns = [huge, rng.integers(0, 2, 300), rng.choice(np.array([5, 1 << 30]), 300)]
    found_values, found_counts = report_columns.grouped(columns)
    values, counts = np.unique(np.column_stack(columns), axis=0, return_counts=True)
    assert found_values.dtype == np.int64
    assert np.array_equal(found_values, values) and np.array_equal(found_counts, counts)


def test_responses_without_some_question_are_grouped_by_the_query(survey):
    rng = np.random.default_rng(4)
    write(survey, 300, rng)
    write(survey, 40, rng, orders=(1, 2, 3, 5, 6, 7, 8))  # no 4: the tallies disagree, nothing is read
    asked = ids(survey, (4, 2, 7))
    assert report_columns.complete(asked) is None
    assert_identical(model_rows.grouped(asked), model_rows._pivoted(asked))
    assert model_rows.grouped(asked).n == 300


def test_columns_as_long_as_each_other_but_not_as_the_responses_are_not_lined_up(survey):
    rng = np.random.default_rng(5)
    write(survey, 200, rng)
    write(survey, 30, rng, orders=(1, 3, 4, 5, 6, 7, 8))  # no 2
    write(survey, 30, rng, orders=(1, 2, 3, 5, 6, 7, 8))  # no 4: the tallies of 2 and 4 agree (230 each)
    asked = ids(survey, (2, 4, 7))
    assert report_columns.complete(asked) is None
    found = model_rows.grouped(asked)
    assert_identical(found, model_rows._pivoted(asked))
    assert found.n == 200


@pytest.mark.parametrize("answers", [False, True], ids=["from the reports", "from the answers"])
@pytest.mark.parametrize("arriving, n", [((1, 2, 3, 5, 6, 7, 8), 250), (ORDERS, 251)])
def test_a_response_stored_between_the_tallies_and_the_read_is_read_in_its_place_or_not_at_all(
        survey, monkeypatch, arriving, n, answers):
    """Without 4, the newcomer leaves column 4 a report short (and has no answers): not lined up, the query
    answers (250). With every question, it is in every column, in its place (251). Either way the rows are the
    query's."""
    rng = np.random.default_rng(6)
    write(survey, 250, rng, answers=answers)
    alike = report_columns._tallied_alike

    def meanwhile(questions):
        counted = alike(questions)
        write(survey, 1, rng, orders=arriving, answers=answers)
        return counted

    monkeypatch.setattr(report_columns, "_tallied_alike", meanwhile)
    asked = ids(survey, (2, 4, 8))
    found = model_rows.grouped(asked)
    monkeypatch.setattr(report_columns, "_tallied_alike", alike)
    assert found.n == n and (report_columns.complete(asked) is not None) == (n == 251)
    assert_identical(found, model_rows._pivoted(asked))


def test_questions_of_two_surveys_or_one_asked_twice_are_not_read_as_columns(survey, owner):
    rng = np.random.default_rng(7)
    other = make_survey(owner, slug="other")
    write(survey, 20, rng)
    write(other, 20, rng)
    assert report_columns.complete(ids(survey, (2, 3))) is not None
    assert report_columns.complete([*ids(survey, (2,)), *ids(other, (3,))]) is None
    assert report_columns.complete(ids(survey, (2, 3, 2))) is None
    assert model_rows.grouped([*ids(survey, (2,)), *ids(other, (3,))]).n == 0  # no response answers both


def test_the_responses_answering_any_are_all_when_one_question_has_a_report_from_each(survey):
    rng = np.random.default_rng(8)
    write(survey, 120, rng)
    write(survey, 15, rng, orders=(1, 2, 3, 5, 6, 7, 8))  # no 4
    assert report_columns.responses_if_any_complete(ids(survey, (4, 2))) == 135
    assert model_rows.answering_any(ids(survey, (4, 2))) == 135
    assert report_columns.responses_if_any_complete(ids(survey, (4,))) is None
    assert model_rows.answering_any(ids(survey, (4,))) == 120


def read_from(asked: list[int]) -> tuple[str, list[np.ndarray] | None]:
    """Where `complete` read the columns ("answers" or "reports"), and the columns."""
    with CaptureQueriesContext(connection) as queries:
        columns = report_columns.complete(asked)
    reports = any(Report._meta.db_table in q["sql"] for q in queries.captured_queries)
    return ("reports" if reports else "answers"), columns


def test_responses_that_all_keep_their_answers_give_the_same_columns_from_their_rows_in_one_statement(survey):
    rng = np.random.default_rng(13)
    write(survey, 150, rng, answers=True)
    write(survey, 60, rng, answers=True)
    asked = ids(survey, (7, 4, 1, 8))
    source, columns = read_from(asked)
    Response.objects.update(answers=None)
    assert source == "answers" and read_from(asked)[0] == "reports"
    assert same_rows(columns, read_from(asked)[1])


def same_rows(found: list[np.ndarray], expected: list[np.ndarray]) -> bool:
    """The same rows as many times (the answers come in the table's order, the reports' in the responses')."""
    grouped = report_columns.grouped
    return all(np.array_equal(x, y) for x, y in zip(grouped(found), grouped(expected), strict=True))


def other_version(survey) -> None:
    Response.objects.filter(pk=Response.objects.filter(survey=survey).first().pk).update(mechanism_version="0" * 16)


def no_answers(survey) -> None:
    Response.objects.filter(pk=Response.objects.filter(survey=survey).first().pk).update(answers=None)


def one_value_short(survey) -> None:
    first = Response.objects.filter(survey=survey).first()
    Response.objects.filter(pk=first.pk).update(answers=first.answers.rsplit(",", 1)[0])


def none_and_one_value_over(survey) -> None:
    """As many values as the responses need in all, but not one per question of each."""
    first, second = Response.objects.filter(survey=survey)[:2]
    Response.objects.filter(pk=first.pk).update(answers=None)
    Response.objects.filter(pk=second.pk).update(answers=second.answers + "," + first.answers)


@pytest.mark.parametrize("spoil", [no_answers, other_version, one_value_short, none_and_one_value_over])
def test_one_response_without_answers_of_the_current_plan_sends_the_read_to_the_reports(survey, spoil):
    write(survey, 90, np.random.default_rng(14), answers=True)
    asked = ids(survey, ORDERS)
    expected = read_from(asked)[1]
    spoil(survey)
    source, columns = read_from(asked)
    assert source == "reports" and same_rows(columns, expected)


def test_a_quarter_of_the_surveys_questions_or_more_are_read_from_the_answers_fewer_from_the_reports(survey):
    write(survey, 50, np.random.default_rng(15), answers=True)
    assert [read_from(ids(survey, orders))[0] for orders in [(1,), (1, 2), (4,), (4, 8)]] == [
        "reports", "answers", "reports", "answers"]  # WORTH: 8 questions, 2 of them a quarter


@pytest.mark.parametrize("room, source", [(0, "answers"), (-1, "reports")])
def test_at_most_so_many_values_are_read_from_the_answers(survey, monkeypatch, room, source):
    write(survey, 40, np.random.default_rng(16), answers=True)
    monkeypatch.setattr(report_columns, "MOST_VALUES", 40 * len(ORDERS) + room)
    assert read_from(ids(survey, ORDERS))[0] == source


def reads_by_thread(monkeypatch) -> list[tuple[int, list[int]]]:
    """(thread, question ids) of each statement that reads columns."""
    found, read = [], report_columns._read
    monkeypatch.setattr(report_columns, "_read", lambda survey, questions: found.append(
        (threading.get_ident(), list(questions))) or read(survey, questions))
    return found


@pytest.mark.django_db(transaction=True)
def test_columns_read_beside_a_lock_come_half_from_a_second_connection_and_are_the_same(survey, monkeypatch):
    write(survey, 300, np.random.default_rng(9))
    asked = ids(survey, (8, 4, 1, 7, 2, 6, 3))  # 4 has numbers of two digits: parsed, the others read by position
    alone = report_columns.complete(asked)
    reads, read_beside, closed = reads_by_thread(monkeypatch), report_columns._beside, []

    def closing_after(read, *args):
        found = read_beside(read, *args)
        closed.append(connection.connection is None)  # this thread's connection
        return found

    monkeypatch.setattr(report_columns, "_beside", closing_after)
    with transaction.atomic():
        beside = report_columns.complete(asked, beside=True)
    assert closed == [True, True]  # the second connection, once read: for the answers (none here), the reports
    assert sorted(questions for _, questions in reads) == sorted([asked[::2], asked[1::2]])
    assert len({thread for thread, _ in reads}) == 2
    assert alone is not None and beside is not None and len(beside) == len(asked)
    assert all(a.dtype == b.dtype == np.int64 and np.array_equal(a, b) for a, b in zip(alone, beside, strict=True))


def answers_by_thread(monkeypatch) -> list[tuple[int, str | None, int]]:
    """(thread, the half's comparison or None, responses read) of each statement that reads the answers."""
    found, answers = [], report_columns._answers

    def recorded(survey_id, current, half=None):
        table = answers(survey_id, current, half)
        found.append((threading.get_ident(), half and half[0], len(table)))
        return table

    monkeypatch.setattr(report_columns, "_answers", recorded)
    return found


@pytest.mark.django_db(transaction=True)
def test_answers_read_beside_a_lock_come_half_from_a_second_connection_and_are_the_same(survey, monkeypatch):
    write(survey, 400, np.random.default_rng(17), answers=True)
    asked = ids(survey, (8, 4, 1, 7))
    alone, halves = report_columns.complete(asked), answers_by_thread(monkeypatch)
    with transaction.atomic():
        beside = report_columns.complete(asked, beside=True)
    assert sorted(half for _, half, _ in halves) == ["<", ">="] and len({thread for thread, *_ in halves}) == 2
    assert sum(n for *_, n in halves) == 400 and min(n for *_, n in halves) > 150  # random keys: about half each
    assert alone is not None and beside is not None and same_rows(beside, alone)


@pytest.mark.django_db(transaction=True)
def test_a_second_connection_that_counts_other_responses_gives_no_columns(survey, monkeypatch):
    write(survey, 50, np.random.default_rng(10))
    beside = report_columns._beside

    def one_more(read, *args):
        if read is not report_columns._read:  # the answers: none here
            return beside(read, *args)
        responses, columns = beside(read, *args)
        return responses + 1, columns

    monkeypatch.setattr(report_columns, "_beside", one_more)
    with transaction.atomic():
        assert report_columns.complete(ids(survey, (1, 2, 3)), beside=True) is None


def test_inside_a_transaction_that_may_have_written_columns_are_read_by_one_connection(survey, monkeypatch):
    write(survey, 40, np.random.default_rng(12))
    reads = reads_by_thread(monkeypatch)
    with transaction.atomic():  # within the test's own: what it wrote is not committed
        assert report_columns.complete(ids(survey, (1, 2, 3)), beside=True) is not None
    assert reads == [(threading.get_ident(), ids(survey, (1, 2, 3)))]


@pytest.mark.parametrize("text, responses, by_position", [
    ("3,0,9,1", 4, True), ("", 0, False), ("7", 1, True), ("10,22", 3, False), ("12345", 3, False),
    ("1,22,3", 3, False), ("-1,2", 2, False), ("0,-3,5", 3, False), ("9,9,9", 3, True), ("5,10,2", 4, False),
    pytest.param(",".join(["8"] * 1000), 1000, True, id="a thousand eights")])
def test_a_column_reads_as_numpy_parses_it(text, responses, by_position, monkeypatch):
    expected, parse = np.fromstring(text, dtype=np.int64, sep=","), np.fromstring
    parsed = []
    monkeypatch.setattr(np, "fromstring", lambda *args, **kwargs: parsed.append(args) or parse(*args, **kwargs))
    found = report_columns._parsed(text, responses)
    assert found.dtype == np.int64 and np.array_equal(found, expected)
    assert parsed == ([] if by_position else [(text,)])


@pytest.mark.django_db(transaction=True)
def test_a_second_connection_that_would_queue_behind_an_exclusive_lock_request_gives_up(survey, monkeypatch):
    """PostgreSQL: a request for an exclusive lock on the reports (a CLUSTER) queued behind the caller's lock
    would queue the second connection's read behind it, while the caller waits for that read."""
    if connection.vendor != "postgresql":
        pytest.skip("SQLite's readers wait for no lock")
    write(survey, 30, np.random.default_rng(13))
    beside = report_columns._beside

    def exclusive():
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(f"LOCK TABLE {Report._meta.db_table} IN ACCESS EXCLUSIVE MODE")
        finally:
            connection.close()

    def behind_an_exclusive_request(read, *args):
        with connection.cursor() as cursor:
            for _ in range(500):
                cursor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted AND mode = 'AccessExclusiveLock'")
                if cursor.fetchone()[0]:
                    break
                time.sleep(0.01)
            else:
                raise AssertionError("the exclusive request never queued")
            # Without the second connection's own lock_timeout the three would wait for each other for ever:
            # this bounds the wait, and the time below says which ended it.
            cursor.execute("SET statement_timeout = 15000")
        return beside(read, *args)

    clustering = threading.Thread(target=exclusive)
    monkeypatch.setattr(report_columns, "_beside", behind_an_exclusive_request)
    started = time.monotonic()
    with transaction.atomic():
        pair_tallies.lock_out_submissions()
        clustering.start()
        assert report_columns.complete(ids(survey, (1, 2, 3)), beside=True) is None
    clustering.join(30)
    assert not clustering.is_alive() and time.monotonic() - started < 10


def expected_aligned(survey, orders) -> list[np.ndarray]:
    """Each question's value of every response in key order, MISSING where it has none: from the ORM, by response
    (`aligned`'s order when it reads the reports)."""
    current = {q.order: q.id for q in plan.of(survey)}
    stored = {(response, question): value for response, question, value in
              Report.objects.filter(response__survey=survey).values_list("response_id", "question_id", "value")}
    keys = Response.objects.filter(survey=survey).order_by("pk").values_list("pk", flat=True)
    return [np.array([stored.get((key, current[order]), report_columns.MISSING) for key in keys])
            for order in orders]


def test_aligned_columns_hold_every_response_in_key_order_and_mark_a_missing_report(survey):
    rng = np.random.default_rng(4)
    write(survey, 40, rng, orders=(1, 2, 5))
    write(survey, 30, rng)
    found = report_columns.aligned(ids(survey, (1, 7, 5)))
    expected = expected_aligned(survey, (1, 7, 5))
    assert [len(column) for column in found] == [70] * 3
    assert (found[1] == report_columns.MISSING).sum() == 40 and (found[0] != report_columns.MISSING).all()
    assert all(np.array_equal(a, b) for a, b in zip(found, expected, strict=True))


def test_aligned_columns_of_a_survey_every_response_answers_are_its_complete_columns(survey):
    write(survey, 50, np.random.default_rng(5), answers=True)
    asked = ids(survey, (8, 1, 4))
    found, complete = report_columns.aligned(asked), report_columns.complete(asked)
    assert complete is not None and all(np.array_equal(a, b) for a, b in zip(found, complete, strict=True))
    # From the responses' answers: lined up, in the rows' order rather than the keys'.
    assert sorted(zip(*found, strict=True)) == sorted(zip(*expected_aligned(survey, (8, 1, 4)), strict=True))


@pytest.mark.django_db(transaction=True)
def test_aligned_answers_outside_a_transaction_are_read_in_two_halves_on_two_connections(survey, monkeypatch):
    write(survey, 400, np.random.default_rng(18), answers=True)
    asked = ids(survey, ORDERS)
    alone, halves = report_columns.complete(asked), answers_by_thread(monkeypatch)
    found = report_columns.aligned(asked)
    assert sorted(half for _, half, _ in halves) == ["<", ">="] and len({thread for thread, *_ in halves}) == 2
    assert sum(n for *_, n in halves) == 400
    assert alone is not None and same_rows(found, alone)
    halves.clear()
    with transaction.atomic():  # a caller's transaction: a second connection would miss what it wrote
        report_columns.aligned(asked)
    assert [half for _, half, _ in halves] == [None]


def test_aligned_columns_joined_beyond_most_are_refused_before_the_join(survey):
    rng = np.random.default_rng(6)
    write(survey, 20, rng, orders=(1, 2))
    write(survey, 10, rng)
    asked = ids(survey, (1, 2, 5))
    assert len(report_columns.aligned(asked, most=30 * 3)[0]) == 30
    with CaptureQueriesContext(connection) as queries, pytest.raises(report_columns.TooMany):
        report_columns.aligned(asked, most=30 * 3 - 1)
    assert not [q["sql"] for q in queries.captured_queries if "LEFT JOIN" in q["sql"]]
