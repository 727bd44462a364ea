"""No line of any reply is wider than 78 columns (as a terminal shows them:
``tests/widths.py``).

A long session through the real pipeline, written to produce every reply
and error template of the server with long, realistic data: userids of
31 and 32 characters, long addresses, a board 32 columns wide, a player's
comment written as one long line, a 12-player Swiss tournament, knockout
and pools, nags, forfeits and every kind of error.  Every template is
rendered along the way (a check below makes sure of it), and the text each
template rendered is checked *before* the composer's last fold, so a
template that relies on it is caught too.  Help pages are rendered for
every topic and command.
"""

from __future__ import annotations

import random
import re
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path

import pytest

from pbm.app.compose import TEMPLATES, WIDTH, Renderer, Text, wrap
from pbm.app.help import TOPICS
from pbm.app.pipeline import Pipeline
from pbm.domain import coaching, computer
from pbm.domain.store import Store
from pbm.grammar import REGISTRY
from pbm.server.searcher import analyse, search
from pbm.trax import Board
from tests.prose import english_prose
from tests.ticks import tick_mails
from tests.widths import columns

from .conftest import Clock, Mailbox, is_error, server_config, text_of, to_of
from .replies import client_reply, delivery_report

# Real-looking long userids (the longest a userid may be is 32 characters)
ALICE = "alexandria_montgomery_whitfield3"  # 32
BOB = "bartholomew.fitzgerald-kensingt"  # 31
CAROL = "carolina_de_la_fuente_rodriguez"  # 31
FIRST = ["maximilian", "konstantina", "bartholomew", "evangeline", "fitzwilliam", "guinevere",
         "hieronymus", "isadora", "jacqueline", "leopoldine", "marguerite", "nathaniel"]
SWISS = [f"{name}_van_der_berghe_{n:02d}"[:32] for n, name in enumerate(FIRST)]


def address(userid: str) -> str:
    return f"{userid.replace('_', '.')}@correspondence.example-club.org"


def pw(userid: str) -> str:
    return "pw-" + userid[:8]


class RecordingRenderer(Renderer):
    """Keeps the text every template rendered, as the template made it."""

    def __init__(self, language: str = "en") -> None:
        super().__init__(language)
        self.seen: dict[str, list[str]] = {}

    def render(self, name: str, **context) -> Text:
        text = super().render(name, **context)
        self.seen.setdefault(name, []).append(text.body)  # the subject is a header: folded by the mail
        return text

    def partial(self, name: str, **context) -> str:
        out = super().partial(name, **context)
        self.seen.setdefault(name, []).append(out)
        return out


class Session:
    """The server, and the mail its players send; ``language``: every
    recipient reads that one (as if each had set it)."""

    def __init__(self, folder: Path, limits: str = "", language: str = "en") -> None:
        self.config = server_config(folder, limits)
        self.store = Store(self.config.server.database)
        self.renderer = RecordingRenderer(language)
        self.mail = Mailbox(Pipeline(self.store, self.config, self.renderer), Clock())
        if language != "en":
            self.mail.pipeline.languages_of = lambda addresses, asked=None: {a.lower(): language for a in addresses}
        self.errors: list[str] = []
        #: What the players wrote (comments, messages): in their own words
        self.written: list[str] = []

    def send(self, who: str, subject: str, body: str = "", *, error: bool = False):
        self.written.append(" ".join(body.split()))
        replies = self.mail.send(address(who) if "@" not in who else who, subject, body)
        assert replies, subject
        if is_error(replies[0]) != error:
            raise AssertionError(f"{subject!r} got {replies[0]['Subject']}:\n{text_of(replies[0])}")
        return replies

    def tick(self, **delta):
        self.mail.clock.advance(**delta)
        return tick_mails(self.mail.pipeline, self.mail.clock.now)


