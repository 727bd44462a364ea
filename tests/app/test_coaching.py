"""The computer's help by mail (issue 32): ``hint`` in games against its
two lower levels, one a turn; ``analyze`` of finished games, queued,
capped, and mailed to whoever asked, in his language.  Through the real
pipeline, with the real search (small budgets)."""

from __future__ import annotations

from email import policy
from email.parser import BytesParser

import pytest

from pbm.ai.review import Review, review
from pbm.app.pipeline import Pipeline
from pbm.config import load_config
from pbm.domain import coaching, computer
from pbm.domain.store import Store
from pbm.server.searcher import search
from pbm.trax import Board

from .conftest import Mailbox, is_error, server_config, text_of, to_of

A = "alice@example.org"
B = "bob@example.org"
STRANGER = "someone@elsewhere.example"
#: A recorded game: white closes a loop on move 17 (black is lost after move 13).
LOOP_GAME = ["@0/", "A2+", "A3/", "@2/", "@2/", "A1/", "D2+", "B0+", "@3+", "D0/", "E1/", "F1/", "D0\\",
             "C1\\", "B1+", "E0+", "@5/"]


@pytest.fixture
def vs(players):
    mail: Mailbox = players
    assert computer.ensure_account(mail.pipeline.store, mail.pipeline.config, mail.clock.now) is not None
    return mail


def words(msg) -> str:
    return " ".join(text_of(msg).split())


def run_jobs(mail: Mailbox) -> None:
    ctx = mail.pipeline.context(mail.clock.now)
    for row in mail.pipeline.store.open_computer_jobs(10):
        job = computer.job_for(ctx, row)
        assert job is not None
        mail.pipeline.computer_turn(row.id, search(job, 0.1), now=mail.clock.now)


class Counting:
    """A CPU clock that moves half a millisecond each time it is read (a
    search reads it at every node): the same reviews on every machine, busy
    or not."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 5e-4
        return self.now


def analysed(job: coaching.AnalysisJob, seconds: float) -> Review:
    """What the workers' ``analyse`` answers, on the counting clock."""
    return review(job.game, job.moves, budget=seconds, ending=job.ending, points=job.points, faces=job.faces,
                  clock=Counting())


def run_analyses(mail: Mailbox, seconds: float = 1.0) -> list:
    store = mail.pipeline.store
    ctx = mail.pipeline.context(mail.clock.now)
    out = []
    for row in store.open_analyses(10):
        result = mail.pipeline.analysis_done(row.id, analysed(coaching.analysis_job(ctx, row), seconds),
                                             now=mail.clock.now)
        out += [BytesParser(policy=policy.default).parsebytes(bytes(m)) for m in result.replies]
    return out


def board(mail: Mailbox, number: int = 101) -> Board:
    row = mail.pipeline.store.board(number)
    return Board.replay(row.moves.split(), row.game)


def finished_game(mail: Mailbox) -> int:
    mail.send(A, "trax challenge alice bob apple")
    for n, move in enumerate(LOOP_GAME, start=1):
        who, pw = ("alice", "apple") if n % 2 else ("bob", "banana")
        replies = mail.send(f"{who}@example.org", f"trax move 101 {who} {pw} {move}")
        assert not is_error(replies[0]), text_of(replies[0])
    assert mail.pipeline.store.board(101).status == "finished"
    return 101


# -- hints ---------------------------------------------------------------------


def test_a_hint_names_a_legal_move_and_why_and_plays_nothing(vs):
    vs.send(A, "trax challenge computer alice apple -level=2")
    run_jobs(vs)
    before = board(vs)
    (reply,) = vs.send(A, "trax hint 101 alice apple")
    assert not is_error(reply), text_of(reply)
    assert to_of(reply) == A and "Trax Board 101 hint" in str(reply["Subject"])
    text = words(reply)
    hinted = text.split("play ", 1)[1].split(".", 1)[0]
    assert hinted in {str(m) for m in before.legal_moves()}
    assert "alice, a hint for move 2 on board 101" in text
    assert "nothing has been played" in text
    assert "apple" not in text  # the password is never echoed
    assert board(vs).moves == before.moves  # a hint plays nothing
    (again,) = vs.send(A, "trax hint 101 alice apple")
    assert f"play {hinted}." in words(again) and "You asked before in this turn" in words(again)


def test_a_new_turn_has_a_new_hint(vs):
    vs.send(A, "trax challenge alice computer apple -level=1")
    (first,) = vs.send(A, "trax hint 101 alice apple")
    assert "a hint for move 1 on board 101" in words(first)
    assert vs.pipeline.store.hint(101, 0) is not None
    vs.send(A, "trax move 101 alice apple @0+")
    run_jobs(vs)
    (second,) = vs.send(A, "trax hint 101 alice apple")
    assert "a hint for move 3 on board 101" in words(second)
    assert "You asked before" not in words(second)


@pytest.mark.parametrize("level", [3, 4])
def test_no_hint_against_the_searching_levels(vs, level):
    vs.send(A, f"trax challenge alice computer apple -level={level}")
    (reply,) = vs.send(A, "trax hint 101 alice apple")
    assert is_error(reply)
    assert "a hint is given only on your own board against computer at level 1 or 2" in words(reply)
    assert vs.pipeline.store.hint(101, 0) is None


