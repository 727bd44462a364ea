"""One e-mail in, its replies out: parse, screen, dispatch, render, commit.

The whole of one mail (every command's changes, the record that the mail
was handled, and its rendered replies in the outbox) is committed in one
transaction.  A command that fails with a user error rolls back only its own
changes (a savepoint) and gets an error reply; anything unexpected rolls
back the whole mail and is re-raised for the caller to set the mail aside.
"""

from __future__ import annotations

import hashlib
import html
import re
from dataclasses import dataclass, field
from datetime import datetime
from email.policy import compat32
from email.message import Message
from email.parser import BytesParser
from email.utils import format_datetime, getaddresses, make_msgid, parseaddr

from . import accounts, games  # noqa: F401  (they register their handlers)
from .grammar import Command, CommandError, parse_mail_commands
from .grammar import decode_subject
from .config import Config
from .errors import NotAvailableError, PbmError
from .games import Positions, board_view
from .mailpolicy import outgoing, wire_bytes
from .passwords import VerifiedPasswords
from .render import Renderer
from .replies import HANDLERS, Reply, Request
from .store import Store


@dataclass
class Result:
    """What became of one mail: ``status`` is ``handled``, ``duplicate`` or
    ``dropped`` (with ``reason``); ``replies`` are the mails queued."""

    status: str
    key: str
    sender: str | None = None
    reason: str = ""
    summary: str = ""
    replies: list[Message] = field(default_factory=list)


class _DryRun(Exception):
    pass


def message_key(msg: Message, raw: bytes) -> str:
    mid = " ".join(str(msg.get("Message-ID") or "").split())
    if mid:
        return mid
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def screen(msg: Message, config: Config) -> str | None:
    """Why this mail must get no reply (automatic mail, our own), or None."""
    sender = sender_address(msg)
    if not sender:
        return "no usable From address"
    if sender.lower() == config.server.address.lower():
        return "mail from our own address"
    return_path = msg.get("Return-Path")
    if return_path is not None and parseaddr(str(return_path))[1] == "" and "<>" in str(return_path).replace(" ", ""):
        return "bounce (empty return path)"
    auto = str(msg.get("Auto-Submitted", "no")).strip().lower()
    if auto and not auto.startswith("no"):
        return f"automatic mail (Auto-Submitted: {auto})"
    for name in ("X-Autoreply", "X-Autorespond"):  # old vacation programs mark their mail only so
        if msg.get(name) is not None:
            return f"automatic mail ({name})"
    if str(msg.get("Precedence", "")).strip().lower() in ("bulk", "junk", "list"):
        return "bulk or list mail (Precedence)"
    if any(name.lower().startswith("list-") for name in msg.keys()):
        return "mailing-list mail"
    if msg.get_content_type() == "multipart/report" or sender.lower().startswith(("mailer-daemon@", "postmaster@")):
        return "delivery status notification"
    return None


def sender_address(msg: Message) -> str | None:
    try:
        values = msg.get_all("From") or []
        pairs = getaddresses([str(v) for v in values])
    except Exception:  # a header too broken to read is no sender
        return None
    addresses = [a for _, a in pairs if a and "@" in a]
    if len(addresses) != 1:
        return None
    # getaddresses is lenient: "@x", "a b@x" or control characters are no address to answer
    local, _, domain = addresses[0].rpartition("@")
    if not local or not domain or "@" in local or not addresses[0].isprintable() \
            or any(ch.isspace() for ch in addresses[0]):
        return None
    return addresses[0]


class _TextOfHtml:
    TAGS = re.compile(r"<(script|style)\b.*?</\1>|<br\s*/?>|</p>|<[^>]+>", re.S | re.I)

    @classmethod
    def convert(cls, text: str) -> str:
        def sub(m: re.Match) -> str:
            tag = m.group(0).lower()
            return "\n" if tag.startswith(("<br", "</p")) else ""

        return html.unescape(cls.TAGS.sub(sub, text))


