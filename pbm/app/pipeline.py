"""One e-mail in, its replies out: parse, screen, dispatch, render, commit.

The whole of one mail (every command's changes, the record that the mail
was handled, and its rendered replies in the outbox) is committed in one
transaction.  A command that fails with a user error rolls back only its own
changes (a savepoint) and gets an error reply, made here and only here;
anything unexpected rolls back the whole mail and is re-raised for the caller
to set the mail aside.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from email.message import Message
from email.parser import BytesParser
from email.policy import compat32
from email.utils import format_datetime, make_msgid
from enum import Enum, StrEnum
from functools import partial
from typing import Any

from pbm.ai.review import Review
from pbm.config import Config
from pbm.domain import bounces, computer, reply_tokens, security
from pbm.domain.accounts import game_addresses
from pbm.domain.boards import Game, load_game
from pbm.domain.context import Context
from pbm.domain.passwords import VerifiedPasswords
from pbm.domain.positions import Positions
from pbm.domain.refusals import (
    AccountLockedError,
    NotAllowedError,
    NotAvailableError,
    PbmError,
    ReplyRefusedError,
    UnreadMoveError,
)
from pbm.domain.reply_tokens import codes_in, found_in
from pbm.domain.seals import Keyring
from pbm.domain.security import count_failed_login
from pbm.domain.store import Store
from pbm.grammar import (
    Command,
    CommandError,
    MailCommands,
    decode_subject,
    parse_command,
    parse_mail_commands,
    parse_reply,
)
from pbm.languages import DEFAULT, asked_by_mail

from . import authres
from .compose import Composer, Renderer
from .handlers import HANDLERS
from .handlers.coaching import analysis_mail
from .handlers.computer_moves import computer_turn
from .handlers.reply import act
from .messages import Content, Head, Outgoing, content_bytes, copy_bytes
from .notices import (
    address_reply,
    answerable,
    bounce_notices,
    lock_notice,
    move_by_reply,
    probe_mail,
    refused_notice,
)
from .reading import body_text, header_text
from .reports import bounce_tags, report_action
from .request import Combined, Reply, Request, TokenFor
from .screening import is_report, message_key, screen, sender_address
from .views import board_view


class Status(StrEnum):
    """What became of a mail."""

    HANDLED = "handled"
    DUPLICATE = "duplicate"  # handled before (the same Message-ID, or a job done)
    DROPPED = "dropped"  # screened out, or over the sender's daily share and unproved


class Outcome(StrEnum):
    """What became of one command of a mail."""

    DONE = "done"
    REFUSED = "refused"  # an error reply says why
    UNREADABLE = "unreadable"  # not a command, or written wrongly


class Share(Enum):
    """Where a mail leaves its sender's daily share of replies."""

    WITHIN = "within"
    FIRST_OVER = "first over"  # the first mail past it: the sender is told, once
    OVER = "over"


@dataclass
class Result:
    """What became of one mail: its :class:`Status` (``dropped`` with a
    ``reason``); ``sent`` are the mails queued; ``commands``: (command,
    :class:`Outcome`) for each command read."""

    status: Status
    key: str
    sender: str | None = None
    reason: str = ""
    summary: str = ""
    sent: list[Outgoing] = field(default_factory=list)
    commands: list[tuple[str, str]] = field(default_factory=list)

    @property
    def replies(self) -> list[Message]:
        """The replies queued, read back as messages (tests, the operator's
        commands; the daemon counts :attr:`sent`)."""
        return [copy.message for copy in self.sent]


class _DryRun(Exception):
    pass


@contextmanager
def transaction(store: Store, *, dry_run: bool = False) -> Iterator[None]:
    """One transaction that is committed, or with ``dry_run`` rolled back
    once the block is through (so a dry run shows what would happen)."""
    try:
        with store.atomic():
            yield
            if dry_run:
                raise _DryRun
    except _DryRun:
        pass


def quoted(command: Command, exc: PbmError | None = None, *, to_sender: bool = False) -> str:
    """The command as a reply or the log shows it: passwords masked, and
    every word after its name masked when its sender could not log in.  A
    word that read as no move is masked too, except in the reply
    ``to_sender`` that refuses it once he logged in (``UnreadMoveError``),
    where it is named unless it holds a password of the line."""
    if isinstance(exc, NotAllowedError | AccountLockedError):
        return command.name_only()
    if to_sender and isinstance(exc, UnreadMoveError):
        return command.naming_unread()
    return command.redacted()