def legal_quiet(board: Board, skip: int = 0) -> str:
    """A legal move that wins nothing (the moves in a fixed shuffled order,
    ``skip`` of the quiet ones passed over), played on ``board``."""
    moves = board.legal_moves()
    random.Random(board.ply).shuffle(moves)
    for move in moves:
        board.play(move)
        if board.outcome() is None:
            if skip == 0:
                return str(move)
            skip -= 1
        board.pop()
    raise AssertionError("no quiet move")



def play_game(s: Session, number: int, game: str, white: str, black: str, moves: list[str],
              comment: str = "") -> None:
    for n, move in enumerate(moves, start=1):
        who = white if n % 2 else black
        s.send(who, f"{game} move {number} {who} {pw(who)} {move}#{n}", comment)


LONG_COMMENT = ("Well played! I did not see that threat coming at all, and I spent most of the evening "
                "looking at the corner where you now have two ways to close the loop; my only hope is "
                "the long black line along the bottom, which you will surely block next turn. " * 2).strip()

#: A won Trax game from the recorded games: white closes a loop on move 11.
LOOP_GAME = ["@0+", "@1+", "B0/", "C1/", "B0/", "B0/", "B0+", "D4+", "C1\\", "D6\\", "A2+"]


def accounts_and_games(s: Session) -> None:
    for who in (ALICE, BOB, CAROL):
        s.send(who, f"signup {who} {pw(who)}")
    s.send(ALICE, f"set {ALICE} {pw(ALICE)}")
    s.send(ALICE, f"set {ALICE} {pw(ALICE)} pictures off")
    s.send(ALICE, f"set {ALICE} {pw(ALICE)} pictures on")
    s.send(CAROL, f"add {CAROL} {pw(CAROL)} {CAROL}.second-address@another-long-domain.example.org")
    s.send(CAROL, f"change address {CAROL} {pw(CAROL)} {address(CAROL)}")
    s.send(CAROL, f"change password {CAROL} {pw(CAROL)} {pw(CAROL)}")
    s.send(ALICE, "list")
    # an invitation (no password), then a board
    s.send(CAROL, f"trax challenge {ALICE} {BOB} --nagtime=2 --forfeittime=5")
    s.send(ALICE, f"trax challenge {ALICE} {BOB} {pw(ALICE)} --nagtime=2 --forfeittime=5")  # 101
    s.send(CAROL, f"trax subscribe 101 {CAROL} {pw(CAROL)}")
    s.send(CAROL, f"trax notify {CAROL} {pw(CAROL)} 101")
    board = Board()
    moves = [legal_quiet(board) for _ in range(5)]
    play_game(s, 101, "trax", ALICE, BOB, moves[:4], LONG_COMMENT)
    s.send(ALICE, f"trax submit 101 {ALICE} {pw(ALICE)} {moves[4]}#5")
    s.send(ALICE, f"trax confirm 101 {ALICE} {pw(ALICE)}")
    # a queued move that fails, then a queued line the opponent leaves
    s.send(ALICE, f"trax queue 101 {ALICE} {pw(ALICE)} Z99+")
    s.send(BOB, f"trax move 101 {BOB} {pw(BOB)} {legal_quiet(board)}#6")
    mine = legal_quiet(board)
    expected = legal_quiet(board.copy(), skip=1)
    s.send(ALICE, f"trax queue 101 {ALICE} {pw(ALICE)} {mine} {expected} {legal_quiet(board.copy())}")
    s.send(BOB, f"trax move 101 {BOB} {pw(BOB)} {legal_quiet(board)}#8")
    s.send(BOB, f"trax move 101 {BOB} {pw(BOB)} propose", LONG_COMMENT)
    s.send(ALICE, f"trax move 101 {ALICE} {pw(ALICE)} reject")
    s.send(BOB, f"trax move 101 {BOB} {pw(BOB)} undo")
    s.send(ALICE, f"trax move 101 {ALICE} {pw(ALICE)} accept")
    s.send(BOB, f"trax chat 101 {BOB} {pw(BOB)}", LONG_COMMENT)
    s.send(CAROL, "trax show 101#3")
    s.send(CAROL, f"trax show {ALICE} {BOB} active")
    s.send(ALICE, f"trax showas {ALICE} {pw(ALICE)} 101")
    s.send(CAROL, f"trax games {ALICE} {BOB}")
    s.send(CAROL, f"all show {ALICE}")
    s.send(CAROL, "trax record 101")
    s.send(CAROL, "trax preview new @0/ B1+ A2\\")
    s.send(CAROL, "trax preview 101 " + legal_quiet(Board.replay(s.store.board(101).moves.split())))
    # a won game (a loop), rated, with its rating changes
    s.send(ALICE, f"trax challenge {ALICE} {BOB} {pw(ALICE)}")  # 102
    play_game(s, 102, "trax", ALICE, BOB, LOOP_GAME, "A long line of comment " * 6)
    s.send(CAROL, "trax show 102#4")
    # a looptrax board 32 columns wide: straights in a row
    s.send(ALICE, f"looptrax challenge {ALICE} {BOB} {pw(ALICE)}")  # 103
    wide = ["@0+"]
    board = Board("looptrax")
    board.play("@0+")
    for _ in range(31):
        move = next(str(m) for m in board.legal_moves() if m.symbol == "+" and m.row == 1 and m.column > 1
                    and m.column == board.width + 1)
        board.play(move)
        wide.append(move)
    play_game(s, 103, "looptrax", ALICE, BOB, wide)
    s.send(CAROL, "looptrax show 103")
    s.send(ALICE, f"looptrax move 103 {ALICE} {pw(ALICE)} resign")
    # a game cancelled, one resigned, an 8x8 game drawn by agreement
    s.send(BOB, f"trax challenge {BOB} {ALICE} {pw(BOB)}")  # 104
    s.send(BOB, f"trax resign 104 {BOB} {pw(BOB)}")
    s.send(BOB, f"8x8trax challenge {BOB} {ALICE} {pw(BOB)} -unrated")  # 105
    s.send(BOB, f"8x8trax move 105 {BOB} {pw(BOB)} propose")
    s.send(ALICE, f"8x8trax move 105 {ALICE} {pw(ALICE)} propose")
    # the game types of the 2017 rules: points and a cleared area, drawn tiles, a 3x3 game to its end
    s.send(ALICE, f"pointtrax challenge {ALICE} {BOB} {pw(ALICE)} -points=30")  # 106
    play_game(s, 106, "pointtrax", ALICE, BOB, ["@0+", "B1+", "C1+", "D1+", "E1+", "F1+", "G1+", "H1+"])
    s.send(CAROL, "pointtrax show 106")
    s.send(ALICE, f"luckytrax challenge {ALICE} {BOB} {pw(ALICE)}")  # 107
    for _ in range(4):
        row = s.store.board(107)
        lucky = Board.replay(row.moves.split(), "luckytrax")
        draws = row.draws.split()
        if row.status != "active" or len(draws) <= lucky.ply:  # the draws are random: it may end early
            break
        who = ALICE if lucky.turn == "white" else BOB
        cell = lucky.placements(int(draws[lucky.ply]))[0].cell
        s.send(who, f"luckytrax move 107 {who} {pw(who)} {cell}#{lucky.ply + 1}")
    s.send(CAROL, "luckytrax record 107")
    s.send(ALICE, f"minitrax challenge {ALICE} {BOB} {pw(ALICE)}")  # 108
    mini = Board("minitrax")
    while s.store.board(108).status == "active":
        who = ALICE if mini.turn == "white" else BOB
        move = str(mini.legal_moves()[0])
        mini.play(move)
        s.send(who, f"minitrax move 108 {who} {pw(who)} {move}#{mini.ply}")
    # a reply from an address that is not the player's; a bounce; a daily digest (sent by the clock work)
    board_mail = next(m for m in reversed(s.mail.sent) if "Board 106" in str(m["Subject"])
                      and str(m["Message-ID"]).startswith("<r-"))
    s.mail.deliver(client_reply(board_mail, "someone.else@another.example.org", "C3/", when=s.mail.clock.now))
    (probe,) = s.mail.deliver(delivery_report(board_mail, when=s.mail.clock.now))
    s.mail.deliver(delivery_report(probe, when=s.mail.clock.now))  # the probe bounces too: the clock is held
    s.send(ALICE, f"set {ALICE} {pw(ALICE)} digest daily 0")
    s.send(CAROL, "trax standings")
    s.send(CAROL, "trax history")
    s.send(ALICE, f"trax accept {ALICE} {pw(ALICE)}")
    s.send(ALICE, f"trax limit {ALICE} {pw(ALICE)} 30")
    s.send(ALICE, f"trax seek {ALICE} {pw(ALICE)} 3")
    s.send(ALICE, f"message {ALICE} {pw(ALICE)} {BOB} {CAROL}", LONG_COMMENT)
    s.send(ALICE, f"broadcast {ALICE} {pw(ALICE)}", LONG_COMMENT)
    s.send(BOB, f"vacation {BOB} {pw(BOB)} 3")
    s.send(BOB, f"vacation {BOB} {pw(BOB)} off")
    s.send(CAROL, f"trax unsubscribe 101 {CAROL} {pw(CAROL)}")


