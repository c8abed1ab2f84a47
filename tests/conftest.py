"""The fixed cast every view is tested with, and a ready-made open survey.

Cast: `owner` (a researcher assigned to the survey), `other_researcher` (a researcher
who is not), `superuser`, and anonymous (the plain `client`).
"""

import os
import uuid

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.servers.basehttp import ThreadedWSGIServer
from django.utils import translation

from surveys.aggregation.exports import preparation
from surveys.collection import builder, store
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey
from tests.aggregation.held_export import join_preparations
from tests.factories import HEALTH_QUESTIONS, INEXACT_BITFLIP_EPSILONS, PASSWORD, make_user

# The live server's listen backlog (Django's default is 10) must take a burst of concurrent
# connections, as a production server's does (gunicorn: 2048); otherwise the kernel resets
# some of the 50 simultaneous submissions of tests/collection/test_invitation_concurrency.py.
ThreadedWSGIServer.request_queue_size = 128


# Where the suite's CPU goes, per module (tests/cpu_profile.py): CPU_PROFILE_DIR=/tmp/cpu make test.
pytest_plugins = ["tests.cpu_profile"] if os.environ.get("CPU_PROFILE_DIR") else []

RETENTION_DAYS = 365  # every fixture survey has a retention period: Open requires one

DATABASE_FIXTURES = {"db", "transactional_db", "django_db_reset_sequences", "django_db_serialized_rollback",
                     "live_server"}


def pytest_addoption(parser):
    parser.addoption("--database-only", action="store_true",
                     help="run only the tests that use the database or are marked `engine`, less SAME_ON_EVERY_ENGINE: "
                          "the second engine's run (make test), since the others cannot depend on it")


# Modules that use the database but whose subject does not depend on its engine, left out of the second
# engine's run (make test). Each proves what it proves from figures, rows or refusals that the modules kept there
# compute on both engines: who may see what (every URL, every role) and the headers; the analysis scripts reading an
# export; the charts' geometry and the labelled files' layout; the refusals made before or after the same queries.
# Together they took a third of the PostgreSQL run (measured with tests/cpu_profile.py).
SAME_ON_EVERY_ENGINE = {
    "tests/test_authorization.py",
    "tests/test_csp.py",
    "tests/aggregation/scripts/test_analysis_scripts.py",
    "tests/aggregation/scripts/test_anytime.py",
    "tests/aggregation/scripts/test_crosstab.py",
    "tests/aggregation/scripts/test_every_question.py",
    "tests/aggregation/scripts/test_models.py",
    "tests/aggregation/scripts/test_waves.py",
    "tests/aggregation/scripts/test_weighted.py",
    "tests/aggregation/charts/test_bars.py",
    "tests/aggregation/charts/test_coefficients.py",
    "tests/aggregation/charts/test_numeric.py",
    "tests/aggregation/exports/test_stata_spss.py",
    "tests/aggregation/exports/test_stata_spss_value_labels.py",
    "tests/aggregation/regression/test_refusals.py",
    "tests/aggregation/test_refusing.py",
    # The admin's pages: forms, words and refusals made in Python before the services write, whose writes
    # (builder, lifecycle, history) their own modules test on both engines (the translations page, whose
    # failed save is rolled back by each engine, stays). 40 CPU-s of the PostgreSQL run.
    "tests/collection/test_admin.py",
    "tests/collection/test_admin_survey_page.py",
    "tests/collection/test_exclusive_options_admin.py",
    "tests/history/test_admin_recording.py",
    # The API against its own schema: the answers' shapes and statuses; what a submission stores, on each engine,
    # is tested by the submission and store modules. 44 CPU-s of the PostgreSQL run.
    "tests/fuzz/test_api_schema_fuzz.py",
    # Bench commands whose PostgreSQL path is the results and load benches' (scratch database, server), kept there.
    "tests/bench/test_crosstab_bench.py",
    "tests/bench/test_export_bench.py",
    "tests/bench/test_model_service_bench.py",
}


