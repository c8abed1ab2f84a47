"""Load benchmark: the production stack (gunicorn + whitenoise, production settings) on loopback,
driven by the compiled load generator wrk.

    python bench/load_bench.py [--duration S] [--connections C] [--threads T] [--workers W]
                               [--bodies N] [--postgres]

Builds a scratch database: SQLite in a temporary directory; or, if DATABASE_URL names a
PostgreSQL server (or --postgres, which asks .ci/postgres for one), a scratch database
created beside the configured one and dropped at the end. Migrates, creates the demo
survey, collects static files into a temporary STATIC_ROOT, starts gunicorn on a free
127.0.0.1 port, checks that the survey page loads hashed static modules, warms every worker
up, then runs wrk (bench/load_bench.lua; installed with apt-get if missing) twice, each phase
bounded by S seconds and C connections over T threads:

1. GET /healthz                                -> requests/s
2. POST /api/v1/surveys/demo/responses/        -> submissions/s
   N report sets are randomized in Python with ldp from the mechanisms the API publishes and
   written to a file; the Lua script posts them round-robin, each with a fresh submission key,
   with the CSRF cookie and token and the Origin header taken once from GET /s/demo/. After S
   seconds it sends GET /healthz instead for a second, so that when wrk stops no POST is in
   flight: every POST sent is answered.

Lua counts the responses by status per thread; Python checks that there was no error (non-2xx,
socket error, POST left unanswered), that the responses stored equal the submissions
acknowledged with 201, and that `manage.py rebuild_counts --verify` passes; it prints the
ratio submissions/s / healthz requests/s (target >= 1/3) and, from /proc, how much CPU the
gunicorn workers, the database and wrk used during each phase, i.e. what limited the figure.
Exits 1 on a correctness failure, not on a missed ratio target. Gunicorn is shut down at the
end whatever happens. Not a pytest test.
"""

from __future__ import annotations

import argparse
import http.client
import os
import secrets
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from loadgen import CORES, ensure_wrk, limit_verdict, py_spy, randomized_reports, run_wrk, warm_up, write_bodies
from server import (
    HOST,
    SLUG,
    ScratchPostgres,
    check_hashed_modules,
    csrf_cookie,
    free_port,
    get_json,
    postgres_url,
    production_env,
    rebuild_counts_verify,
    setup_django,
    start_gunicorn,
    stop,
    wait_healthy,
)

TARGET_RATIO = 1 / 3


@dataclass(frozen=True)
class Options:
    """The command line, typed."""
    duration: float
    connections: int
    threads: int
    workers: int
    bodies: int
    postgres: bool
    py_spy: Path | None
    keep_log: bool


def parse_args(argv: list[str] | None) -> Options:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=10.0, help="seconds of load per phase (default 10)")
    parser.add_argument("--connections", type=int, default=16, help="wrk connections (default 16)")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads (default 2)")
    parser.add_argument("--workers", type=int, default=2 * CORES + 1,
                        help="gunicorn workers (default 2 x cores + 1)")
    parser.add_argument("--bodies", type=int, default=2000,
                        help="distinct randomized report sets the POSTs cycle through (default 2000)")
    parser.add_argument("--postgres", action="store_true",
                        help="use the PostgreSQL server of .ci/postgres (as DATABASE_URL=postgres://... does)")
    parser.add_argument("--py-spy", metavar="FILE", type=Path,
                        help="record the gunicorn workers with py-spy during the POST phase into FILE "
                             "(collapsed stacks; needs py-spy beside this Python: pip install py-spy)")
    parser.add_argument("--keep-log", action="store_true", help="print gunicorn's log even if it is empty")
    args = parser.parse_args(argv)
    if args.threads > args.connections:
        parser.error("--threads must not exceed --connections")
    return Options(duration=args.duration, connections=args.connections, threads=args.threads,
                   workers=args.workers, bodies=args.bodies, postgres=args.postgres, py_spy=args.py_spy,
                   keep_log=args.keep_log)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    wrk = ensure_wrk()
    url = postgres_url() if args.postgres else os.environ.get("DATABASE_URL", "")
    scratch = ScratchPostgres(url) if url.startswith(("postgres://", "postgresql://")) else None
    if url and scratch is None:
        raise SystemExit(f"DATABASE_URL must name a PostgreSQL server (or be unset for SQLite): {url}")

    with tempfile.TemporaryDirectory(prefix="load-bench-") as tmp_name:
        tmp = Path(tmp_name)
        env = production_env(tmp, scratch.url if scratch else f"sqlite:///{tmp / 'bench.sqlite3'}")
        try:
            return bench(args, wrk, env, tmp, scratch)
        finally:
            if scratch:
                from django.db import connections
                connections.close_all()
                scratch.drop()


