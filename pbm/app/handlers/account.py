"""Account commands: signing up, addresses, passwords, vacations, leaving,
messages, help."""

from __future__ import annotations

from datetime import timedelta

from pbm.domain import security
from pbm.domain.accounts import (
    account_addresses,
    checked_addresses,
    game_addresses,
    live_user,
    login,
    new_password_hash,
)
from pbm.domain.boards import load_games, opponents_in_play, selected
from pbm.domain.clocks import book_vacation
from pbm.domain.refusals import DailyLimitError, NotAvailableError, PbmError, UseridTakenError
from pbm.domain.results import forfeit
from pbm.domain.store import Row
from pbm.domain.times import shown
from pbm.domain.tournaments import Progress
from pbm.trax import VARIANTS

from ..help import UnknownTopicError, help_context, resolve_topics
from ..notices import board_mail, confirmation_mail, reset_code_mail, tournament_news
from ..request import Reply, Request


def _addresses_reply(req: Request, user: Row, template: str) -> Reply:
    rows = req.store.address_rows(user["id"])
    return Reply(template, account_addresses(req.store, user, req.sender), {
        "userid": user["userid"],
        "addresses": [r["address"] for r in rows if r["confirmed"]],
        "waiting": [r["address"] for r in rows if not r["confirmed"]],
    })


def signup(req: Request) -> list[Reply]:
    a = req.args
    cap = req.config.limits.signups_per_sender_per_day
    day = req.now.date().isoformat()
    if req.store.daily_count("signup", req.sender, day) >= cap:
        raise DailyLimitError(f"{cap} accounts have been opened from your address today, the most a day")
    if req.store.find_user(a.userid.key) is not None:
        raise UseridTakenError(f"the userid {a.userid} is taken; choose another")
    req.store.add_daily_count("signup", req.sender, day)
    addresses = checked_addresses(a.addresses, req.sender)
    user = req.store.create_user(a.userid.typed, a.userid.key, new_password_hash(req.ctx, a.password), addresses,
                                 req.now)
    codes = security.await_confirmation(req.ctx, user, addresses, req.sender)
    return [_addresses_reply(req, user, "replies/welcome.txt"), *(confirmation_mail(c, req.sender) for c in codes)]


def addresses(req: Request) -> list[Reply]:
    """``add`` and ``change address``."""
    a = req.args
    user = login(req.ctx, a.userid, a.password)
    new = checked_addresses(a.addresses, req.sender)
    old = req.store.addresses_of(user["id"])
    confirmed = {x.lower() for x in req.store.confirmed_addresses(user["id"])}
    before = account_addresses(req.store, user, req.sender)  # the old addresses hear of the change too
    final = [*old, *new] if req.command.name == "add" else new
    req.store.replace_addresses(user["id"], final)
    fresh = [x for x in req.store.addresses_of(user["id"]) if x.lower() not in confirmed]
    codes = security.await_confirmation(req.ctx, user, fresh, req.sender)
    reply = _addresses_reply(req, user, "replies/addresses.txt")
    to = tuple(dict.fromkeys([*before, *reply.to]))
    return [Reply(reply.template, to, reply.context), *(confirmation_mail(c, req.sender) for c in codes)]


def change_password(req: Request) -> list[Reply]:
    a = req.args
    user = login(req.ctx, a.userid, a.old, reset_code=True)
    req.store.set_password_hash(user["id"], new_password_hash(req.ctx, a.new))
    return [Reply("replies/password-changed.txt", account_addresses(req.store, user, req.sender),
                  {"userid": user["userid"]})]


def signoff(req: Request) -> list[Reply]:
    a = req.args
    user = login(req.ctx, a.userid, a.password)
    req.store.set_signed_off(user["id"], True)
    return [Reply("replies/signed-off.txt", account_addresses(req.store, user, req.sender),
                  {"userid": user["userid"]})]


def delete(req: Request) -> list[Reply]:
    """Close the account: its active games are lost by forfeit."""
    a = req.args
    ctx = req.ctx
    user = login(ctx, a.userid, a.password)
    replies: list[Reply] = []
    progress: list[Progress] = []
    to = account_addresses(req.store, user, req.sender)
    for game in load_games(ctx, selected(ctx, None, [user], "active", "active")):
        progress += forfeit(ctx, game, user)
        replies.append(board_mail(ctx, game, events=[{"kind": "forfeit", "player": user["userid"]}]))
    news = tournament_news(ctx, progress)  # told before the account's addresses go
    req.store.delete_user(user["id"], req.now)
    return [Reply("replies/deleted.txt", to, {"userid": user["userid"], "forfeited": len(replies)}),
            *replies, *news]


