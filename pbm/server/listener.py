"""SMTP or LMTP intake (aiosmtpd): the server's own listener for incoming mail.

Only the server's address and its bounce address are accepted as
recipients (550 otherwise), with or without a ``+tag`` after the local part
(a reply token's subaddress, a bounce's tag: the recipient is handed on in
a ``Delivered-To`` header); mail
over the size limit is refused by aiosmtpd with 552.  A message is answered
250 only after the pipeline has committed it (or set it aside as failed), so
an accepted mail is never lost.

With ``[listen] protocol = "lmtp"`` it speaks LMTP (RFC 2033: LHLO, and
after DATA one reply per recipient accepted, all the same since the mail is
handled once for all of them); with ``[listen] socket`` it listens on that
unix socket instead of a TCP port (a stale socket file left by a daemon
that died is replaced; one a live listener answers on is not).
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path

from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP, Envelope, Session

from pbm.config import ListenConfig, ServerConfig

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
    def __init__(self, addresses: tuple[str, ...], handle: Handler, protocol: str = "smtp") -> None:
        self.addresses = {a.lower() for a in addresses}
        self.handle = handle
        self.protocol = protocol

    async def handle_RCPT(self, server: SMTP, session: Session, envelope: Envelope, address: str,
                          rcpt_options: list[str]) -> str:
        if _base(address) not in self.addresses:
            return "550 5.1.1 No such recipient here; this server takes mail for one address only"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        status = await self._take(envelope)
        if self.protocol == "lmtp":  # LMTP: a reply for each recipient accepted
            return "\r\n".join([status] * max(1, len(envelope.rcpt_tos)))
        return status

    async def _take(self, envelope: Envelope) -> str:
        raw = envelope.original_content or envelope.content or b""
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        try:
            await self.handle(with_return_path(raw, envelope.mail_from, envelope.rcpt_tos), self.protocol)
        except Exception as exc:  # the client hears a temporary failure, never our insides
            log.exception("mail over %s could not be handled or kept; the client will try again",
                          self.protocol.upper())
            if "full" in str(exc).lower():
                return "452 4.3.1 Insufficient system storage; try again later"
            return "451 4.3.0 Temporary local problem; try again later"
        return "250 2.0.0 Message accepted"


def _clear_stale_socket(path: Path) -> None:
    """Remove a socket file nobody listens on any more (left by a daemon
    that died); leave anything else for ``bind`` to refuse."""
    try:
        if not stat.S_ISSOCK(path.lstat().st_mode):
            return
    except FileNotFoundError:
        return
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            path.unlink(missing_ok=True)


async def start_listener(config: ListenConfig, server_config: ServerConfig, handle: Handler) -> asyncio.AbstractServer:
    loop = asyncio.get_running_loop()
    handler = IntakeHandler((server_config.address, server_config.envelope_address), handle, config.protocol)
    kind = LMTP if config.protocol == "lmtp" else SMTP

    def protocol() -> SMTP:
        return kind(handler, hostname="127.0.0.1", data_size_limit=config.max_message_bytes,
                    decode_data=False, enable_SMTPUTF8=True)

    server: asyncio.AbstractServer
    if config.socket is not None:
        _clear_stale_socket(config.socket)
        server = await loop.create_unix_server(protocol, path=str(config.socket))
        # as open as the TCP port on 127.0.0.1: the mail server may run as another user
        os.chmod(config.socket, 0o666)
        log.info("%s listener on the unix socket %s", config.protocol.upper(), config.socket)
    else:
        server = await loop.create_server(protocol, host=config.host, port=config.port, reuse_address=True)
        log.info("%s listener on %s:%s", config.protocol.upper(), config.host, config.port)
    return server
