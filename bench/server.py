"""The server side of bench/load_bench.py: the production environment, a scratch PostgreSQL
database, gunicorn (start, health wait, stop), Django in this process, and the HTTP checks made
around the load (CSRF cookie, JSON GET, hashed static modules, `rebuild_counts --verify`)."""

from __future__ import annotations

import http.client
import itertools
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
SLUG = "demo"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def postgres_url() -> str:
    """The URL .ci/postgres prints (it installs and starts a local server if needed)."""
    result = subprocess.run(["bash", str(ROOT / ".ci" / "postgres")], capture_output=True, text=True, check=True)
    return result.stdout.strip().splitlines()[-1]


class ScratchPostgres:
    """A database of its own beside the one `url` names, created now and dropped by drop().

    Its commits are durable (synchronous_commit = on, PostgreSQL's default, as in production)
    whatever the role's own setting: .ci/postgres turns them off for the test role, and a
    commit that need not wait for the disk would flatter the submissions' figure. Set for the
    role in this database alone (the most specific setting), so dropped with it."""

    def __init__(self, url: str) -> None:
        import psycopg  # only needed with PostgreSQL
        parts = urlsplit(url)
        self.name = f"{parts.path.lstrip('/')}_load_{os.getpid()}"
        self.url = urlunsplit(parts._replace(path="/" + self.name))
        self.admin = urlunsplit(parts._replace(path="/postgres"))
        with psycopg.connect(self.admin, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{self.name}"')
            connection.execute(f'CREATE DATABASE "{self.name}"')
            connection.execute(f'ALTER ROLE CURRENT_USER IN DATABASE "{self.name}" SET synchronous_commit = on')

    LEAVE_SECONDS = 120  # how long drop() waits for connections it may not end (autovacuum's: seconds)

    def drop(self) -> None:
        """Drop it, FORCE ending connections left behind. FORCE may not end another role's process, an
        autovacuum worker's included (PostgreSQL 15: insufficient_privilege); those end by themselves, so the
        drop is tried again meanwhile, as bench/scratch.py's (which goes through Django's connection)."""
        import psycopg
        deadline = time.monotonic() + self.LEAVE_SECONDS
        with psycopg.connect(self.admin, autocommit=True) as connection:
            for attempt in itertools.count():
                try:
                    connection.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
                    return
                except psycopg.errors.InsufficientPrivilege as error:
                    if time.monotonic() > deadline:
                        raise
                    if not attempt:
                        print(f"Waiting for another role's connection to {self.name} to end ({error})",
                              file=sys.stderr, flush=True)
                time.sleep(0.5)


def production_env(tmp: Path, database_url: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update({
        "DJANGO_ENV": "production",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),  # throwaway
        "DJANGO_ALLOWED_HOSTS": HOST,
        "DJANGO_SECURE_SSL_REDIRECT": "false",  # plain http on loopback
        "DJANGO_STATIC_ROOT": str(tmp / "static"),
        "DJANGO_SUBMISSION_RATE": "off",  # every request comes from 127.0.0.1: measure the app, not the limiter
        # Chosen, not forgotten: gunicorn refuses several workers with DJANGO_CACHE_URL unset (surveys.shared_counts)
        "DJANGO_CACHE_URL": "locmem://",
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "surveys.settings",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    })
    return env


def setup_django(env: dict[str, str]) -> None:
    """Configure Django in this process with the same settings gunicorn will use."""
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    import django
    django.setup()


def start_gunicorn(env: dict[str, str], port: int, workers: int, log: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "gunicorn", "surveys.wsgi:application",
               "--bind", f"{HOST}:{port}", "--workers", str(workers),
               "--chdir", str(ROOT), "--log-level", "warning"]
    return subprocess.Popen(command, env=env, cwd=ROOT, stdout=log.open("wb"),
                            stderr=subprocess.STDOUT, start_new_session=True)


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()  # gunicorn's master stops its workers gracefully on SIGTERM
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_healthy(port: int, process: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
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


def csrf_cookie(connection: http.client.HTTPConnection) -> str:
    connection.request("GET", f"/s/{SLUG}/")
    response = connection.getresponse()
    response.read()
    if response.status != 200:
        raise RuntimeError(f"GET /s/{SLUG}/ answered {response.status}")
    for header, value in response.getheaders():
        if header.lower() == "set-cookie" and value.startswith("csrftoken="):
            return value.split(";", 1)[0].split("=", 1)[1]
    raise RuntimeError("the survey page set no csrftoken cookie")


def get_json(port: int, path: str) -> dict[str, Any]:
    connection = http.client.HTTPConnection(HOST, port, timeout=10)
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    if response.status != 200:
        raise RuntimeError(f"GET {path} answered {response.status}")
    parsed: dict[str, Any] = json.loads(body)
    return parsed


def _first_group(pattern: str, text: str, what: str) -> str:
    match = re.search(pattern, text)
    if match is None:
        raise RuntimeError(f"no {what} found")
    return match.group(1)


def check_hashed_modules(port: int) -> tuple[bool, str]:
    """The page must load respond.<hash>.js, and that module must import randomizer.<hash>.js."""
    connection = http.client.HTTPConnection(HOST, port, timeout=10)
    connection.request("GET", f"/s/{SLUG}/")
    page = connection.getresponse().read().decode()
    script = _first_group(r'<script type="module" src="([^"]+)"', page, f"module script in /s/{SLUG}/")
    connection.request("GET", script)
    module = connection.getresponse().read().decode()
    imported = _first_group(r'from "\./(randomizer[^"]*)"', module, f"randomizer import in {script}")
    target = script.rsplit("/", 1)[0] + "/" + imported
    connection.request("GET", target)
    response = connection.getresponse()
    response.read()
    ok = bool(re.search(r"\.[0-9a-f]{12}\.js$", script) and re.search(r"\.[0-9a-f]{12}\.js$", imported)
              and response.status == 200)
    return ok, f"{'ok' if ok else 'NOT hashed'}: {script} imports ./{imported} ({response.status})"


def rebuild_counts_verify(env: dict[str, str]) -> tuple[bool, str] | None:
    """Result of `manage.py rebuild_counts --verify` if another part of the app provides it."""
    if not list(ROOT.glob("surveys/*/management/commands/rebuild_counts.py")):
        return None
    result = subprocess.run([sys.executable, "manage.py", "rebuild_counts", "--verify"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120, check=False)
    tail = (result.stdout + result.stderr).strip().splitlines()[-1:] or [""]
    ok = result.returncode == 0
    return ok, f"{'PASS' if ok else 'FAIL'} (exit {result.returncode}) {tail[0]}"