def test_no_hint_between_people_nor_out_of_turn_nor_for_someone_else(vs):
    vs.send(A, "trax challenge alice bob apple")
    (people,) = vs.send(A, "trax hint 101 alice apple")
    assert is_error(people) and "board 101 is not one" in words(people)
    vs.send(A, "trax challenge computer alice apple -level=2")  # 102: the computer moves first
    (early,) = vs.send(A, "trax hint 102 alice apple")
    assert is_error(early) and "it is not your turn on board 102" in words(early)
    (other,) = vs.send(B, "trax hint 102 bob banana")  # not his board
    assert is_error(other)
    (wrong,) = vs.send(A, "trax hint 102 alice pear")
    assert is_error(wrong) and "wrong userid or password" in words(wrong)


# -- analyses ------------------------------------------------------------------


def test_a_finished_game_is_analysed_and_mailed_to_whoever_asked(players):
    number = finished_game(players)
    (queued,) = players.send(STRANGER, f"trax analyze {number}")
    assert not is_error(queued), text_of(queued)
    assert to_of(queued) == STRANGER
    assert "Board 101 waits for the computer's analysis" in words(queued)
    (again,) = players.send(STRANGER, f"trax analyse {number}")
    assert "already waiting" in words(again)
    assert len(players.pipeline.store.open_analyses(10)) == 1  # asked twice, queued once
    (mail,) = run_analyses(players, 2.0)
    assert to_of(mail) == STRANGER and "Trax Board 101 analysis" in str(mail["Subject"])
    text = words(mail)
    assert "alice (white) against bob (black), 17 moves" in text
    assert "wins by force" in text  # black was lost well before the loop closed
    assert players.pipeline.store.open_analyses(10) == []
    row = players.pipeline.store.analysis(1)
    assert row is not None and row.outcome.startswith("mailed")
    assert run_analyses(players) == []  # done once


def test_the_analysis_mail_names_only_moves_that_fit_the_positions_it_shows(players):
    finished_game(players)
    players.send(B, "trax analyze 101")
    ctx = players.pipeline.context(players.clock.now)
    (row,) = players.pipeline.store.open_analyses(10)
    found = analysed(coaching.analysis_job(ctx, row), 2.0)
    assert found.points, "the loop game has a decisive move the search proves"
    game = Board.replay(LOOP_GAME)
    for point in found.points:
        before = game.after(point.number - 1)
        assert str(before.parse_move(point.played)) == point.played
        start = before.copy()
        if point.kind == "missed-win":
            assert point.better is not None and point.line[0] == point.better
        else:
            start.play(point.played)
        for move in point.line:  # the forced line is a sequence of legal moves
            start.play(move)
        if point.kind in ("forced-win", "into-loss") and len(point.line) >= point.plies:
            winner = point.side if point.kind == "forced-win" else ("black" if point.side == "white" else "white")
            outcome = start.outcome()
            assert outcome is not None and outcome.winner == winner


def test_no_analysis_of_a_game_in_play_and_a_daily_cap(tmp_path, clock):
    server_config(tmp_path)  # written, then the cap added
    (tmp_path / "pbm.toml").write_text((tmp_path / "pbm.toml").read_text()
                                       + "[computer]\nanalyses_per_sender_per_day = 1\n")
    config = load_config(tmp_path / "pbm.toml")
    store = Store(config.server.database)
    try:
        mail = Mailbox(Pipeline(store, config), clock)
        mail.send(A, "signup alice apple")
        mail.send(B, "signup bob banana")
        mail.send(A, "trax challenge alice bob apple")
        (playing,) = mail.send(STRANGER, "trax analyze 101")
        assert is_error(playing)
        assert "board 101 is still being played; a game is analysed only once it is over" in words(playing)
        mail.send(A, "trax challenge alice bob apple")  # 102
        mail.send(A, "trax move 101 alice apple @0+")
        mail.send(B, "trax resign 101 bob banana")
        (first,) = mail.send(STRANGER, "trax analyze 101")
        assert not is_error(first), text_of(first)
        mail.send(A, "trax move 102 alice apple @0/")
        mail.send(B, "trax resign 102 bob banana")
        (second,) = mail.send(STRANGER, "trax analyze 102")
        assert is_error(second)
        assert "your address has asked for 1 analysis today, the most a day" in words(second)
        clock.advance(days=1)
        (tomorrow,) = mail.send(STRANGER, "trax analyze 102")
        assert not is_error(tomorrow), text_of(tomorrow)
    finally:
        store.close()


def test_an_analysis_comes_in_the_language_the_newcomer_asked_in(players):
    finished_game(players)
    (queued,) = players.send(STRANGER, "trax analyze 101", Content_Language="de")
    assert "wartet auf die Analyse des Computers" in words(queued)
    (mail,) = run_analyses(players, 1.0)
    assert "Die Analyse des Computers von Brett 101" in words(mail)
    players.send(A, "set alice apple language ja")
    players.send(A, "trax analyze 101")
    (japanese,) = run_analyses(players, 1.0)
    assert "盤 101 のコンピューターによる解析です" in text_of(japanese)



def test_each_turning_point_has_its_picture_in_the_html_part(players):
    finished_game(players)
    players.send(B, "trax analyze 101")
    (mail,) = run_analyses(players, 2.0)
    pngs = [part for part in mail.walk() if part.get_content_type() == "image/png"]
    html = next(part for part in mail.walk() if part.get_content_type() == "text/html").get_content()
    shown = words(mail).count("The position ")
    assert shown >= 1 and len(pngs) == shown  # one picture a turning point
    for part in pngs:
        assert f"cid:{part['Content-ID'].strip('<>')}" in html
