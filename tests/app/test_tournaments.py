"""Tournaments by mail: whole events played to the end through the real
pipeline and a real SQLite file, moves taken from the engine's legal moves."""

from __future__ import annotations

import re
from datetime import timedelta
from email import policy
from email.parser import BytesParser

import pytest

from pbm.trax import Board
from tests.ticks import tick_mails

from .conftest import flat, is_error, text_of, to_of

PLAYERS = ["ann", "ben", "cat", "dan", "eve", "fay", "gus", "hal"]


def pw(userid: str) -> str:
    return userid + "-pw"


def send(mail, who: str, command: str, body: str = ""):
    replies = mail.send(f"{who}@example.org", command, body)
    assert not is_error(replies[0]), text_of(replies[0])
    return replies


@pytest.fixture
def club(mail):
    """Eight players and a director (dir), all signed up."""
    for name in [*PLAYERS, "dir"]:
        send(mail, name, f"signup {name} {pw(name)}")
    return mail


def create(mail, name: str, *options: str, players=()):
    send(mail, "dir", f"trax tournament create {name} dir {pw('dir')} {' '.join(options)}".strip())
    for p in players:
        send(mail, p, f"trax tournament join {name} {p} {pw(p)}")


def start(mail, name: str):
    return send(mail, "dir", f"trax tournament start {name} dir {pw('dir')}")


def boards(mail, name: str, *, active: bool = True) -> list[dict]:
    """The boards of a tournament (its games in play, or all of them), in the order they were paired."""
    store = mail.pipeline.store
    out = []
    for p in pairings(mail, name):
        if p.board is None:
            continue  # a bye
        b = store.board(p.board)
        out.append({"number": b.number, "label": b.label, "white": store.user_by_id(b.white_id).userid,
                    "black": store.user_by_id(b.black_id).userid, "status": b.status,
                    "round": p.round, "stage": p.stage})
    return [b for b in out if b["status"] == "active"] if active else out


def pairings(mail, name: str) -> list[dict]:
    store = mail.pipeline.store
    return store.pairings(store.tournament(name.lower()).id)


def quiet_moves(board: Board, count: int) -> list[str]:
    """``count`` legal moves after which nobody has won (the first such in the engine's order)."""
    played = []
    for _ in range(count):
        for move in board.legal_moves():
            board.play(move)
            if board.outcome() is None:
                played.append(str(move))
                break
            board.pop()
    return played


def finish_board(mail, b: dict, result: str) -> list:
    """Play board ``b`` by mail to ``result`` (white, black or draw): two quiet
    legal moves, then the loser resigns on their turn, or a draw is agreed."""
    name = b["label"]
    board = Board("trax")
    white, black = b["white"], b["black"]
    first, second = quiet_moves(board, 2)
    send(mail, white, f"trax move {name} {white} {pw(white)} {first}#1")
    send(mail, black, f"trax move {name} {black} {pw(black)} {second}#2")
    if result == "white":
        (third,) = quiet_moves(board, 1)
        send(mail, white, f"trax move {name} {white} {pw(white)} {third}#3")
        return send(mail, black, f"trax move {name} {black} {pw(black)} resign")
    if result == "black":
        return send(mail, white, f"trax move {name} {white} {pw(white)} resign")
    send(mail, white, f"trax move {name} {white} {pw(white)} propose")
    return send(mail, black, f"trax move {name} {black} {pw(black)} accept")


def by_subject(replies, text: str):
    return [r for r in replies if text in str(r["Subject"])]


def table_rows(body: str) -> list[list[str]]:
    """The rows of the first table in a mail: place, userid, score,
    [Buchholz,] SB, wins (the table's # is the place when nobody ties)."""
    lines = body.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"\s*#\s+(Place\s+)?Player", line))
    places = "Place" in lines[start]
    rows = []
    for line in lines[start + 1:]:
        if not line.strip():
            break
        rows.append(line.split()[1:] if places else line.split())
    return rows


