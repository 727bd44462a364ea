"""Account commands: signing up, addresses, passwords, vacations, leaving,
messages, help."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

from pbm.domain import postage, security
from pbm.domain.accounts import (
    MAX_ADDRESSES,
    account_addresses,
    checked_addresses,
    game_addresses,
    live_user,
    login,
    new_password_hash,
    open_account,
)
from pbm.domain.boards import load_games, opponents_in_play, selected
from pbm.domain.clocks import book_vacation
from pbm.domain.events import AccountDeleted
from pbm.domain.refusals import BadAddressError, DailyLimitError, NotAvailableError, PbmError
from pbm.domain.results import forfeit
from pbm.domain.store.records import User
from pbm.domain.times import shown
from pbm.domain.tournaments import Progress
from pbm.grammar.account_commands import (
    AddressesArgs,
    ChangePasswordArgs,
    CodeArgs,
    HelpArgs,
    LoginArgs,
    MessageArgs,
    NoArgs,
    SetArgs,
    SignupArgs,
    UseridArgs,
    VacationArgs,
)
from pbm.languages import DEFAULT, LANGUAGES
from pbm.trax import VARIANTS

from ..help import UnknownTopicError, help_context, resolve_topics
from ..notices import address_reply, board_mail, confirmation_mail, reset_code_mail, tournament_news
from ..request import Reply, Request


def _addresses_reply(req: Request[Any], user: User, template: str,
                     asked: security.Confirmations | None = None) -> Reply:
    return address_reply(req.ctx, user, template, req.sender, asked)


def _bound_now(req: Request[Any], addresses: list[str]) -> list[str]:
    """The addresses bound without a confirmation round: the sender's own,
    when the receiving mail server vouched for it."""
    return [a for a in addresses if req.ctx.verified and a.lower() == req.sender.lower()]


def signup(req: Request[SignupArgs]) -> list[Reply]:
    a = req.args
    addresses = checked_addresses(a.addresses, req.sender)
    bound = _bound_now(req, addresses)
    # the language given, else the one the mail asks for (a claim, but it only picks the words)
    user = open_account(req.ctx, a.userid, a.password, addresses, bound, a.language or req.mail_language)
    waiting = [x for x in addresses if x not in bound]
    asked = security.await_confirmation(req.ctx, user, waiting, req.sender)
    return [_addresses_reply(req, user, "replies/welcome.txt", asked),
            *(confirmation_mail(c, req.sender) for c in asked.mailed)]


def addresses(req: Request[AddressesArgs]) -> list[Reply]:
    """``add`` and ``change address``."""
    a = req.args
    user = login(req.ctx, a.userid, a.password)
    new = checked_addresses(a.addresses, req.sender)
    old = req.store.addresses_of(user.id)
    confirmed = {x.lower() for x in req.store.confirmed_addresses(user.id)}
    before = account_addresses(req.store, user, req.sender)  # the old addresses hear of the change too
    final = [*old, *new] if req.command.name == "add" else new
    if len({x.lower() for x in final}) > MAX_ADDRESSES:
        raise BadAddressError("addresses-would-be", {"most": MAX_ADDRESSES, "userid": user.userid,
                                                     "count": len({x.lower() for x in final})})
    req.store.replace_addresses(user.id, final, _bound_now(req, final))
    fresh = [x for x in req.store.addresses_of(user.id)
             if x.lower() not in confirmed and x.lower() not in {b.lower() for b in _bound_now(req, final)}]
    asked = security.await_confirmation(req.ctx, user, fresh, req.sender)
    reply = _addresses_reply(req, user, "replies/addresses.txt", asked)
    to = tuple(dict.fromkeys([*before, *reply.to]))
    return [replace(reply, to=to), *(confirmation_mail(c, req.sender) for c in asked.mailed)]


def change_password(req: Request[ChangePasswordArgs]) -> list[Reply]:
    a = req.args
    user = login(req.ctx, a.userid, a.old, reset_code=True)
    req.store.set_password_hash(user.id, new_password_hash(req.ctx, a.new))
    return [Reply("replies/password-changed.txt", account_addresses(req.store, user, req.sender),
                  {"userid": user.userid})]


def signoff(req: Request[LoginArgs]) -> list[Reply]:
    a = req.args
    user = login(req.ctx, a.userid, a.password)
    req.store.set_signed_off(user.id, True)
    return [Reply("replies/signed-off.txt", account_addresses(req.store, user, req.sender),
                  {"userid": user.userid})]


def delete(req: Request[LoginArgs]) -> list[Reply]:
    """Close the account: its active games are lost by forfeit."""
    a = req.args
    ctx = req.ctx
    user = login(ctx, a.userid, a.password)
    replies: list[Reply] = []
    progress: list[Progress] = []
    to = account_addresses(req.store, user, req.sender)
    for game in load_games(ctx, selected(ctx, None, [user], "active", "active")):
        progress += forfeit(ctx, game, user)
        replies.append(board_mail(ctx, game, events=[AccountDeleted(user.userid)]))
    news = tournament_news(ctx, progress)  # told before the account's addresses go
    req.store.delete_user(user.id, req.now)
    return [Reply("replies/deleted.txt", to, {"userid": user.userid, "forfeited": len(replies)}),
            *replies, *news]


def vacation(req: Request[VacationArgs]) -> list[Reply]:
    a = req.args
    user = login(req.ctx, a.userid, a.password)
    booked = book_vacation(req.ctx, user, a.days)
    context = {"userid": user.userid, "until": shown(booked.until),
               "used": booked.used, "cap": booked.cap, "left": max(booked.cap - booked.used, 0)}
    replies = [Reply("replies/vacation.txt", account_addresses(req.store, user, req.sender), context)]
    for opponent, boards in opponents_in_play(req.ctx, user):
        replies.append(Reply("replies/vacation-notice.txt", game_addresses(req.store, opponent),
                             {**context, "opponent": opponent.userid, "boards": boards}))
    return replies


def settings(req: Request[SetArgs]) -> list[Reply]:
    """``set``: change one of the player's own settings, or list them."""
    a = req.args
    user = login(req.ctx, a.userid, a.password)
    if a.setting == "pictures":
        req.store.set_pictures(user.id, a.value == "on")
    elif a.setting == "digest":
        req.store.set_digest(user.id, a.hour if a.value == "daily" else None)
    elif a.setting == "challenges":
        req.store.set_open_challenges(user.id, a.value == "open")
    elif a.setting == "language":
        assert a.value is not None
        req.store.set_language(user.id, a.value)
    user = req.store.user_by_id(user.id)
    values = {"pictures": "on" if user.pictures else "off",
              "digest": "off" if user.digest_hour is None else "daily", "digest_hour": user.digest_hour,
              "challenges": "open" if user.open_challenges else "ask",
              "language": user.language or DEFAULT}
    return [Reply("replies/settings.txt", account_addresses(req.store, user, req.sender),
                  {"userid": user.userid, "changed": a.setting, "settings": values, "languages": LANGUAGES})]