def errors(s: Session) -> None:
    s.send(ALICE, f"trax move 101 {ALICE} {pw(ALICE)} Z9+", error=True)  # illegal (or not your turn)
    mover = s.store.board(101)
    to_move = ALICE if len(mover.moves.split()) % 2 == 0 else BOB
    other = BOB if to_move == ALICE else ALICE
    s.send(other, f"trax move 101 {other} {pw(other)} @0+", error=True)  # not your turn
    s.send(to_move, f"trax move 101 {to_move} {pw(to_move)} Z99+", error=True)  # illegal move
    s.send(to_move, f"trax move 101 {to_move} {pw(to_move)} @0+#2", error=True)  # stale
    s.send(to_move, f"trax move 101 {to_move} wrong-password @0+", error=True)  # not allowed
    s.send(ALICE, f"trax move 102 {ALICE} {pw(ALICE)} @0+", error=True)  # game over
    s.send(ALICE, f"8x8trax move 101 {ALICE} {pw(ALICE)} @0+", error=True)  # wrong game
    s.send(ALICE, f"trax move 999 {ALICE} {pw(ALICE)} @0+", error=True)  # unknown board
    s.send(ALICE, "trax show nobody_of_that_name_at_all_here", error=True)  # unknown user
    s.send(to_move, f"trax move 101 {to_move} {pw(to_move)} accept", error=True)  # nothing pending
    s.send(ALICE, f"signup {ALICE} another-password", error=True)  # userid taken
    s.send(ALICE, "signup newcomer_with_a_long_name pw-abcdefg not-an-address", error=True)  # usage
    # an address asked once today to confirm an account: no second time today (the welcome says so)
    s.send("sender0@example.org", "signup asked_for_the_first_time pw-asked-0 target@elsewhere.example.org")
    s.send("sender9@example.org", "signup asked_once_too_often pw-asked-9 target@elsewhere.example.org")
    five = " ".join(f"extra{n}@addresses.example.org" for n in range(5))
    s.send(ALICE, f"add {ALICE} {pw(ALICE)} {five}", error=True)  # six addresses: one too many
    s.send(CAROL, f"trax reject {CAROL} {pw(CAROL)}")
    s.send(ALICE, f"trax challenge {ALICE} {CAROL} {pw(ALICE)}", error=True)  # challenge refused
    s.send(BOB, f"vacation {BOB} {pw(BOB)} 200", error=True)  # vacation refused
    s.send(ALICE, "trax moev 101 with a few words that are not a command at all", error=True)  # usage
    s.send(ALICE, "What a lovely game this is, thank you for running the server", error=True)  # no command
    s.send(ALICE, "multiple", "\n".join(["trax show 101", "help move", "trax moev 1"]), error=False)


