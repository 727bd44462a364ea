"""Every game type of the 2017 rules played by mail to its end, through the
real pipeline: MiniTrax (and the limited-tiles ending), LuckyTrax (drawn
tiles, passes), PointTrax (scores, a cleared area), each rated in its own
table, shown, recorded, and played in a tournament."""

from __future__ import annotations

import random
import re

import pytest

import pbm.domain.luck as luck
from pbm.trax import Board

from .conftest import flat, is_error, text_of, to_of
from .replies import client_reply
from .test_tournaments import boards, pw, send

A, B = "alice@example.org", "bob@example.org"
PLAYERS = {"white": ("alice", "apple", A), "black": ("bob", "banana", B)}


@pytest.fixture(autouse=True)
def seeded_draws(monkeypatch):
    """LuckyTrax draws from a seeded source here, so that a test is the same every run."""
    monkeypatch.setattr(luck, "source", random.Random(2026))


def stored(players, number: int = 101) -> dict:
    return players.pipeline.store.board(number)


def position(players, number: int = 101) -> Board:
    row = stored(players, number)
    return Board.replay(row.moves.split(), row.game, ending=row.ending, points=row.points)


def mover(board: Board) -> tuple[str, str, str]:
    return PLAYERS[board.turn]


def play_out(players, game: str, choose, number: int = 101, most: int = 400) -> list:
    """Play board ``number`` by mail until it ends, each move chosen by
    ``choose(board, row)``; the last replies."""
    replies = []
    for _ in range(most):
        row = stored(players, number)
        if row.status != "active":
            return replies
        board = position(players, number)
        userid, password, address = mover(board)
        move = choose(board, row)
        replies = players.send(address, f"{game} move {number} {userid} {password} {move}#{board.ply + 1}")
        assert not is_error(replies[0]), text_of(replies[0])
    raise AssertionError(f"board {number} did not end in {most} moves")


def quiet_first(rng: random.Random):
    """A chooser: a random legal move, one that wins nothing when there is one."""
    def choose(board: Board, row: dict) -> str:
        moves = board.legal_moves()
        rng.shuffle(moves)
        for m in moves:
            board.play(m)
            won = board.outcome() is not None
            board.pop()
            if not won:
                return str(m)
        return str(moves[0])
    return choose


def greedy_scorer(rng: random.Random):
    """A chooser for PointTrax: the move that gains its player most against
    the other (ties broken at random)."""
    def choose(board: Board, row: dict) -> str:
        me = board.turn
        other = "black" if me == "white" else "white"
        best, best_gain = [], None
        for m in board.legal_moves():
            before = board.scores[me] - board.scores[other]
            board.play(m)
            gain = board.scores[me] - board.scores[other] - before
            board.pop()
            if best_gain is None or gain > best_gain:
                best, best_gain = [m], gain
            elif gain == best_gain:
                best.append(m)
        return str(rng.choice(best))
    return choose


# ----------------------------------------------------------------------------
# MiniTrax


def test_a_minitrax_game_that_fills_its_area_says_so(players):
    """The 3x3 area full: the player of the last tile loses, and the end
    mail says the area is full (not that no tile could be played without a
    win, which is the other way the 2017 ending comes)."""
    players.send(A, "minitrax challenge alice bob apple")
    for n, move in enumerate(["@0+", "@1+", "@1/", "B2\\", "B3\\"], start=1):
        who, address, password = ("alice", A, "apple") if n % 2 else ("bob", B, "banana")
        replies = players.send(address, f"minitrax move 101 {who} {password} {move}")
    row = stored(players)
    assert (row.status, row.reason, row.winner) == ("finished", "lasttile", "black")
    assert "Game won by bob: the area is full, and alice played its last tile." in flat(replies[0])


def test_a_minitrax_game_to_its_end_with_the_2017_ending(players):
    new = players.send(A, "minitrax challenge alice bob apple")
    assert [m["Subject"] for m in new] == ["New MiniTrax Board 101 alice"] * 2
    assert "Ending: when no tile can be played without a win, the player of the last tile loses" in flat(new[0])
    replies = play_out(players, "minitrax", quiet_first(random.Random(3)))
    row = stored(players)
    board = position(players)
    assert row.status == "finished" and row.reason in ("loop", "lasttile")
    assert board.width <= 3 and board.height <= 3
    final = text_of(replies[0])
    if row.reason == "lasttile":
        loser = "alice" if row.winner == "black" else "bob"
        full = board.tile_count == 9
        assert (f"the area is full, and {loser} played its last tile" if full else
                f"{loser} played the last one") in flat(replies[0])
    assert "Game won by" in final
    (table,) = players.send("x@example.org", "minitrax standings")
    assert table["Subject"] == "MiniTrax Standings" and "alice" in text_of(table)
    (trax_table,) = players.send("x@example.org", "trax standings")
    assert "alice" not in text_of(trax_table)  # a table of its own
    (record,) = players.send("x@example.org", "minitrax record 101")
    assert '[Ending "lastloses"]' in text_of(record)


