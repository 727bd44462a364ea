"""The container image's recipe (``Dockerfile``, ``.dockerignore``), read
instruction by instruction: there is no Docker daemon on the test machine
to build it."""

from __future__ import annotations

import fnmatch
import json
import shlex
import tomllib
from pathlib import Path

import pytest

from pbm.config import load_config

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order, continuation lines joined,
    comments left out."""
    out: list[tuple[str, str]] = []
    pending = ""
    for line in text.splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        whole = (pending + line).strip()
        pending = ""
        word, _, rest = whole.partition(" ")
        out.append((word.upper(), rest.strip()))
    assert not pending, "a continuation line at the end"
    return out


def final_stage(steps: list[tuple[str, str]]) -> list[tuple[str, str]]:
    starts = [i for i, (word, _) in enumerate(steps) if word == "FROM"]
    return steps[starts[-1]:]


def exec_form(arguments: str) -> list[str]:
    value = json.loads(arguments)
    assert isinstance(value, list) and all(isinstance(v, str) for v in value), arguments
    return value


STEPS = instructions((ROOT / "Dockerfile").read_text(encoding="utf-8"))
IMAGE = final_stage(STEPS)


def last(word: str) -> str:
    found = [rest for w, rest in IMAGE if w == word]
    assert found, f"no {word} in the image's stage"
    return found[-1]


def test_the_image_is_python_3_11_slim_and_runs_pbm_serve():
    assert [rest.split()[0] for w, rest in STEPS if w == "FROM"] == ["python:3.11-slim", "python:3.11-slim"]
    assert exec_form(last("CMD")) == ["pbm", "serve", "--config", "/etc/pbm/pbm.toml"]
    assert "ENTRYPOINT" not in {w for w, _ in IMAGE}


def test_it_runs_as_a_user_of_its_own_made_in_the_image():
    user = last("USER")
    assert user not in ("root", "0", "0:0") and not user.startswith(("root:", "0:"))
    runs = " ".join(rest for w, rest in IMAGE if w == "RUN")
    assert f"useradd --system --uid 10001 --gid {user}" in runs
    assert f"chown {user}:{user} /var/lib/pbm" in runs
    # USER comes after everything that needs root
    assert max(i for i, (w, _) in enumerate(IMAGE) if w == "RUN") < [w for w, _ in IMAGE].index("USER")


def test_the_state_is_in_a_volume_and_the_ports_are_exposed():
    assert exec_form(last("VOLUME")) == ["/var/lib/pbm"]
    assert sorted(int(p) for p in last("EXPOSE").split()) == [2525, 8080, 9180]
    assert last("WORKDIR") == "/var/lib/pbm"


def test_the_health_check_asks_pbm_status():
    words = last("HEALTHCHECK").split(" CMD ", 1)
    options = dict(o.lstrip("-").split("=") for o in shlex.split(words[0]))
    assert set(options) == {"interval", "timeout", "start-period", "retries"}
    assert exec_form(words[1]) == ["pbm", "status", "--quiet", "--config", "/etc/pbm/pbm.toml"]


def test_the_configuration_it_starts_with_keeps_everything_in_the_volume_and_listens_where_exposed():
    copied = [rest.split() for w, rest in IMAGE if w == "COPY" and "/etc/pbm/pbm.toml" in rest]
    assert copied == [["contrib/pbm-docker.toml", "/etc/pbm/pbm.toml"]]
    config = load_config(ROOT / "contrib" / "pbm-docker.toml", environ={})
    assert config.server.database == Path("/var/lib/pbm/pbm.sqlite3")
    assert config.outbox.maildir.parent == Path("/var/lib/pbm")
    assert (config.listen.enabled, config.listen.host, config.listen.port) == (True, "0.0.0.0", 2525)
    assert (config.web.enabled, config.web.host, config.web.port) == (True, "0.0.0.0", 8080)
    # /metrics and /healthz on a port of their own, not the web view's
    assert (config.metrics.enabled, config.metrics.host, config.metrics.port) == (True, "0.0.0.0", 9180)


def ignored(path: str, patterns: list[str]) -> bool:
    """Docker's rule, near enough: a pattern matches the path or one of its parents."""
    parts = path.split("/")
    prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    return any(fnmatch.fnmatch(p, pattern.removeprefix("**/")) or fnmatch.fnmatch(p, pattern)
               for pattern in patterns for p in prefixes)


def test_the_build_context_has_what_the_wheel_is_made_of_and_no_state_or_secrets():
    patterns = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    needed = ["pyproject.toml", project["readme"], "pbm/__init__.py", "pbm/server/cli.py", "pbm/templates",
              "templates/replies/standings.txt", "templates/web/site.css",
              "contrib/pbm-docker.toml"]
    assert [p for p in needed if ignored(p, patterns)] == []
    for unwanted in (".git/config", ".venv/bin/python", "pbm.sqlite3", "pbm.sqlite3-wal", "pbm.sqlite3.lock",
                     "outbox-maildir/new/1", "pbm.toml", "tests/ops/test_container.py", "build/lib/pbm/x.py",
                     "pbm/__pycache__/cli.cpython-311.pyc"):
        assert ignored(unwanted, patterns), unwanted
