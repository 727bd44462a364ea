"""A board mail in each player's language, through the pipeline: the
status, the next step, what happened and the card's facts in German or
Japanese; the commands, the command line to copy and the text diagram as
they are; every line within 78 columns as a terminal shows them."""

from __future__ import annotations

import re
import unicodedata

from .conftest import text_of

A, B = "alice@example.org", "bob@example.org"


def columns(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def html_of(msg) -> str:
    return msg.get_body(("html",)).get_content()


def test_each_player_reads_the_board_mail_in_his_language(players):
    players.send(A, "set alice apple language de")
    players.send(B, "set bob banana language ja")
    players.send(A, "trax challenge alice bob apple")
    alice, bob = players.send(A, "trax move 101 alice apple @0/", "Viel Glück!")
    assert str(alice["To"]) == A and str(bob["To"]) == B
    german, japanese = text_of(alice), text_of(bob)
    assert "alice hat @0/ gespielt (Zug 1)." in german
    assert "bob ist am Zug (Schwarz)." in " ".join(german.split())
    assert "次は bob の手番です。" in japanese and "bob の手番です（黒）。" in japanese
    assert "alice が @0/ を指しました（第 1 手）。" in japanese
    for text in (german, japanese):
        assert "  trax move 101 bob PASSWORD <move>#2" in text  # the command line stays as it is
        assert all(columns(line) <= 78 for line in text.splitlines())
    assert "o = Weiß, # = Schwarz" in german and "o = 白, # = 黒" in japanese  # the diagram's legend
    assert "Weiß (o)" in html_of(alice) and "白 (o)" in html_of(bob)
    assert 'lang="de"' in html_of(alice) and 'lang="ja"' in html_of(bob)
    assert alice["Subject"] == bob["Subject"] == "Trax Board 101 bob **"  # the old server's subjects
    # the card's dates as the text part writes them (the day the game started too)
    for msg, started in ((alice, "Begonnen"), (bob, "開始")):
        row = re.search(f"{started}</td>.*?>([^<]*)</td>", html_of(msg), re.S)
        assert row is not None
        value = row.group(1).strip()
        assert value in " ".join(text_of(msg).split()) and not re.match(r"\d{4}-\d\d-\d\d", value), value


def test_english_is_the_default_and_unchanged(players):
    players.send(A, "trax challenge alice bob apple")
    alice, bob = players.send(A, "trax move 101 alice apple @0/")
    assert "It is bob's turn (black)." in text_of(alice) and "It is bob's turn (black)." in text_of(bob)
    assert 'lang="en"' in html_of(bob)


def test_the_welcome_and_an_error_come_in_the_language_of_the_signup(mail):
    (welcome,) = mail.send("dora@example.org", "signup dora date language=de")
    (error,) = mail.send("dora@example.org", "trax move")
    willkommen = text_of(welcome)
    assert welcome["Subject"] == "Welcome to Trax PBM, dora"  # subjects stay as the old server wrote them
    assert "dora" in willkommen and "Passwort" in willkommen
    assert error["Subject"] == "Trax error" and "Dein Befehl:" in text_of(error)
    (welcome,) = mail.send("kenji@example.jp", "signup kenji sakura language=ja")
    assert "パスワード" in text_of(welcome)
    for msg in (welcome, error):
        assert all(columns(line) <= 78 for line in text_of(msg).splitlines())


def test_mail_in_other_scripts_goes_as_every_client_reads_it(mail):
    """UTF-8 text parts in a transfer encoding every client reads (base64
    for Japanese, a third the size of quoted-printable; quoted-printable
    where most of the text is ASCII), every line on the wire within 78
    octets, and a subject that holds a userid with an accent as an RFC 2047
    encoded word: the subject stays the old server's English."""
    mail.send(A, "signup alice apple language=ja")
    mail.send(B, "signup bøb banana language=de")
    mail.send(A, "trax challenge alice bøb apple")
    japanese, german = mail.send(A, "trax move 101 alice apple @0/")
    for msg, encoding in ((japanese, "base64"), (german, "quoted-printable")):
        wire = bytes(msg)
        assert wire.isascii()
        head = wire.split(b"\r\n\r\n", 1)[0] if b"\r\n\r\n" in wire else wire.split(b"\n\n", 1)[0]
        assert b"Subject: =?utf-8?q?Trax_Board_101_b=C3=B8b?=" in head
        assert str(msg["Subject"]) == "Trax Board 101 bøb"
        assert all(len(line) <= 78 for line in wire.splitlines())
        for part in (msg.get_body(("plain",)), msg.get_body(("html",))):
            assert part.get_content_charset() == "utf-8"
        assert msg.get_body(("plain",))["Content-Transfer-Encoding"] == encoding
    assert "の手番です" in text_of(japanese) and "ist am Zug" in " ".join(text_of(german).split())
