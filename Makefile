# Parlour's two commands: `make run` and `make test`.  Both install into .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
PORT ?= 8000

.PHONY: install run test lint bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

## make run: migrate, load the demo club, start the web server and a Celery worker.
run: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py load_demo
	PORT=$(PORT) $(BIN)/python -m parlour.devserver

## make test: lint, type-check, then every test (PostgreSQL/Redis tests skip with a reason
## when those servers are missing, except under CI=true where that is a failure).
test: install lint
	PARLOUR_TEST_BOTH_BACKENDS=1 $(BIN)/python -m pytest

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

bench: install
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache .hypothesis
