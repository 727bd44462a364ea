"""The e-mail policy for reading and writing mail.

``email.policy.default`` makes a new header class for every header it
parses, and parses Message-ID style headers with a full RFC 5322 parser;
profiles showed that as most of the cost of a reply.  This policy is the
default one with the header classes made once, and the message-id headers
(which we only copy or make ourselves) kept as unstructured text.  Header
values still may not contain line breaks, so nothing a player writes can add
a header.
"""

from __future__ import annotations

from email import policy
from email.headerregistry import HeaderRegistry, UnstructuredHeader


class _CachedHeaderRegistry(HeaderRegistry):
    def __init__(self) -> None:
        super().__init__()
        for name in ("message-id", "in-reply-to", "references"):
            self.map_to_type(name, UnstructuredHeader)
        self._made: dict[str, type] = {}

    def __getitem__(self, name: str) -> type:
        key = name.lower()
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = super().__getitem__(name)
        return made


POLICY = policy.default.clone(header_factory=_CachedHeaderRegistry())


# --- writing replies --------------------------------------------------------------

from email import charset as _charset  # noqa: E402
from email.header import Header  # noqa: E402
from email.message import Message  # noqa: E402
from email.policy import compat32  # noqa: E402
from email.utils import formataddr  # noqa: E402

_UTF8 = _charset.Charset("utf-8")
_UTF8.body_encoding = _charset.QP
WIRE = compat32.clone(linesep="\r\n")


def _header(value: str) -> str:
    if "\r" in value or "\n" in value:
        raise ValueError("a header value may not contain a line break")
    return value if value.isascii() else Header(value, "utf-8").encode()


def outgoing(
    *,
    sender: tuple[str, str],
    recipient: str,
    subject: str,
    body: str,
    date: str,
    message_id: str,
    in_reply_to: str | None,
) -> Message:
    """A plain-text reply, built header by header from values we made or
    checked (no line breaks: nothing can smuggle in a header or a recipient).
    The body goes as 7bit when it is plain ASCII with short lines, else as
    UTF-8 quoted-printable."""
    msg = Message()
    msg["From"] = _header(formataddr(sender, charset="utf-8"))
    msg["To"] = _header(recipient)
    msg["Subject"] = _header(subject)
    msg["Date"] = _header(date)
    msg["Message-ID"] = _header(message_id)
    if in_reply_to:
        msg["In-Reply-To"] = _header(in_reply_to)
        msg["References"] = _header(in_reply_to)
    msg["Auto-Submitted"] = "auto-replied"
    if body.isascii() and all(len(line) <= 998 for line in body.splitlines()):
        msg["MIME-Version"] = "1.0"
        msg["Content-Type"] = 'text/plain; charset="us-ascii"'
        msg["Content-Transfer-Encoding"] = "7bit"
        msg.set_payload(body)
    else:
        msg.set_payload(body, charset=_UTF8)
    return msg
