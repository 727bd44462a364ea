"""The server as a user installs it: a real wheel, installed (not editable)
into a fresh virtual environment, answering from a folder far from the
source checkout.  The wheel must carry every module of the package and every
template, and the installed ``pbm`` must find its templates by itself."""

from __future__ import annotations

import mailbox
import os
import shutil
import subprocess
import sys
import zipfile
from email import message_from_bytes, policy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    built = subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)],
                           capture_output=True, timeout=600)
    assert built.returncode == 0, built.stderr.decode()[-3000:]
    (path,) = out.glob("pbm-*.whl")
    return path


def test_the_wheel_holds_every_module_and_every_template(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "pbm").rglob("*.py") if "templates" not in p.parts}
    templates = {"pbm/" + p.relative_to(ROOT).as_posix() for p in (ROOT / "templates").rglob("*.txt")}
    assert len(modules) > 50 and len(templates) > 100
    assert modules - names == set()
    assert templates - names == set()
    assert not [n for n in names if n.startswith(("tests/", "bench/", "templates/"))]
    assert "pbm/ai/book.txt" in names  # the opening book, read as package data
    # the search core compiled (the test command installs gcc; pip fetches Cython for the build)
    assert [n for n in names if n.startswith("pbm/ai/core.") and n.endswith(".so")], sorted(names)
    assert "pbm/ai/core.c" not in names
    # each translation catalog, and compiled by the build
    for language in ("de", "ja"):
        assert {f"pbm/locale/{language}/LC_MESSAGES/pbm.po", f"pbm/locale/{language}/LC_MESSAGES/pbm.mo"} <= names


@pytest.mark.slow
def test_an_installed_wheel_answers_help_and_plays_a_move(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    installed = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)],
                               capture_output=True, timeout=600)
    assert installed.returncode == 0, installed.stderr.decode()[-3000:]
    site = tmp_path / "club"  # far from the checkout: nothing of it is on the path
    site.mkdir()
    (site / "pbm.toml").write_text('[server]\naddress = "pbm@club.test"\ndatabase = "club.sqlite3"\n')
    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import pbm; print(pbm.__file__)"],
                           cwd=site, capture_output=True, text=True, check=True)
    assert where.stdout.startswith(str(venv)), where.stdout
    compiled = subprocess.run([str(venv / "bin" / "python"), "-c", "import pbm.ai.core as c; print(c.compiled)"],
                              cwd=site, capture_output=True, text=True, check=True)
    assert compiled.stdout.strip() == "True"

    def execute(sender: str, command: str) -> list:
        done = subprocess.run([str(venv / "bin" / "pbm"), "exec", "--config", "pbm.toml", "--from", sender, command],
                              cwd=site, capture_output=True, timeout=120, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stderr.decode()
        box = site / "out.mbox"
        box.write_bytes(done.stdout)
        mbox = mailbox.mbox(box)
        try:
            return [message_from_bytes(m.as_bytes(), policy=policy.default) for m in mbox]
        finally:
            mbox.close()

    (help_reply,) = execute("you@example.org", "help")
    assert help_reply["Subject"] == "Trax PBM help"
    assert "signup alice s3cret" in help_reply.get_body(("plain",)).get_content()
    execute("alice@example.org", "signup alice apple")
    execute("bob@example.org", "signup bob banana")
    execute("alice@example.org", "trax challenge alice bob apple")
    replies = execute("alice@example.org", "trax move 101 alice apple @0+")
    assert [(str(m["To"]), str(m["Subject"])) for m in replies] == [
        ("alice@example.org", "Trax Board 101 bob"), ("bob@example.org", "Trax Board 101 bob")]
    assert "alice played @0+ (move 1)." in replies[0].get_body(("plain",)).get_content()


@pytest.mark.slow
def test_without_a_c_compiler_the_build_installs_the_core_as_plain_python(tmp_path):
    # a machine with no compiler: the build warns and ships core.py alone, which runs
    source = tmp_path / "source"  # a copy without earlier builds, which the build would reuse
    shutil.copytree(ROOT, source, symlinks=True, ignore=shutil.ignore_patterns(
        ".venv", ".git", "build", "*.so", "core.c", "__pycache__", ".pytest_cache", ".hypothesis", "*.egg-info"))
    out = tmp_path / "wheel"
    built = subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(source)],
                           capture_output=True, timeout=600, env={**os.environ, "CC": "false", "LDSHARED": "false"})
    assert built.returncode == 0, built.stderr.decode()[-3000:]
    assert b"stays plain Python" in built.stdout + built.stderr
    (path,) = out.glob("pbm-*.whl")
    names = set(zipfile.ZipFile(path).namelist())
    assert "pbm/ai/core.py" in names
    assert not [n for n in names if n.endswith(".so")]
