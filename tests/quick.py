"""What ``make check`` changes in a test run (``--quick``, ``--leave-out-slowest``)
and how ``make slowest`` times the tests (``--time-tests``); hooked in by
``tests/conftest.py``.

``--quick`` runs the same tests, cheaper:

- the hypothesis profile "quick": the same fixed examples, fewer of them.  A
  test's own ``@settings(max_examples=N)`` would outrank a profile, so under
  this one every property test is also held to QUICK_EXAMPLES;
- new passwords hashed with scrypt at N = 2**4 instead of 2**14: a stored
  hash names its own N, so checking works as before; scrypt was half of the
  application tests' time (76 ms a signup);
- templates compiled once per test run, not once per Pipeline (a Jinja
  bytecode cache shared by environments configured alike): compiling was a
  third of what was left;
- a new database file starts as a page-for-page copy (SQLite's backup) of
  one the same process made and migrated, instead of running every
  migration again: 40-90 ms a store, and most tests of the application
  open one or more.  The migrations still run, once per process, and their
  own tests (tests/app/test_store.py) check what they make.

``--leave-out-slowest`` deselects the tests listed in ``tests/slowest.txt``:
about 4% of the fast tests, which took about four fifths of their time (its
header gives the figures of the run that wrote it).

The whole suite (``.ci/test``, ``make test``) uses none of this: every test,
every example, the real scrypt cost, a fresh compile per Pipeline, the
migrations run for every new database.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import jinja2
import jinja2.bccache
import pytest
from hypothesis import settings

QUICK_EXAMPLES = 10
QUICK_SCRYPT_N = 2**4
#: The slowest of the fast tests, which make check leaves to the whole suite;
#: ``make slowest`` writes it (``.ci/slowest.py``).
SLOWEST = Path(__file__).resolve().parent / "slowest.txt"


def register_profiles() -> None:
    # Property tests see the same examples on every run (CI included), and a
    # noisy machine never fails one on time.
    settings.register_profile("pbm", derandomize=True, database=None, deadline=None)
    settings.register_profile("quick", parent=settings.get_profile("pbm"), max_examples=QUICK_EXAMPLES)
    settings.load_profile("pbm")


def make_quick() -> None:
    settings.load_profile("quick")
    _cheap_password_hashes()
    _templates_compiled_once()
    _databases_migrated_once()


def hold_examples(items: list[pytest.Item]) -> None:
    """Hold every property test to QUICK_EXAMPLES examples, its own
    ``@settings`` included (the first ones it would try: the examples are
    derandomized)."""
    for item in items:
        test = getattr(item, "obj", None)
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if getattr(test, "is_hypothesis_test", False) and own is not None and own.max_examples > QUICK_EXAMPLES:
            test._hypothesis_internal_use_settings = settings(own, max_examples=QUICK_EXAMPLES)  # type: ignore[union-attr]


def slowest() -> set[str]:
    """What ``tests/slowest.txt`` lists: node ids and modules' paths (the
    last field of each line)."""
    lines = SLOWEST.read_text(encoding="utf-8").splitlines() if SLOWEST.exists() else []
    return {line.split(maxsplit=1)[1] for line in lines if line.strip() and not line.startswith("#")}


def leave_out_slowest(config: pytest.Config, items: list[pytest.Item]) -> None:
    listed = slowest()
    left_out = [item for item in items if item.nodeid in listed or item.nodeid.split("::")[0] in listed]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        gone = set(map(id, left_out))
        items[:] = [item for item in items if id(item) not in gone]


def _cheap_password_hashes() -> None:
    # imported here: the engine's tests need not import the server's domain
    from pbm.domain import passwords

    defaults = passwords.hash_password.__kwdefaults__
    if defaults is not None and "n" in defaults:
        defaults["n"] = QUICK_SCRYPT_N


class _CompiledTemplates(jinja2.BytecodeCache):
    """Compiled templates kept in memory for the test run."""

    def __init__(self) -> None:
        self.code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.key in self.code:
            bucket.bytecode_from_string(self.code[bucket.key])

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.code[bucket.key] = bucket.bytecode_to_string()


def _templates_compiled_once() -> None:
    """Give every Jinja environment without a bytecode cache the one shared
    by environments that compile alike (a bucket's key is only the template's
    name and source, so each configuration has its own cache)."""
    caches: dict[tuple[object, ...], _CompiledTemplates] = {}
    init = jinja2.Environment.__init__

    def shared(env: jinja2.Environment, *args: Any, **kwargs: Any) -> None:
        init(env, *args, **kwargs)
        if env.bytecode_cache is None:
            finalize = env.finalize
            how = (
                env.block_start_string, env.block_end_string, env.variable_start_string,
                env.variable_end_string, env.comment_start_string, env.comment_end_string,
                env.line_statement_prefix, env.line_comment_prefix, env.trim_blocks, env.lstrip_blocks,
                env.newline_sequence, env.keep_trailing_newline, env.optimized, env.is_async,
                tuple(sorted(env.extensions)),
                env.autoescape if isinstance(env.autoescape, bool) else "callable",
                None if finalize is None else getattr(finalize, "jinja_pass_arg", "plain"),
                type(env),
            )
            env.bytecode_cache = caches.setdefault(how, _CompiledTemplates())

    jinja2.Environment.__init__ = shared  # type: ignore[method-assign]


def _databases_migrated_once() -> None:
    """Open every new database file (one whose folder exists and which does
    not) as a copy of the first one this process migrated; the store then
    finds its migrations done.  In-memory databases and existing files are
    opened as always."""
    from pbm.domain.store import connection

    init = connection.StoreBase.__init__
    made: list[Path] = []

    def from_template(store: connection.StoreBase, path: str | Path, **kwargs: Any) -> None:
        where = os.fspath(path)
        fresh = where != ":memory:" and not os.path.exists(where) and os.path.isdir(os.path.dirname(where) or ".")
        if fresh and made:
            shutil.copyfile(made[0], where)
        init(store, path, **kwargs)
        if fresh and not made:
            folder = tempfile.mkdtemp(prefix="pbm-quick-")
            atexit.register(shutil.rmtree, folder, ignore_errors=True)
            template = Path(folder) / "migrated.sqlite3"
            copy = sqlite3.connect(template)
            try:
                store.db.conn.backup(copy)
            finally:
                copy.close()
            made.append(template)

    connection.StoreBase.__init__ = from_template  # type: ignore[method-assign]


class TestTimer:
    """``--time-tests FILE``: each test's seconds (set-up, call, tear-down),
    and how many of them went to setting up fixtures it shares with other
    tests: of its module (or class or package), which the next test of the
    module would pay for if this one were left out, and of the session,
    which some test pays for in any run.  Written to FILE as JSON for
    ``.ci/slowest.py``.  In one process only (without xdist)."""

    __test__ = False  # not a test class

    def __init__(self, path: Path) -> None:
        self.path = path
        self.times: dict[str, dict[str, float]] = {}
        self.current = ""
        self.sharing = 0  # shared fixtures being set up (the outermost is timed)

    def _entry(self, nodeid: str) -> dict[str, float]:
        return self.times.setdefault(nodeid, {"seconds": 0.0, "module": 0.0, "session": 0.0})

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        self.current = item.nodeid
        yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef: pytest.FixtureDef[Any]) -> Generator[None, None, None]:
        if fixturedef.scope == "function":
            yield
            return
        outermost = self.sharing == 0
        self.sharing += 1
        start = time.perf_counter()
        try:
            yield
        finally:
            self.sharing -= 1
            if outermost and self.current:
                kind = "session" if fixturedef.scope == "session" else "module"
                self._entry(self.current)[kind] += time.perf_counter() - start

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._entry(report.nodeid)["seconds"] += report.duration

    def pytest_sessionfinish(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(self.times, indent=0, sort_keys=True) + "\n", encoding="utf-8")