def test_the_older_ending_may_be_asked_for_and_bad_options_are_refused(players):
    (new, _) = players.send(A, "8x8trax challenge alice bob apple -ending=lastloses")
    assert "the player of the last tile loses" in flat(new)
    assert stored(players).ending == "lastloses"
    players.send(A, "minitrax challenge alice bob apple -ending=draw")
    assert stored(players, 102).ending == "draw"
    (refused,) = players.send(A, "trax challenge alice bob apple -ending=draw")
    assert is_error(refused) and "-ending is for the game types with a limited area" in flat(refused)
    (refused,) = players.send(A, "trax challenge alice bob apple -points=10")
    assert is_error(refused) and "-points is for pointtrax" in flat(refused)


# ----------------------------------------------------------------------------
# LuckyTrax


def lucky_choice(rng: random.Random):
    """A chooser for LuckyTrax: a cell where the drawn tile goes (named by
    the cell alone, or now and then in full)."""
    def choose(board: Board, row: dict) -> str:
        face = int(row.draws.split()[board.ply])
        options = board.placements(face)
        assert options, "a tile that fits nowhere is passed by the server"
        move = rng.choice(options)
        return str(move) if rng.random() < 0.3 else move.cell
    return choose


def test_a_luckytrax_game_to_its_end(players):
    new = players.send(A, "luckytrax challenge alice bob apple")
    text = text_of(new[0])
    assert "The tile drawn for alice:" in text and "It can go at: @0" in text
    assert text.rstrip().endswith("luckytrax move 101 alice PASSWORD <cell>#1")
    replies = play_out(players, "luckytrax", lucky_choice(random.Random(5)))
    row = stored(players)
    assert row.status == "finished" and row.reason in ("loop", "line")
    moves = row.moves.split()
    draws = [int(d) for d in row.draws.split()]
    board = Board("luckytrax")
    for n, move in enumerate(moves):
        if move == "pass":
            assert board.placements(draws[n]) == []
            board.play("pass")
        else:
            played = board.play(move)
            assert played.tile == draws[n] or (n == 0 and board.ply == 1)
    assert board.outcome() is not None
    (record,) = players.send("x@example.org", "luckytrax record 101")
    assert all(f"{n}. {m}" in text_of(record) for n, m in enumerate(moves, start=1))
    assert "Game won by" in text_of(replies[0])


def test_luckytrax_refuses_another_tile_and_passes_a_tile_that_fits_nowhere(players, monkeypatch):
    # the draws, in order: a straight for alice (@0+); for bob the other straight, which fits
    # nowhere beside it (a pass); a curve for alice again
    faces = iter([5, 10, 9, 9, 9])
    monkeypatch.setattr(luck, "draw_face", lambda: next(faces))
    players.send(A, "luckytrax challenge alice bob apple")
    (refused,) = players.send(A, "luckytrax move 101 alice apple @0/")
    assert is_error(refused) and "does not place the tile drawn for you" in flat(refused)
    (refused,) = players.send(A, "luckytrax move 101 alice apple C7")
    assert "the tile drawn for you cannot go at C7" in flat(refused)
    (queued,) = players.send(B, "luckytrax queue 101 bob banana B1+")
    assert "moves cannot be queued in LuckyTrax" in flat(queued)
    replies = players.send(A, "luckytrax move 101 alice apple @0#1")
    assert replies[0]["Subject"] == "LuckyTrax Board 101 alice"
    assert "The tile drawn for bob fitted nowhere: bob passes (move 2)." in flat(replies[0])
    assert "Last turn: bob passed" in text_of(replies[0])
    assert "The tile drawn for alice:" in text_of(replies[0])
    assert stored(players).moves == "@0+ pass"
    assert stored(players).draws == "5 10 9"
    # alice plays the curve by naming its cell; the record names bob's draw
    cell = position(players).placements(9)[0].cell
    players.send(A, f"luckytrax move 101 alice apple {cell}#3")
    (record,) = players.send("x@example.org", "luckytrax record 101")
    assert "2. pass (drawn: + white across)" in text_of(record)


