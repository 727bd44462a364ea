"""The computer's turns: a move or an answer from the searcher, applied to
its board like a player's (the same turn functions, the same board mail),
and what a chat to it gets back."""

from __future__ import annotations

from pbm.domain import computer
from pbm.domain.boards import load_game
from pbm.domain.context import Context
from pbm.domain.events import ComputerReason, Moved
from pbm.domain.store.records import ComputerJob
from pbm.domain.turns import Turn, answer, try_move

from ..notices import turn_mails
from ..request import Reply


def computer_turn(ctx: Context, job: ComputerJob, reply: computer.Answer) -> tuple[list[Reply], str]:
    """Apply what the searcher answered for ``job`` (when the board still
    wants it); the mails, and the job's outcome."""
    game = load_game(ctx, job.board)
    if not computer.still_wanted(game, job):
        return [], "stale"
    me = computer.computer_in(game)
    assert me is not None
    turn = Turn()
    if job.pending:
        accept = bool(reply.accept)
        answer(ctx, game, me, accept=accept, turn=turn)
        outcome = ("accepted " if accept else "declined ") + job.pending
    else:
        assert reply.move is not None, "a move job answered without a move"
        try_move(ctx, game, me, reply.move, turn)
        if reply.reason and game.row.level == 1:  # the teaching partner says why
            at = next((i for i, e in enumerate(turn.events) if isinstance(e, Moved)), 0)
            turn.events.insert(at + 1, ComputerReason(me.userid, reply.reason, tuple(reply.cells)))
        outcome = f"played {reply.move}"
    return turn_mails(ctx, game, turn, "", me), outcome


def chat_answer(ctx: Context, sender: str, number: int) -> list[Reply]:
    """A chat on a board the computer plays: it answers the sender, politely."""
    game = load_game(ctx, number)
    me = computer.computer_in(game)
    if me is None:
        return []
    return [Reply("replies/computer-chat.txt", (sender,), {"number": game.number, "userid": me.userid})]
