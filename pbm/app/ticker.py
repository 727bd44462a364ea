"""The clock work: reminders and forfeits on every active board, and the
tournaments whose day has come, as of one moment.

The daemon runs it every ``[games] clock_interval_seconds`` and ``pbm tick``
once; either way it is idempotent, so running it twice at the same moment
sends nothing twice.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from pbm.domain import clocks, digests, tournaments
from pbm.domain.accounts import game_addresses
from pbm.domain.context import Context
from pbm.domain.store.records import BoardRecord
from pbm.domain.times import shown, span, stamp

from .messages import Outgoing
from .notices import board_mail, digest_mail, late_round_mail, tournament_news
from .pipeline import Pipeline, transaction
from .request import Reply

log = logging.getLogger("pbm.clock")


def tick(ctx: Context) -> list[Reply]:
    """The mail of what is due at ``ctx.now``.  Runs in the caller's
    transaction; each board in its own savepoint, so one board that fails is
    logged and skipped, and the others go on."""
    replies: list[Reply] = []
    for row in ctx.store.active_boards():
        try:
            with ctx.savepoint():
                what = clocks.due(ctx, row)
                if what is not None:
                    replies.extend(_act(ctx, row, what))
        except Exception:
            log.exception("clock work failed on board %s", row.number)
    for user in digests.due(ctx):
        try:
            with ctx.savepoint():
                mail = digest_mail(ctx, user)
                if mail is not None:
                    replies.append(mail)
                digests.sent(ctx, user)
        except Exception:
            log.exception("the digest of user %s failed", user.id)
    purged = ctx.store.purge_sent(ctx.now - timedelta(days=ctx.config.outbox.keep_sent_days))
    if purged:
        log.info("deleted %d sent replies older than %d days", purged, ctx.config.outbox.keep_sent_days)
    try:
        with ctx.savepoint():
            replies.extend(late_round_mail(ctx, late) for late in tournaments.late_rounds(ctx))
            replies.extend(tournament_news(ctx, tournaments.start_due(ctx)))
    except Exception:
        log.exception("clock work failed starting tournaments")
    return replies


def _act(ctx: Context, row: BoardRecord, what: clocks.Due) -> list[Reply]:
    acted = clocks.act(ctx, row, what)
    game = acted.game
    if acted.event is not None:
        return [board_mail(ctx, game, events=[acted.event]), *tournament_news(ctx, acted.progress)]
    user = game.to_move
    mail = board_mail(ctx, game, template="replies/nag.txt")
    context = {**mail.context, "userid": user.userid, "waited": span(what.waited),
               "forfeit_at": shown(ctx.now + what.left), "left": span(what.left)}
    to = game_addresses(ctx.store, user)
    return [Reply(mail.template, to, context, tokens={a: t for a, t in mail.tokens.items() if a in to})]


def run_tick(pipeline: Pipeline, now: datetime, *, dry_run: bool = False) -> list[Outgoing]:
    """Do the clock work as of ``now`` in one transaction and queue its mail;
    returns the copies queued (with ``dry_run`` nothing is kept)."""
    store = pipeline.store
    messages: list[Outgoing] = []
    with transaction(store, dry_run=dry_run):
        messages = pipeline.queue(tick(pipeline.context(now)), now, None, answering="clock")
    if messages:
        log.info("clock work at %s: %d mail(s)", stamp(now), len(messages))
    return messages
