# Two commands on a fresh machine with Python 3.11:
#   make run    set up, migrate and start the whole site on http://127.0.0.1:8000/
#   make test   set up and run the whole test suite
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# uv installs exactly what uv.lock holds (the versions CI tested); pip only brings uv itself.
UV_VERSION := 0.13.9
UV     := UV_PROJECT_ENVIRONMENT=$(VENV) $(BIN)/uv

.PHONY: setup compile-sources run test perf lint bench messages deploy-check lock

$(BIN)/uv:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet uv==$(UV_VERSION)

# --locked: install the lock as it is, and fail if uv.lock and pyproject.toml disagree. --inexact keeps
# pip and uv themselves, the only packages in .venv that the lock does not list. --compile-bytecode:
# uv, unlike pip, leaves the .pyc files to the first import, and where PYTHONDONTWRITEBYTECODE is
# set (the machines this project is tested on set it) none is ever written, so every process the
# suite starts compiled Django, Celery and redis-py from source: 1.1 s of CPU each, about a tenth
# of the suite's CPU.
$(VENV)/.installed: pyproject.toml uv.lock Makefile | $(BIN)/uv
	$(UV) sync --quiet --locked --inexact --extra test --compile-bytecode
	touch $@

# Upgrade the locked versions within pyproject.toml's ranges, then run the suite: the framework
# fences (tests/config/test_framework_fences.py) are the gate for channels, daphne and redis-py.
lock: $(BIN)/uv
	$(UV) lock --upgrade
	$(MAKE) test

# The computer players' numba cores, compiled into NUMBA_CACHE_DIR (default var/numba-cache):
# neither the first test run nor `make run`'s worker has to. Again only when games/ai changes
# (then mostly loads from the cache: about a second).
$(VENV)/.cores: $(VENV)/.installed $(wildcard games/ai/*.py)
	$(BIN)/python -m games.ai.precompile
	touch $@

# The project's own packages, for the checks below and for the bytecode compiled before a run.
PACKAGES := core config games accounts ratings launch chat tournaments api bots

# The project's own modules as .pyc files (__pycache__/, ignored by git), again for those that changed:
# with PYTHONDONTWRITEBYTECODE set, Python reads them but never writes them.
compile-sources:
	$(BIN)/python -m compileall -q -j 0 $(PACKAGES) tests manage.py

setup: $(VENV)/.installed $(VENV)/.cores compile-sources

run: setup
	$(BIN)/python -m launch

# The suite runs in TEST_PROCESSES pytest processes (pytest-xdist), one test file at a time each:
# most tests wait on sockets, servers and browsers, so more processes than cores pay.
# Each process has its own test database and Redis (tests/environment.py). Files are handed out in
# collection order, the `heavy` ones first (tests/conftest.py), not xdist's most-tests-first.
TEST_PROCESSES ?= 4
test: setup
	$(BIN)/python -m pytest -n $(TEST_PROCESSES) --dist loadfile --no-loadscope-reorder $(PYTEST_ARGS)

# The production layout (deploy/) on loopback behind Debian's nginx, on the local
# PostgreSQL and Redis: drops database "deploycheck", empties Redis db 5 (docs/deploy.md).
deploy-check: setup
	$(BIN)/python -m launch --deploy-check

# The timed checks the suite leaves out (a search keeps to its budget, a core is N times
# faster than the Python search): run them on a quiet machine.
perf: setup
	$(BIN)/python -m pytest --perf -m perf tests/games/ai

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy $(PACKAGES)
	$(BIN)/lint-imports

bench: setup
	$(BIN)/python bench/engines.py
	$(BIN)/python bench/ai_throughput.py
