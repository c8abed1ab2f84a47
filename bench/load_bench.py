"""Load benchmark: the production stack (gunicorn + whitenoise, production settings) on loopback,
driven by the compiled load generator wrk.

    python bench/load_bench.py [--duration S] [--rounds R] [--connections C] [--threads T]
                               [--workers W] [--bodies N] [--postgres] [--static-from DIR]

Builds a scratch database: SQLite in a temporary directory; or, if DATABASE_URL names a
PostgreSQL server (or --postgres, which asks .ci/postgres for one), a scratch database
created beside the configured one and dropped at the end, whose commits wait for the disk
(synchronous_commit = on, as in production, even for a role that turns it off). Migrates,
creates the demo survey, collects static files into a temporary STATIC_ROOT (or copies those collected
in DIR), starts gunicorn on a free 127.0.0.1 port, checks that the survey page loads hashed static
modules, warms every worker up, then runs wrk (bench/load_bench.lua; installed with apt-get if
missing) in R rounds (default 3) of two phases, each bounded by S seconds and C connections over T threads:

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
ratio submissions/s / healthz requests/s of each round and over all of them (all answered over
all their time; target >= 1/3) and, from /proc, how much CPU the gunicorn workers, the database
and wrk used during each phase, i.e. what limited the figure. Alternating the phases makes a
change in what else the machine runs weigh on both rather than on one. Gunicorn runs the worker
count docs/operations.md recommends: cores + 1 on SQLite (one writer: more processes mostly
add lock waits and context switches), 2 x cores + 1 on PostgreSQL.
Exits 1 on a correctness failure, not on a missed ratio target. Gunicorn is shut down at the
end whatever happens. Not itself a test; tests/bench/test_load_bench.py runs it briefly.
"""

from __future__ import annotations

import argparse
import http.client
import os
import secrets
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from loadgen import (
    CORES,
    WrkResult,
    ensure_wrk,
    limit_verdict,
    py_spy,
    randomized_reports,
    run_wrk,
    warm_up,
    write_bodies,
)
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
    rounds: int
    bodies: int
    postgres: bool
    py_spy: Path | None
    keep_log: bool
    static_from: Path | None = None


def parse_args(argv: list[str] | None) -> Options:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=10.0, help="seconds of load per phase (default 10)")
    parser.add_argument("--connections", type=int, default=16, help="wrk connections (default 16)")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads (default 2)")
    parser.add_argument("--workers", type=int,
                        help="gunicorn workers (default: what docs/operations.md recommends, cores + 1 on "
                             "SQLite, 2 x cores + 1 on PostgreSQL)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="alternate the two phases this many times (default 3): slow changes in what "
                             "else the machine runs then weigh on both alike")
    parser.add_argument("--bodies", type=int, default=2000,
                        help="distinct randomized report sets the POSTs cycle through (default 2000)")
    parser.add_argument("--postgres", action="store_true",
                        help="use the PostgreSQL server of .ci/postgres (as DATABASE_URL=postgres://... does)")
    parser.add_argument("--py-spy", metavar="FILE", type=Path,
                        help="record the gunicorn workers with py-spy during the POST phase into FILE "
                             "(collapsed stacks; needs py-spy beside this Python: pip install py-spy)")
    parser.add_argument("--keep-log", action="store_true", help="print gunicorn's log even if it is empty")
    parser.add_argument("--static-from", metavar="DIR", type=Path,
                        help="copy the static files from DIR, collected already under production settings, instead "
                             "of running collectstatic (about 11 CPU-s; the tests share one collection)")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.threads > args.connections:
        parser.error("--threads must not exceed --connections")
    postgres = args.postgres or os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))
    # SQLite has one writer: processes beyond cores + 1 mostly add lock waits and context switches.
    workers = args.workers or (2 * CORES + 1 if postgres else CORES + 1)
    return Options(duration=args.duration, connections=args.connections, threads=args.threads,
                   workers=workers, rounds=args.rounds, bodies=args.bodies, postgres=args.postgres, py_spy=args.py_spy,
                   keep_log=args.keep_log, static_from=args.static_from)


