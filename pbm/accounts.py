"""Account commands: signing up, addresses, passwords, leaving, messages, help."""

from __future__ import annotations

from datetime import timedelta

from . import security
from .errors import BadAddressError, DailyLimitError, NotAvailableError, PbmError, UseridTakenError
from .games import board_mail, finish, selected
from .help import UnknownTopicError, help_context, resolve_topics
from .replies import Reply, Request, handles
from .trax import VARIANTS


def normal_addresses(req: Request, addresses: tuple[str, ...]) -> list[str]:
    out = list(addresses) or [req.sender]
    for address in out:
        if "@" not in address or any(c in address for c in "\r\n<>,;\"' "):
            raise BadAddressError(f"{address} is not an e-mail address", address=address)
    return out


@handles("signup")
def signup(req: Request) -> list[Reply]:
    a = req.args
    existing = req.store.find_user(a.userid.key)
    if existing is not None:
        raise UseridTakenError(f"the userid {a.userid} is taken; choose another", userid=str(a.userid))
    addresses = normal_addresses(req, a.addresses)
    user = req.store.create_user(a.userid.typed, a.userid.key, req.new_password_hash(a.password), addresses, req.now)
    confirmations = security.confirmation_mails(req, user, addresses)
    return [_addresses_reply(req, user, "replies/welcome.txt"), *confirmations]


def _addresses_reply(req: Request, user, template: str) -> Reply:
    rows = req.store.address_rows(user["id"])
    return Reply(template, req.account_mail(user), {
        "userid": user["userid"],
        "addresses": [r["address"] for r in rows if r["confirmed"]],
        "waiting": [r["address"] for r in rows if not r["confirmed"]],
    })


@handles("add", "change address")
def addresses(req: Request) -> list[Reply]:
    a = req.args
    user = req.login(a.userid, a.password)
    new = normal_addresses(req, a.addresses)
    old = req.store.addresses_of(user["id"])
    confirmed = {x.lower() for x in req.store.confirmed_addresses(user["id"])}
    before = req.account_mail(user)  # the old addresses hear of the change too
    final = [*old, *new] if req.command.name == "add" else new
    req.store.replace_addresses(user["id"], final)
    fresh = [x for x in req.store.addresses_of(user["id"]) if x.lower() not in confirmed]
    confirmations = security.confirmation_mails(req, user, fresh)
    reply = _addresses_reply(req, user, "replies/addresses.txt")
    to = tuple(dict.fromkeys([*before, *reply.to]))
    return [Reply(reply.template, to, reply.context), *confirmations]


@handles("change password")
def change_password(req: Request) -> list[Reply]:
    a = req.args
    user = req.login(a.userid, a.old, reset_code=True)
    req.store.set_password_hash(user["id"], req.new_password_hash(a.new))
    return [Reply("replies/password-changed.txt", req.account_mail(user), {"userid": user["userid"]})]


@handles("signoff")
def signoff(req: Request) -> list[Reply]:
    a = req.args
    user = req.login(a.userid, a.password)
    req.store.set_signed_off(user["id"], True)
    return [Reply("replies/signed-off.txt", req.account_mail(user), {"userid": user["userid"]})]


@handles("delete")
def delete(req: Request) -> list[Reply]:
    a = req.args
    user = req.login(a.userid, a.password)
    replies: list[Reply] = []
    to = req.account_mail(user)
    for game in selected(req, None, [user], "active", "active"):
        colour = game.colour_of(user)
        finish(req, game, "black" if colour == "white" else "white", "forfeit")
        replies.append(board_mail(req, game, events=[{"kind": "forfeit", "player": user["userid"]}]))
    req.store.delete_user(user["id"], req.now)
    replies.insert(0, Reply("replies/deleted.txt", to, {"userid": user["userid"], "forfeited": len(replies)}))
    return replies


@handles("list")
def list_games(req: Request) -> list[Reply]:
    counts = req.store.active_counts()
    games = [{"name": v.name, "title": v.title, "active": counts.get(v.name, 0)} for v in VARIANTS.values()]
    return [req.to_sender("replies/list.txt", games=games)]


@handles("message")
def message(req: Request) -> list[Reply]:
    a = req.args
    user = req.login(a.userid, a.password)
    recipients = [req.user(u) for u in a.recipients]
    to: list[str] = []
    for r in recipients:
        to.extend(req.store.confirmed_addresses(r["id"]))
    return [
        Reply("replies/message.txt", tuple(dict.fromkeys(to)),
              {"from": user["userid"], "to": [r["userid"] for r in recipients], "comment": req.comment}),
        req.to_sender("replies/message-sent.txt", to=[r["userid"] for r in recipients]),
    ]


@handles("broadcast")
def broadcast(req: Request) -> list[Reply]:
    a = req.args
    user = req.login(a.userid, a.password)
    cap = req.config.limits.broadcasts_per_day
    if cap == 0:
        raise NotAvailableError("broadcasts are turned off on this server")
    if req.store.broadcasts_since(user["id"], req.now - timedelta(days=1)) >= cap:
        raise DailyLimitError(f"you have sent {cap} broadcasts in the last 24 hours, the most this server allows")
    req.store.record_broadcast(user["id"], req.now)
    to: list[str] = []
    for other in req.store.all_users():
        if not other["signed_off"]:
            to.extend(req.store.confirmed_addresses(other["id"]))
    # one copy per address: each mail shows only its own recipient
    return [Reply("replies/broadcast.txt", (address,), {"from": user["userid"], "comment": req.comment})
            for address in dict.fromkeys(to)]


@handles("help")
def help_command(req: Request) -> list[Reply]:
    try:
        templates = resolve_topics(list(req.args.topics), req.command.game)
    except UnknownTopicError as exc:
        raise PbmError(str(exc)) from None
    context = help_context(req.command.game, req.config.server)
    return [req.to_sender(t, **context) for t in templates]



@handles("password reset")
def password_reset(req: Request) -> list[Reply]:
    """A one-time code to the account's confirmed addresses; the sender is
    told the same whether or not the account exists."""
    from .clock import shown

    user = req.store.find_user(req.args.userid.key)
    mails = []
    if user is not None and user["deleted_at"] is None:
        to = tuple(req.store.confirmed_addresses(user["id"]))
        if to and len(req.store.live_codes("reset", req.now, user["id"])) < security.MAX_LIVE_RESET_CODES:
            code = security.issue_code(req, user, "reset")
            mails.append(Reply("replies/reset-code.txt", to, {
                "userid": user["userid"], "code": code, "sender": req.sender,
                "expires": shown(req.now + security.RESET_VALID)}))
    return [req.to_sender("replies/reset-requested.txt", userid=str(req.args.userid)), *mails]


@handles("confirm address")
def confirm_address(req: Request) -> list[Reply]:
    """The code came back from the address it was sent to: game mail may go there."""
    code = req.args.code.reveal()
    for row in req.store.live_codes("confirm", req.now):
        if row["address"].lower() == req.sender.lower() and security.code_matches(code, row["code_hash"]):
            req.store.use_code(row["id"], req.now)
            if req.store.set_confirmed(row["user_id"], row["address"]):
                user = req.store.user_by_id(row["user_id"])
                return [_addresses_reply(req, user, "replies/address-confirmed.txt")]
    raise PbmError("that code is not one waiting for this address: a code works only from the address it "
                   "was mailed to, once, for 7 days (the account owner can ask for a new one by adding "
                   "the address again)")