# The modules that take longest (a minute or more of a core each: page loads by the hundred, fuzzing, servers
# in subprocesses), measured; make test starts them first (below). A stale name only costs speed.
LONGEST_FIRST = [
    "tests/fuzz/test_api_schema_fuzz.py",
    "tests/e2e/test_audit_production.py",
    "tests/e2e/test_every_kind_through_the_page.py",
    "tests/e2e/test_audit_form_page.py",
    "tests/test_exports_under_a_worker_timeout.py",
    "tests/e2e/test_accessibility_states.py",
    "tests/ldp/joint/test_statistics.py",
    "tests/bench/test_results_bench.py",
]


@pytest.hookimpl(trylast=True)  # after tests/e2e/conftest.py has marked its tests slow
def pytest_collection_modifyitems(config, items):
    if config.getoption("--database-only"):
        kept, left_out = [], []
        for item in items:
            engine_matters = uses_the_database(item) and module_of(item) not in SAME_ON_EVERY_ENGINE
            (kept if engine_matters else left_out).append(item)
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept
    items.sort(key=longest_first)


def longest_first(item) -> tuple[int, int]:
    """The longest modules first, then the other `slow` ones, then the rest, each in collection order (the
    sort is stable). pytest-xdist (make test: --dist loadscope --no-loadscope-reorder) hands modules out
    in this order, so a long module never starts last and leaves one worker running alone at the end."""
    path = module_of(item)
    if path in LONGEST_FIRST:
        return 0, LONGEST_FIRST.index(path)
    return (1 if item.get_closest_marker("slow") else 2), 0


def module_of(item) -> str:
    return item.path.relative_to(item.config.rootpath).as_posix()


def uses_the_database(item) -> bool:
    return (item.get_closest_marker("django_db") is not None or item.get_closest_marker("engine") is not None
            or not DATABASE_FIXTURES.isdisjoint(getattr(item, "fixturenames", ())))


def pytest_sessionfinish(session, exitstatus):
    """Django removes the test database file; the writers' lock file beside it is ours to remove."""
    test_database = django_settings.DATABASES["default"].get("TEST", {}).get("NAME")
    if test_database:
        store.lock_path(test_database).unlink(missing_ok=True)


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Hashing with the production hasher costs ~0.3 s per user; the tests only need it to work."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def empty_cache():
    """Every test starts with no rate-limit or sign-in failure counts (the cache outlives a test)."""
    cache.clear()


@pytest.fixture(autouse=True)
def default_language():
    """LocaleMiddleware leaves a request's language active in its thread (each request sets its own):
    every test starts in the default, whatever the test before it asked for."""
    translation.deactivate()


@pytest.fixture(autouse=True)
def no_submission_rate_limit(settings):
    """Tests post many submissions from one address; tests/collection/test_ratelimit.py turns it on."""
    settings.SUBMISSION_RATE = None


@pytest.fixture(autouse=True)
def exports_prepared_within_the_request(settings, tmp_path_factory):
    """A test's data lives in its transaction, which a background thread's connection does not see: the
    report exports are prepared within the request, into a directory of the test's own (made when first
    used). tests/aggregation/exports/test_prepared_in_the_background.py runs the thread, on committed data."""
    settings.EXPORT_BACKGROUND = False
    settings.EXPORT_DIR = tmp_path_factory.getbasetemp() / "exports" / uuid.uuid4().hex


@pytest.fixture
def owner(db):
    return make_user("owner")


@pytest.fixture
def other_researcher(db):
    return make_user("other")


@pytest.fixture
def superuser(db):
    return get_user_model().objects.create_superuser(username="super", password=PASSWORD)


def login(client, user):
    client.force_login(user)
    return client


@pytest.fixture
def owner_client(client, owner):
    return login(client, owner)


@pytest.fixture
def survey(db, owner):
    """An open survey with one question per mechanism: qrr, bitflip, krr (3 options), oue (4 options)."""
    survey = builder.create_survey("health", "Health", HEALTH_QUESTIONS, status=Survey.Status.OPEN,
                                   epsilon_budget=6.0, retention_days=RETENTION_DAYS)
    survey.researchers.add(owner)
    return survey


@pytest.fixture
def invitation_only(survey):
    """The `survey`, open to invitation links only (no invitations made yet)."""
    Survey.objects.filter(pk=survey.pk).update(access=Survey.Access.INVITATION)
    survey.refresh_from_db()
    return survey


