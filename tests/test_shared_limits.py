"""DJANGO_CACHE_URL shares the rate limits' counts between processes (gunicorn workers, servers):
the submission limit's and the sign-in lockout's.

A real Redis server (Debian's redis-server, started here on a free port, tests/servers.py) and
the database cache: a count made in another process, with its own cache client, uses up the
budget of this one.
"""

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.test import RequestFactory

from surveys import cache_url
from surveys.accounts.throttle import LoginThrottle
from surveys.collection.ratelimit import SubmissionThrottle
from tests.servers import redis_server

pytestmark = pytest.mark.slow  # a Redis server and Django started in subprocesses
ROOT = Path(__file__).resolve().parent.parent
ADDRESS = "203.0.113.9"
RATE = (3, 86400)  # one window a day: the two processes count in the same one


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture
def shared(settings, redis_url):
    settings.CACHES = {"default": cache_url.parse(redis_url)}
    settings.SUBMISSION_RATE = RATE
    settings.PROXY_COUNT = 0
    cache.clear()
    yield redis_url
    cache.clear()


def allowed_here(times: int) -> list[bool]:
    request = RequestFactory().post("/", REMOTE_ADDR=ADDRESS)
    return [SubmissionThrottle().allow_request(request, None) for _ in range(times)]


def another_environment(cache_url_value: str) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    environment.update(DJANGO_SETTINGS_MODULE="surveys.settings", DJANGO_CACHE_URL=cache_url_value,
                       DJANGO_SUBMISSION_RATE="/".join(map(str, RATE)), DJANGO_LOGIN_LOCKOUT="5/900")
    return environment


def in_another_process(cache_url_value: str, code: str) -> str:
    """`code` run after django.setup() in a new interpreter configured by DJANGO_CACHE_URL; its stdout."""
    script = "import django\ndjango.setup()\n" + textwrap.dedent(code)
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=another_environment(cache_url_value),
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@contextmanager
def another_process_waiting(cache_url_value: str, setup: str, code: str) -> Iterator[Callable[[], str]]:
    """A new interpreter as in in_another_process, started now, that runs `setup` and then runs `code` only
    when the function yielded here is called (which returns its stdout): its start-up, seconds on a
    loaded machine, is not in the time `code` sees pass."""
    script = (f"import sys\nimport django\ndjango.setup()\n{textwrap.dedent(setup)}\nprint('ready', flush=True)\n"
              f"sys.stdin.readline()\n{textwrap.dedent(code)}")
    process = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT,
                               env=another_environment(cache_url_value), stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline() == "ready\n", process.communicate(timeout=60)[1]

        def go() -> str:
            out, err = process.communicate("go\n", timeout=60)
            assert process.returncode == 0, err
            return out.strip()

        yield go
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


ALLOW_TWICE = f"""
    from django.test import RequestFactory
    from surveys.collection.ratelimit import SubmissionThrottle
    request = RequestFactory().post("/", REMOTE_ADDR="{ADDRESS}")
    print([SubmissionThrottle().allow_request(request, None) for _ in range(2)])
"""


def test_two_processes_share_one_submission_budget_through_redis(shared):
    assert in_another_process(shared, ALLOW_TWICE) == "[True, True]"
    assert allowed_here(2) == [True, False]  # the third of the day's three, then refused


FAIL_THREE_TIMES = f"""
    from django.test import RequestFactory
    from surveys.accounts.throttle import LoginThrottle
    throttle = LoginThrottle.of(RequestFactory().post("/", REMOTE_ADDR="{ADDRESS}"), "editor")
    print([throttle.failed() for _ in range(3)])
"""


def test_failed_sign_ins_in_two_processes_add_up_to_one_lockout_through_redis(shared, settings):
    settings.LOGIN_LOCKOUT = (5, 900)
    assert in_another_process(shared, FAIL_THREE_TIMES) == "[None, None, None]"
    throttle = LoginThrottle.of(RequestFactory().post("/", REMOTE_ADDR=ADDRESS), "editor")
    with another_process_waiting(shared, "from django.test import RequestFactory\n"
                                 "from surveys.accounts.throttle import LoginThrottle\n"
                                 f"there = LoginThrottle.of(RequestFactory().post('/', REMOTE_ADDR='{ADDRESS}'), "
                                 "'editor')", "print(there.retry_after())") as retry_after_there:
        assert [throttle.failed(), throttle.failed()] == [None, 900]  # the fifth failure, here, locks
        assert retry_after_there() in ("900", "899")


def test_without_a_shared_cache_each_process_has_its_own_budget(shared, settings):
    """The problem DJANGO_CACHE_URL solves: per-process counts multiply the limit."""
    settings.CACHES = {"default": cache_url.parse("locmem://")}
    assert in_another_process("locmem://", ALLOW_TWICE) == "[True, True]"
    assert allowed_here(4) == [True, True, True, False]


def test_redis_holds_only_keyed_hashes_that_expire(shared):
    import redis

    allowed_here(1)
    client = redis.Redis.from_url(shared)
    keys = [key.decode() for key in client.keys("*")]
    assert len(keys) == 1 and ADDRESS.rsplit(".", 1)[0] not in keys[0]
    assert 0 < client.ttl(keys[0]) <= RATE[1] + 1


def test_the_database_cache_shares_the_budget_through_the_database(transactional_db, settings):
    settings.CACHES = {"default": cache_url.parse("db://")}
    settings.SUBMISSION_RATE = RATE
    settings.PROXY_COUNT = 0
    call_command("createcachetable", verbosity=0)
    allowed_here(2)
    cache.close()
    settings.CACHES = {"default": cache_url.parse("db://")}  # a new cache client, as another process has
    assert allowed_here(2) == [True, False]
