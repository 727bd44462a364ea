"""Mail about what happened: board mail to players and observers, a queue
that was cancelled or failed, a tournament's rounds and results, an account
lock, a one-time code.  Each function turns what the domain reports into
:class:`Reply` objects (data: the words are in the templates)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pbm.domain import limits
from pbm.domain.accounts import account_addresses, game_addresses
from pbm.domain.boards import Game, load_game
from pbm.domain.bounces import HoldStarted, ProbeWanted, opponents_told
from pbm.domain.context import Context
from pbm.domain.digests import takes_digest, to_move, urgency
from pbm.domain.events import BoardEvent
from pbm.domain.refusals import PbmError
from pbm.domain.security import Confirmations, IssuedCode, LockStarted
from pbm.domain.store.records import User
from pbm.domain.times import shown, span
from pbm.domain.tournaments import Event, LateRound, NotStarted, Progress, reload
from pbm.domain.turns import QueueNotice, Turn

from .request import CodeFor, Reply, TokenFor
from .views import board_view, event_context, round_pairings


def watchers(ctx: Context, game: Game, *, results_only: bool) -> tuple[str, ...]:
    """Addresses of a board's players and observers (notify-watchers get
    results only)."""
    store = ctx.store
    out: list[str] = []
    for user in (game.white, game.black):
        out.extend(game_addresses(store, user))
    for w in store.watchers_of(game.number, game.row.game):
        if w.kind == "notify" and not results_only:
            continue
        user = store.user_by_id(w.user_id)
        if user.id in (game.white.id, game.black.id) or user.deleted_at:
            continue
        out.extend(game_addresses(store, user))
    return tuple(dict.fromkeys(out))


def move_by_reply(ctx: Context, game: Game, addresses: Iterable[str]) -> dict[str, TokenFor]:
    """The reply tokens that let the player to move answer a mail about
    ``game`` by pressing Reply: one for each of ``addresses`` that is one of
    his own (confirmed) addresses, while the game goes on, he is a person
    and replies move on this server; empty when none is (the mail then
    must not tell him to reply: ``view.by_reply`` stays None)."""
    if not (ctx.config.server.reply_moves and game.active) or game.to_move.computer:
        return {}
    mover = game.to_move
    own = {a.lower() for a in game_addresses(ctx.store, mover)}
    return {a: TokenFor(mover.id, game.number, game.board.ply) for a in addresses if a.lower() in own}


def answerable(view: dict[str, Any], tokens: Mapping[str, object], form: str = "board") -> dict[str, Any]:
    """``view`` as a mail shows it whose copies to the player to move carry
    his reply token (``tokens``: theirs, empty when none does): its next
    step tells him to reply (``form``: with the move, or a digest's lines)."""
    return {**view, "by_reply": form} if tokens else view


def board_mail(ctx: Context, game: Game, *, events: Sequence[BoardEvent] | None = None, comment: str = "",
               author: str | None = None, template: str = "replies/board.txt") -> Reply:
    """The board as it stands, to its players and observers (to those who
    follow results only once it is finished); ``comment`` is what ``author``
    wrote with the command.  While the game goes on, each player's copy
    carries a reply token (and the mail tells the player to move to reply
    when his copies carry his), and the player to move does not get the
    mail of an opponent's move if they take a daily digest; a finished
    game's mail carries its record."""
    to = watchers(ctx, game, results_only=not game.active)
    tokens: dict[str, TokenFor] = {}
    if game.active:
        if template == "replies/board.txt" and takes_digest(game.to_move):
            held = set(game_addresses(ctx.store, game.to_move))
            to = tuple(a for a in to if a not in held)
        for user in (game.white, game.black):
            for address in game_addresses(ctx.store, user):
                tokens[address] = TokenFor(user.id, game.number, game.board.ply)
    view = answerable(board_view(ctx, game), move_by_reply(ctx, game, to))
    return Reply(
        template, to,
        {"view": view, "events": events or [], "comment": comment, "author": author},
        tokens=tokens, record=None if game.active else f"{game.row.game}-{game.number}.txt",
    )


def queue_notice(ctx: Context, notice: QueueNotice) -> Reply:
    return Reply(f"replies/queue-{notice.kind}.txt", game_addresses(ctx.store, notice.user), notice.context)


def turn_mails(ctx: Context, game: Game, turn: Turn, comment: str, author: User) -> list[Reply]:
    """What a turn sends: the board mail (with the comment of ``author``, who
    sent the command), private queue notices, then what a tournament did
    because the game ended."""
    return [board_mail(ctx, game, events=turn.events, comment=comment, author=author.userid),
            *(queue_notice(ctx, n) for n in turn.notices),
            *tournament_news(ctx, turn.progress)]


# ----------------------------------------------------------------------------
# tournaments


def _everyone(ctx: Context, event: Event) -> dict[int, User]:
    """Entrants still playing, and the director."""
    store = ctx.store
    people = {e.user_id: store.user_by_id(e.user_id) for e in event.entrants if e.withdrawn_at is None}
    people.setdefault(event.row.director_id, store.user_by_id(event.row.director_id))
    return people


def event_addresses(ctx: Context, event: Event) -> tuple[str, ...]:
    """The game-mail addresses of the entrants still playing and the director."""
    to: list[str] = []
    for person in _everyone(ctx, event).values():
        to.extend(game_addresses(ctx.store, person))
    return tuple(dict.fromkeys(to))


def round_mails(ctx: Context, event: Event, numbers: tuple[int, ...], why: str) -> list[Reply]:
    """Board mail for every new board, then every entrant their boards and the table."""
    mails = []
    mine: dict[int, list[dict[str, Any]]] = {}
    for number in numbers:
        game = load_game(ctx, number)
        mails.append(board_mail(ctx, game, template="replies/new-board.txt"))
        for colour, user in (("white", game.white), ("black", game.black)):
            mine.setdefault(user.id, []).append({
                "label": game.row.label, "number": number, "colour": colour,
                "opponent": game.opponent(user).userid, "moves_first": colour == "white",
            })
    context = {**event_context(ctx.store, event), **round_pairings(ctx.store, event, numbers)}
    for uid, user in _everyone(ctx, event).items():
        mails.append(Reply("replies/tournament-round.txt", game_addresses(ctx.store, user),
                           {**context, "why": why, "userid": user.userid, "boards": mine.get(uid, [])}))
    return mails


def final_mails(ctx: Context, event: Event) -> list[Reply]:
    context = event_context(ctx.store, event)
    people = _everyone(ctx, event)
    for e in event.entrants:  # withdrawn players get the final table too
        people.setdefault(e.user_id, ctx.store.user_by_id(e.user_id))
    return [Reply("replies/tournament-final.txt", game_addresses(ctx.store, user),
                  {**context, "userid": user.userid})
            for user in people.values()]


def tournament_news(ctx: Context, news: Sequence[Progress | NotStarted]) -> list[Reply]:
    """The mail of what tournaments did, in order."""
    mails: list[Reply] = []
    for item in news:
        event = reload(ctx, item.tournament_id)
        if isinstance(item, NotStarted):
            director = ctx.store.user_by_id(event.row.director_id)
            mails.append(Reply("replies/tournament-not-started.txt", game_addresses(ctx.store, director),
                               {**event_context(ctx.store, event), "refusal": item.refusal}))
        elif item.why == "finished":
            mails += final_mails(ctx, event)
        else:
            mails += round_mails(ctx, event, item.boards, item.why)
    return mails


def late_round_mail(ctx: Context, late: LateRound) -> Reply:
    """The director hears of a knockout round past its deadline."""
    event = reload(ctx, late.tournament_id)
    director = ctx.store.user_by_id(event.row.director_id)
    return Reply("replies/tournament-late.txt", game_addresses(ctx.store, director), {
        **event_context(ctx.store, event), "deadline": shown(late.deadline), "round": late.round,
        "late": [{"label": b.label, "number": b.number} for b in late.boards]})


# ----------------------------------------------------------------------------
# accounts


def lock_notice(ctx: Context, lock: LockStarted) -> Reply:
    """The owner hears that wrong passwords from an address blocked it."""
    return Reply("replies/account-locked.txt", tuple(ctx.store.confirmed_addresses(lock.user.id)), {
        "userid": lock.user.userid, "failures": lock.failures, "until": shown(lock.until), "sender": lock.sender,
    })


def bounce_notices(ctx: Context, hold: HoldStarted) -> list[Reply]:
    """Each opponent of a player whose mail bounced hears why that player's
    clock stopped (in our words: nothing of the report is quoted)."""
    return [Reply("replies/bounce-notice.txt", game_addresses(ctx.store, opponent),
                  {"userid": hold.user.userid, "opponent": opponent.userid, "boards": boards,
                   "until": shown(hold.until)})
            for opponent, boards in opponents_told(ctx, hold)]


def probe_mail(probe: ProbeWanted) -> Reply:
    """A short test mail to an address our mail bounced from: only if it
    bounces too is the player's clock held."""
    return Reply("replies/probe.txt", (probe.address,), {"userid": probe.user.userid})


def digest_mail(ctx: Context, user: User) -> Reply | None:
    """A player's daily digest: every board where it is their turn, most
    urgent first, each with its board, and one reply token for them all;
    None when there is none."""
    rows = to_move(ctx, user)
    if not rows:
        return None
    boards: list[dict[str, Any]] = []
    shown: list[tuple[int, int]] = []
    for row in rows:
        game = load_game(ctx, row.number)
        u = urgency(ctx, row)
        view = answerable(board_view(ctx, game), move_by_reply(ctx, game, game_addresses(ctx.store, user)),
                          "digest")
        boards.append({"view": view, "to_nag": span(u.to_nag), "to_forfeit": span(u.to_forfeit)})
        shown.append((game.number, game.board.ply))
    addresses = game_addresses(ctx.store, user)
    token = TokenFor(user.id, boards=tuple(shown))
    return Reply("replies/digest.txt", addresses, {"userid": user.userid, "boards": boards},
                 tokens={a: token for a in addresses})


def address_reply(ctx: Context, user: User, template: str, sender: str,
                  asked: Confirmations | None = None) -> Reply:
    """The addresses of an account, to its confirmed ones and the sender;
    when the sender's own address waits for confirmation, its code comes in
    this reply (and pressing Reply on it confirms)."""
    rows = ctx.store.address_rows(user.id)
    mine = asked.sender_code if asked is not None else None
    return Reply(template, account_addresses(ctx.store, user, sender), {
        "userid": user.userid,
        "addresses": [r.address for r in rows if r.confirmed],
        "waiting": [r.address for r in rows if not r.confirmed],
        "code": mine.seal if mine is not None else None,
        "expires": shown(mine.expires) if mine is not None else None,
        "asked_today": list(asked.asked_today) if asked is not None else [],
        "sender": sender,
    }, tokens={sender: CodeFor(mine.code_id, mine.seal)} if mine is not None else {})


def refused_notice(ctx: Context, user_id: int, command: str, why: PbmError) -> list[Reply]:
    """A player whose command, from one of his own addresses, was not run
    for a reason that may not be his doing (``why``: that address blocked
    by wrong passwords, a lock) hears of it at his other confirmed
    addresses, once a day at most (the address it came from has the error
    reply)."""
    others = tuple(a for a in ctx.store.confirmed_addresses(user_id) if a.lower() != (ctx.sender or "").lower())
    if not others or not limits.spend(ctx, "refused-notice", str(user_id), 1):
        return []  # the sender, one of his addresses, has the error reply already
    user = ctx.store.user_by_id(user_id)
    return [Reply("replies/command-refused.txt", others, {
        "userid": user.userid, "sender": ctx.sender or "", "command": command, "why": why})]


def reset_code_mail(code: IssuedCode, sender: str) -> Reply:
    """A password-reset code to one of the account's confirmed addresses
    (each has a code of its own)."""
    return Reply("replies/reset-code.txt", (code.address,), {
        "userid": code.user.userid, "code": code.seal, "sender": sender, "expires": shown(code.expires),
    })


def confirmation_mail(code: IssuedCode, sender: str) -> Reply:
    """A code to the address it confirms; a reply to it confirms too."""
    return Reply("replies/confirm-address.txt", (code.address,), {
        "userid": code.user.userid, "code": code.seal, "sender": sender, "expires": shown(code.expires),
    }, tokens={code.address: CodeFor(code.code_id, code.seal)}, kind="confirm")