def accounts_ending(s: Session) -> None:
    s.send(CAROL, f"password reset {CAROL}")
    # the code mailed to carol's address resets the password
    reset = [m for m in s.mail.sent if "reset" in str(m["Subject"]).lower() and "code" in text_of(m).lower()]
    assert reset
    s.send(CAROL, f"signup late_comer_number_one pw-latecomer {CAROL}.other@elsewhere.example.org")
    code = re.search(r"confirm address ([A-Z0-9-]+)", "\n".join(text_of(m) for m in s.mail.sent[-3:]))
    if code:
        s.send(f"{CAROL}.other@elsewhere.example.org", f"confirm address {code.group(1)}")
    s.send(CAROL, f"signoff {CAROL} {pw(CAROL)}")
    s.send(CAROL, f"delete {CAROL} {pw(CAROL)}")
    # wrong passwords until the address is blocked: the owner is told
    for _ in range(12):
        replies = s.mail.send("stranger@nowhere.example.net", f"trax resign 101 {BOB} guessing-{_}")
        assert replies
    # wrong passwords from one of bob's own addresses: his next command from it is not run, and he
    # hears of it at his other address
    second = "bartholomews.second.address@correspondence.example-club.org"
    s.send(BOB, f"add {BOB} {pw(BOB)} {second}")
    code = re.search(r"confirm address ([A-Z0-9-]+)", str(s.mail.sent[-1]["Subject"]))
    assert code, s.mail.sent[-1]["Subject"]
    s.send(second, f"confirm address {code.group(1)}")
    for _ in range(6):
        s.send(BOB, f"trax limit {BOB} typo-{_} 7", error=True)
    s.send(BOB, f"trax limit {BOB} {pw(BOB)} 7", error=True)
    assert any(str(m["Subject"]).endswith("was not run") and to_of(m) == second for m in s.mail.sent)


