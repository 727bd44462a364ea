"""The computer opponent through the real pipeline: challenges, the jobs the
boards queue for it, its answers played like a player's commands, offers,
chat, ratings apart, and help.  The searches are the real ones (levels 1
and 2 answer at once; level 3 with a small budget)."""

from __future__ import annotations

from email import policy
from email.parser import BytesParser

import pytest

from pbm.domain import computer
from pbm.server.searcher import search
from pbm.trax import Board

from .conftest import Mailbox, is_error, text_of, to_of

A = "alice@example.org"


@pytest.fixture
def vs(players):
    """alice and bob, and the computer's account."""
    mail: Mailbox = players
    assert computer.ensure_account(mail.pipeline.store, mail.pipeline.config, mail.clock.now) is not None
    return mail


def open_jobs(mail: Mailbox):
    return mail.pipeline.store.open_computer_jobs(10)


def run_jobs(mail: Mailbox, budget: float | None = 0.2) -> list:
    """Search every open job in this process and play the answers; the mails."""
    store = mail.pipeline.store
    ctx = mail.pipeline.context(mail.clock.now)
    out = []
    for row in open_jobs(mail):
        job = computer.job_for(ctx, row)
        if job is None:
            store.finish_computer_job(row["id"], "stale", mail.clock.now)
            continue
        answer = search(job, budget)
        result = mail.pipeline.computer_turn(row.id, answer, now=mail.clock.now)
        out += [BytesParser(policy=policy.default).parsebytes(bytes(m)) for m in result.replies]
    return out


def board(mail: Mailbox, number: int = 101) -> Board:
    row = mail.pipeline.store.board(number)
    return Board.replay(row.moves.split(), row.game, ending=row.ending, points=row.points)


def test_a_challenge_to_the_computer_queues_its_first_move_when_it_starts(vs):
    replies = vs.send(A, "trax challenge computer alice apple -level=2")
    assert not is_error(replies[0]), text_of(replies[0])
    assert [to_of(m) for m in replies] == [A]  # the computer has no address: only alice hears
    row = vs.pipeline.store.board(101)
    assert row.level == 2
    jobs = open_jobs(vs)
    assert [(j.board, j.ply, j.pending) for j in jobs] == [(101, 0, "")]
    new = " ".join(text_of(replies[0]).split())
    assert "computer plays white and moves first, alice plays black. computer plays at level 2." in new
    assert "computer moves next (level 2): its move comes to you by mail" in new
    assert "PASSWORD" not in new  # nobody is asked to fill in the computer's password
    mails = run_jobs(vs)
    assert board(vs).ply == 1
    assert [to_of(m) for m in mails] == [A]
    assert "Trax Board 101 alice" in str(mails[0]["Subject"])
    assert "computer played" in text_of(mails[0])
    assert open_jobs(vs) == []  # done: nothing more until alice moves


def test_a_whole_minitrax_game_against_level_two(vs):
    vs.send(A, "minitrax challenge alice computer apple -level=2")
    ended = []
    for _ in range(12):
        b = board(vs)
        if b.outcome() is not None:
            break
        move = str(b.legal_moves()[0])
        replies = vs.send(A, f"minitrax move 101 alice apple {move}")
        ended = replies
        assert not is_error(replies[0]), text_of(replies[0])
        if board(vs).outcome() is not None:
            break
        assert len(open_jobs(vs)) == 1
        mails = run_jobs(vs)
        ended = mails
        assert mails and "computer played" in text_of(mails[0])
    row = vs.pipeline.store.board(101)
    assert row.status == "finished"
    # rated apart: no rating between people, a rating against the computer
    assert vs.pipeline.store.rating(vs.pipeline.store.find_user("alice").id, "minitrax") is None
    (rated,) = vs.pipeline.store.computer_ratings_of(vs.pipeline.store.find_user("alice").id)
    assert rated.games == 1 and rated.wins + rated.draws + rated.losses == 1
    # the end mail says how alice's rating against the computer moved, from the start rating
    end = " ".join(text_of(ended[-1]).split())
    after = round(rated.rating)
    assert (f"Rating against the computer (kept apart from ratings between people): alice 1600 -> {after} "
            f"({after - 1600:+d})." in end)
    assert "Rating changes:" not in end
    # and so does the board shown later
    (shown,) = vs.send(A, "minitrax show 101")
    assert f"alice 1600 -> {after}" in " ".join(text_of(shown).split())