def run_rounds(args: Options, wrk: str, port: int, gunicorn_pid: int, bodies: Path,
               headers: dict[str, str]) -> list[tuple[WrkResult, WrkResult]]:
    """The healthz phase then the submissions phase, args.rounds times; each phase printed."""
    rounds: list[tuple[WrkResult, WrkResult]] = []
    header_lines = [f"{name}: {value}" for name, value in headers.items()]
    for number in range(1, args.rounds + 1):
        print(f"round {number} of {args.rounds}:")
        health = run_wrk(wrk, port, threads=args.threads, connections=args.connections,
                         duration=args.duration, mode="get", extra=[], gunicorn_pid=gunicorn_pid)
        print(f"  healthz:     {health.answered:6d} requests    in {health.elapsed:5.2f} s = "
              f"{health.rate:8.1f} requests/s, {health.error_text}, "
              f"latency p50 {health.latency_p50_ms:.1f} ms p99 {health.latency_p99_ms:.1f} ms")
        print(f"    limited by: {limit_verdict(health.cpu)}")
        spy = py_spy(gunicorn_pid, args.py_spy, args.duration) if args.py_spy and number == 1 else None
        # A fresh run id per round: the Lua script makes the submission keys from it, so they are new.
        extra = [str(bodies), secrets.token_hex(8), "/healthz", *header_lines]
        posts = run_wrk(wrk, port, threads=args.threads, connections=args.connections, duration=args.duration,
                        mode="post", extra=extra, gunicorn_pid=gunicorn_pid)
        if spy is not None:
            spy.wait(timeout=60)
            print(f"  py-spy: {args.py_spy} (exit {spy.returncode})")
        print(f"  submissions: {posts.answered:6d} posts       in {posts.elapsed:5.2f} s = "
              f"{posts.rate:8.1f} submissions/s, {posts.error_text}, statuses {posts.statuses}")
        print(f"    limited by: {limit_verdict(posts.cpu)}")
        print(f"  ratio {ratio_of(posts, health):.3f}")
        rounds.append((health, posts))
    return rounds


def rate(phases: list[WrkResult]) -> float:
    """Requests per second over several phases: all answered over all their time."""
    elapsed = sum(phase.elapsed for phase in phases)
    return sum(phase.answered for phase in phases) / elapsed if elapsed else 0.0


def ratio_of(posts: WrkResult, health: WrkResult) -> float:
    return posts.rate / health.rate if health.rate else 0.0


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
    if args.static_from:
        shutil.copytree(args.static_from, env["DJANGO_STATIC_ROOT"], dirs_exist_ok=True)
    else:
        call_command("collectstatic", interactive=False, verbosity=0)
    database = "SQLite scratch file"
    if scratch:
        with connections["default"].cursor() as cursor:
            cursor.execute("SHOW synchronous_commit")
            database = f"PostgreSQL scratch database {scratch.name}, synchronous_commit = {cursor.fetchone()[0]}"
    connections.close_all()
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

        rounds = run_rounds(args, wrk, port, gunicorn.pid, bodies_file, headers)
    finally:
        stop(gunicorn)
    if gunicorn.returncode not in (0, None) or log.stat().st_size or args.keep_log:
        print(f"gunicorn exit {gunicorn.returncode}; log tail:\n"
              + "\n".join(log.read_text(errors="replace").splitlines()[-10:]))

    acknowledged = sum(posts.statuses.get(201, 0) for _, posts in rounds)
    stored = Response.objects.filter(survey=survey).count() - baseline
    # Every POST is a new submission (201); a 200 would be a key sent twice, a retry, not a new one.
    consistent = stored == acknowledged and all(set(posts.statuses) == {201} for _, posts in rounds)
    healths, postses = [health for health, _ in rounds], [posts for _, posts in rounds]
    ratio = rate(postses) / rate(healths) if rate(healths) else 0.0
    print(f"every POST a new submission (201), stored responses {stored} == acknowledged {acknowledged}: "
          f"{'PASS' if consistent else 'FAIL'}")
    print(f"ratio submissions/s / healthz requests/s over the {len(rounds)} rounds = {ratio:.3f} "
          f"(rounds {', '.join(f'{ratio_of(p, h):.3f}' for h, p in rounds)}; "
          f"target >= {TARGET_RATIO:.2f}: {'PASS' if ratio >= TARGET_RATIO else 'MISSED'})")
    # Other processes on the machine take cores from both phases unevenly; the CPU each request
    # cost (server, database, wrk, interrupts) is a steadier figure to compare changes with.
    cost = {name: sorted(phase.cpu_ms_per_request() for phase in phases)[len(phases) // 2]
            for name, phases in (("healthz", healths), ("post", postses))}
    print(f"CPU per request, median of the rounds (gunicorn + database + wrk + interrupts): "
          f"healthz {cost['healthz']:.3f} ms, submission {cost['post']:.3f} ms; ratio of costs healthz/submission "
          f"{cost['healthz'] / cost['post'] if cost['post'] else 0:.3f} (the ratio with both phases CPU-bound "
          f"and the cores to themselves)")
    verify = rebuild_counts_verify(env)
    if verify is not None:
        print(f"rebuild_counts --verify: {verify[1]}")
    connections.close_all()
    ok = (consistent and not any(phase.error_count for phase in healths + postses) and static_ok
          and (verify is None or verify[0]))
    print(f"correctness (no errors, stored == acknowledged, hashed modules, counts verified): "
          f"{'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