def clocks(s: Session) -> None:
    s.send(ALICE, f"trax challenge {ALICE} {BOB} {pw(ALICE)} --nagtime=1 --forfeittime=3")
    s.tick(days=1, hours=1)  # nags
    s.tick(days=3)  # forfeits


def tournaments(s: Session) -> None:
    director = "tournament_director_of_the_club"
    for who in [director, *SWISS]:
        s.send(who, f"signup {who} {pw(who)}")
    name = "AUTUMN_SWISS_2026"
    s.send(director, f"trax tournament create {name} {director} {pw(director)} -format=swiss -rounds=4")
    for who in SWISS:
        s.send(who, f"trax tournament join {name} {who} {pw(who)}")
    s.send(SWISS[0], f"trax tournament leave {name} {SWISS[0]} {pw(SWISS[0])}")
    s.send(SWISS[0], f"trax tournament join {name} {SWISS[0]} {pw(SWISS[0])}")
    s.send(director, f"trax tournament announce {name} {director} {pw(director)}", LONG_COMMENT)
    s.send(director, f"trax tournament start {name} {director} {pw(director)}")
    s.send(SWISS[0], "trax tournament list")
    for round_number in range(3):
        event = s.store.tournament(name.lower())
        open_boards = [p for p in s.store.pairings(event.id) if p.board and p.result is None]
        for n, p in enumerate(open_boards):
            result = ("white", "black", "draw")[(n + round_number) % 3]
            s.send(director, f"trax tournament result {name} {director} {pw(director)} {p.board} {result}")
    s.send(director, f"trax tournament withdraw {name} {director} {pw(director)} {SWISS[5]}")
    s.send(SWISS[1], f"trax tournament show {name}")
    event = s.store.tournament(name.lower())
    for p in s.store.pairings(event.id):
        if p.board and p.result is None:
            s.send(director, f"trax tournament result {name} {director} {pw(director)} {p.board} white")
    # pools with a final, and a knockout that runs late
    s.send(director, f"trax tournament create POOLS_OF_AUTUMN {director} {pw(director)} -format=pools -poolsize=4")
    for who in SWISS[:8]:
        s.send(who, f"trax tournament join POOLS_OF_AUTUMN {who} {pw(who)}")
    s.send(director, f"trax tournament start POOLS_OF_AUTUMN {director} {pw(director)}")
    s.send(SWISS[1], "trax tournament show POOLS_OF_AUTUMN")
    s.send(director, f"trax tournament create LATE_KNOCKOUT {director} {pw(director)} -format=knockout")
    for who in SWISS[:4]:
        s.send(who, f"trax tournament join LATE_KNOCKOUT {who} {pw(who)}")
    s.send(director, f"trax tournament start LATE_KNOCKOUT {director} {pw(director)}")
    event = s.store.tournament("late_knockout")
    boards = [p.board for p in s.store.pairings(event.id) if p.board]
    positions = {b: Board() for b in boards}
    for _day in range(36):  # everyone moves every day: no forfeit, but the round drags on
        for b in boards:
            row = s.store.board(b)
            if row.status != "active":
                continue
            white = s.store.user_by_id(row.white_id).userid
            black = s.store.user_by_id(row.black_id).userid
            who = white if positions[b].ply % 2 == 0 else black
            move = legal_quiet(positions[b])
            s.send(who, f"trax move {b} {who} {pw(who)} {move}#{positions[b].ply}")
        s.tick(hours=20)
    label = s.store.board(boards[0]).label
    white = s.store.user_by_id(s.store.board(boards[0]).white_id).userid
    s.send(white, f"trax move {label} {white} {pw(white)} undo", error=True)  # no undo in tournaments
    s.send(director, f"trax tournament create NEVER_STARTS {director} {pw(director)} -start=2026-12-01")
    s.send(SWISS[0], f"trax tournament join NEVER_STARTS {SWISS[0]} {pw(SWISS[0])}")
    s.mail.clock.now = s.mail.clock.now.replace(year=2026, month=12, day=1, hour=0, minute=5)
    s.tick(minutes=1)


