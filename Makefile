# Parlour's two commands: `make run` and `make test`.  Both install into .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
PORT ?= 8000

.PHONY: install run test lint bench clean chromium nginx messages gettext constraints

## The versions come from constraints.txt, so that a fresh clone installs what was tested
## (a new release of a dependency once failed every fresh clone's lint).
$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

## make run: migrate, load the demo club, start the web server and a Celery worker.
run: install messages
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py load_demo
	PORT=$(PORT) $(BIN)/python -m parlour.devserver

## make test: lint, type-check, then every test (PostgreSQL/Redis tests skip with a reason
## when those servers are missing, except under CI=true where that is a failure).
## Tests publish Celery tasks as a side effect of moves: unless CI points the broker
## at Redis, they go to an in-memory broker, never into make run's var/broker.sqlite3.
test: install lint chromium nginx messages
	PARLOUR_TEST_BOTH_BACKENDS=1 CELERY_BROKER_URL=$${CELERY_BROKER_URL:-memory://} \
		$(BIN)/python -m pytest

## apt-get for the Debian packages the tests need: one of ours at a time (two fresh clones'
## make test at once failed on each other's dpkg lock; flock waits up to 15 minutes), and an
## install waits for any other dpkg user.  `apt-get update` has no such wait for its lists'
## lock, so a failed update does not stop the install from trying the lists there are.
APT_GET := flock -w 900 /var/lock/parlour-apt-get.lock apt-get -o DPkg::Lock::Timeout=300

## The browser tests drive Debian's Chromium: install it when missing and we are root
## (otherwise they skip with that reason; under CI=true a missing Chromium fails them).
chromium:
	@command -v chromium >/dev/null 2>&1 || [ "$$(id -u)" != 0 ] \
		|| ($(APT_GET) update -qq; $(APT_GET) install -y -qq chromium >/dev/null) \
		|| echo "could not install chromium: the browser tests will say why they skip"

## The proxy's test runs compose's nginx file (deploy/nginx.conf) in a real nginx:
## installed when missing and we are root (otherwise it skips with that reason).
nginx:
	@command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || [ "$$(id -u)" != 0 ] \
		|| ($(APT_GET) update -qq; RUNLEVEL=1 $(APT_GET) install -y -qq nginx-light >/dev/null) \
		|| echo "could not install nginx: the proxy's test will say why it skips"

## The translations (docs/i18n.md): locale/*/LC_MESSAGES/*.po compiled to .mo with GNU
## gettext's msgfmt, which is installed when missing and we are root.
messages: install gettext
	$(BIN)/python manage.py compilemessages --ignore .venv --ignore var --verbosity 0

gettext:
	@command -v msgfmt >/dev/null 2>&1 || [ "$$(id -u)" != 0 ] \
		|| ($(APT_GET) update -qq; $(APT_GET) install -y -qq gettext >/dev/null) \
		|| echo "could not install gettext: the pages will be in English only"

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

bench: install
	$(BIN)/python bench/engine.py

## make constraints: the newest versions pyproject.toml allows, installed into a new venv,
## written to constraints.txt (then make test, and commit both if it passes).
constraints:
	rm -rf var/constraints-venv
	$(PYTHON) -m venv var/constraints-venv
	var/constraints-venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	{ head -n 2 constraints.txt; var/constraints-venv/bin/python -m pip freeze --exclude-editable; } > constraints.txt.new
	mv constraints.txt.new constraints.txt
	rm -rf var/constraints-venv

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache .hypothesis