def error_reply(ctx: Context, sender: str, exc: PbmError, *, command: Command | None = None,
                game: Game | None = None) -> Reply:
    """The one place a refusal becomes a reply: the error's template, what
    was wrong, the command as sent (passwords masked, see :func:`quoted`)
    and its right form, and the board or position the error is about (or
    else ``game``, the board of the mail the command answered)."""
    context: dict[str, Any] = {"command": None, "refusal": exc, "right_form": None, "reply_form": None,
                               "view": None, "position": exc.position}
    if command is not None:
        context.update(command=quoted(command, exc, to_sender=True),
                       right_form=command.spec.usage(command.game))
    tokens: dict[str, TokenFor] = {}
    game = exc.view_game if isinstance(exc.view_game, Game) else game
    if game is not None:
        for user in (game.white, game.black):  # a player can answer the board shown by pressing Reply
            if game.active and sender.lower() in (a.lower() for a in game_addresses(ctx.store, user)):
                tokens[sender] = TokenFor(user.id, game.number, game.board.ply)
        context["view"] = answerable(board_view(ctx, game), move_by_reply(ctx, game, (sender,)))
    return Reply(f"errors/{exc.template}.txt", (sender,), context, tokens=tokens)


def reply_error(ctx: Context, sender: str, exc: PbmError, line: str | None, *, digest: bool = False,
                game: Game | None = None) -> Reply:
    """The error reply to a reply to a board mail: it quotes the line it
    answers (``reply_form`` says it was a reply's), says what was wrong and
    how a reply (``digest``: to a digest) is written; it shows ``game``
    (the board the reply was about) when the error names no board, and
    so it can be answered by Reply in turn."""
    reply = error_reply(ctx, sender, exc, game=game)
    return replace(reply, context={**reply.context, "command": line or None,
                                   "reply_form": "digest" if digest else "board"})


def proves_itself(command: Command) -> bool:
    """Does the command carry what proves its sender (a password of an
    account, a code), rather than make something new (signup)?"""
    return bool(command.spec.secret_positions) and command.name != "signup"


def is_command(line: str) -> bool:
    """Is ``line`` a whole command that reads well (``resign`` alone is a
    reply's word; ``trax resign 101 alice PW`` a command)?"""
    try:
        parse_command(line)
    except CommandError:
        return False
    return True


def first_line(body: str) -> str:
    """The first line of a body with anything on it."""
    for line in body.splitlines():
        if line.strip():
            return line
    return ""


def _references(msg: Message) -> list[str]:
    return [str(v) for name in ("In-Reply-To", "References") for v in (msg.get_all(name) or [])]


def _recipients(msg: Message) -> list[str]:
    return [str(v) for name in ("To", "Cc", "Delivered-To", "X-Original-To") for v in (msg.get_all(name) or [])]


def _usage_reply(sender: str, error: CommandError) -> Reply:
    return Reply("errors/usage.txt", (sender,), {"command": error.text, "refusal": error, "right_form": error.usage,
                                                 "reply_form": None, "view": None, "position": None})