def _ends(board: Board, move) -> bool:
    board.play(move)
    try:
        return board.outcome() is not None
    finally:
        board.pop()


def computer_games(s: Session) -> None:
    """A game against the computer at level 1 (its explained moves), a chat to it."""
    computer.ensure_account(s.store, s.config, s.mail.clock.now)
    s.send(ALICE, f"minitrax challenge computer {ALICE} {pw(ALICE)} -level=1")
    number = 0  # the board's, from the computer's first job (it moves first)
    for _ in range(3):
        ctx = s.mail.pipeline.context(s.mail.clock.now)
        for row in s.store.open_computer_jobs(5):
            job = computer.job_for(ctx, row)
            if job is not None:
                s.mail.pipeline.computer_turn(row.id, search(job, 0.05), now=s.mail.clock.now)
                number = job.board
        row = s.store.board(number)
        board = Board.replay(row.moves.split(), "minitrax")
        if board.outcome() is not None:
            break
        s.send(ALICE, f"minitrax hint {number} {ALICE} {pw(ALICE)}")
        s.send(ALICE, f"minitrax hint {number} {ALICE} {pw(ALICE)}")  # again: the same hint
        quiet = [m for m in board.legal_moves() if not _ends(board, m)]  # the computer's moves vary
        move = str(quiet[0] if quiet else board.legal_moves()[0])
        s.send(ALICE, f"minitrax move {number} {ALICE} {pw(ALICE)} {move}")
    s.send(ALICE, f"minitrax chat {number} {ALICE} {pw(ALICE)}", "Well played.")
    coaching_mail(s)