def test_level_two_takes_a_win_in_one(vs):
    # white (alice) to move could close a loop; make it the computer's turn there instead
    vs.send(A, "trax challenge alice computer apple -level=2")
    for move in ["@0+", "@1+", "B0/", "C1/", "B0/", "B0/", "B0+", "D4+", "C1\\", "D6\\"]:
        b = board(vs)
        if b.turn == "white":
            vs.send(A, f"trax move 101 alice apple {move}")
        else:
            row = open_jobs(vs)[0]
            ctx = vs.pipeline.context(vs.clock.now)
            vs.pipeline.computer_turn(row.id, computer.Answer(move=move), now=vs.clock.now)
            assert computer.job_for(ctx, row) is None  # played: the job no longer fits the board
    # alice now plays a quiet move instead of the winning A2+, and the computer...
    b = board(vs)
    assert b.turn == "white"
    wins = [m for m in b.legal_moves() if _wins(b, m)]
    assert wins  # alice could win here
    quiet = next(m for m in b.legal_moves() if not _wins(b, m) and not _gives_win(b, m))
    vs.send(A, f"trax move 101 alice apple {quiet}")
    run_jobs(vs)
    after = board(vs)
    assert after.ply == 12
    # the computer never leaves alice a win in one that it could have stopped
    assert not [m for m in after.legal_moves() if _wins(after, m)] or after.outcome() is not None


def _wins(b: Board, move) -> bool:
    b.play(move)
    try:
        outcome = b.outcome()
        return outcome is not None and outcome.winner == ("black" if b.turn == "white" else "white")
    finally:
        b.pop()


def _gives_win(b: Board, move) -> bool:
    b.play(move)
    try:
        return b.outcome() is not None or any(_wins(b, m) for m in b.legal_moves())
    finally:
        b.pop()


@pytest.mark.parametrize(("level", "accepts"), [(1, True), (3, False)])
def test_a_take_back_is_granted_by_the_teaching_levels_only(vs, level, accepts):
    vs.send(A, f"trax challenge alice computer apple -level={level}")
    vs.send(A, "trax move 101 alice apple @0+")
    run_jobs(vs, budget=0.05)
    assert board(vs).ply == 2
    vs.send(A, "trax move 101 alice apple undo")
    jobs = open_jobs(vs)
    assert [(j.ply, j.pending) for j in jobs] == [(2, "undo")]
    mails = run_jobs(vs)
    assert ("agreed to take back" in text_of(mails[0])) is accepts
    assert board(vs).ply == (1 if accepts else 2)
    if accepts:  # alice's move again: the computer waits; after her move it is asked again
        vs.send(A, "trax move 101 alice apple B1+")
        assert [(j.ply, j.pending) for j in open_jobs(vs)] == [(1, "")] or board(vs).ply == 1


def test_a_draw_offer_is_answered_and_a_job_for_a_finished_board_is_dropped(vs):
    vs.send(A, "trax challenge alice computer apple -level=4")
    vs.send(A, "trax move 101 alice apple @0+")
    vs.send(A, "trax move 101 alice apple propose")
    pending = [j for j in open_jobs(vs) if j.pending == "draw"]
    assert len(pending) == 1
    vs.send(A, "trax move 101 alice apple resign")
    assert run_jobs(vs) == []  # both jobs were for a board that is over
    assert open_jobs(vs) == []
    outcomes = [j.outcome for j in vs.pipeline.store.computer_jobs_of(101)]
    assert outcomes == ["game over", "game over"]  # closed when the game ended


def test_an_answer_that_comes_twice_is_played_once(vs):
    vs.send(A, "trax challenge computer alice apple -level=1")
    (row,) = open_jobs(vs)
    first = vs.pipeline.computer_turn(row.id, computer.Answer(move="@0+"), now=vs.clock.now)
    again = vs.pipeline.computer_turn(row.id, computer.Answer(move="@0/"), now=vs.clock.now)
    assert first.status == "handled" and again.status == "duplicate"
    assert board(vs).ply == 1 and str(board(vs).moves[0]) == "@0+"


