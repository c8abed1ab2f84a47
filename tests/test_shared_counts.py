"""A per-process cache in production is not left unsaid (surveys.shared_counts): with DJANGO_CACHE_URL unset,
3 gunicorn workers each counted failed sign-ins on their own (the lockout came at the 12th wrong password, not
the 6th) and `check --deploy` was clean. Now `check --deploy` warns, and the documented gunicorn command
refuses to start several workers without a shared cache (and warns when locmem:// was chosen explicitly)."""

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from surveys.shared_counts import start_problem
from tests.servers import HOST, free_port, running
from tests.test_deploy import manage, production_env
from tests.test_reverse_proxy import DOCUMENTED

ROOT = Path(__file__).resolve().parent.parent


def without_cache_url(tmp_path, **extra):
    env = production_env(tmp_path, **extra)
    del env["DJANGO_CACHE_URL"]
    return env


def gunicorn(port: int, workers: int) -> list[str]:
    command = DOCUMENTED.replace("127.0.0.1:8000", f"{HOST}:{port}").replace("--workers 5", f"--workers {workers}")
    return [sys.executable, "-m", *shlex.split(command)]


def test_check_deploy_warns_of_a_per_process_cache_in_production(tmp_path):
    for env in (without_cache_url(tmp_path), production_env(tmp_path, DJANGO_CACHE_URL="locmem://")):
        result = manage(env, "check", "--deploy", "--fail-level", "WARNING")
        assert result.returncode != 0
        assert "(surveys.W001) The cache is per process" in result.stderr and "DJANGO_CACHE_URL" in result.stderr


@pytest.mark.parametrize("environ,workers,expected", [
    ({"DJANGO_ENV": "production"}, 3, True),
    ({"DJANGO_ENV": "production", "DJANGO_CACHE_URL": ""}, 2, True),
    ({"DJANGO_ENV": "production", "DJANGO_CACHE_URL": "locmem://"}, 3, False),
    ({"DJANGO_ENV": "production", "DJANGO_CACHE_URL": "LOCMEM://"}, 3, False),
    ({"DJANGO_ENV": "production"}, 1, None),
    ({"DJANGO_ENV": "production", "DJANGO_CACHE_URL": "db://"}, 5, None),
    ({"DJANGO_ENV": "production", "DJANGO_CACHE_URL": "redis://cache:6379/0"}, 5, None),
    ({}, 5, None),
    ({"DJANGO_ENV": "development"}, 5, None),
])
def test_several_workers_with_a_per_process_cache_are_refused_unless_it_was_chosen(environ, workers, expected):
    problem = start_problem(environ, workers)
    assert (None if problem is None else problem[0]) == expected


@pytest.mark.slow
def test_the_documented_command_refuses_several_workers_without_a_shared_cache(tmp_path):
    result = subprocess.run(gunicorn(free_port(), 5), cwd=ROOT, env=without_cache_url(tmp_path), capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.returncode == 1
    assert ("Error: refusing to start: 5 workers with DJANGO_CACHE_URL unset: each would count failed sign-ins and "
            "submissions on its own, so the limits would be 5 times too high") in result.stderr
    assert "Booting worker" not in result.stderr


@pytest.mark.slow
def test_the_documented_command_starts_with_an_explicit_locmem_cache_and_warns(tmp_path):
    port = free_port()
    env = production_env(tmp_path, DJANGO_CACHE_URL="locmem://")
    with running(gunicorn(port, 2), port, tmp_path, "gunicorn", cwd=ROOT, env=env):
        pass
    assert ("Warning: 2 workers with DJANGO_CACHE_URL=locmem://: each counts failed sign-ins and submissions on its "
            "own") in (tmp_path / "gunicorn.log").read_text()