@pytest.fixture
def every_mechanism_survey(db, owner):
    """An open survey ("rounded") with every mechanism: 1 qrr (q = 0.3), 2-4 bitflip at
    INEXACT_BITFLIP_EPSILONS, 5 krr (eps 1.3, 3 options), 6 sue (eps 0.7, 3 options) and
    7 oue (eps 1.3, 4 options); none of the epsilons but q-RR's is exactly representable."""
    survey = builder.create_survey("rounded", "Rounded", [
        QuestionSpec("Smoked?", "qrr", q="0.3"),
        *(QuestionSpec(f"Yes/no {order}?", "bitflip", epsilon=epsilon)
          for order, epsilon in INEXACT_BITFLIP_EPSILONS.items()),
        QuestionSpec("krr choice?", "krr", epsilon=1.3, options=["Low", "Middle", "High"]),
        QuestionSpec("sue choice?", "sue", epsilon=0.7, options=["Red", "Green", "Blue"]),
        QuestionSpec("oue choice?", "oue", epsilon=1.3, options=["A", "B", "C", "D"]),
    ], status=Survey.Status.OPEN, epsilon_budget=10.0, retention_days=RETENTION_DAYS)
    survey.researchers.add(owner)
    return survey


@pytest.fixture
def direct_survey(db, owner):
    """An open survey ("covariates") with two randomized questions and two direct ones (not
    randomized): 1 qrr (q = 0.5), 2 direct age band (3 options), 3 krr (eps 1, 3 options), 4 direct
    region (4 options). Its randomized total is ln 3 + KaryRR(1, 3)'s effective epsilon."""
    survey = builder.create_survey("covariates", "Covariates", [
        QuestionSpec("Cheated?", "qrr", q="0.5"),
        QuestionSpec("Age band?", "direct", options=["18-34", "35-54", "55+"]),
        QuestionSpec("Drugs?", "krr", epsilon=1.0, options=["Never", "Sometimes", "Often"]),
        QuestionSpec("Region?", "direct", options=["North", "East", "South", "West"]),
    ], status=Survey.Status.OPEN, epsilon_budget=2.5, retention_days=RETENTION_DAYS)
    survey.researchers.add(owner)
    return survey


# One question of each new kind (issue 13), with "Prefer not to say" where it is offered.
KINDS_QUESTIONS = [
    QuestionSpec("Which have you used this month?", "multiselect", epsilon=2.0, kind="multi_select",
                 options=["Tobacco", "Alcohol", "Cannabis", "Prefer not to say"], at_most=2),
    QuestionSpec("Hours online per week?", "onebit", epsilon=1.0, kind="numeric", scale=("0", "100", "1")),
    QuestionSpec("Drinks last week?", "dlaplace", epsilon=1.0, kind="numeric", scale=("0", "10", "0.5")),
    QuestionSpec("Your age?", "krr", epsilon=1.0, kind="numeric", scale=("0", "120", "1"),
                 options=["0 to 17", "18 to 34", "35 to 64", "65 to 120"], edges=["0", "18", "35", "65"]),
    QuestionSpec("How often do you gamble?", "krr", epsilon=1.0, kind="ordinal",
                 options=["Never", "Rarely", "Often", "Prefer not to say"], scores=["1", "2", "3", None]),
]


@pytest.fixture
def kinds_survey(db, owner):
    """An open survey ("kinds") with one question of each new kind: 1 multi-select (multiselect, eps 2,
    4 options, at most 2), 2 numeric mean by the 1-bit mean (0..100 by 1), 3 numeric mean by discrete
    Laplace (0..10 by 0.5), 4 numeric histogram (krr over 4 age bins of 0..120), 5 ordinal (krr, scores
    1, 2, 3 and an unscored "Prefer not to say")."""
    survey = builder.create_survey("kinds", "Kinds", KINDS_QUESTIONS, status=Survey.Status.OPEN, epsilon_budget=7.0,
                                   retention_days=RETENTION_DAYS)
    survey.researchers.add(owner)
    return survey


@pytest.fixture
def background(settings, monkeypatch):
    """Report exports prepared in a background thread, answered 202 at once, with a quick heartbeat; every
    preparation's threads joined at the end."""
    settings.EXPORT_BACKGROUND = True
    settings.EXPORT_WAIT = 0
    monkeypatch.setattr(preparation, "HEARTBEAT", 0.05)
    yield
    join_preparations()