def cross_rows(body: str) -> list[list[str]]:
    """The rows of the first crosstable in a mail: each player's results
    against the players numbered 1, 2 ... (its own number left out)."""
    lines = body.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Crosstable"))
    head = next(i for i in range(start, len(lines)) if lines[i].lstrip().startswith("#"))
    rows = []
    for line in lines[head + 1:]:
        if not line.strip():
            break
        rows.append(line.split()[1:])
    return rows


# ----------------------------------------------------------------------------
# a 6-player round robin to the end


# Results chosen so that B and D tie on 3 points and D is ahead by countback
# (D beat B), although B's Sonneborn-Berger is higher.  By hand:
#   ann beats cat dan eve fay, loses to ben      -> 4
#   ben beats ann eve fay, loses to cat dan      -> 3
#   cat beats ben eve, draws dan, loses ann fay  -> 2.5
#   dan beats ben eve, draws cat fay, loses ann  -> 3
#   eve beats fay                                -> 1
#   fay beats cat, draws dan                     -> 1.5
# SB (beaten opponents' scores + half of drawn ones'):
#   ann 2.5+3+1+1.5 = 8.00; ben 4+1+1.5 = 6.50; cat 3+1 + 3/2 = 5.50;
#   dan 3+1 + 2.5/2 + 1.5/2 = 6.00; eve 1.5; fay 2.5 + 3/2 = 4.00
WINNERS = {
    frozenset(("ann", "ben")): "ben", frozenset(("ann", "cat")): "ann", frozenset(("ann", "dan")): "ann",
    frozenset(("ann", "eve")): "ann", frozenset(("ann", "fay")): "ann",
    frozenset(("ben", "cat")): "cat", frozenset(("ben", "dan")): "dan", frozenset(("ben", "eve")): "ben",
    frozenset(("ben", "fay")): "ben",
    frozenset(("cat", "dan")): None, frozenset(("cat", "eve")): "cat", frozenset(("cat", "fay")): "fay",
    frozenset(("dan", "eve")): "dan", frozenset(("dan", "fay")): None,
    frozenset(("eve", "fay")): "eve",
}
HAND_TABLE = [
    ["1", "ann", "4.0", "8.00"],
    ["2", "dan", "3.0", "6.00"],
    ["3", "ben", "3.0", "6.50"],
    ["4", "cat", "2.5", "5.50"],
    ["5", "fay", "1.5", "4.00"],
    ["6", "eve", "1.0", "1.50"],
]


def test_a_six_player_round_robin_played_to_the_end(club, golden):
    create(club, "ETC26", "-format=roundrobin", players=PLAYERS[:6])
    started = start(club, "ETC26")
    games = boards(club, "ETC26")
    assert len(games) == 15
    assert {frozenset((g["white"], g["black"])) for g in games} == set(WINNERS)
    assert [g["label"] for g in games] == [f"ETC26-{k}" for k in range(1, 16)]
    # every player hears of their five boards, with the table; each board has its new-board mail
    round_mail = by_subject(started, "tournament ETC26: started")
    assert sorted(to_of(m) for m in round_mail) == sorted(f"{p}@example.org" for p in [*PLAYERS[:6], "dir"])
    assert len(by_subject(started, "New Trax Board")) == 30
    ann = next(m for m in round_mail if to_of(m) == "ann@example.org")
    assert flat(ann).count("(board ") == 5
    # tournament boards: tournament limits, no undo, shown by name
    row = club.pipeline.store.board(games[0]["number"])
    assert (row.nag_days, row.forfeit_days, row.tournament) == (1, 7, "ETC26")
    shown = club.send("x@example.org", f"trax show {games[0]['label'].lower()}")
    assert f"Trax board {games[0]['number']} (ETC26-1, tournament ETC26)" in text_of(shown[0])
    white = games[0]["white"]
    send(club, white, f"trax move ETC26-1 {white} {pw(white)} @0+")
    refused = club.send(f"{white}@example.org", f"trax move ETC26-1 {white} {pw(white)} undo")
    assert "moves cannot be taken back on a tournament board" in flat(refused[0])
    with club.pipeline.store.atomic():  # back to the start, for the games below
        club.pipeline.store.update_board(games[0]["number"], moves="")
        club.pipeline.store.delete_moves_from(games[0]["number"], 1)

    last = []
    for g in games:
        winner = WINNERS[frozenset((g["white"], g["black"]))]
        result = "draw" if winner is None else ("white" if winner == g["white"] else "black")
        last = finish_board(club, g, result)
    finals = by_subject(last, "tournament ETC26: final table")
    assert sorted(to_of(m) for m in finals) == sorted(f"{p}@example.org" for p in [*PLAYERS[:6], "dir"])
    body = text_of(finals[0])
    rows = table_rows(body)
    assert [[r[0], r[1], r[-3], r[-2]] for r in rows] == HAND_TABLE
    golden.check("tournament-final-roundrobin.txt", body)
    # the grid reads along the row: ann's row has 0 against ben (column 3) and 1 elsewhere
    assert cross_rows(body)[0] == ["*", "1", "0", "1", "1", "1"]
    shown = text_of(club.send("x@example.org", "trax tournament show ETC26")[0])
    assert "ETC26 (trax, round robin, 6 players) - finished" in shown
    golden.check("tournament-show-roundrobin.txt", shown)
    # rated: ann won 4 of 5
    store = club.pipeline.store
    assert store.rating(store.find_user("ann").id, "trax").wins == 4


