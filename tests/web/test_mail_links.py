"""Board and tournament mails link to their pages when ``[web] base_url`` is
set, within 78 columns whatever the lengths; without it, no link."""

from __future__ import annotations

import re

import pytest

from pbm.app.pipeline import Pipeline
from pbm.config import load_config
from pbm.domain.store import Store
from tests.app.conftest import Clock, Mailbox, is_error, text_of

from .conftest import write_config

#: The longest base_url the config takes (43 characters).
BASE = "https://trax-by-mail.correspondence-club.eu"
#: The longest tournament name (20 characters) and long userids.
EVENT = "WorldChampionship_26"
ALICE = "alexandria_montgomery_whitfield3"
BOB = "bartholomew.fitzgerald-kensingt"


@pytest.fixture
def linked(tmp_path):
    config = load_config(write_config(tmp_path, f'[web]\nbase_url = "{BASE}/"\n'))
    assert config.web.base_url == BASE and len(BASE) == 43
    store = Store(config.server.database)
    yield Mailbox(Pipeline(store, config), Clock())
    store.close()


def send(mail, who, command):
    replies = mail.send(f"{who[:10]}@example.org", command)
    assert replies and not is_error(replies[0]), text_of(replies[0])
    return replies


def widths_ok(replies) -> list[str]:
    texts = [text_of(m) for m in replies]
    for text in texts:
        for line in text.splitlines():
            assert len(line) <= 78, line
    return texts


def test_board_and_tournament_mails_link_to_their_pages_within_78_columns(linked):
    send(linked, ALICE, f"signup {ALICE} pw-alice")
    send(linked, BOB, f"signup {BOB} pw-bob")
    new = widths_ok(send(linked, ALICE, f"trax challenge {ALICE} {BOB} pw-alice"))
    assert all(f"On the web: {BASE}/boards/101\n" in text for text in new)
    moved = widths_ok(send(linked, ALICE, f"trax move 101 {ALICE} pw-alice @0+"))
    assert len(moved) == 2 and all(f"On the web: {BASE}/boards/101" in text for text in moved)
    shown = widths_ok(send(linked, BOB, "trax show 101"))
    assert f"{BASE}/boards/101" in shown[0]
    created = widths_ok(send(linked, ALICE, f"trax tournament create {EVENT} {ALICE} pw-alice"))
    link = f"  {BASE}/tournaments/{EVENT}"
    assert len(link) == 78
    assert f"On the web:\n{link}\n" in created[0]
    send(linked, ALICE, f"trax tournament join {EVENT} {ALICE} pw-alice")
    send(linked, BOB, f"trax tournament join {EVENT} {BOB} pw-bob")
    mails = send(linked, ALICE, f"trax tournament start {EVENT} {ALICE} pw-alice")
    started = widths_ok(mails)
    rounds = [text for m, text in zip(mails, started) if "tournament" in str(m["Subject"])]
    boards = [text for m, text in zip(mails, started) if "Board" in str(m["Subject"])]
    assert rounds and boards and len(rounds) + len(boards) == len(mails)
    assert all(link in text for text in rounds)
    assert all(re.search(f"On the web: {re.escape(BASE)}/boards/10[23]\n", text) for text in boards)
    # each link is the address of a page the web view serves
    for text in [*new, *started]:
        for url in re.findall(r"https://\S+", text):
            assert re.fullmatch(re.escape(BASE) + r"/(boards/\d+|tournaments/\w+)", url), url


def test_without_a_base_url_mails_carry_no_link(tmp_path):
    config = load_config(write_config(tmp_path))
    assert config.web.base_url is None
    store = Store(config.server.database)
    mail = Mailbox(Pipeline(store, config), Clock())
    try:
        send(mail, "alice", "signup alice pw-alice")
        send(mail, "bob", "signup bob pw-bob")
        for text in [text_of(m) for m in send(mail, "alice", "trax challenge alice bob pw-alice")]:
            assert "On the web" not in text and "http" not in text
        text = text_of(send(mail, "alice", "trax tournament create Cup alice pw-alice")[0])
        assert "On the web" not in text and "http" not in text
    finally:
        store.close()


def test_the_html_part_links_the_board_page_with_a_base_url(linked, tmp_path):
    send(linked, ALICE, f"signup {ALICE} pw-alice")
    send(linked, BOB, f"signup {BOB} pw-bob")
    for msg in send(linked, ALICE, f"trax challenge {ALICE} {BOB} pw-alice"):
        html = msg.get_body(("html",)).get_content()
        assert f'href="{BASE}/boards/101"' in html and ">Board 101 on the web</a>" in html
        assert not re.search(r'(?i)src="https?:', html)  # a link to follow, never a remote image
    plain = tmp_path / "plain"
    plain.mkdir()
    config = load_config(write_config(plain))  # no base_url: no link
    store = Store(config.server.database)
    try:
        mail = Mailbox(Pipeline(store, config), Clock())
        send(mail, "alice", "signup alice pw-alice")
        send(mail, "bob", "signup bob pw-bob")
        for msg in send(mail, "alice", "trax challenge alice bob pw-alice"):
            assert "href=" not in msg.get_body(("html",)).get_content()
    finally:
        store.close()
