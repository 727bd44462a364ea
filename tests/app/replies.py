"""Mail as players' mail programs write it: a reply to a board mail (Re:
subject, In-Reply-To and References, the original quoted, a signature, an
HTML alternative), and a delivery report for one of our mails."""

from __future__ import annotations

import html
from email.message import EmailMessage, Message
from email.utils import format_datetime, make_msgid

from .conftest import text_of


def client_reply(original: Message, sender: str, first_lines: str, *, when, to: str = "pbm@pbm.test",
                 subject: str | None = None, html_part: bool = True, signature: str = "Alice\nSent from my phone"
                 ) -> bytes:
    """``sender`` presses Reply on ``original`` (one of our mails as the
    player got it) and types ``first_lines`` above the quoted mail."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject if subject is not None else f"Re: {original['Subject']}"
    msg["Date"] = format_datetime(when)
    msg["Message-ID"] = make_msgid(domain="client.test")
    msg["In-Reply-To"] = str(original["Message-ID"])
    references = " ".join(filter(None, [str(original.get("References") or ""), str(original["Message-ID"])]))
    msg["References"] = references.strip()
    quoted = "\n".join("> " + line if line else ">" for line in text_of(original).splitlines())
    text = f"{first_lines}\n\n-- \n{signature}\n\nOn Sun, 1 Mar 2026, Trax PBM <pbm@pbm.test> wrote:\n{quoted}\n"
    msg.set_content(text)
    if html_part:
        page = (f"<div>{html.escape(first_lines).replace(chr(10), '<br>')}</div><br>"
                f"<div class=\"gmail_quote\">On Sun, 1 Mar 2026 Trax PBM wrote:<blockquote>"
                f"{html.escape(text_of(original)).replace(chr(10), '<br>')}</blockquote></div>")
        msg.add_alternative(f"<html><body>{page}</body></html>", subtype="html")
    return bytes(msg)


def delivery_report(original: Message, *, action: str = "failed", status: str = "5.1.1", when,
                    to: str | None = None) -> bytes:
    """A mail server's report that ``original`` (one of our mails) could
    not be delivered (RFC 3464), with the original's header returned, as
    Postfix writes one: to the envelope sender of the original (its
    ``Return-Path``), or to ``to``."""
    recipient = str(original["To"])
    back = to or str(original["Return-Path"]).strip("<>")
    header = "".join(f"{k}: {v}\r\n" for k, v in original.items() if k != "Return-Path")
    text = (
        "Return-Path: <>\r\n"
        f"Delivered-To: {back}\r\n"
        "From: Mail Delivery System <MAILER-DAEMON@mx.example.org>\r\n"
        f"To: {back}\r\n"
        "Subject: Undelivered Mail Returned to Sender\r\n"
        f"Date: {format_datetime(when)}\r\n"
        f"Message-ID: {make_msgid(domain='mx.example.org')}\r\n"
        "Auto-Submitted: auto-replied\r\n"
        "MIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="BOUNDARY"\r\n'
        "\r\n"
        "--BOUNDARY\r\n"
        "Content-Type: text/plain; charset=us-ascii\r\n\r\n"
        f"I'm sorry to have to inform you that your message could not be delivered to {recipient}.\r\n"
        "\r\n--BOUNDARY\r\n"
        "Content-Type: message/delivery-status\r\n\r\n"
        "Reporting-MTA: dns; mx.example.org\r\n\r\n"
        f"Final-Recipient: rfc822; {recipient}\r\n"
        f"Original-Recipient: rfc822;{recipient}\r\n"
        f"Action: {action}\r\nStatus: {status}\r\n"
        f"Diagnostic-Code: smtp; 550 5.1.1 <{recipient}>: Recipient address rejected\r\n"
        "\r\n--BOUNDARY\r\n"
        "Content-Type: text/rfc822-headers\r\n\r\n"
        f"{header}"
        "\r\n--BOUNDARY--\r\n"
    )
    return text.encode("utf-8")
