"""Production settings: `check --deploy` is clean, and collectstatic rewrites ES module imports.

Each check runs manage.py in a subprocess, because settings are read from the environment
once, at start-up.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def production_env(tmp_path, **extra) -> dict:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("DJANGO_") and key != "DATABASE_URL"}
    env.update({
        "DJANGO_ENV": "production",
        "DJANGO_SECRET_KEY": "a-long-random-test-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
        "DJANGO_ALLOWED_HOSTS": "survey.example.org",
        "DJANGO_CSRF_TRUSTED_ORIGINS": "https://survey.example.org",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "DJANGO_STATIC_ROOT": str(tmp_path / "static"),
        "DJANGO_SETTINGS_MODULE": "surveys.settings",
        "DJANGO_CACHE_URL": "db://",  # the recipe's shared cache (no test here counts in it)
        **extra,
    })
    return env


def manage(env, *args, timeout=120):
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)


@pytest.mark.slow
def test_check_deploy_is_clean_under_production_settings(tmp_path):
    result = manage(production_env(tmp_path), "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_refuses_to_start_without_a_secret_key(tmp_path):
    result = manage(production_env(tmp_path, DJANGO_SECRET_KEY=""), "check")
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr


@pytest.mark.slow
def test_collectstatic_hashes_modules_and_rewrites_their_imports(tmp_path):
    result = manage(production_env(tmp_path), "collectstatic", "--noinput", "--verbosity", "0")
    assert result.returncode == 0, result.stdout + result.stderr
    paths = json.loads((tmp_path / "static" / "staticfiles.json").read_text())["paths"]
    respond, randomizer = paths["js/respond.js"], paths["js/randomizer.js"]
    assert re.fullmatch(r"js/respond\.[0-9a-f]{12}\.js", respond)
    assert re.fullmatch(r"js/randomizer\.[0-9a-f]{12}\.js", randomizer)
    module = (tmp_path / "static" / respond).read_text()
    assert f'from "./{randomizer.removeprefix("js/")}";' in module
    assert '"./randomizer.js"' not in module
    assert (tmp_path / "static" / f"{respond}.gz").exists()