def body_text(msg: Message) -> str:
    """The text a player wrote: the first text/plain part that is not an
    attachment, else the first text/html part made into text."""
    plain = html = None
    for part in msg.walk():
        if part.is_multipart():
            continue
        disposition = str(part.get("Content-Disposition", "")).split(";")[0].strip().lower()
        if disposition == "attachment":
            continue
        kind = part.get_content_type()
        if kind == "text/plain" and plain is None:
            plain = part
        elif kind == "text/html" and html is None:
            html = part
    part = plain or html
    if part is None:
        return ""
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    try:
        text = payload.decode(part.get_content_charset() or "utf-8", errors="replace")
    except LookupError:  # a charset nobody knows
        text = payload.decode("utf-8", errors="replace")
    return _TextOfHtml.convert(text) if part is html else text


class Pipeline:
    def __init__(self, store: Store, config: Config, renderer: Renderer | None = None) -> None:
        self.store = store
        self.config = config
        self.renderer = renderer or Renderer()
        self.passwords = VerifiedPasswords()
        self.positions = Positions()

    # ------------------------------------------------------------------

    def handle(self, raw: bytes, *, now: datetime, dry_run: bool = False) -> Result:
        msg = BytesParser(policy=compat32).parsebytes(raw)  # header values read as text, decoded where used
        key = message_key(msg, raw)
        if self.store.was_handled(key):
            return Result("duplicate", key)
        sender = sender_address(msg)
        why = screen(msg, self.config)
        if why is not None:
            if not dry_run:
                with self.store.atomic():
                    self.store.record_handled(key, sender, "", "dropped: " + why, now)
            return Result("dropped", key, sender, reason=why)
        assert sender is not None
        limit = self.config.limits.max_message_bytes
        commands = None
        if len(raw) <= limit:
            subject = decode_subject(str(msg.get("Subject", "")))
            commands = parse_mail_commands(subject, body_text(msg), max_commands=self.config.limits.max_command_lines)
        result = Result("handled", key, sender)
        try:
            # one transaction: the daily count, the commands, the record and the replies
            with self.store.atomic():
                over = self._daily_count(sender, now)
                if over == "silent":
                    self.store.record_handled(key, sender, "", "dropped: over the daily limit", now)
                    result = Result("dropped", key, sender, reason="over the daily limit of mails answered")
                else:
                    if over == "notice":
                        summary, replies = "over the daily limit", [self._notice("errors/daily-limit.txt", sender, (
                            f"this server answers at most {self.config.limits.replies_per_sender_per_day} "
                            "mails a day from one address, and this mail is over that"))]
                    elif commands is None:  # too big to read: one clear reply, nothing done
                        summary, replies = "too large", [self._notice("errors/too-large.txt", sender, (
                            f"your mail is {len(raw):,} bytes long; the most this server reads is {limit:,} bytes"))]
                    else:
                        replies = self._run(commands, sender, now)
                        summary = "; ".join(
                            item.redacted() if isinstance(item, Command) else f"error: {item.reason}"
                            for item in commands
                        ) or "no command"
                    messages = self._compose(replies, key, now)
                    self.store.record_handled(key, sender, summary, "handled", now)
                    for m in messages:
                        self.store.queue_reply(key, str(m["To"]), wire_bytes(m), now)
                    result.summary, result.replies = summary, messages
                if dry_run:
                    raise _DryRun
        except _DryRun:
            pass
        return result

    def _daily_count(self, sender: str, now: datetime) -> str | None:
        """Count this mail against the sender's daily cap (in the mail's own
        transaction, so a mail handled again after a crash is not counted
        twice): None while under it, "notice" for the first mail over it,
        "silent" after that."""
        day = now.date().isoformat()
        row = self.store.count_sender_mail(sender, day)
        if row["mails"] <= self.config.limits.replies_per_sender_per_day:
            return None
        if row["noticed"]:
            return "silent"
        self.store.mark_sender_noticed(sender, day)
        return "notice"

    @staticmethod
    def _notice(template: str, sender: str, message: str, *, command: str | None = None,
                right_form: str | None = None) -> Reply:
        """An error reply (errors/_base.txt) to the sender."""
        return Reply(template, (sender,), {"command": command, "message": message, "right_form": right_form,
                                           "view": None, "position": None})

    def exec_command(self, sender: str, subject: str, body: str = "", *, now: datetime, dry_run: bool = False) -> Result:
        """A command typed by an operator: handled like a mail from ``sender``."""
        msg = outgoing(
            sender=("", sender), recipient=self.config.server.address, subject=subject, body=body or "",
            date=format_datetime(now), message_id=make_msgid(domain=self._domain), auto_reply=False,
        )
        return self.handle(wire_bytes(msg), now=now, dry_run=dry_run)

    @property
    def _domain(self) -> str:
        """The domain of our Message-IDs."""
        return self.config.server.address.rpartition("@")[2] or "localhost"

    # ------------------------------------------------------------------

    def _run(self, commands, sender: str, now: datetime) -> list[Reply]:
        replies: list[Reply] = []
        items = list(commands)
        if not items:
            return [Reply("errors/no-command.txt", (sender,), {})]
        for item in items:
            if isinstance(item, CommandError):
                replies.append(self._notice("errors/usage.txt", sender, item.reason, command=item.text,
                                            right_form=item.usage))
                continue
            req = Request(self.store, self.config, now, sender, item, commands.comment, self.passwords,
                          self.positions)
            try:
                handler = HANDLERS.get(item.name)
                if handler is None:
                    raise NotAvailableError(f"the command {item.name} is not available on this server yet")
                with self.store.atomic():
                    replies.extend(handler(req))
                for game in req.loaded:
                    self.positions.keep(game.number, game.board, game.row["moves"])
            except PbmError as exc:
                # what must stand although the command was rolled back (a wrong password is counted)
                for effect in exc.details.get("effects", ()):
                    replies.extend(effect())
                replies.append(self._error_reply(req, exc))
        if commands.source in ("multiple", "body"):
            replies = self._combine(replies, sender)
        return replies

    def _error_reply(self, req: Request, exc: PbmError) -> Reply:
        context = dict(self._notice(f"errors/{exc.template}.txt", req.sender, exc.message,
                                    command=req.command.redacted(),
                                    right_form=req.command.spec.usage(req.command.game)).context)
        game = exc.details.get("view_game")
        if game is not None:
            context["view"] = board_view(req, game)
        if exc.details.get("position") is not None:
            context["position"] = exc.details["position"]
        name = f"errors/{exc.template}.txt"
        return Reply(name, (req.sender,), context)

    @staticmethod
    def _combine(replies: list[Reply], sender: str) -> list[Reply]:
        """``multiple``: everything meant for the sender alone goes in one reply."""
        mine = [r for r in replies if r.to == (sender,)]
        others = [r for r in replies if r.to != (sender,)]
        if len(mine) <= 1:
            return replies
        return [Reply("replies/combined.txt", (sender,), {"parts": mine}), *others]

    def _compose(self, replies: list[Reply], key: str, now: datetime) -> list[Message]:
        server = self.config.server
        in_reply_to = key if key.startswith("<") and " " not in key else None
        out = []
        for reply in replies:
            if reply.template == "replies/combined.txt":
                parts = [self.renderer.render(p.template, **{"server": server, **p.context}) for p in reply.context["parts"]]
                text = self.renderer.render(reply.template, server=server, parts=parts)
            else:
                text = self.renderer.render(reply.template, **{"server": server, **reply.context})
            for recipient in dict.fromkeys(reply.to):
                out.append(outgoing(
                    sender=(server.name, server.address), recipient=recipient, subject=text.subject,
                    body=text.body, date=format_datetime(now), message_id=make_msgid(domain=self._domain),
                    in_reply_to=in_reply_to,
                ))
        return out
