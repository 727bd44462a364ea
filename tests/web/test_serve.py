"""``pbm web`` serves the web view alone and stops on SIGTERM; the web
view's files ship in the wheel."""

from __future__ import annotations

import fnmatch
import signal
import subprocess
import sys
import tomllib
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.mail.daemon import wait_until
from tests.mail.servers import free_port

from .conftest import write_config

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def fetch(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except OSError:
        return 0, b""


def test_pbm_web_serves_the_pages_alone_and_stops_on_sigterm(club):
    port = free_port()
    path = write_config(club.folder, f'[listen]\nenabled = false\n[web]\nport = {port}\n')
    server = subprocess.Popen([sys.executable, "-m", "pbm", "web", "--config", str(path)], cwd=club.folder,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: fetch(f"http://127.0.0.1:{port}/")[0] == 200, timeout=30, what="pbm web")
        status, body = fetch(f"http://127.0.0.1:{port}/boards/101")
        assert status == 200 and b"<h1>Trax board 101</h1>" in body
        assert fetch(f"http://127.0.0.1:{port}/boards/999")[0] == 404
        server.send_signal(signal.SIGTERM)
        out, _ = server.communicate(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(30)
    assert server.returncode == 0, out.decode()
    assert b"web view on http://127.0.0.1:" in out and b"Traceback" not in out


def test_every_file_of_the_web_view_is_package_data():
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["*"]
    files = sorted((ROOT / "templates" / "web").iterdir())
    assert {p.suffix for p in files} >= {".html", ".xml", ".ics", ".css", ".svg"}
    assert [p.name for p in files if not any(fnmatch.fnmatch(p.name, pattern) for pattern in patterns)] == []
