"""A survey large enough that its reports.csv takes `seconds` to export in process, in the database a
production-mode server uses, for tests/test_exports_under_a_worker_timeout.py. Run in a process of
its own with that server's environment (its settings and database):

    python -m tests.large_survey DIRECTORY SECONDS

It creates the survey of tests/conftest.py's `survey` fixture ("health": q-RR, bit flip, k-RR with 3
options, OUE with 4) and its researcher "owner", writes responses by SQL inside SQLite (reports drawn with
SQLite's random(), uniformly over each question's values: data to export, not randomized answers),
as many as make the export take at least `seconds` here and now (timed, and grown until it does), then writes
DIRECTORY/reference.csv, the export made in process, and prints {"slug", "responses", "seconds" (the
reference export's time), "cookie" (a session of the researcher)} as JSON.
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

import django

FIRST_BATCH = 20_000


def fill(survey, count: int) -> None:
    """Add `count` responses with a report for every question, in two INSERT ... SELECT statements."""
    from django.db import connection, transaction

    from surveys.collection import plan

    current = plan.of(survey)
    questions = " UNION ALL ".join(  # a report is an option's index, or a unary encoding's bits
        f"SELECT {position} AS position, {q.id} AS question_id, {modulus(q)} AS modulus"
        for position, q in enumerate(current))
    with transaction.atomic(), connection.cursor() as cursor:
        # The responses' keys are random, so every index takes its rows in random places: with SQLite's default
        # 2 MiB page cache each insert reads and writes pages through the kernel (measured: 1.5 million responses
        # in 160 s, 93 of them in the kernel). A cache that holds the indexes makes it a memory job.
        cursor.execute("PRAGMA cache_size = -1048576")  # KiB: 1 GiB, this connection only
        cursor.execute("SELECT COALESCE(MAX(rowid), 0) FROM collection_response")
        (before,) = cursor.fetchone()
        cursor.execute(
            "INSERT INTO collection_response (id, survey_id, mechanism_version, submitted_on, submission_key) "
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %s) "
            "SELECT lower(hex(randomblob(16))), %s, %s, '2026-01-01', lower(hex(randomblob(16))) FROM n",
            [count, survey.pk, current.version])
        # Report keys: bit 62 set like the store's, then the response's rowid and the question's position.
        cursor.execute(
            "INSERT INTO collection_report (id, response_id, question_id, value) "
            f"SELECT (1 << 62) + (r.rowid << 6) + q.position, r.id, q.question_id, abs(random() % q.modulus) "
            f"FROM collection_response r, ({questions}) q WHERE r.rowid > %s ORDER BY r.rowid, q.position",
            [before])


def modulus(question) -> int:
    return (1 << question.mechanism.k) if question.mechanism.unary else question.mechanism.k


GROWTHS = 6  # at most this many rounds of timing and filling


def export_seconds(survey) -> tuple[float, bytes]:
    from surveys.aggregation.exports import reports as exports
    from surveys.collection import plan

    started = time.perf_counter()
    whole = "".join(exports.report_csv_lines(survey, plan.of(survey))).encode()
    return time.perf_counter() - started, whole


def main(directory: Path, seconds: float) -> None:
    django.setup()
    from django.test import Client

    from surveys.collection import builder
    from surveys.collection.builder import QuestionSpec
    from surveys.collection.models import Survey
    from tests.factories import make_user

    owner = make_user("owner")
    survey = builder.create_survey("health", "Health", [
        QuestionSpec("Cheated?", "qrr", q="0.5"),
        QuestionSpec("Drove drunk?", "bitflip", epsilon=math.log(3)),
        QuestionSpec("Drugs?", "krr", epsilon=1.0, options=["Never", "Sometimes", "Often"]),
        QuestionSpec("Party?", "oue", epsilon=1.0, options=["A", "B", "C", "D"]),
    ], status=Survey.Status.OPEN, epsilon_budget=6.0)
    survey.researchers.add(owner)
    fill(survey, FIRST_BATCH)
    took, whole = export_seconds(survey)
    # Grown until it takes `seconds`: a first timing on a busy machine can be several times the next one.
    for _ in range(GROWTHS):
        if took >= seconds:
            break
        have = survey.responses.count()
        fill(survey, math.ceil(have * seconds / took * 1.1) - have)
        took, whole = export_seconds(survey)
    (directory / "reference.csv").write_bytes(whole)
    client = Client()
    client.force_login(owner)
    print(json.dumps({"slug": survey.slug, "responses": survey.responses.count(), "seconds": took,
                      "cookie": client.cookies["sessionid"].value}))


if __name__ == "__main__":
    main(Path(sys.argv[1]), float(sys.argv[2]))