def bench(args: Options, wrk: str, env: dict[str, str], tmp: Path, scratch: ScratchPostgres | None) -> int:
    setup_django(env)
    from django.core.management import call_command
    from django.db import connections

    from surveys.collection.demo import create_demo_survey
    from surveys.collection.models import Response

    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    survey, _ = create_demo_survey()
    call_command("collectstatic", interactive=False, verbosity=0)
    connections.close_all()
    database = f"PostgreSQL scratch database {scratch.name}" if scratch else "SQLite scratch file"
    print(f"setup: migrate + demo survey + collectstatic in {time.perf_counter() - started:.1f} s ({database})")

    port = free_port()
    log = tmp / "gunicorn.log"
    gunicorn = start_gunicorn(env, port, args.workers, log)
    try:
        wait_healthy(port, gunicorn)
        print(f"gunicorn: {args.workers} sync workers on http://{HOST}:{port}, {CORES} cores; "
              f"wrk {args.threads} threads x {args.connections} connections, {args.duration:g} s per phase")
        static_ok, static_text = check_hashed_modules(port)
        print(f"static modules: {static_text}")

        definition = get_json(port, f"/api/v1/surveys/{SLUG}/")
        bodies_file = tmp / "bodies.jsonl"
        write_bodies(bodies_file, definition["version"], randomized_reports(definition, args.bodies))
        connection = http.client.HTTPConnection(HOST, port, timeout=10)
        token = csrf_cookie(connection)
        connection.close()
        headers = {"Content-Type": "application/json", "X-CSRFToken": token,
                   "Cookie": f"csrftoken={token}", "Origin": f"http://{HOST}:{port}"}
        warm = warm_up(port, headers, bodies_file.read_text().splitlines(), 4 * args.workers)
        if set(warm) != {201}:
            print(f"warm-up POSTs answered {warm}")
        baseline = Response.objects.filter(survey=survey).count()
        connections.close_all()

        health = run_wrk(wrk, port, threads=args.threads, connections=args.connections, duration=args.duration,
                         mode="get", extra=[], gunicorn_pid=gunicorn.pid)
        print(f"healthz:     {health.answered:6d} requests    in {health.elapsed:5.2f} s = "
              f"{health.rate:8.1f} requests/s, {health.error_text}, "
              f"latency p50 {health.latency_p50_ms:.1f} ms p99 {health.latency_p99_ms:.1f} ms")
        print(f"  limited by: {limit_verdict(health.cpu)}")

        run_id = secrets.token_hex(8)
        extra = [str(bodies_file), run_id, "/healthz", *(f"{name}: {value}" for name, value in headers.items())]
        spy = py_spy(gunicorn.pid, args.py_spy, args.duration) if args.py_spy else None
        posts = run_wrk(wrk, port, threads=args.threads, connections=args.connections, duration=args.duration,
                        mode="post", extra=extra, gunicorn_pid=gunicorn.pid)
        if spy is not None:
            spy.wait(timeout=60)
            print(f"py-spy: {args.py_spy} (exit {spy.returncode})")
        acknowledged = posts.statuses.get(201, 0)
        print(f"submissions: {posts.answered:6d} posts       in {posts.elapsed:5.2f} s = "
              f"{posts.rate:8.1f} submissions/s, {posts.error_text}, statuses {posts.statuses}")
        print(f"  limited by: {limit_verdict(posts.cpu)}")
    finally:
        stop(gunicorn)
    if gunicorn.returncode not in (0, None) or log.stat().st_size or args.keep_log:
        print(f"gunicorn exit {gunicorn.returncode}; log tail:\n"
              + "\n".join(log.read_text(errors="replace").splitlines()[-10:]))

    stored = Response.objects.filter(survey=survey).count() - baseline
    consistent = stored == acknowledged
    ratio = posts.rate / health.rate if health.rate else 0.0
    print(f"stored responses {stored} == acknowledged (201) {acknowledged}: {'PASS' if consistent else 'FAIL'}")
    print(f"ratio submissions/s / healthz requests/s = {ratio:.3f} "
          f"(target >= {TARGET_RATIO:.2f}: {'PASS' if ratio >= TARGET_RATIO else 'MISSED'})")
    # Other processes on the machine take cores from both phases unevenly; the CPU each request
    # cost (server, database, wrk, interrupts) is a steadier figure to compare changes with.
    cost = {name: phase.cpu_ms_per_request() for name, phase in (("healthz", health), ("post", posts))}
    print(f"CPU per request (gunicorn + database + wrk + interrupts): healthz {cost['healthz']:.3f} ms, "
          f"submission {cost['post']:.3f} ms; ratio of costs healthz/submission "
          f"{cost['healthz'] / cost['post'] if cost['post'] else 0:.3f} (the ratio with both phases CPU-bound "
          f"and the cores to themselves)")
    verify = rebuild_counts_verify(env)
    if verify is not None:
        print(f"rebuild_counts --verify: {verify[1]}")
    connections.close_all()
    ok = (consistent and posts.error_count == 0 and health.error_count == 0 and static_ok
          and (verify is None or verify[0]))
    print(f"correctness (no errors, stored == acknowledged, hashed modules, counts verified): "
          f"{'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