def coaching_mail(s: Session) -> None:
    """Hints refused, and analyses asked for, refused and mailed (board 102
    is the finished loop game)."""
    s.send(ALICE, f"trax challenge {ALICE} {BOB} {pw(ALICE)}")
    playing = max(row.number for row in s.store.boards_of_game("trax"))
    s.send(ALICE, f"trax hint {playing} {ALICE} {pw(ALICE)}", error=True)  # a game between people
    s.send(BOB, f"trax analyze {playing}", error=True)  # still played
    s.send(BOB, "trax analyze 102")
    s.send(BOB, "trax analyse 102")  # asked again before it is mailed
    s.send("someone.new@example.org", "trax analyze 102")
    ctx = s.mail.pipeline.context(s.mail.clock.now)
    for row in s.store.open_analyses(10):
        found = analyse(coaching.analysis_job(ctx, row), 1.0)
        s.mail.pipeline.analysis_done(row.id, found, now=s.mail.clock.now)


def helps(s: Session) -> None:
    for topic in [*TOPICS, *REGISTRY]:
        s.send("someone.new@example.org", f"help {topic}")
        s.send("someone.new@example.org", f"looptrax help {topic}")


def whole_session(folder: Path, language: str = "en") -> Session:
    s = Session(folder, language=language)
    accounts_and_games(s)
    errors(s)
    clocks(s)
    tournaments(s)
    accounts_ending(s)
    computer_games(s)
    helps(s)
    return s


def limited_session(folder: Path, language: str = "en") -> Session:
    """A server with tiny limits: the daily-limit and too-large notices."""
    limits = "replies_per_sender_per_day = 3\nmax_message_bytes = 20000\nbroadcasts_per_day = 0"
    s = Session(folder, limits, language)
    s.send(ALICE, f"signup {ALICE} {pw(ALICE)}")
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = address(ALICE), "pbm@pbm.test", "help"
    msg["Message-ID"], msg["Date"] = make_msgid(domain="x.test"), format_datetime(s.mail.clock.now)
    msg.set_content("x" * 30000)
    s.mail.deliver(bytes(msg))
    s.mail.send(address(ALICE), f"broadcast {ALICE} {pw(ALICE)}", "hello")
    s.mail.send(address(ALICE), "help")
    return s


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    s = whole_session(tmp_path_factory.mktemp("widths"))
    yield s
    s.store.close()


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    s = limited_session(tmp_path_factory.mktemp("limited"))
    yield s
    s.store.close()


def _templates(folder: str) -> list[str]:
    return sorted(f"{folder}/{p.name}" for p in TEMPLATES.joinpath(folder).iterdir()
                  if p.name.endswith(".txt") and not p.name.startswith("_"))


def _marker_free(text: str) -> list[str]:
    return [line for line in text.split("\n") if "\x00" not in line]


@pytest.mark.parametrize("template", _templates("replies") + _templates("errors"))
def test_every_reply_template_is_rendered_and_fits_78_columns(session, limited, template):
    outputs = session.renderer.seen.get(template, []) + limited.renderer.seen.get(template, [])
    assert outputs, f"{template} was never rendered by the session"
    for text in outputs:
        for line in _marker_free(text):
            assert columns(line) <= WIDTH, f"{template}: {columns(line)} columns:\n{line}"


def test_every_help_page_fits_78_columns(session):
    pages = {name: out for name, out in session.renderer.seen.items() if name.startswith("help/")}
    assert len(pages) > 40
    for name, outputs in pages.items():
        for text in outputs:
            for line in _marker_free(text):
                assert columns(line) <= WIDTH, f"{name}: {columns(line)} columns:\n{line}"


def test_the_session_drew_a_board_in_bands_and_a_tournament_of_twelve(session):
    shows = session.renderer.seen["replies/show.txt"]
    assert any("Columns @ to" in text for text in shows)
    tables = "\n".join(session.renderer.seen["replies/tournament-show.txt"])
    assert all(name in tables for name in SWISS)


