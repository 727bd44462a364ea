"""Account commands: signing up, addresses, passwords, leaving, messages, help."""

from __future__ import annotations

from .errors import BadAddressError, PbmError, UseridTakenError
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
    to = tuple(dict.fromkeys([*addresses, req.sender]))
    return [Reply("replies/welcome.txt", to, {"userid": user["userid"], "addresses": addresses})]


@handles("add", "change address")
def addresses(req: Request) -> list[Reply]:
    a = req.args
    user = req.login(a.userid, a.password)
    new = normal_addresses(req, a.addresses)
    old = req.store.addresses_of(user["id"])
    final = [*old, *new] if req.command.name == "add" else new
    req.store.replace_addresses(user["id"], final)
    to = tuple(dict.fromkeys([*old, *req.store.addresses_of(user["id"]), req.sender]))
    return [Reply("replies/addresses.txt", to, {"userid": user["userid"], "addresses": req.store.addresses_of(user["id"])})]


@handles("change password")
def change_password(req: Request) -> list[Reply]:
    a = req.args
    user = req.login(a.userid, a.old)
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
        to.extend(req.store.addresses_of(r["id"]))
    return [
        Reply("replies/message.txt", tuple(dict.fromkeys(to)),
              {"from": user["userid"], "to": [r["userid"] for r in recipients], "comment": req.comment}),
        req.to_sender("replies/message-sent.txt", to=[r["userid"] for r in recipients]),
    ]


@handles("broadcast")
def broadcast(req: Request) -> list[Reply]:
    a = req.args
    user = req.login(a.userid, a.password)
    to: list[str] = []
    for other in req.store.all_users():
        if not other["signed_off"]:
            to.extend(req.store.addresses_of(other["id"]))
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

