# The two commands of the README: `make demo` and `make test`. Both install into the project's
# virtual environment, .venv (created here), never into the system Python.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000

.PHONY: demo test lint app-deps test-deps system-deps bench

$(PY):
	$(PYTHON) -m venv $(VENV)

# What the app needs to run (a production install), then the development and test tools. --no-compile: pip would
# compile every installed module, 15 s of a fresh install's 31 (measured); Python compiles those it imports, once.
app-deps: $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check --no-compile -r requirements.txt

# ... and axe-core for the browser tests' accessibility checks (pinned in tests/js/package-lock.json).
test-deps: $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check --no-compile -r tests/requirements.txt
	npm ci --prefix tests/js --no-audit --no-fund --loglevel=error

# Debian's chromium (headless) for the browser tests and the browser audit commands,
# Node.js for the JavaScript tests, npm for axe-core, R (r-base-core) to run the generated R scripts and R's readstata13 to read the Stata export with
# a reader that shares no code with pyreadstat, R's survey (r-cran-survey) as the independent
# check of ldp's raking and of the raked estimates' linearization standard errors, redis-server for
# the shared rate-limit counters and nginx for the reverse-proxy test (the tests start their own
# Redis and nginx on free ports), gettext (xgettext, msgfmt, msgattrib) for makemessages and the
# translation catalogs' test, wrk for the load benchmark's test, sqlite3 (the CLI) for the export benchmark's dump, openssl for the nginx site test's
# throwaway certificate; needs root; each only if missing.
system-deps:
	@missing=""; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v Rscript >/dev/null || missing="$$missing r-base-core"; \
	Rscript -e 'library(readstata13)' >/dev/null 2>&1 || missing="$$missing r-cran-readstata13"; \
	Rscript -e 'library(survey)' >/dev/null 2>&1 || missing="$$missing r-cran-survey"; \
	command -v node >/dev/null || missing="$$missing nodejs"; \
	command -v npm >/dev/null || missing="$$missing npm"; \
	command -v redis-server >/dev/null || missing="$$missing redis-server"; \
	PATH="$$PATH:/usr/sbin" command -v nginx >/dev/null || missing="$$missing nginx"; \
	command -v msgfmt >/dev/null || missing="$$missing gettext"; \
	command -v wrk >/dev/null || missing="$$missing wrk"; \
	command -v sqlite3 >/dev/null || missing="$$missing sqlite3"; \
	command -v openssl >/dev/null || missing="$$missing openssl"; \
	if [ -n "$$missing" ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

demo: app-deps
	$(PY) manage.py migrate --verbosity 0
	$(PY) manage.py demo --types --base-url http://127.0.0.1:$(PORT)
	$(PY) manage.py runserver 127.0.0.1:$(PORT)

lint: test-deps
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

# The whole suite, all at once (.ci/suite): pytest on SQLite, including the browser tests; the tests that
# use the database again on PostgreSQL (.ci/postgres installs and starts a local server with apt-get if
# needed, then prints its URL); ruff and mypy; the JavaScript tests. --database-only (tests/conftest.py)
# leaves out of the second run what cannot depend on the engine: the statistics, the generated scripts,
# the client code, and the modules SAME_ON_EVERY_ENGINE names (every URL's access, headers, charts). The browser tests (tests/e2e) test what the page does; every server path they go
# through is tested on both engines by the view, API and service tests, and running them twice would add
# minutes to every run. pytest runs in pytest-xdist workers, each with its own test database
# (pytest-django adds the worker's name, gw0, gw1..., to it).
# `pytest -m "not slow"` runs the fast part alone (README).
test: system-deps test-deps
	bash .ci/suite

bench: app-deps
	$(PY) bench/ldp_bench.py
