"""Fixtures for the web view: a club's database made by handling mail
through the real pipeline (accounts, boards in play and finished, a
tournament, a vacation), and a client for the web view's aiohttp
application.

The club is made once per test session (signups hash passwords slowly);
each test gets its own copy of the file, so a test may go on playing.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gzip
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from multidict import CIMultiDictProxy

from pbm.app.pipeline import Pipeline
from pbm.config import Config, load_config
from pbm.domain.store import Store
from pbm.server.web import WebView
from tests.app.conftest import AUTHSERV, Clock, Mailbox, is_error, text_of

#: Players of the club, and their passwords.
PLAYERS = {"alice": "apple-pie", "bob": "banana-split", "carol": "cherry-tart", "dave": "date-cake"}
#: A won Trax game from the recorded games: white (alice) closes a loop on move 11.
LOOP_GAME = ["@0+", "@1+", "B0/", "C1/", "B0/", "B0/", "B0+", "D4+", "C1\\", "D6\\", "A2+"]
#: The opening of board 101, still in play (bob to move).
OPENING = LOOP_GAME[:7]


def write_config(folder: Path, extra: str = "") -> Path:
    path = folder / "pbm.toml"
    path.write_text('[server]\naddress = "pbm@pbm.test"\nname = "Trax PBM"\ndatabase = "pbm.sqlite3"\n'
                    f'[security]\ntrusted_authserv_id = "{AUTHSERV}"\n' + extra)
    return path


def address(userid: str) -> str:
    return f"{userid}@example.org"


def send(mail: Mailbox, who: str, command: str, body: str = "") -> list[Any]:
    replies = mail.send(address(who), command, body)
    assert replies and not is_error(replies[0]), text_of(replies[0]) if replies else command
    return replies


def play(mail: Mailbox, number: int, white: str, black: str, moves: list[str], first: int = 1) -> None:
    for n, move in enumerate(moves, start=first):
        who = white if n % 2 else black
        send(mail, who, f"trax move {number} {who} {PLAYERS[who]} {move}#{n}", "a comment: private <b>mail</b>")


@dataclass
class Club:
    """The club's database (a copy of the session's) with its config, the
    pipeline on it (to go on playing) and the clock."""

    folder: Path
    config: Config
    mail: Mailbox

    @property
    def clock(self) -> Clock:
        return self.mail.clock

    def send(self, who: str, command: str, body: str = "") -> list[Any]:
        return send(self.mail, who, command, body)


def seed(folder: Path) -> Clock:
    """Board 101 (alice-bob, in play, 7 moves), board 102 (alice-bob, won by
    alice's loop), a round robin "Spring" of four (boards 103-108), bob on
    vacation; returns the clock as the seeding left it."""
    config = load_config(write_config(folder))
    store = Store(config.server.database)
    mail = Mailbox(Pipeline(store, config), Clock())
    for who, password in PLAYERS.items():
        send(mail, who, f"signup {who} {password}")
    send(mail, "alice", f"trax challenge alice bob {PLAYERS['alice']}")
    play(mail, 101, "alice", "bob", OPENING)
    send(mail, "alice", f"trax challenge alice bob {PLAYERS['alice']}")
    play(mail, 102, "alice", "bob", LOOP_GAME)
    send(mail, "carol", f"trax tournament create Spring carol {PLAYERS['carol']}")
    for who, password in PLAYERS.items():
        send(mail, who, f"trax tournament join Spring {who} {password}")
    send(mail, "carol", f"trax tournament start Spring carol {PLAYERS['carol']}")
    send(mail, "bob", f"vacation bob {PLAYERS['bob']} 3")
    store.close()
    return mail.clock


@pytest.fixture(scope="session")
def club_template(tmp_path_factory) -> tuple[Path, Clock]:
    folder = tmp_path_factory.mktemp("club")
    return folder, seed(folder)


@pytest.fixture
def club(club_template, tmp_path) -> Iterator[Club]:
    folder, clock = club_template
    shutil.copy(folder / "pbm.sqlite3", tmp_path / "pbm.sqlite3")
    config = load_config(write_config(tmp_path))
    store = Store(config.server.database)
    copy = Clock()
    copy.now = clock.now
    yield Club(tmp_path, config, Mailbox(Pipeline(store, config), copy))
    store.close()


@dataclass
class Page:
    status: int
    headers: CIMultiDictProxy[str]
    body: bytes

    @property
    def text(self) -> str:
        """The body as text (unpacked, when it came compressed)."""
        body = gzip.decompress(self.body) if self.headers.get("Content-Encoding") == "gzip" else self.body
        return body.decode("utf-8")


class Web:
    """The web view's application behind aiohttp's test server, asked from
    plain (synchronous) tests."""

    def __init__(self, config: Config, clock: Clock, **options: Any) -> None:
        self.loop = asyncio.new_event_loop()
        self.view = WebView(config, clock=lambda: clock.now, **{"stale_seconds": 0.0, **options})

        async def start() -> TestClient:
            client = TestClient(TestServer(self.view.app))
            await client.start_server()
            return client

        self.client = self.loop.run_until_complete(start())

    def request(self, method: str, path: str, **kwargs: Any) -> Page:
        async def fetch() -> Page:
            async with self.client.request(method, path, allow_redirects=False, auto_decompress=False,
                                           **kwargs) as response:
                return Page(response.status, response.headers, await response.read())
        return self.loop.run_until_complete(fetch())

    def get(self, path: str, **kwargs: Any) -> Page:
        return self.request("GET", path, **kwargs)

    def close(self) -> None:
        self.loop.run_until_complete(self.client.close())
        self.loop.run_until_complete(self.view.stop())
        self.loop.close()


@pytest.fixture
def web(club) -> Iterator[Web]:
    client = Web(club.config, club.clock)
    yield client
    client.close()


def with_web(config: Config, **web: Any) -> Config:
    return dataclasses.replace(config, web=dataclasses.replace(config.web, **web))
