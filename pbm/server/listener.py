"""SMTP intake (aiosmtpd): the server's own listener for incoming mail.

Only the server's address is accepted as a recipient (550 otherwise), with
or without a ``+tag`` after its local part (a reply token's subaddress: the
recipient is handed on in a ``Delivered-To`` header); mail
over the size limit is refused by aiosmtpd with 552.  A message is answered
250 only after the pipeline has committed it (or set it aside as failed), so
an accepted mail is never lost.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from aiosmtpd.smtp import SMTP, Envelope, Session

from pbm.config import ListenConfig

log = logging.getLogger("pbm.listener")

Handler = Callable[[bytes, str], Awaitable[bool]]


def with_return_path(raw: bytes, mail_from: str | None, rcpt_tos: list[str] | None = None) -> bytes:
    """Put the envelope sender first as Return-Path, as a delivering MTA
    would (an empty one, ``<>``, marks a bounce for screening), and the
    envelope recipients as Delivered-To.  The envelope wins: a Return-Path
    the mail itself carries comes after it, and screening reads the first."""
    head = f"Return-Path: <{mail_from or ''}>\r\n"
    head += "".join(f"Delivered-To: {rcpt}\r\n" for rcpt in rcpt_tos or [])
    return head.encode("ascii", "replace") + raw


def _base(address: str) -> str:
    local, _, domain = address.lower().rpartition("@")
    return f"{local.split('+', 1)[0]}@{domain}"


class IntakeHandler:
    def __init__(self, address: str, handle: Handler) -> None:
        self.address = address.lower()
        self.handle = handle

    async def handle_RCPT(self, server: SMTP, session: Session, envelope: Envelope, address: str, rcpt_options):
        if _base(address) != self.address:
            return "550 5.1.1 No such recipient here; this server takes mail for one address only"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or envelope.content or b""
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        try:
            await self.handle(with_return_path(raw, envelope.mail_from, envelope.rcpt_tos), "smtp")
        except Exception as exc:  # the client hears a temporary failure, never our insides
            log.exception("mail over SMTP could not be handled or kept; the client will try again")
            if "full" in str(exc).lower():
                return "452 4.3.1 Insufficient system storage; try again later"
            return "451 4.3.0 Temporary local problem; try again later"
        return "250 2.0.0 Message accepted"


async def start_listener(config: ListenConfig, address: str, handle: Handler) -> asyncio.AbstractServer:
    loop = asyncio.get_running_loop()
    handler = IntakeHandler(address, handle)
    server = await loop.create_server(
        lambda: SMTP(handler, hostname="127.0.0.1", data_size_limit=config.max_message_bytes,
                     decode_data=False, enable_SMTPUTF8=True),
        host=config.host,
        port=config.port,
        reuse_address=True,
    )
    log.info("SMTP listener on %s:%s", config.host, config.port)
    return server