def test_what_the_server_mailed_fits_too(session):
    """The mails as sent (text parts), after the composer's fold."""
    for msg in session.mail.sent:
        for line in text_of(msg).split("\n"):
            assert columns(line) <= WIDTH, f"{msg['Subject']}: {line}"


def test_the_fold_keeps_short_lines_and_breaks_long_words():
    assert wrap("short line\n\n  indented") == "short line\n\n  indented"
    long_word = "x" * 200
    folded = wrap(f"  see {long_word} there", hang=2)
    assert all(columns(line) <= WIDTH for line in folded.split("\n"))
    assert folded.replace("\n", "").replace(" ", "") == f"see{long_word}there"
    assert all(line.startswith("    ") for line in folded.split("\n")[1:])


def test_the_composer_folds_whatever_a_player_sends(session):
    """A hostile comment (one 5,000-character word) still gives lines of at most 78."""
    s = session
    mover = s.store.board(101)
    replies = s.mail.send(address(ALICE), f"trax chat 101 {ALICE} {pw(ALICE)}", "y" * 5000 + " end")
    assert mover is not None and replies
    for msg in replies:
        assert all(columns(line) <= WIDTH for line in text_of(msg).split("\n"))


@pytest.mark.parametrize(("label", "hang"), [("Ending:    ", 11), ("Your command:  ", 15), ("Scores:    ", 11)])
def test_a_label_padded_to_the_hang_keeps_its_blanks_and_the_text_lines_up(label, hang):
    text = label + " ".join(["word"] * 40)
    lines = wrap(text, hang=hang).splitlines()
    assert len(lines) > 1 and lines[0].startswith(label + "word")
    starts = {len(line) - len(line.lstrip(" ")) for line in lines[1:]}
    assert starts == {hang} == {len(label)}
    assert all(columns(line) <= 78 for line in lines)


# --- the same session in German and in Japanese ---------------------------------------

@pytest.fixture(scope="module", params=["de", "ja"])
def translated(request, tmp_path_factory):
    """The whole session and the limited one with every reader's language
    German, then Japanese."""
    whole = whole_session(tmp_path_factory.mktemp(f"widths-{request.param}"), request.param)
    small = limited_session(tmp_path_factory.mktemp(f"limited-{request.param}"), request.param)
    yield request.param, whole, small
    whole.store.close()
    small.store.close()


@pytest.mark.slow
def test_every_template_reads_in_each_language(session, limited, translated):
    """Every reply, error and help template, rendered by the long session
    in German and in Japanese: rendered at all, within 78 columns (wide
    characters two), every placeholder filled, and no line of English prose
    that the same template wrote in the English session (what a player
    wrote, userids, moves, commands and the board are the same in every
    language, and are not prose)."""
    language, whole, small = translated
    problems = []
    names = _templates("replies") + _templates("errors") + sorted(
        name for name in session.renderer.seen if name.startswith("help/"))
    for name in names:
        english = session.renderer.seen.get(name, []) + limited.renderer.seen.get(name, [])
        outputs = whole.renderer.seen.get(name, []) + small.renderer.seen.get(name, [])
        if not outputs:
            problems.append(f"{name}: never rendered in {language}")
            continue
        prose = {" ".join(line.split()) for text in english for line in _marker_free(text) if english_prose(line)}
        for text in outputs:
            for line in _marker_free(text):
                if columns(line) > WIDTH:
                    problems.append(f"{name}: {columns(line)} columns: {line}")
                if re.search(r"%\(\w+\)[sd]|\{\{|\{%", line):
                    problems.append(f"{name}: placeholder: {line}")
                words = " ".join(line.split())
                if words in prose and not any(words in text for text in whole.written):
                    problems.append(f"{name}: English: {line.strip()}")
    assert not problems, f"{len(set(problems))} problems in {language}:\n" + "\n".join(sorted(set(problems))[:80])
