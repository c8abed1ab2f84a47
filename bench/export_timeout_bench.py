"""Benchmark: the report exports through the production stack, with gunicorn's worker timeout.

    python bench/export_timeout_bench.py                                  # 10^5 responses, --timeout 15
    python bench/export_timeout_bench.py --responses 300000 --formats csv,sav --timeout 15

On a scratch SQLite file (bench/scratch.py; the 10-question survey of bench/results_bench.py, filled
the same way), it first times each export made in process (the exports' own generators, which the
old streamed download ran inside the request), then starts gunicorn as the README documents (sync
workers, --timeout), with production settings and collectstatic's files, and downloads each export
as a client does: GET with `Accept: application/json`, then the `url` of each 202 answer after its
Retry-After, until the file. Per format it prints the in-process seconds, the first answer's status
and time, the number of 202 answers, the seconds until the whole file had arrived, its MB, and
whether it is whole: its SHA-256 equal to its Repr-Digest and to its codebook's, its rows to
X-Export-Rows and, for CSV and JSON, its bytes to the in-process export's.

The old streamed export is not in this checkout any more: its figure under the same stack is the
one in docs/operations.md ("Report exports"), taken with the previous release.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from server import HOST, free_port, production_env, stop, wait_healthy  # noqa: E402

FORMATS = ("csv", "json", "dta", "sav")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--responses", type=int, default=100_000)
    parser.add_argument("--timeout", type=int, default=15)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args()
    formats = [name.strip() for name in arguments.formats.split(",") if name.strip()]
    if not formats or set(formats) - set(FORMATS):
        parser.error(f"--formats must name some of {', '.join(FORMATS)}")
    folder = Path(tempfile.mkdtemp(prefix="export-timeout-"))
    try:
        run(folder, arguments, formats)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run(folder: Path, arguments: argparse.Namespace, formats: list[str]) -> None:
    data = folder / "data.sqlite3"
    env = production_env(folder, f"sqlite:///{folder / 'configured.sqlite3'}")
    env["DJANGO_EXPORT_DIR"] = str(folder / "exports")
    os.environ.update(env)
    import django
    django.setup()
    import numpy as np
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from results_bench import _fill, _survey
    from scratch import scratch_for

    from surveys.aggregation.exports import reports as exports
    from surveys.aggregation.exports import stata_spss
    from surveys.collection import plan

    scratch = scratch_for("sqlite")(str(data))
    scratch.create()
    call_command("migrate", verbosity=0, interactive=False)
    call_command("collectstatic", verbosity=0, interactive=False)
    survey = _survey()
    started = time.perf_counter()
    _fill(scratch, survey, arguments.responses, np.random.default_rng(arguments.seed))
    print(f"SQLite scratch {data}: {arguments.responses:,} responses in {time.perf_counter() - started:.1f} s")
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("bench", password=None))
    cookie = client.cookies["sessionid"].value
    survey.refresh_from_db()  # as a request reads it (epsilon_budget 20.0, not the 20 it was made with)
    made: dict[str, tuple[float, bytes]] = {}
    for name in formats:
        started = time.perf_counter()
        current = plan.of(survey)
        if name in ("csv", "json"):
            lines = exports.report_csv_lines if name == "csv" else exports.report_json_chunks
            whole = "".join(lines(survey, current)).encode()
        else:
            make = stata_spss.stata_file if name == "dta" else stata_spss.spss_file
            whole = make(survey, current).read()
        made[name] = (time.perf_counter() - started, whole)
    connection.close()
    env["DATABASE_URL"] = f"sqlite:///{data}"
    port = free_port()
    command = [sys.executable, "-m", "gunicorn", "surveys.wsgi:application", "--bind", f"{HOST}:{port}",
               "--workers", str(arguments.workers), "--timeout", str(arguments.timeout)]
    log = folder / "gunicorn.log"
    process = subprocess.Popen(command, env=env, cwd=ROOT, stdout=log.open("wb"), stderr=subprocess.STDOUT,
                               start_new_session=True)
    try:
        wait_healthy(port, process)
        print(f"gunicorn, {arguments.workers} sync workers, --timeout {arguments.timeout}")
        print(f"{'export':>6} {'in-process s':>12} {'first':>10} {'202s':>5} {'whole file s':>12} {'MB':>7}  whole?")
        for name in formats:
            seconds, whole = made[name]
            print(f"{name:>6} {seconds:>12.1f} " + download(port, survey.slug, name, cookie, whole), flush=True)
    finally:
        stop(process)
    timeouts = log.read_text().count("WORKER TIMEOUT")
    print(f"gunicorn's log: {timeouts} worker timeout{'' if timeouts == 1 else 's'}")


def get(port: int, path: str, cookie: str) -> tuple[int, Any, bytes]:
    connection = http.client.HTTPConnection(HOST, port, timeout=3600)
    try:
        connection.request("GET", path, headers={"Cookie": f"sessionid={cookie}", "Accept": "application/json"})
        response = connection.getresponse()
        try:
            body = response.read()
        except http.client.IncompleteRead as cut:
            body = cut.partial
        return response.status, response, body
    finally:
        connection.close()


def download(port: int, slug: str, name: str, cookie: str, whole: bytes) -> str:
    """One export downloaded as a client does; its figures as a line of the table."""
    started = time.perf_counter()
    status, response, body = get(port, f"/results/{slug}/export/reports.{name}", cookie)
    first = f"{status} {time.perf_counter() - started:.1f}s"
    waits = 0
    while status == 202:
        waits += 1
        time.sleep(int(response.getheader("Retry-After")))
        status, response, body = get(port, json.loads(body)["url"], cookie)
    took = time.perf_counter() - started
    if status != 200:
        return f"{first:>10} {waits:>5} {took:>12.1f} {len(body) / 1e6:>7.1f}  no: answered {status}"
    digest = hashlib.sha256(body)
    _, _, book = get(port, response.getheader("Link").split(">")[0].lstrip("<"), cookie)
    checks = {
        "Content-Length": int(response.getheader("Content-Length")) == len(body),
        "Repr-Digest": response.getheader("Repr-Digest") == f"sha-256=:{base64.b64encode(digest.digest()).decode()}:",
        "codebook": json.loads(book)["export"]["sha256"] == digest.hexdigest(),
        "rows": str(json.loads(book)["export"]["rows"]) == response.getheader("X-Export-Rows"),
    }
    if name in ("csv", "json"):
        checks["= in process"] = body == whole
    failed = [check for check, ok in checks.items() if not ok]
    verdict = "yes: " + ", ".join(checks) if not failed else "NO: " + ", ".join(failed)
    return f"{first:>10} {waits:>5} {took:>12.1f} {len(body) / 1e6:>7.1f}  {verdict}"


if __name__ == "__main__":
    main()