# ----------------------------------------------------------------------------
# Swiss


def test_a_seven_player_swiss_of_four_rounds(club, golden):
    create(club, "SW", "-format=swiss", "-rounds=4", players=PLAYERS[:7])
    start(club, "SW")
    store = club.pipeline.store
    met, byes = set(), []
    last = []
    for round_ in range(1, 5):
        games = boards(club, "SW")
        assert len(games) == 3 and {g["round"] for g in games} == {round_}
        assert all(g["label"].startswith(f"SW-R{round_}.") for g in games)
        (bye,) = [store.user_by_id(p.white_id).userid for p in pairings(club, "SW")
                  if p.black_id is None and p.round == round_]
        byes.append(bye)
        for g in games:
            pair = frozenset((g["white"], g["black"]))
            assert pair not in met, f"rematch {pair} in round {round_}"
            met.add(pair)
            assert bye not in pair
            # the earlier name in the alphabet wins: a steady ranking to pair against
            last = finish_board(club, g, "white" if g["white"] < g["black"] else "black")
        if round_ < 4:
            assert by_subject(last, "tournament SW: a new round")
    assert len(set(byes)) == 4, byes
    finals = by_subject(last, "tournament SW: final table")
    assert len(finals) == 8
    body = text_of(finals[0])
    assert "Buchholz" in body
    golden.check("tournament-final-swiss.txt", body)


# ----------------------------------------------------------------------------
# knockout, with a drawn game replayed


def test_an_eight_player_knockout_seeded_by_rating(club):
    store = club.pipeline.store
    # ratings make the seeds: hal 1 ... ann 8
    for i, name in enumerate(PLAYERS):
        store.save_rating(store.find_user(name).id, "trax", 1500 + 10 * i, "win", club.clock.now)
    create(club, "KO", "-format=knockout", players=PLAYERS)
    start(club, "KO")
    seed = {name: 8 - i for i, name in enumerate(PLAYERS)}
    first = boards(club, "KO")
    assert [(seed[g["white"]], seed[g["black"]]) for g in first] == [(1, 8), (4, 5), (2, 7), (3, 6)]
    # the higher seed wins, except that 4 v 5 is first drawn and replayed with colours swapped
    for g in first:
        if seed[g["white"]] == 4:
            replies = finish_board(club, g, "draw")
        else:
            replies = finish_board(club, g, "white")
    assert by_subject(replies, "a replay") or any(g["round"] == 1 for g in boards(club, "KO"))
    replay = boards(club, "KO")
    assert [(seed[g["white"]], seed[g["black"]], g["round"], g["label"]) for g in replay] == [(5, 4, 1, "KO-R1.5")]
    finish_board(club, replay[0], "black")  # seed 4 wins the replay
    semis = boards(club, "KO")
    assert [(seed[g["white"]], seed[g["black"]], g["round"]) for g in semis] == [(1, 4, 2), (2, 3, 2)]
    for g in semis:
        finish_board(club, g, "white")
    final = boards(club, "KO")
    assert [(seed[g["white"]], seed[g["black"]]) for g in final] == [(1, 2)]
    replies = finish_board(club, final[0], "black")  # seed 2 takes the title
    finals = by_subject(replies, "tournament KO: final table")
    assert len(finals) == 9
    rows = table_rows(text_of(finals[0]))
    assert rows[0][1] == "gus"  # seed 2: three wins
    assert store.tournament("ko").status == "finished"


