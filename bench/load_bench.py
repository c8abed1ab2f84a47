"""Load benchmark: the production stack (gunicorn + whitenoise, production settings) on loopback.

    python bench/load_bench.py [--requests N] [--concurrency C] [--seconds S] [--workers W]

Builds a scratch SQLite database in a temporary directory (or uses DATABASE_URL if set), migrates,
creates the demo survey, collects static files into a temporary STATIC_ROOT, starts gunicorn on a
free 127.0.0.1 port and drives it with threads + http.client, each phase bounded by N requests and
S seconds:

1. GET /healthz                                -> requests/s
2. POST /api/v1/surveys/demo/responses/ (one csrftoken per thread from GET /s/demo/, a fresh
   uuid key and reports randomized with the mechanisms the API publishes) -> submissions/s

then checks that the responses stored equal the submissions acknowledged with 201, and prints
PASS/FAIL and the ratio submissions/s / healthz requests/s (target >= 1/3).
Gunicorn is shut down at the end whatever happens. Not a pytest test.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
SLUG = "demo"
TARGET_RATIO = 1 / 3


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def production_env(tmp: Path) -> dict:
    env = dict(os.environ)
    env.update({
        "DJANGO_ENV": "production",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),  # throwaway
        "DJANGO_ALLOWED_HOSTS": HOST,
        "DJANGO_SECURE_SSL_REDIRECT": "false",  # plain http on loopback
        "DJANGO_STATIC_ROOT": str(tmp / "static"),
        "DJANGO_SUBMISSION_RATE": "off",  # every request comes from 127.0.0.1: measure the app, not the limiter
        "DATABASE_URL": os.environ.get("DATABASE_URL") or f"sqlite:///{tmp / 'bench.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "surveys.settings",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    })
    return env


def setup_django(env: dict):
    """Configure Django in this process with the same settings gunicorn will use."""
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    import django
    django.setup()


def start_gunicorn(env: dict, port: int, workers: int, log: Path) -> subprocess.Popen:
    command = [sys.executable, "-m", "gunicorn", "surveys.wsgi:application",
               "--bind", f"{HOST}:{port}", "--workers", str(workers),
               "--chdir", str(ROOT), "--log-level", "warning"]
    return subprocess.Popen(command, env=env, cwd=ROOT, stdout=log.open("wb"),
                            stderr=subprocess.STDOUT, start_new_session=True)


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()  # gunicorn's master stops its workers gracefully on SIGTERM
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_healthy(port: int, process: subprocess.Popen, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited with status {process.returncode}")
        try:
            connection = http.client.HTTPConnection(HOST, port, timeout=2)
            connection.request("GET", "/healthz")
            if connection.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError("gunicorn did not become healthy in time")


def drive(port: int, n: int, concurrency: int, seconds: float, make_worker) -> dict:
    """Run up to n jobs over `concurrency` threads for at most `seconds`; count outcomes by status."""
    counter = iter(range(n))
    lock = threading.Lock()
    statuses: dict = {}
    deadline = time.monotonic() + seconds

    def worker():
        connection = http.client.HTTPConnection(HOST, port, timeout=30)
        job = make_worker(connection)
        local: dict = {}
        while time.monotonic() < deadline:
            with lock:
                index = next(counter, None)
            if index is None:
                break
            try:
                status = job(index)
            except (OSError, http.client.HTTPException) as error:
                status = type(error).__name__
                connection.close()
            local[status] = local.get(status, 0) + 1
        connection.close()
        with lock:
            for key, value in local.items():
                statuses[key] = statuses.get(key, 0) + value

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    done = sum(statuses.values())
    return {"done": done, "elapsed": elapsed, "rate": done / elapsed, "statuses": statuses}


def healthz_job(connection):
    def job(_index):
        connection.request("GET", "/healthz")
        response = connection.getresponse()
        response.read()
        return response.status
    return job


def csrf_cookie(connection) -> str:
    connection.request("GET", f"/s/{SLUG}/")
    response = connection.getresponse()
    response.read()
    if response.status != 200:
        raise RuntimeError(f"GET /s/{SLUG}/ answered {response.status}")
    for header, value in response.getheaders():
        if header.lower() == "set-cookie" and value.startswith("csrftoken="):
            return value.split(";", 1)[0].split("=", 1)[1]
    raise RuntimeError("the survey page set no csrftoken cookie")


def randomized_reports(definition: dict, n: int, seed: int | None = None) -> list[dict]:
    """n report sets randomized with ldp from the mechanisms the API publishes."""
    import numpy as np

    import ldp
    from surveys.collection.demo import TRUTH

    rng = np.random.default_rng(seed)
    columns = {}
    for question in definition["questions"]:
        summary = question["mechanism"]
        mechanism = ldp.from_dict({key: summary[key] for key in ("mechanism", "q", "epsilon", "k")
                                   if key in summary})
        k = len(question["options"])
        truth_p = TRUTH.get(question["order"])
        truth_p = truth_p if truth_p and len(truth_p) == k else [1 / k] * k
        truth = rng.choice(k, size=n, p=truth_p)
        randomized = mechanism.randomize(truth, rng)
        columns[str(question["id"])] = ([[int(b) for b in row] for row in randomized]
                                        if question["report"] == "bits" else [int(v) for v in randomized])
    return [{name: column[i] for name, column in columns.items()} for i in range(n)]


def submit_worker_factory(port: int, version: str, payloads: list[dict]):
    path = f"/api/v1/surveys/{SLUG}/responses/"

    def make_worker(connection):
        token = csrf_cookie(connection)
        headers = {"Content-Type": "application/json", "X-CSRFToken": token,
                   "Cookie": f"csrftoken={token}", "Origin": f"http://{HOST}:{port}"}

        def job(index):
            body = json.dumps({"version": version, "key": str(uuid.uuid4()), "reports": payloads[index]})
            connection.request("POST", path, body=body, headers=headers)
            response = connection.getresponse()
            response.read()
            return response.status
        return job
    return make_worker


def get_json(port: int, path: str) -> dict:
    connection = http.client.HTTPConnection(HOST, port, timeout=10)
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    if response.status != 200:
        raise RuntimeError(f"GET {path} answered {response.status}")
    return json.loads(body)


def check_hashed_modules(port: int) -> str:
    """The page must load respond.<hash>.js, and that module must import randomizer.<hash>.js."""
    import re
    connection = http.client.HTTPConnection(HOST, port, timeout=10)
    connection.request("GET", f"/s/{SLUG}/")
    page = connection.getresponse().read().decode()
    script = re.search(r'<script type="module" src="([^"]+)"', page).group(1)
    connection.request("GET", script)
    module = connection.getresponse().read().decode()
    imported = re.search(r'from "\./(randomizer[^"]*)"', module).group(1)
    target = script.rsplit("/", 1)[0] + "/" + imported
    connection.request("GET", target)
    response = connection.getresponse()
    response.read()
    ok = re.search(r"\.[0-9a-f]{12}\.js$", script) and re.search(r"\.[0-9a-f]{12}\.js$", imported) \
        and response.status == 200
    return f"{'ok' if ok else 'NOT hashed'}: {script} imports ./{imported} ({response.status})"


def rebuild_counts_verify(env: dict) -> str | None:
    """Result of `manage.py rebuild_counts --verify` if another part of the app provides it."""
    if not list(ROOT.glob("surveys/*/management/commands/rebuild_counts.py")):
        return None
    result = subprocess.run([sys.executable, "manage.py", "rebuild_counts", "--verify"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120, check=False)
    tail = (result.stdout + result.stderr).strip().splitlines()[-1:] or [""]
    return f"{'PASS' if result.returncode == 0 else 'FAIL'} (exit {result.returncode}) {tail[0]}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000, help="requests per phase (default 2000)")
    parser.add_argument("--concurrency", type=int, default=8, help="client threads (default 8)")
    parser.add_argument("--seconds", type=float, default=20.0, help="time cap per phase (default 20)")
    parser.add_argument("--workers", type=int, default=2 * (os.cpu_count() or 1) + 1,
                        help="gunicorn workers (default 2 x cores + 1)")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="load-bench-") as tmp_name:
        tmp = Path(tmp_name)
        env = production_env(tmp)
        setup_django(env)
        from django.core.management import call_command
        from django.db import connections

        from surveys.collection.demo import create_demo_survey
        from surveys.collection.models import Response

        started = time.perf_counter()
        call_command("migrate", verbosity=0)
        survey, _ = create_demo_survey()
        call_command("collectstatic", interactive=False, verbosity=0)
        baseline = Response.objects.filter(survey=survey).count()
        connections.close_all()
        database = env["DATABASE_URL"].split("://", 1)[0]
        print(f"setup: migrate + demo survey + collectstatic in {time.perf_counter() - started:.1f} s "
              f"({database} database)")

        port = free_port()
        log = tmp / "gunicorn.log"
        gunicorn = start_gunicorn(env, port, args.workers, log)
        try:
            wait_healthy(port, gunicorn)
            print(f"gunicorn: {args.workers} sync workers on http://{HOST}:{port}, "
                  f"{os.cpu_count()} cores; {args.requests} requests per phase, concurrency "
                  f"{args.concurrency}, cap {args.seconds:g} s")
            print(f"static modules: {check_hashed_modules(port)}")

            health = drive(port, args.requests, args.concurrency, args.seconds, healthz_job)
            health_errors = health["done"] - health["statuses"].get(200, 0)
            print(f"healthz:     {health['done']:6d} requests in {health['elapsed']:5.2f} s = "
                  f"{health['rate']:8.1f} requests/s, errors {health_errors}")

            definition = get_json(port, f"/api/v1/surveys/{SLUG}/")
            payloads = randomized_reports(definition, args.requests)
            posts = drive(port, args.requests, args.concurrency, args.seconds,
                          submit_worker_factory(port, definition["version"], payloads))
            acknowledged = posts["statuses"].get(201, 0)
            post_errors = posts["done"] - acknowledged
            print(f"submissions: {posts['done']:6d} posts    in {posts['elapsed']:5.2f} s = "
                  f"{posts['rate']:8.1f} submissions/s, errors {post_errors} {posts['statuses']}")
        finally:
            stop(gunicorn)
        if gunicorn.returncode not in (0, None) or log.stat().st_size:
            print(f"gunicorn exit {gunicorn.returncode}; log tail:\n"
                  + "\n".join(log.read_text(errors="replace").splitlines()[-10:]))

        stored = Response.objects.filter(survey=survey).count() - baseline
        consistent = stored == acknowledged
        ratio = posts["rate"] / health["rate"]
        print(f"stored responses {stored} == acknowledged (201) {acknowledged}: {'PASS' if consistent else 'FAIL'}")
        print(f"ratio submissions/s / healthz requests/s = {ratio:.2f} "
              f"(target >= {TARGET_RATIO:.2f}: {'PASS' if ratio >= TARGET_RATIO else 'FAIL'})")
        verify = rebuild_counts_verify(env)
        if verify is not None:
            print(f"rebuild_counts --verify: {verify}")
        connections.close_all()
        ok = consistent and post_errors == 0 and health_errors == 0
        print(f"correctness (no errors, stored == acknowledged): {'PASS' if ok else 'FAIL'}")
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