class Pipeline:
    def __init__(self, store: Store, config: Config, renderer: Renderer | None = None,
                 keys: Keyring | None = None) -> None:
        self.store = store
        self.config = config
        self.composer = Composer(config, renderer)
        self.passwords = VerifiedPasswords()
        self.positions = Positions()
        self.keys = keys or Keyring.of(config)

    def context(self, now: datetime, sender: str | None = None, *, verified: bool = False) -> Context:
        """The domain context of work done at ``now`` for a mail from
        ``sender`` (``verified``: by the receiving mail server)."""
        return Context(self.store, self.config, now, self.passwords, self.positions, sender, self.keys,
                       verified)

    def unsealed(self, copy: Outgoing) -> Message:
        """A queued reply as its recipient gets it: the secrets it carries
        written in (the outbox does the same as it sends)."""
        raw = self.keys.unseal(copy.data, copy.recipient)
        return BytesParser(policy=compat32).parsebytes(raw)

    # ------------------------------------------------------------------

    def handle(self, raw: bytes, *, now: datetime, dry_run: bool = False, vouched: bool = False) -> Result:
        """Handle one mail (``raw``, as it arrived) as of ``now``.
        ``vouched``: its sender is known (an operator typed the command),
        as if the receiving mail server had authenticated it."""
        limits = self.config.limits
        too_large = len(raw) > limits.max_message_bytes
        # header values are read as text and decoded where used; a mail too
        # large to read is parsed no further than its header
        try:
            msg = BytesParser(policy=compat32).parsebytes(raw, headersonly=too_large)
        except RecursionError:  # MIME nested deeper than the parser follows: the header alone is read
            msg = BytesParser(policy=compat32).parsebytes(raw, headersonly=True)
        key = message_key(msg, raw)
        sender = sender_address(msg)
        if self.store.was_handled(key):
            seen = "the same bytes as" if key.startswith("sha256:") else "the Message-ID of"  # for the operator
            return Result(Status.DUPLICATE, key, sender, reason=f"{seen} a mail handled before")  # for the operator
        why = screen(msg, sender, self.config)
        if why is not None:
            notices: list[Outgoing] = []
            with transaction(self.store, dry_run=dry_run):
                if is_report(msg):  # recorded: a bounce may stop a player's clock (and nobody answers it)
                    notices = self._reports(msg, key, now)
                self.store.record_handled(key, sender, "", "dropped: " + why, now)
            return Result(Status.DROPPED, key, sender, reason=why, sent=notices)
        assert sender is not None
        verified = vouched or authres.verified(msg, sender, self.config.security.trusted_authserv_id)
        commands = None
        found_tokens: list[str] = []
        codes: list[tuple[int, str]] = []
        body = ""
        # the language the mail asks for: a new account with none given takes it
        language = asked_by_mail(header_text(msg, "Content-Language"), header_text(msg, "Accept-Language"))
        if not too_large:
            subject = decode_subject(header_text(msg, "Subject"))
            body = body_text(msg)
            codes = codes_in(_references(msg))
            if self.config.server.reply_moves:
                found_tokens = found_in(_references(msg), _recipients(msg))
                if found_tokens and is_command(first_line(body)):
                    found_tokens = []  # a reply that holds a whole command is read as one
            if not found_tokens:
                commands = parse_mail_commands(subject, body, max_commands=limits.max_command_lines)
        result = Result(Status.HANDLED, key, sender)
        ctx = self.context(now, sender, verified=verified)
        # one transaction: the daily count, the commands, the record and the replies
        with transaction(self.store, dry_run=dry_run):
            # over the sender's daily share of replies, only what a password,
            # a reply token or a code proves is run (and answered): the
            # share is keyed by the From header, which anyone can write
            over = self._daily_count(sender, now)
            replies: list[Reply] = []
            if over is Share.FIRST_OVER:
                replies.append(self._notice("errors/daily-limit.txt", sender,
                                            cap=limits.replies_per_sender_per_day))
            quiet = over is not Share.WITHIN
            confirmed = self._confirm_by_reply(ctx, codes) if codes else None
            if confirmed is not None:
                replies += confirmed
                summary = "address confirmed by reply"  # for the operator
                result.commands.append(("confirm address", Outcome.DONE))
            elif found_tokens:
                made, done = self._run_reply(ctx, found_tokens, body, result.commands, quiet=quiet)
                replies += made
                summary = "; ".join(done)
            elif commands is None:  # too big to read: one clear reply, nothing done
                summary = "too large"
                if not quiet:
                    replies.append(self._notice("errors/too-large.txt", sender, size=len(raw),
                                                limit=limits.max_message_bytes))
            else:
                made, done = self._run(ctx, commands, result.commands, quiet=quiet, language=language)
                replies += made
                summary = "; ".join(done) or "no command"
            if quiet and not replies:
                self.store.record_handled(key, sender, summary,
                                          "dropped: over the daily limit", now)  # for the operator
                return Result(Status.DROPPED, key, sender,
                              reason="over the daily limit of mails answered",  # for the operator
                              summary=summary, commands=result.commands)
            messages = self.queue(replies, now, key, asked=(sender, language) if language else None)
            self.store.record_handled(key, sender, summary, "handled", now)
            result.summary, result.sent = summary, messages
        return result

    def computer_turn(self, job_id: int, answer: computer.Answer, *, now: datetime) -> Result:
        """What the searcher answered for a job of the computer, applied to
        its board like a player's command (one transaction: the turn, the
        job marked done, the board mails queued), when the board still wants
        it; a job whose board moved on is marked done with nothing played."""
        key = f"computer-job:{job_id}"
        with transaction(self.store):
            job = self.store.computer_job(job_id)
            if job is None or job.done_at is not None:
                return Result(Status.DUPLICATE, key, reason="the job is done already")  # for the operator
            ctx = self.context(now, self.config.server.address)
            with ctx.savepoint():
                replies, outcome = computer_turn(ctx, job, answer)
            self.store.finish_computer_job(job_id, outcome, now)
            messages = self.queue(replies, now, key)
        return Result(Status.HANDLED, key, self.config.computer.userid, summary=outcome, sent=messages)

    def analysis_done(self, analysis_id: int, found: Review, *, now: datetime) -> Result:
        """An analysis the workers finished, mailed to the address that
        asked (in its account's language, or the one its mail asked for),
        and marked done, in one transaction."""
        key = f"analysis:{analysis_id}"
        with transaction(self.store):
            row = self.store.analysis(analysis_id)
            if row is None or row.done_at is not None:
                return Result(Status.DUPLICATE, key, reason="the analysis is done already")  # for the operator
            ctx = self.context(now, self.config.server.address)
            replies = analysis_mail(ctx, row, found)
            outcome = f"mailed, {len(found.points)} turning points"  # for the operator
            self.store.finish_analysis(analysis_id, outcome, now)
            messages = self.queue(replies, now, key, asked=(row.address, row.language) if row.language else None)
        summary = f"analysis of board {row.board}"  # for the operator
        return Result(Status.HANDLED, key, row.address, summary=summary, sent=messages)

    def queue(self, replies: list[Reply], now: datetime, key: str | None, *,
              answering: str | None = None, asked: tuple[str, str] | None = None) -> list[Outgoing]:
        """Compose ``replies`` and put them in the outbox under ``key`` (the
        mail they answer; None: no mail), in the caller's transaction; the
        copies queued.  ``answering``: what the composer is told they answer,
        when not ``key``; ``asked``: the sender of that mail and the language
        it asks for (its headers), for his copy when he has no account."""
        label = answering or key
        assert label is not None
        languages = self.languages_of if asked is None else partial(self.languages_of, asked=asked)
        messages = self.composer.compose(replies, label, now, self.store.addresses_without_pictures,
                                         self.issuer(now), languages)
        self.store.queue_replies(key, [(c.recipient, c.data, c.message_id) for c in messages], now)
        return messages

    def languages_of(self, addresses: Iterable[str], asked: tuple[str, str] | None = None) -> dict[str, str]:
        """The language each of a reply's recipients reads, by the address
        lowercased: his account's choice, else English; but the sender of
        the mail answered who has no account (a newcomer asking for help, a
        signup refused) reads the language his mail asked for (``asked``:
        his address and that language).  What the composer renders each copy
        of a reply in (:meth:`queue`)."""
        found = self.store.languages_of(addresses)
        if asked is not None:
            sender, language = asked[0].lower(), asked[1]
            if found.get(sender) == DEFAULT and not self.store.users_with_address(sender):
                found[sender] = language
        return found

    def issuer(self, now: datetime) -> Callable[[TokenFor, str], str]:
        """What the composer calls to make (and store) a reply token for
        the copy to a recipient; it returns the token, sealed."""
        def issue(wanted: TokenFor, recipient: str) -> str:
            ctx = self.context(now)
            if wanted.board is None:
                return reply_tokens.issue_digest(ctx, wanted.user_id, wanted.boards, recipient)
            assert wanted.ply is not None
            return reply_tokens.issue(ctx, wanted.user_id, wanted.board, wanted.ply, recipient)
        return issue

    def _reports(self, msg: Message, key: str, now: datetime) -> list[Outgoing]:
        """A delivery report that came back to one of our bounce addresses
        (its tag checked, so it names one reply of ours and its recipient):
        a failure asks for a probe; a probe's failure holds the player's
        clock, and their opponents are told.  Any other report does
        nothing."""
        ctx = self.context(now)
        for tag in bounce_tags(msg, self.config.server.envelope_address):
            row = self.store.outbox_row(int(tag.partition("-")[0]))
            if row is None or not self.keys.check_bounce_tag(tag, row.recipient):
                continue
            action, status = report_action(msg)
            outcome = bounces.record(ctx, row, action, status)
            if isinstance(outcome, bounces.ProbeWanted):
                return self.queue([probe_mail(outcome)], now, bounces.probe_key(outcome.address),
                                  answering="report")
            if isinstance(outcome, bounces.HoldStarted):
                return self.queue(bounce_notices(ctx, outcome), now, key, answering="report")
            return []
        return []

    def _confirm_by_reply(self, ctx: Context, codes: list[tuple[int, str]]) -> list[Reply] | None:
        """A reply to a mail that carried a confirmation code (in its
        Message-ID), from the address it was for: the address is confirmed.
        None when no code named is one waiting for the sender."""
        assert ctx.sender is not None
        for code_id, code in codes:
            with ctx.savepoint():
                user = security.confirm_address(ctx, ctx.sender, code, code_id)
            if user is not None:
                bounces.authenticated(ctx, [user.id])
                return [address_reply(ctx, user, "replies/address-confirmed.txt", ctx.sender)]
        return None

    def _run_reply(self, ctx: Context, found: list[str], body: str, tally: list[tuple[str, str]], *,
                   quiet: bool = False) -> tuple[list[Reply], list[str]]:
        """A reply to a board mail or a digest: each of its lines the
        player's command for a board, in its own savepoint (each counted
        in ``tally`` as a ``reply``).  ``quiet``: the sender is over the
        daily share of replies: a reply whose token does not prove its
        sender gets no answer."""
        sender = ctx.sender
        assert sender is not None
        replies: list[Reply] = []
        done: list[str] = []
        try:
            target = reply_tokens.target(ctx, found, sender)
        except PbmError as exc:
            tally.append(("reply", Outcome.REFUSED))
            return ([] if quiet else [reply_error(ctx, sender, exc, None)]), [f"reply refused: {exc}"]
        if target is None:
            unknown = ReplyRefusedError("unknown-reply-target")
            tally.append(("reply", Outcome.REFUSED))
            return ([] if quiet else [reply_error(ctx, sender, unknown, None)]), [
                "reply to an unknown mail"]  # for the operator
        ctx.logged_in.add(target.user.id)  # the token and the player's own address prove the sender
        bounces.authenticated(ctx, [target.user.id])
        drawn = any(load_game(ctx, n).board.variant.drawn for n in target.boards)
        read = parse_reply(body, digest=target.digest, cells=drawn, max_lines=self.config.limits.max_command_lines)

        def shown() -> Game | None:
            """The board an error about a reply to a board mail shows (as it
            stands after the line's rollback), to be answered by Reply in turn."""
            return None if target.digest else load_game(ctx, next(iter(target.boards)))

        for line in read.lines:
            if isinstance(line, CommandError):
                replies.append(reply_error(ctx, sender, ReplyRefusedError(line.code, line.params), line.text,
                                           digest=target.digest, game=shown()))
                done.append(f"reply error: {line}")
                tally.append(("reply", Outcome.UNREADABLE))
                continue
            try:
                with ctx.savepoint():
                    replies.extend(act(ctx, sender, target, line, read.comment))
                done.append(f"reply {line.text}")
                tally.append(("reply", Outcome.DONE))
            except PbmError as exc:
                replies.append(reply_error(ctx, sender, exc, line.text, game=shown()))
                done.append(f"reply {line.text}: {exc}")
                tally.append(("reply", Outcome.REFUSED))
        if target.digest:
            replies = self._combine(replies, sender)
        return replies, done

    @staticmethod
    def _own(ctx: Context) -> bool:
        """Is the sender one of the own addresses of an account the command
        proved?  (Past the sender's daily share, only such a sender is
        answered: someone who knows his own password cannot use it to
        have replies sent to an address he forged.)"""
        sender = (ctx.sender or "").lower()
        return any(sender in (a.lower() for a in ctx.store.confirmed_addresses(user_id))
                   for user_id in ctx.logged_in)

    def _daily_count(self, sender: str, now: datetime) -> Share:
        """Count this mail against the sender's daily cap (in the mail's own
        transaction, so a mail handled again after a crash is not counted
        twice)."""
        day = now.date().isoformat()
        row = self.store.count_sender_mail(sender, day)
        if row.mails <= self.config.limits.replies_per_sender_per_day:
            return Share.WITHIN
        if row.noticed:
            return Share.OVER
        self.store.mark_sender_noticed(sender, day)
        return Share.FIRST_OVER

    @staticmethod
    def _notice(template: str, sender: str, **context: Any) -> Reply:
        """A reply about the mail as a whole (errors/_base.txt, no command)."""
        return Reply(template, (sender,), {"command": None, "message": "", "right_form": None, "reply_form": None,
                                           "view": None, "position": None, **context})

    def exec_command(self, sender: str, subject: str, body: str = "", *, now: datetime,
                     dry_run: bool = False) -> Result:
        """A command typed by an operator: handled like a mail from
        ``sender`` that the operator vouches for (an address it names is
        bound at once, as after a confirmation)."""
        head = Head(("", sender), self.config.server.address, subject, format_datetime(now),
                    make_msgid(domain=self.composer.domain), auto_reply=False)
        return self.handle(copy_bytes(head, content_bytes(Content(body or ""))), now=now, dry_run=dry_run,
                           vouched=True)

    # ------------------------------------------------------------------

    def _run(self, ctx: Context, commands: MailCommands, tally: list[tuple[str, str]], *,
             quiet: bool = False, language: str | None = None) -> tuple[list[Reply], list[str]]:
        """The replies to the commands, and each command as the log shows it
        (its name and outcome added to ``tally``).  ``quiet``: the sender
        is over the daily share of replies: only commands that carry a
        password or code are run, and only those that proved it are
        answered.  ``language``: the one the mail's headers ask for."""
        sender = ctx.sender
        assert sender is not None
        replies: list[Reply] = []
        done: list[str] = []
        items = list(commands)
        if not items:
            return ([] if quiet else [Reply("errors/no-command.txt", (sender,), {})]), []
        for item in items:
            if isinstance(item, CommandError):
                if not quiet:
                    replies.append(_usage_reply(sender, item))
                done.append(f"error: {item}")
                tally.append((item.name or "unknown", Outcome.UNREADABLE))
                continue
            if quiet and not proves_itself(item):
                done.append(f"{item.redacted()}: not run, over the daily limit")  # for the operator
                tally.append((item.name, Outcome.REFUSED))
                continue
            ctx.logged_in.clear()
            counted = ctx.recipients
            try:
                handler = HANDLERS.get(item.name)
                if handler is None:
                    raise NotAvailableError("not-available", {"name": item.name})
                with ctx.savepoint():
                    made = handler(Request(ctx, sender, item, commands.comment, language))
                    replies.extend(made if not quiet or self._own(ctx) else
                                   [r for r in made if sender not in r.to])
                done.append(item.redacted())
                tally.append((item.name, Outcome.DONE))
            except PbmError as exc:
                ctx.recipients = counted
                done.append(quoted(item, exc))
                tally.append((item.name, Outcome.REFUSED))
                # what must stand although the command was rolled back: a
                # wrong password is counted, and a player whose command was
                # not run for a block is told (once a day)
                if exc.wrong_login:
                    lock = count_failed_login(ctx, exc.failed_login)
                    if lock is not None:
                        replies.append(lock_notice(ctx, lock))
                if not quiet or self._own(ctx):
                    replies.append(error_reply(ctx, sender, exc, command=item))
                if exc.refused_for is not None:
                    replies += refused_notice(ctx, exc.refused_for, quoted(item, exc), exc)
            bounces.authenticated(ctx, ctx.logged_in)
        if commands.source in ("multiple", "body"):
            replies = self._combine(replies, sender)
        return replies, done

    @staticmethod
    def _combine(replies: list[Reply], sender: str) -> list[Reply]:
        """``multiple``: everything meant for the sender alone goes in one reply."""
        mine = [r for r in replies if r.to == (sender,)]
        others = [r for r in replies if r.to != (sender,)]
        if len(mine) <= 1:
            return replies
        return [Combined.of(sender, mine), *others]