# ----------------------------------------------------------------------------
# pools, then a final


def test_pools_then_a_final_round_robin(club, golden):
    create(club, "POOL", "-format=pools", "-poolsize=4", "-advance=2", players=PLAYERS)
    start(club, "POOL")
    games = boards(club, "POOL")
    assert len(games) == 12
    pools = {}
    for g in games:
        pools.setdefault(g["stage"], set()).update((g["white"], g["black"]))
    # snake order by seed (all at 1600, so the order they joined): A = ann dan eve hal, B = ben cat fay gus
    assert pools == {"A": {"ann", "dan", "eve", "hal"}, "B": {"ben", "cat", "fay", "gus"}}
    assert sorted(g["label"] for g in games if g["stage"] == "A") == [f"POOL-A{k}" for k in range(1, 7)]
    last = []
    for g in games:  # the earlier name wins
        last = finish_board(club, g, "white" if g["white"] < g["black"] else "black")
    assert by_subject(last, "tournament POOL: the final")
    final = boards(club, "POOL")
    assert {g["stage"] for g in final} == {"final"}
    assert {p for g in final for p in (g["white"], g["black"])} == {"ann", "dan", "ben", "cat"}
    assert sorted(g["label"] for g in final) == [f"POOL-F{k}" for k in range(1, 7)]
    for g in final:
        last = finish_board(club, g, "white" if g["white"] < g["black"] else "black")
    finals = by_subject(last, "tournament POOL: final table")
    body = text_of(finals[0])
    assert "Pool A" in body and "Pool B" in body and "Final" in body
    final_table = body[body.index("\nFinal"):]
    assert [r[1] for r in table_rows(final_table)] == ["ann", "ben", "cat", "dan"]
    golden.check("tournament-final-pools.txt", body)


# ----------------------------------------------------------------------------
# time and withdrawals


def test_a_forfeit_by_timeout_inside_a_tournament_ends_the_event(club):
    create(club, "TIME", players=PLAYERS[:3])
    start(club, "TIME")
    started = club.clock.now
    games = boards(club, "TIME")
    for g in games[:2]:
        finish_board(club, g, "white")
    stalled = games[2]
    messages = tick_mails(club.pipeline, started + timedelta(days=1))
    assert [m["Subject"] for m in messages] == [f"Nag: Trax Board {stalled['number']} {stalled['white']}"]
    messages = tick_mails(club.pipeline, started + timedelta(days=7))
    parsed = [BytesParser(policy=policy.default).parsebytes(bytes(m)) for m in messages]
    forfeit = [m for m in parsed if m["Subject"] == f"Trax Board {stalled['number']}"]
    assert forfeit and f"{stalled['white']} made no move for 7 days" in flat(forfeit[0])
    finals = by_subject(parsed, "tournament TIME: final table")
    assert len(finals) == 4
    show = text_of(club.send("x@example.org", "trax tournament show TIME")[0])
    assert "0-1 (forfeit)" in show