def test_a_wrong_luckytrax_cell_gets_a_cell_as_its_right_form(players):
    new = players.send(A, "luckytrax challenge alice bob apple")
    (refused,) = players.send(A, "luckytrax move 101 alice apple C7")
    assert "the tile drawn for you cannot go at C7" in flat(refused)
    assert "The right form: luckytrax move BOARD USERID PASSWORD CELL[#N]" in flat(refused)
    assert "MOVE[#N]" not in flat(refused)
    # by Reply: the right form of a reply asks for a cell too
    (mine,) = [m for m in new if to_of(m) == A]
    (refused,) = players.deliver(client_reply(mine, A, "C7", when=players.clock.now))
    assert "the tile drawn for you cannot go at C7" in flat(refused)
    assert "The right form: the first line of your reply: your cell (C3)" in flat(refused)
    # other game types keep the move
    players.send(A, "trax challenge alice bob apple")
    (refused,) = players.send(A, "trax move 102 alice apple Z9/")
    assert "The right form: trax move BOARD USERID PASSWORD MOVE[#N]" in flat(refused)


# ----------------------------------------------------------------------------
# PointTrax


def test_a_pointtrax_game_scores_clears_and_ends_at_the_target(players):
    new = players.send(A, "pointtrax challenge alice bob apple -points=12")
    assert "Scores: alice 0, bob 0; 12 points win" in flat(new[0])
    # eight straights in a row: a black line of 8 tiles, scored by bob, and the area cleared
    row_of_straights = ["@0+", "B1+", "C1+", "D1+", "E1+", "F1+", "G1+", "H1+"]
    for n, move in enumerate(row_of_straights, start=1):
        userid, password, address = mover(position(players))
        replies = players.send(address, f"pointtrax move 101 {userid} {password} {move}#{n}")
        assert not is_error(replies[0]), text_of(replies[0])
    text = flat(replies[0])
    assert "bob scores 8 points with a line (black)" in text
    assert "The line clears the area: alice places the first tile of a new one, at @0." in text
    assert "Scores: alice 0, bob 8; 12 points win" in text
    # the area is empty for the next move; the old one can still be shown
    (old,) = players.send("x@example.org", "pointtrax show 101#8")
    assert "H1+" in text_of(old)
    replies = play_out(players, "pointtrax", greedy_scorer(random.Random(11)), most=200)
    row = stored(players)
    assert row.status == "finished" and row.reason == "points"
    board = position(players)
    winner = row.winner
    assert board.scores[winner] >= 12 and board.scores[winner] > board.scores["black" if winner == "white" else "white"]
    assert "Game won by" in text_of(replies[0]) and "the target was 12" in flat(replies[0])


# ----------------------------------------------------------------------------
# the list of game types, help, and a tournament of each new type


def test_list_offers_six_game_types_and_help_explains_the_new_ones(players):
    (listed,) = players.send("x@example.org", "list")
    for game in ("trax", "8x8trax", "looptrax", "minitrax", "luckytrax", "pointtrax"):
        assert re.search(rf"^{game}\s+\d+$", text_of(listed), re.MULTILINE), game
    for game, words in (("minitrax", "3 by 3"), ("luckytrax", "draws it for you"), ("pointtrax", "target")):
        (page,) = players.send("x@example.org", f"help {game}")
        assert words in flat(page)
        assert all(len(line) <= 78 for line in text_of(page).splitlines())


@pytest.mark.parametrize("game", ["minitrax", "luckytrax", "pointtrax"])
def test_a_tournament_of_each_new_game_type(players, game):
    for name in ("cat", "dir"):
        send(players, name, f"signup {name} {pw(name)}")
    for name in ("ann", "ben"):
        send(players, name, f"signup {name} {pw(name)}")
    options = "-points=5" if game == "pointtrax" else ""
    send(players, "dir", f"{game} tournament create CUP dir {pw('dir')} {options}".strip())
    for name in ("ann", "ben", "cat"):
        send(players, name, f"{game} tournament join CUP {name} {pw(name)}")
    started = send(players, "dir", f"{game} tournament start CUP dir {pw('dir')}")
    assert any(f"New {Board(game).variant.title} Board" in str(m["Subject"]) for m in started)
    for b in boards(players, "CUP"):
        result = players.send("dir@example.org",
                              f"{game} tournament result CUP dir {pw('dir')} {b['number']} white")
        assert not is_error(result[0]), text_of(result[0])
    finals = [m for m in players.sent if "CUP: final table" in str(m["Subject"])]
    assert finals and to_of(finals[-1])
    if game == "pointtrax":
        assert stored(players, boards(players, "CUP", active=False)[0]["number"]).points == 5
