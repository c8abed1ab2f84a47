# The two commands of the README: `make demo` and `make test`.
PYTHON ?= python3
PORT ?= 8000

.PHONY: demo test python-deps system-deps bench

python-deps:
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements.txt

# Debian's chromium for the browser tests and Node.js for the JavaScript tests (needs root).
system-deps:
	@if ! command -v chromium >/dev/null || ! command -v node >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium nodejs; \
	fi

demo: python-deps
	$(PYTHON) manage.py migrate --verbosity 0
	$(PYTHON) manage.py demo --base-url http://127.0.0.1:$(PORT)
	$(PYTHON) manage.py runserver 127.0.0.1:$(PORT)

# The whole pytest suite twice, on SQLite and on PostgreSQL (.ci/postgres installs and starts a
# local server with apt-get if needed, then prints its URL), then the JavaScript tests. Each
# PostgreSQL run names its database after the shell's pid, like the SQLite test files, so runs
# in parallel do not drop each other's test database.
test: system-deps python-deps
	@echo "== pytest on SQLite =="
	$(PYTHON) -m pytest
	@echo "== pytest on PostgreSQL =="
	url=$$(bash .ci/postgres) && DATABASE_URL="$${url}_$$$$" $(PYTHON) -m pytest
	@echo "== node --test =="
	node --test tests/js/

bench: python-deps
	$(PYTHON) bench/ldp_bench.py