def test_a_withdrawal_mid_swiss_forfeits_the_open_game_and_stops_pairing(club):
    create(club, "WD", "-format=swiss", "-rounds=3", players=PLAYERS[:5])
    start(club, "WD")
    for g in boards(club, "WD"):
        finish_board(club, g, "white")
    round2 = boards(club, "WD")
    leaver = round2[0]["black"]
    other = round2[0]["white"]
    replies = send(club, "dir", f"trax tournament withdraw WD dir {pw('dir')} {leaver}")
    assert f"{leaver} has been withdrawn from WD" in flat(replies[0])
    told = [r for r in replies if r["Subject"] == f"Trax Board {round2[0]['number']}"]
    assert told and f"{leaver} was withdrawn from WD and loses this game by forfeit." in flat(told[0])
    assert f"Game won by {other} (by forfeit)." in flat(told[0])
    for g in boards(club, "WD"):
        finish_board(club, g, "white")
    round3 = boards(club, "WD")
    assert round3 and all(leaver not in (g["white"], g["black"]) for g in round3)
    byes3 = sum(1 for p in pairings(club, "WD") if p.round == 3 and p.black_id is None)
    assert len(round3) == 2 and byes3 == 0  # four players left: two boards, no bye
    for g in round3:
        last = finish_board(club, g, "white")
    body = text_of(by_subject(last, "tournament WD: final table")[0])
    assert f"{leaver} (w)" in body


def test_a_withdrawal_in_a_round_robin_forfeits_every_unplayed_game(club):
    create(club, "RR4", players=PLAYERS[:4])
    start(club, "RR4")
    games = boards(club, "RR4")
    finish_board(club, games[0], "white")
    leaver = "dan"
    open_games = [g for g in boards(club, "RR4") if leaver in (g["white"], g["black"])]
    replies = send(club, "dir", f"trax tournament withdraw RR4 dir {pw('dir')} {leaver}")
    assert f"{len(open_games)} unfinished game" in flat(replies[0])
    assert all(leaver not in (g["white"], g["black"]) for g in boards(club, "RR4"))


# ----------------------------------------------------------------------------
# the smaller commands


def test_entry_listing_and_director_commands(club):
    replies = send(club, "dir", "trax tournament create CUP dir dir-pw -maxplayers=3 -format=double")
    assert replies[0]["Subject"] == "Trax tournament CUP created"
    assert "dir-pw" not in replies[0].as_string()
    assert "trax tournament join CUP USERID PASSWORD" in flat(replies[0])
    again = club.send("ann@example.org", "trax tournament create cup ann ann-pw")
    assert "there is already a tournament named cup" in flat(again[0])
    for p in ("ann", "ben", "cat"):
        send(club, p, f"trax tournament join CUP {p} {pw(p)}")
    assert "CUP is full (3 players)" in flat(club.send("dan@example.org", "trax tournament join CUP dan dan-pw")[0])
    assert "already entered" in flat(club.send("ann@example.org", "trax tournament join CUP ann ann-pw")[0])
    left = send(club, "cat", "trax tournament leave CUP cat cat-pw")
    assert "you have left CUP" in flat(left[0])
    listing = flat(club.send("x@example.org", "trax tournament list")[0])
    assert "Open for entry: CUP (trax, double round robin, 2 players) - open for entry" in listing
    assert "only the director of CUP" in flat(club.send("ann@example.org", "trax tournament start CUP ann ann-pw")[0])
    announced = send(club, "dir", "trax tournament announce CUP dir dir-pw", "Games start Monday.")
    assert sorted(to_of(m) for m in announced) == ["ann@example.org", "ben@example.org", "dir@example.org"]
    assert "Games start Monday." in text_of(announced[0])
    start(club, "CUP")
    games = boards(club, "CUP")
    assert sorted((g["white"], g["black"]) for g in games) == [("ann", "ben"), ("ben", "ann")]
    assert "entries are closed" in flat(club.send("cat@example.org", "trax tournament join CUP cat cat-pw")[0])
    refused = club.send("dir@example.org", "trax tournament pair CUP dir dir-pw")
    assert "the round is not over: CUP-1, CUP-2 still in play" in flat(refused[0])
    decided = send(club, "dir", f"trax tournament result CUP dir dir-pw {games[0]['label']} draw")
    assert "Game drawn (decided by the tournament director)." in flat(decided[0])
    decided = send(club, "dir", f"trax tournament result CUP dir dir-pw {games[1]['number']} white")
    assert by_subject(decided, "tournament CUP: final table")
    show = text_of(club.send("x@example.org", "trax tournament show CUP")[0])
    assert "1/2-1/2 (director)" in show and "1-0 (director)" in show


