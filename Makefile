# The two commands of the README: `make demo` and `make test`. Both install into the project's
# virtual environment, .venv (created here), never into the system Python.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000

.PHONY: demo test lint app-deps test-deps system-deps bench

$(PY):
	$(PYTHON) -m venv $(VENV)

# What the app needs to run (a production install), then the development and test tools.
app-deps: $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt

test-deps: $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check -r tests/requirements.txt

# Debian's chromium for the browser tests and Node.js for the JavaScript tests (needs root).
system-deps:
	@if ! command -v chromium >/dev/null || ! command -v node >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium nodejs; \
	fi

demo: app-deps
	$(PY) manage.py migrate --verbosity 0
	$(PY) manage.py demo --base-url http://127.0.0.1:$(PORT)
	$(PY) manage.py runserver 127.0.0.1:$(PORT)

lint: test-deps
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

# Lint and types, then the whole pytest suite twice, on SQLite and on PostgreSQL (.ci/postgres
# installs and starts a local server with apt-get if needed, then prints its URL), then the
# JavaScript tests. Each PostgreSQL run names its database after the shell's pid, like the SQLite
# test files, so runs in parallel do not drop each other's test database.
test: system-deps lint
	@echo "== pytest on SQLite =="
	$(PY) -m pytest
	@echo "== pytest on PostgreSQL =="
	url=$$(bash .ci/postgres) && DATABASE_URL="$${url}_$$$$" $(PY) -m pytest
	@echo "== node --test =="
	node --test tests/js/

bench: app-deps
	$(PY) bench/ldp_bench.py