def list_games(req: Request[NoArgs]) -> list[Reply]:
    counts = req.store.active_counts()
    games = [{"name": v.name, "title": v.title, "active": counts.get(v.name, 0)} for v in VARIANTS.values()]
    return [req.to_sender("replies/list.txt", games=games)]


def message(req: Request[MessageArgs]) -> list[Reply]:
    """The body to the users named, each recipient counted against the
    sender's and their own daily share of mail from others."""
    a = req.args
    user = login(req.ctx, a.userid, a.password)
    recipients = list({r.id: r for r in (live_user(req.ctx, u) for u in a.recipients)}.values())
    owner: dict[str, str] = {}
    for r in recipients:
        for address in game_addresses(req.store, r):
            owner.setdefault(address, r.userid)
    sent = postage.to_others(req.ctx, user.id, owner)
    reached = list(dict.fromkeys(owner[x] for x in sent.to))
    missed = [r.userid for r in recipients if r.userid not in reached]
    replies = [req.to_sender("replies/message-sent.txt", to=reached, missed=missed)]
    if sent.to:
        replies.insert(0, Reply("replies/message.txt", sent.to,
                                {"from": user.userid, "to": reached, "comment": req.comment}, kind="others"))
    return replies


def broadcast(req: Request[LoginArgs]) -> list[Reply]:
    """The body to every player who takes game mail, from an account with a
    confirmed address; a recipient who had their share of mail from
    others today is left out."""
    a = req.args
    user = login(req.ctx, a.userid, a.password)
    cap = req.config.limits.broadcasts_per_day
    if cap == 0:
        raise NotAvailableError("broadcasts-off")
    if not req.store.confirmed_addresses(user.id):
        raise NotAvailableError("no-confirmed-address", {"userid": user.userid})
    if req.store.broadcasts_since(user.id, req.now - timedelta(days=1)) >= cap:
        raise DailyLimitError("broadcasts-today", {"cap": cap})
    req.store.record_broadcast(user.id, req.now)
    own = game_addresses(req.store, user)
    to: list[str] = []
    for other in req.store.all_users():
        if other.id != user.id:
            to.extend(game_addresses(req.store, other))
    sent = postage.to_others(req.ctx, user.id, [a for a in to if a not in own], exempt_from_account_cap=True)
    # one copy per address (the sender's own too): each mail shows only its own recipient
    return [Reply("replies/broadcast.txt", (address,), {"from": user.userid, "comment": req.comment},
                  kind="others")
            for address in dict.fromkeys([*own, *sent.to])]


def help_command(req: Request[HelpArgs]) -> list[Reply]:
    try:
        templates = resolve_topics(list(req.args.topics), req.command.game)
    except UnknownTopicError as exc:
        raise PbmError("no-help-topic", exc.params) from None
    context = help_context(req.command.game, req.config.server)
    return [req.to_sender(t, **context) for t in templates]


def password_reset(req: Request[UseridArgs]) -> list[Reply]:
    """A one-time code to the account's confirmed addresses; the sender is
    told the same whether or not the account exists."""
    user = req.store.find_user(req.args.userid.key)
    issued = security.issue_reset_codes(req.ctx, user) if user is not None else []
    mails = [reset_code_mail(code, req.sender) for code in issued]
    return [req.to_sender("replies/reset-requested.txt", userid=str(req.args.userid)), *mails]


def confirm_address(req: Request[CodeArgs]) -> list[Reply]:
    """The code came back from the address it was sent to: game mail may go there."""
    user = security.confirm_address(req.ctx, req.sender, req.args.code.reveal())
    if user is not None:
        req.ctx.logged_in.add(user.id)  # the code proves the sender
    if user is None:
        raise PbmError("code-not-waiting")
    return [_addresses_reply(req, user, "replies/address-confirmed.txt")]
