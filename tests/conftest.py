"""Shared test helpers: golden files; and the options of make check
(``--quick``, ``--leave-out-slowest``) and make slowest (``--time-tests``),
which ``tests/quick.py`` explains.

A golden file holds the exact text some code is expected to produce (a
diagram, a mail).  Tests compare with the ``golden`` fixture::

    def test_something(golden):
        golden.check("something.txt", make_text())

The files live in a ``golden/`` directory next to the test module.  Run
``pytest --update-golden`` to (re)write them from the current output, then
read the changes (``git diff``) before committing them.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from . import quick

quick.register_profiles()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite golden files with the current output instead of comparing with them",
    )
    # make check's options (tests/quick.py says what they do)
    parser.addoption(
        "--quick",
        action="store_true",
        default=False,
        help="fewer hypothesis examples, cheap password hashes, templates compiled once (make check)",
    )
    parser.addoption(
        "--leave-out-slowest",
        action="store_true",
        default=False,
        help="leave out the tests listed in tests/slowest.txt (make check; the whole suite runs them)",
    )
    parser.addoption(
        "--time-tests",
        metavar="FILE",
        type=Path,
        default=None,
        help="write each test's seconds to FILE as JSON, for .ci/slowest.py (make slowest)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--quick"):
        quick.make_quick()
    if config.getoption("--time-tests"):
        config.pluginmanager.register(quick.TestTimer(config.getoption("--time-tests")), "pbm-test-timer")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--leave-out-slowest"):
        quick.leave_out_slowest(config, items)
    if config.getoption("--quick"):
        quick.hold_examples(items)


class Golden:
    """Compares text with the golden files in one directory (or rewrites them)."""

    def __init__(self, directory: Path, update: bool) -> None:
        self.directory = directory
        self.update = update

    def path(self, name: str) -> Path:
        return self.directory / name

    @staticmethod
    def normalise(text: str) -> str:
        """Golden files end with exactly one newline; the text compared is
        the text given with one newline added when it has none."""
        return text if text.endswith("\n") else text + "\n"

    def read(self, name: str) -> str:
        with open(self.path(name), encoding="utf-8", newline="") as f:
            return f.read()

    def check(self, name: str, text: str) -> None:
        """Fail unless ``text`` is exactly the golden file ``name``; with
        ``--update-golden``, write it there instead."""
        text = self.normalise(text)
        path = self.path(name)
        if self.update:
            if not path.exists() or self.read(name) != text:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8", newline="\n")
            return
        if not path.exists():
            pytest.fail(f"golden file {path} is missing; run pytest --update-golden to create it",
                        pytrace=False)
        expected = self.read(name)
        if expected != text:
            diff = "".join(difflib.unified_diff(
                expected.splitlines(keepends=True), text.splitlines(keepends=True),
                fromfile=f"{name} (golden)", tofile=f"{name} (now)",
            ))
            pytest.fail(
                f"output differs from golden file {path}; if the change is intended, "
                f"run pytest --update-golden and review the diff\n{diff}",
                pytrace=False,
            )


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Golden:
    """Golden files in ``golden/`` next to the requesting test module."""
    directory = Path(request.path).parent / "golden"
    return Golden(directory, request.config.getoption("--update-golden"))
