"""Game commands: challenges, moves, offers, queues, observers, listings."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pbm.domain import challenges, computer, consent, luck, postage
from pbm.domain.accounts import game_addresses, live_user, login
from pbm.domain.boards import (
    Game,
    checked_terms,
    load_game,
    load_games,
    member_game,
    new_board,
    player_game,
    position_of,
    selected,
)
from pbm.domain.context import Context
from pbm.domain.digests import by_urgency
from pbm.domain.refusals import IllegalMoveReplyError, PbmError, UnreadMoveError
from pbm.domain.store.records import BoardRecord, User
from pbm.domain.turns import (
    Turn,
    answer,
    check_number,
    confirm,
    propose,
    queue,
    require_active,
    require_turn,
    resign_or_queue,
    submit,
    trial,
    try_move,
)
from pbm.grammar import WrittenMove
from pbm.grammar.account_commands import AllShowArgs, LoginArgs
from pbm.grammar.game_commands import (
    BoardArgs,
    BoardLoginArgs,
    ChallengeArgs,
    GamesArgs,
    LimitArgs,
    MoveArgs,
    NotifyArgs,
    PreviewArgs,
    QueueArgs,
    SeekArgs,
    ShowArgs,
    ShowAsArgs,
    SubscribeArgs,
)
from pbm.trax import Board, TraxError, get_variant

from ..notices import answerable, board_mail, move_by_reply, turn_mails, watchers
from ..request import Reply, Request, TokenFor
from ..views import board_view, row_view
from .computer_moves import chat_answer

#: A games list has this many lines for each board a show may draw.
GAMES_PER_SHOW = 10


def challenge(req: Request[ChallengeArgs]) -> list[Reply]:
    """With the password of one of the two players, a new board; without
    it, an invitation to both (see :mod:`pbm.domain.challenges`)."""
    a = req.args
    ctx, game_name = req.ctx, req.game
    author = None
    if a.password is not None:
        author = challenges.challenger(ctx, (a.white, a.black), a.password).userid
    white, black = live_user(ctx, a.white), live_user(ctx, a.black)
    level = computer.check_challenge(ctx, white, black, a.level, a.password is not None)
    challenges.check_players(ctx, game_name, white, black)
    checked_terms(ctx, a.terms)
    if a.password is None:  # an invitation: the players hear of it, within their share of mail from others
        challenges.invite(ctx, white, black)
        to = [*game_addresses(req.store, white), *game_addresses(req.store, black)]
        sent = postage.to_others(ctx, None, to)
        return [Reply("replies/invitation.txt", tuple(dict.fromkeys([*sent.to, req.sender])), {
            "title": get_variant(game_name).title, "game": game_name, "white": white.userid,
            "black": black.userid, "sender": req.sender, "options": _options(req),
        }, kind="others")]
    rated = a.terms.rated and (level is None or ctx.config.computer.rated == "apart")
    other = black if white.userid == author else white
    challenged = consent.waits_for(ctx, other, level)
    number = new_board(ctx, game_name, white, black, replace(a.terms, rated=rated), level=level,
                       challenged=challenged)
    mail = board_mail(ctx, load_game(ctx, number), template="replies/new-board.txt", comment=req.comment,
                      author=author)
    # whoever sent the challenge hears that it worked, player or not; from an
    # address the mail does not go to, his copy carries no token and cannot
    # be answered by Reply, so it does not say so
    if req.sender.lower() in (a.lower() for a in mail.to):
        return [mail]
    if mail.context["view"]["by_reply"] is None:
        return [replace(mail, to=(*mail.to, req.sender))]
    return [mail, replace(mail, to=(req.sender,), tokens={},
                          context={**mail.context, "view": {**mail.context["view"], "by_reply": None}})]


def _options(req: Request[Any]) -> list[str]:
    """The options of a challenge as it was written."""
    return [w for w in req.command.text.split() if w.startswith("-")]


def refuse_unread(req: Request[MoveArgs] | Request[QueueArgs], game: Game) -> None:
    """Refuse a word in a move's place that read as no move, now that its
    sender logged in: named, unless it holds a password of the line (see
    :class:`pbm.grammar.UnreadMove`); the reply shows the board."""
    refused = req.command.unread_refusal()
    if refused is not None:
        raise UnreadMoveError(refused.code, refused.params, view_game=game)


def move(req: Request[MoveArgs]) -> list[Reply]:
    """``move`` and ``submit``: a tile, or one of the move words."""
    a = req.args
    game, user = player_game(req.ctx, a.board, a.userid, a.password, req.game)
    refuse_unread(req, game)
    require_active(game)
    written = a.move
    assert isinstance(written, WrittenMove)  # refuse_unread refused any other
    if req.command.name == "submit":
        if not written.is_tile:
            raise IllegalMoveReplyError("submit-tile", {"word": written.word}, view_game=game)
        check_number(game, written)
        require_turn(game, user)
        position, played = trial(game, tile_text(game, written))
        submit(req.ctx, game, user, played)
        view = board_view(req.ctx, game, position=position, viewer=user, trial=True)
        return [req.to_sender("replies/submitted.txt", view=view, move=played, userid=user.userid)]
    return play_written(req.ctx, req.sender, game, user, written, req.comment)


def tile_text(game: Game, written: WrittenMove) -> str:
    """The tile a player wrote, as the engine reads it (in LuckyTrax, the
    drawn tile at the cell named)."""
    return luck.resolve(game, written) if luck.current_draw(game) is not None else str(written.notation)


def play_written(ctx: Context, sender: str, game: Game, user: User, written: WrittenMove, comment: str) -> list[Reply]:
    """A player's move on an active board, or one of the move words: what
    ``move`` does, and a reply to a board mail."""
    turn = Turn()
    if not written.is_tile:
        if written.word == "resign":
            return _resign(ctx, sender, game, user, turn, comment)
        if written.word in ("propose", "undo"):
            propose(ctx, game, user, "draw" if written.word == "propose" else "undo", turn)
        else:
            answer(ctx, game, user, accept=(written.word == "accept"), turn=turn)
        return turn_mails(ctx, game, turn, comment, user)
    check_number(game, written)
    require_turn(game, user)
    try_move(ctx, game, user, tile_text(game, written), turn)
    return turn_mails(ctx, game, turn, comment, user)


def confirm_move(req: Request[BoardLoginArgs]) -> list[Reply]:
    a = req.args
    game, user = player_game(req.ctx, a.board, a.userid, a.password, req.game)
    require_active(game)
    turn = Turn()
    confirm(req.ctx, game, user, turn)
    return turn_mails(req.ctx, game, turn, req.comment, user)


def _resign(ctx: Context, sender: str, game: Game, user: User, turn: Turn, comment: str) -> list[Reply]:
    if resign_or_queue(ctx, game, user, turn):
        view = board_view(ctx, game, viewer=user)
        return [Reply("replies/queued.txt", (sender,), {"view": view, "line": "resign", "userid": user.userid})]
    return turn_mails(ctx, game, turn, comment, user)


def resign(req: Request[BoardLoginArgs]) -> list[Reply]:
    a = req.args
    game, user = player_game(req.ctx, a.board, a.userid, a.password, req.game)
    require_active(game)
    return _resign(req.ctx, req.sender, game, user, Turn(), req.comment)


def queue_moves(req: Request[QueueArgs]) -> list[Reply]:
    a = req.args
    game, user = player_game(req.ctx, a.board, a.userid, a.password, req.game)
    refuse_unread(req, game)
    require_active(game)
    if game.board.variant.drawn:
        raise PbmError("queue-drawn", {"title": game.board.variant.title}, view_game=game)
    words = [m.text for m in a.moves if isinstance(m, WrittenMove)]  # refuse_unread refused any other
    turn = Turn()
    if queue(req.ctx, game, user, words, turn):
        return turn_mails(req.ctx, game, turn, req.comment, user)
    view = board_view(req.ctx, game, viewer=user)
    return [req.to_sender("replies/queued.txt", view=view, line=" ".join(words), userid=user.userid)]


def chat(req: Request[BoardLoginArgs]) -> list[Reply]:
    """A word to the players and observers of a board, from one of them."""
    a = req.args
    game, user = member_game(req.ctx, a.board, a.userid, a.password, req.game)
    everyone = watchers(req.ctx, game, results_only=False)
    sent = postage.to_others(req.ctx, user.id, everyone)  # counted like any mail to others
    to = tuple(x for x in everyone if x in sent.to or x.lower() == req.sender.lower())
    return [Reply("replies/chat.txt", to,
                  {"view": board_view(req.ctx, game), "from": user.userid, "comment": req.comment},
                  kind="others"),
            *chat_answer(req.ctx, req.sender, game.number)]


def show(req: Request[ShowArgs]) -> list[Reply]:
    a = req.args
    ctx = req.ctx
    views = []
    named = a.boards[: req.config.limits.boards_per_show]  # no more are drawn: none more loaded
    ctx.spend_drawing(len(named))
    for ref in named:
        game, position = position_of(ctx, ref, req.game)
        views.append(board_view(ctx, game, position=position, observers=True))
    users = [live_user(ctx, u) for u in a.userids]
    rows = selected(ctx, req.game, users, a.selection, "active") if users else []
    return [_show(req, views, rows, [u.userid for u in users], get_variant(req.game).title,
                  named=len(a.boards))]


def _show(req: Request[Any], views: list[dict[str, Any]], rows: list[BoardRecord], userids: list[str], title: str,
          viewer: User | None = None, named: int | None = None) -> Reply:
    """The show reply: the boards named (``named`` of them asked for, when
    more than ``views``), then those selected, at most ``[limits]
    boards_per_show`` of them drawn.  One board in play shown to its player
    to move, at an address of his, carries his reply token."""
    most = req.config.limits.boards_per_show
    shown = views[:most]
    loaded = rows[: max(most - len(shown), 0)]
    req.ctx.spend_drawing(len(loaded))
    shown += [board_view(req.ctx, g, viewer=viewer, observers=True) for g in load_games(req.ctx, loaded)]
    left_out = max(named or 0, len(views)) + len(rows) - len(shown)
    tokens: dict[str, TokenFor] = {}
    if len(shown) == 1 and shown[0]["active"]:  # the player to move asked: he may answer it by Reply
        tokens = move_by_reply(req.ctx, load_game(req.ctx, shown[0]["number"]), (req.sender,))
        shown = [answerable(shown[0], tokens)]
    return Reply("replies/show.txt", (req.sender,), {"views": shown, "title": title, "userids": userids,
                                                     "left_out": left_out}, tokens=tokens)


def showas(req: Request[ShowAsArgs]) -> list[Reply]:
    a = req.args
    ctx = req.ctx
    user = login(ctx, a.userid, a.password)
    views = []
    named = a.boards[: req.config.limits.boards_per_show]
    ctx.spend_drawing(len(named))
    for ref in named:
        game, position = position_of(ctx, ref, req.game)
        views.append(board_view(ctx, game, position=position, viewer=user if game.colour_of(user) else None,
                                observers=True))
    rows = [] if a.boards else selected(ctx, req.game, [user], a.selection, "active")
    return [_show(req, views, rows, [user.userid], get_variant(req.game).title, viewer=user,
                  named=len(a.boards))]


def all_show(req: Request[AllShowArgs]) -> list[Reply]:
    a = req.args
    user = live_user(req.ctx, a.userid)
    return [_show(req, [], selected(req.ctx, None, [user], a.selection, "active"), [user.userid], "All")]


def games_table(req: Request[GamesArgs]) -> list[Reply]:
    """The table of boards; a userid nobody has is a player with no games
    (as the old server answered), not an error."""
    a = req.args
    users, unknown = [], []
    for userid in a.userids:
        row = req.store.find_user(userid.key)
        if row is None or row.deleted_at is not None:
            unknown.append(str(userid))
        else:
            users.append(row)
    found = selected(req.ctx, req.game, users, a.selection, "all") if users or not unknown else []
    if a.selection == "next":
        found = by_urgency(req.ctx, found)
    most = GAMES_PER_SHOW * req.config.limits.boards_per_show
    rows = [row_view(req.store, row) for row in found[:most]]
    return [req.to_sender("replies/games.txt", rows=rows, title=get_variant(req.game).title,
                          selection=a.selection or "all", left_out=len(found) - len(rows),
                          userids=[u.userid for u in users], unknown=unknown)]


def preview(req: Request[PreviewArgs]) -> list[Reply]:
    a = req.args
    if a.board is None:
        board = Board(req.game)
        base = None
    else:
        game, position = position_of(req.ctx, a.board, req.game)
        board = (position or game.board).copy()
        base = str(a.board)
    played = []
    for written in a.moves:
        text = written.text
        try:
            played.append(str(board.play(text)))
        except TraxError as exc:
            raise IllegalMoveReplyError("preview-refused", {"move": text, "number": len(played) + 1, "problem": exc},
                                        position=board) from None
    return [req.to_sender("replies/preview.txt", board=board, moves=played, base=base,
                          title=get_variant(req.game).title, outcome=board.outcome())]


def record(req: Request[BoardArgs]) -> list[Reply]:
    game = load_game(req.ctx, req.args.board, game=req.game)
    return [req.to_sender("replies/record.txt", view=board_view(req.ctx, game))]


def subscribe(req: Request[SubscribeArgs]) -> list[Reply]:
    """``subscribe`` and ``unsubscribe``: one board, or every board of the game type."""
    a = req.args
    ctx = req.ctx
    user = login(ctx, a.userid, a.password)
    board = None if a.board == "all" else a.board
    if board is not None:
        board = load_game(ctx, board, game=req.game).number
    if req.command.name == "subscribe":
        req.store.add_watch(user.id, req.game, board, "subscribe")
        if board is None:
            for row in req.store.boards_of_game(req.game):
                if row.status == "active":
                    req.store.add_watch(user.id, req.game, row.number, "subscribe")
    else:
        req.store.remove_watch(user.id, req.game, board)
    return [req.to_sender("replies/subscribed.txt", userid=user.userid, board=board,
                          on=req.command.name == "subscribe", title=get_variant(req.game).title)]


def notify(req: Request[NotifyArgs]) -> list[Reply]:
    a = req.args
    user = login(req.ctx, a.userid, a.password)
    boards = [load_game(req.ctx, b, game=req.game).number for b in a.boards]
    for number in boards:
        req.store.add_watch(user.id, req.game, number, "notify")
    if not boards:
        req.store.add_watch(user.id, req.game, None, "notify")
    return [req.to_sender("replies/notify.txt", userid=user.userid, boards=boards,
                          title=get_variant(req.game).title)]


def accept_challenges(req: Request[LoginArgs]) -> list[Reply]:
    """``accept`` and ``reject``: challenges of this game type, or not."""
    a = req.args
    user = login(req.ctx, a.userid, a.password)
    accepting = req.command.name == "accept"
    req.store.set_preference(user.id, req.game, accepting=int(accepting))
    return [req.to_sender("replies/preference.txt", userid=user.userid, title=get_variant(req.game).title,
                          setting="accepting", value=accepting)]


def limit_or_seek(req: Request[LimitArgs | SeekArgs]) -> list[Reply]:
    a = req.args
    user = login(req.ctx, a.userid, a.password)
    column, value = ("game_limit", a.limit) if isinstance(a, LimitArgs) else ("seeking", a.opponents)
    if value is not None:
        req.store.set_preference(user.id, req.game, **{column: value})
    pref = req.store.preference(user.id, req.game)
    return [req.to_sender("replies/preference.txt", userid=user.userid, title=get_variant(req.game).title,
                          setting=req.command.name, value=getattr(pref, column),
                          active=req.store.count_active(user.id, req.game))]
