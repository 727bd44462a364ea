# The everyday commands (README: "The two commands", "Tests", "Benchmarks").
# Run `bash .ci/test` once first: it makes .venv with everything these use.

PYTHON ?= .venv/bin/python
RUFF ?= .venv/bin/ruff
# pytest-xdist workers for make check (0: none, all in one process)
JOBS ?= 2
# the release make bench-compare measures against
REF ?= v0.1.0
# make slowest lists the fast tests that took at least this long (seconds)
LIMIT ?= 0.25
# what make check runs: the tests that need no server, browser or daemon and
# are not marked slow, without the slowest of the rest (tests/slowest.txt)
QUICK = -m "not integration and not slow" --quick
# a test's files on tmpfs where there is one (SQLite's syncs cost on disk)
FAST_TMP := $(shell [ -d /dev/shm ] && [ -w /dev/shm ] && echo /dev/shm)
# bytecode kept between runs, whatever the environment says: without it every
# run (and every xdist worker) compiles the package and rewrites the tests'
# asserts again, 8 s of CPU each
FAST_ENV = PYTHONDONTWRITEBYTECODE= $(if $(FAST_TMP),TMPDIR=$(FAST_TMP))

.PHONY: check lint core test bench bench-compare slowest hooks

## ruff, mypy and the fast tests: the one-minute check before a commit
check: lint core
	$(FAST_ENV) $(PYTHON) -m pytest -q -n $(JOBS) $(QUICK) --leave-out-slowest

## ruff and mypy
lint:
	$(RUFF) check pbm tests bench
	$(PYTHON) -m mypy

## the search core (pbm/ai/core.py) compiled in place again when its source
## is newer than the build (an editable install compiles it once; a stale
## build would run the old code)
core:
	@$(PYTHON) -c 'import pathlib, sys; d = pathlib.Path("pbm/ai"); so = list(d.glob("core.*.so")); \
	sys.exit(0 if not so or so[0].stat().st_mtime >= (d / "core.py").stat().st_mtime else 1)' \
	|| $(PYTHON) -m pip install --quiet --no-deps -e .

## the whole suite, slow and integration tests included: what CI runs
test:
	bash .ci/test

## the engine's figures (bench/engine.py)
bench:
	$(PYTHON) bench/engine.py

## the engine's figures here against those of a release: make bench-compare REF=v0.1.0
bench-compare:
	$(PYTHON) bench/compare.py --against $(REF)

## rewrite tests/slowest.txt from a quick run, one test at a time (about five minutes;
## a failing test stops it before the list is written)
slowest:
	$(FAST_ENV) $(PYTHON) -m pytest -q $(QUICK) --time-tests=.pytest_cache/pbm-times.json
	$(PYTHON) .ci/slowest.py .pytest_cache/pbm-times.json --limit $(LIMIT)

## the commit-msg hook (.ci/commit-msg: subjects of at most 72 characters), once per clone
hooks:
	mkdir -p "$$(git rev-parse --git-path hooks)"
	ln -sf "$(CURDIR)/.ci/commit-msg" "$$(git rev-parse --git-path hooks)/commit-msg"
