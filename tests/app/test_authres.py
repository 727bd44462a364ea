"""The receiving mail server's verdict, read as OpenDKIM and OpenDMARC write
it, and only its own: a header with another authserv-id, or one the sender
wrote below the server's, is never believed."""

from __future__ import annotations

from email.message import Message
from email.parser import BytesParser
from email.policy import compat32

import pytest

from pbm.app.authres import parse, verified

from .conftest import Mailbox, flat

ID = "mx.club.example"
#: As OpenDMARC 1.4 writes it.
DMARC_PASS = f"{ID}; dmarc=pass (p=none dis=none) header.from=example.org"
DMARC_FAIL = f"{ID}; dmarc=fail (p=reject dis=none) header.from=example.org"
#: As OpenDKIM 2.11 writes it (with the key size comment and header.b).
DKIM_PASS = (f"{ID};\r\n\tdkim=pass (2048-bit key; unprotected) header.d=example.org "
             "header.i=@example.org header.a=rsa-sha256 header.s=sel1 header.b=AbCdEfGh")
DKIM_OTHER = (f"{ID};\r\n\tdkim=pass (1024-bit key; secure) header.d=evil.test "
              "header.i=@evil.test header.a=rsa-sha256 header.s=s header.b=XyZ")


def mail(*results: str, sender: str = "alice@example.org") -> Message:
    head = "".join(f"Authentication-Results: {r}\r\n" for r in results)
    raw = f"{head}From: {sender}\r\nSubject: help\r\n\r\nhi\r\n".encode()
    return BytesParser(policy=compat32).parsebytes(raw)


def test_the_headers_read_as_the_filters_write_them():
    authserv, results = parse(DKIM_PASS)
    assert authserv == ID
    (dkim,) = results
    assert (dkim.method, dkim.result, dkim.properties["header.d"]) == ("dkim", "pass", "example.org")
    authserv, (dmarc,) = parse(f"{ID} 1; dmarc=pass (p=none dis=none) header.from=Example.ORG")  # a version
    assert (authserv, dmarc.method, dmarc.properties["header.from"]) == (ID, "dmarc", "example.org")
    assert parse(f"{ID}; none") == (ID, [])
    assert parse('x; dkim=pass (a "quoted ) paren" (nested (deep)) ) header.d="example.org"')[1][0].properties == {
        "header.d": "example.org"}


@pytest.mark.parametrize("headers, sender, expected", [
    ([DMARC_PASS], "alice@example.org", True),
    ([DMARC_PASS, DKIM_PASS], "alice@example.org", True),  # OpenDMARC's on top of OpenDKIM's
    ([DKIM_PASS], "alice@example.org", True),  # an aligned signature
    ([DKIM_PASS], "alice@mail.example.org", True),  # the signer is the From domain's parent
    ([DKIM_OTHER], "alice@example.org", False),  # signed, but by another domain
    ([DMARC_PASS], "alice@example.net", False),  # a pass for another From domain
    ([DMARC_FAIL], "alice@example.org", False),
    ([f"{ID}; dmarc=none header.from=example.org"], "alice@example.org", False),
    ([], "alice@example.org", False),
    ([DMARC_PASS.replace(ID, "mx.elsewhere.example")], "alice@example.org", False),  # not our server's
    # the sender's own header below ours: ours, at the top, decides
    ([DMARC_FAIL, DMARC_PASS], "alice@example.org", False),
    # a header with another id above ours, saying pass: ignored; ours says fail
    ([DMARC_PASS.replace(ID, "mx.club.example.evil.test"), DMARC_FAIL], "alice@example.org", False),
    ([f"{ID.upper()}; DMARC=PASS header.from=EXAMPLE.ORG"], "Alice@Example.Org", True),  # any case
    ([f"{ID}; dkim=pass header.d=org"], "alice@example.org", False),  # a top-level domain aligns nothing
])
def test_only_the_topmost_header_of_our_server_counts(headers, sender, expected):
    assert verified(mail(*headers, sender=sender), sender, ID) is expected


def test_without_a_trusted_server_nothing_is_believed():
    assert not verified(mail(DMARC_PASS), "alice@example.org", None)
    assert not verified(mail(DMARC_PASS), None, ID)


def test_a_verdict_of_a_server_we_do_not_trust_binds_nothing(mail: Mailbox):
    """A sender who writes a verdict himself, under an id the server does
    not trust, still gets the confirmation round."""
    raw = (f"Authentication-Results: {ID}; dmarc=pass header.from=example.org\r\n"
           "From: alice@example.org\r\nTo: pbm@pbm.test\r\nSubject: signup alice apple\r\n"
           "Message-ID: <forged-verdict@example.org>\r\n\r\n").encode()
    (welcome,) = mail.deliver(raw)  # the test server trusts mx.pbm.test, not mx.club.example
    assert "One step is left: confirm that alice@example.org is yours" in flat(welcome)
    assert mail.pipeline.store.confirmed_addresses(mail.pipeline.store.find_user("alice").id) == []