def vacation(req: Request) -> list[Reply]:
    a = req.args
    user = login(req.ctx, a.userid, a.password)
    booked = book_vacation(req.ctx, user, a.days)
    context = {"userid": user["userid"], "until": shown(booked.until),
               "used": booked.used, "cap": booked.cap, "left": max(booked.cap - booked.used, 0)}
    replies = [Reply("replies/vacation.txt", account_addresses(req.store, user, req.sender), context)]
    for opponent, boards in opponents_in_play(req.ctx, user):
        replies.append(Reply("replies/vacation-notice.txt", game_addresses(req.store, opponent),
                             {**context, "opponent": opponent["userid"], "boards": boards}))
    return replies


def settings(req: Request) -> list[Reply]:
    """``set``: change one of the player's own settings, or list them."""
    a = req.args
    user = login(req.ctx, a.userid, a.password)
    if a.setting == "pictures":
        req.store.set_pictures(user["id"], a.value == "on")
    elif a.setting == "digest":
        req.store.set_digest(user["id"], a.hour if a.value == "daily" else None)
    user = req.store.user_by_id(user["id"])
    values = {"pictures": "on" if user["pictures"] else "off",
              "digest": "off" if user["digest_hour"] is None else f"daily at {user['digest_hour']:02d}:00 UTC"}
    return [Reply("replies/settings.txt", account_addresses(req.store, user, req.sender),
                  {"userid": user["userid"], "changed": a.setting, "settings": values})]


def list_games(req: Request) -> list[Reply]:
    counts = req.store.active_counts()
    games = [{"name": v.name, "title": v.title, "active": counts.get(v.name, 0)} for v in VARIANTS.values()]
    return [req.to_sender("replies/list.txt", games=games)]


def message(req: Request) -> list[Reply]:
    a = req.args
    user = login(req.ctx, a.userid, a.password)
    recipients = [live_user(req.ctx, u) for u in a.recipients]
    to: list[str] = []
    for r in recipients:
        to.extend(req.store.confirmed_addresses(r["id"]))
    return [
        Reply("replies/message.txt", tuple(dict.fromkeys(to)),
              {"from": user["userid"], "to": [r["userid"] for r in recipients], "comment": req.comment}),
        req.to_sender("replies/message-sent.txt", to=[r["userid"] for r in recipients]),
    ]


def broadcast(req: Request) -> list[Reply]:
    a = req.args
    user = login(req.ctx, a.userid, a.password)
    cap = req.config.limits.broadcasts_per_day
    if cap == 0:
        raise NotAvailableError("broadcasts are turned off on this server")
    day = req.now.date().isoformat()
    if req.store.broadcasts_since(user["id"], req.now - timedelta(days=1)) >= cap \
            or req.store.daily_count("broadcast", req.sender, day) >= cap:
        raise DailyLimitError(f"you have sent {cap} broadcasts in the last 24 hours, the most this server allows")
    req.store.record_broadcast(user["id"], req.now)
    req.store.add_daily_count("broadcast", req.sender, day)
    to: list[str] = []
    for other in req.store.all_users():
        if not other["signed_off"]:
            to.extend(req.store.confirmed_addresses(other["id"]))
    # one copy per address: each mail shows only its own recipient
    return [Reply("replies/broadcast.txt", (address,), {"from": user["userid"], "comment": req.comment})
            for address in dict.fromkeys(to)]


def help_command(req: Request) -> list[Reply]:
    try:
        templates = resolve_topics(list(req.args.topics), req.command.game)
    except UnknownTopicError as exc:
        raise PbmError(str(exc)) from None
    context = help_context(req.command.game, req.config.server)
    return [req.to_sender(t, **context) for t in templates]


def password_reset(req: Request) -> list[Reply]:
    """A one-time code to the account's confirmed addresses; the sender is
    told the same whether or not the account exists."""
    user = req.store.find_user(req.args.userid.key)
    issued = security.issue_reset_code(req.ctx, user) if user is not None else None
    mails = [reset_code_mail(req.ctx, issued, req.sender)] if issued is not None else []
    return [req.to_sender("replies/reset-requested.txt", userid=str(req.args.userid)), *mails]


def confirm_address(req: Request) -> list[Reply]:
    """The code came back from the address it was sent to: game mail may go there."""
    user = security.confirm_address(req.ctx, req.sender, req.args.code.reveal())
    if user is None:
        raise PbmError("that code is not one waiting for this address: a code works only from the address it "
                       "was mailed to, once, for 7 days (the account owner can ask for a new one by adding "
                       "the address again)")
    return [_addresses_reply(req, user, "replies/address-confirmed.txt")]