def test_level_one_says_why_it_played(vs):
    vs.send(A, "trax challenge computer alice apple -level=1")
    (mail,) = run_jobs(vs)
    text = text_of(mail)
    assert "(computer:" in text
    assert all(len(line) <= 78 for line in text.splitlines())


@pytest.mark.parametrize(("subject", "why"), [
    ("trax challenge alice computer", "needs your password"),
    ("trax challenge alice bob apple -level=2", "-level is for a game against the computer"),
    ("trax challenge computer computer apple", "wrong userid or password"),  # nobody has its password
])
def test_challenges_that_cannot_be(vs, subject, why):
    (reply,) = vs.send(A, subject)
    assert is_error(reply)
    assert why in " ".join(text_of(reply).split())
    assert vs.pipeline.store.board(101) is None


def test_a_chat_to_the_computer_gets_a_polite_word(vs):
    vs.send(A, "trax challenge alice computer apple")
    replies = vs.send(A, "trax chat 101 alice apple", "Good luck!")
    polite = [m for m in replies if "read no chat" in " ".join(text_of(m).split())]
    assert len(polite) == 1 and to_of(polite[0]) == A


def test_the_computer_is_unrated_when_the_server_says_so(tmp_path, clock):
    from pbm.app.pipeline import Pipeline
    from pbm.config import load_config
    from pbm.domain.store import Store

    path = tmp_path / "pbm.toml"
    path.write_text('[server]\naddress = "pbm@pbm.test"\ndatabase = "pbm.sqlite3"\n[computer]\nrated = "no"\n')
    config = load_config(path)
    store = Store(config.server.database)
    try:
        mail = Mailbox(Pipeline(store, config), clock)
        mail.send(A, "signup alice apple")
        computer.ensure_account(store, config, clock.now)
        mail.send(A, "trax challenge alice computer apple")
        assert store.board(101).rated == 0 and store.board(101).level == config.computer.default_level
    finally:
        store.close()


def test_help_computer_tells_the_levels(vs):
    (reply,) = vs.send(A, "help computer")
    text = text_of(reply)
    assert "-level=4" in text and "computer" in str(reply["Subject"])
    assert all(len(line) <= 78 for line in text.splitlines())


def test_a_person_who_holds_the_userid_keeps_it(players):
    mail: Mailbox = players
    mail.send("c@example.org", "signup computer secret")
    assert computer.ensure_account(mail.pipeline.store, mail.pipeline.config, mail.clock.now) is None
    (reply,) = mail.send(A, "trax challenge alice computer apple -level=2")
    assert is_error(reply)  # -level is for the computer, and this one is a person


def test_standings_keep_games_against_the_computer_apart(vs):
    vs.send(A, "minitrax challenge computer alice apple -level=1")
    run_jobs(vs)
    vs.send(A, f"minitrax move 101 alice apple {board(vs).legal_moves()[0]}")  # a game resigned before
    run_jobs(vs)  # both players moved is cancelled, not lost
    vs.send(A, "minitrax move 101 alice apple resign")
    (reply,) = vs.send(A, "minitrax standings")
    text = text_of(reply)
    head, _, versus = text.partition("Against the computer")
    assert versus and "alice" in versus and "0-1-0" in versus
    assert "computer" not in head.split("Established players")[1]  # never listed among people
    assert all(len(line) <= 78 for line in text.splitlines())


def test_a_director_can_enter_the_computer_and_no_one_else(vs):
    vs.send(A, "trax tournament create AUTUMN alice apple -format=roundrobin")
    (refused,) = vs.send(A, "trax tournament add AUTUMN alice apple bob")
    assert is_error(refused) and "own password" in " ".join(text_of(refused).split())
    (done,) = vs.send(A, "trax tournament add AUTUMN alice apple computer")
    assert not is_error(done), text_of(done)
    vs.send("bob@example.org", "trax tournament join AUTUMN bob banana")
    vs.send(A, "trax tournament join AUTUMN alice apple")
    vs.send(A, "trax tournament start AUTUMN alice apple")
    store = vs.pipeline.store
    machine = store.find_user("computer")
    boards = [b for b in store.boards_of([machine.id]) if b.tournament]
    assert len(boards) == 2  # a round robin of three: it plays both others
    # where it moves first, a job waits for it; its games are rated apart when they end
    firsts = [b.number for b in boards if b.white_id == machine.id]
    assert {j.board for j in open_jobs(vs)} == set(firsts)