def test_a_tournament_with_a_start_date_starts_itself(club):
    create(club, "DATE", "-start=2026-03-05", players=PLAYERS[:2])
    before = tick_mails(club.pipeline, club.clock.now.replace(day=4))
    assert not any("tournament" in str(m["Subject"]) for m in before)
    on_the_day = tick_mails(club.pipeline, club.clock.now.replace(day=5, hour=0, minute=1))
    assert any(m["Subject"] == "Trax tournament DATE: started" for m in on_the_day)
    create(club, "LONELY", "-start=2026-03-06", players=PLAYERS[:1])
    told = tick_mails(club.pipeline, club.clock.now.replace(day=6, hour=0, minute=1))
    assert [m["To"] for m in told if "did not start" in str(m["Subject"])] == ["dir@example.org"]
    assert tick_mails(club.pipeline, club.clock.now.replace(day=6, hour=0, minute=2)) == []


def test_a_knockout_round_past_its_deadline_is_reported_to_the_director_once(club):
    create(club, "LATE", "-format=knockout", players=PLAYERS[:4])
    start(club, "LATE")
    first, second = boards(club, "LATE")
    finish_board(club, first, "white")
    store = club.pipeline.store
    started = club.clock.now
    # both players keep moving, so no clock runs out; the round just drags on
    late = store.tournament("late").id
    with store.atomic():
        store.update_tournament(late, round_started_at=(started - timedelta(days=27, hours=23)).isoformat())
    assert not any("late" in str(m["Subject"]) for m in tick_mails(club.pipeline, started))
    with store.atomic():
        store.update_tournament(late, round_started_at=(started - timedelta(days=28)).isoformat())
    mails = [m for m in tick_mails(club.pipeline, started) if "late" in str(m["Subject"])]
    assert [(m["To"], m["Subject"]) for m in mails] == [("dir@example.org", "Tournament LATE: round 1 is late")]
    body = BytesParser(policy=policy.default).parsebytes(bytes(mails[0])).get_body(("plain",)).get_content()
    assert f"{second['label']} (board {second['number']})" in body
    assert first["label"] not in body
    assert not any("late" in str(m["Subject"]) for m in tick_mails(club.pipeline, started + timedelta(minutes=5)))


def test_tournaments_belong_to_their_game_type(club):
    send(club, "dir", f"8x8trax tournament create Small dir {pw('dir')}")
    for p in PLAYERS[:3]:
        send(club, p, f"8x8trax tournament join Small {p} {pw(p)}")
    assert "there is no trax tournament Small" in flat(club.send("x@example.org", "trax tournament show Small")[0])
    start_replies = send(club, "dir", f"8x8trax tournament start Small dir {pw('dir')}")
    assert by_subject(start_replies, "8x8Trax tournament Small: started")
    games = boards(club, "Small")
    assert len(games) == 3
    assert {club.pipeline.store.board(g["number"]).game for g in games} == {"8x8trax"}
    for g in games:
        board = Board("8x8trax")
        name, white, black = g["label"], g["white"], g["black"]
        first, second = quiet_moves(board, 2)
        send(club, white, f"8x8trax move {name} {white} {pw(white)} {first}")
        send(club, black, f"8x8trax move {name} {black} {pw(black)} {second}")
        last = send(club, white, f"8x8trax move {name} {white} {pw(white)} resign")
    final = by_subject(last, "8x8Trax tournament Small: final table")
    assert final and "Small (8x8trax, round robin, 3 players) - finished" in flat(final[0])
    listing = flat(club.send("x@example.org", "8x8trax tournament list")[0])
    assert "Finished: Small" in listing
    assert "Small" not in flat(club.send("x@example.org", "trax tournament list")[0])