@pytest.mark.parametrize("level", [2, 4])
def test_a_draw_offered_on_the_players_own_turn_is_judged_from_the_computers_side(vs, level):
    from pbm.ai import ThinkRequest
    from pbm.server.searcher import accepts_draw

    vs.send(A, f"trax challenge computer alice apple -level={level}")
    run_jobs(vs, budget=0.05)
    vs.send(A, "trax move 101 alice apple propose")  # alice's turn: she offers instead of moving
    (row,) = [j for j in open_jobs(vs) if j.pending == "draw"]
    job = computer.job_for(vs.pipeline.context(vs.clock.now), row)
    assert job is not None and not job.computer_to_move
    request = ThinkRequest(game_type="trax", moves=job.moves, level=level, budget=0.1)
    answer = accepts_draw(job, request)
    mails = run_jobs(vs, budget=0.1)
    text = " ".join(text_of(mails[0]).split())
    if level == 2:  # the evaluation alone: the same answer every time
        assert ("computer accepted the draw" in text) is answer
        assert ("computer declined the draw offer" in text) is (not answer)
    else:  # a timed search: answered one way or the other, once
        assert ("computer accepted the draw" in text) != ("computer declined the draw offer" in text)
    assert open_jobs(vs) == []


def active_against_computer(mail: Mailbox, userid: str) -> int:
    return mail.pipeline.store.computer_games_of(mail.pipeline.store.find_user(userid).id)


def test_a_sixth_game_at_once_against_the_computer_is_refused(vs):
    assert vs.pipeline.config.computer.games_per_player == 5
    for game in ["trax", "trax", "minitrax", "8x8trax", "trax"]:  # every game type counts
        (reply,) = vs.send(A, f"{game} challenge alice computer apple -level=2")
        assert not is_error(reply), text_of(reply)
    assert active_against_computer(vs, "alice") == 5
    (refused,) = vs.send(A, "minitrax challenge computer alice apple -level=1")
    assert is_error(refused)
    said = " ".join(text_of(refused).split())
    assert "alice already plays 5 games against computer, the most at once" in said
    assert "finish or resign one of them before challenging computer again" in said
    assert vs.pipeline.store.board(106) is None and active_against_computer(vs, "alice") == 5
    # bob is not held back by alice's games
    (bobs,) = vs.send("bob@example.org", "trax challenge bob computer banana")
    assert not is_error(bobs), text_of(bobs)
    # once one of alice's games is over, she may start another
    vs.send(A, "trax move 101 alice apple resign")  # before both moved: cancelled
    assert active_against_computer(vs, "alice") == 4
    (again,) = vs.send(A, "minitrax challenge computer alice apple -level=1")
    assert not is_error(again), text_of(again)
    assert active_against_computer(vs, "alice") == 5


def test_games_against_the_computer_count_in_the_players_own_limit(vs):
    vs.send(A, "trax limit alice apple 1")
    (first,) = vs.send(A, "trax challenge alice computer apple")
    assert not is_error(first), text_of(first)
    (refused,) = vs.send(A, "trax challenge alice bob apple")
    assert is_error(refused)
    assert "alice already plays 1 active trax games" in " ".join(text_of(refused).split())


def test_no_cap_on_games_against_the_computer_when_the_server_says_so(tmp_path, clock):
    from pbm.app.pipeline import Pipeline
    from pbm.config import load_config
    from pbm.domain.store import Store

    path = tmp_path / "pbm.toml"
    path.write_text('[server]\naddress = "pbm@pbm.test"\ndatabase = "pbm.sqlite3"\n'
                    "[computer]\ngames_per_player = 0\n")
    config = load_config(path)
    store = Store(config.server.database)
    try:
        mail = Mailbox(Pipeline(store, config), clock)
        mail.send(A, "signup alice apple")
        computer.ensure_account(store, config, clock.now)
        for _ in range(7):
            (reply,) = mail.send(A, "trax challenge alice computer apple")
            assert not is_error(reply), text_of(reply)
        assert store.computer_games_of(store.find_user("alice").id) == 7
    finally:
        store.close()
