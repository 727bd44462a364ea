"""Raw UTF-8 in headers (mail sent with SMTPUTF8), passwords in any Unicode
form, and userids that cannot be mistaken for one another."""

from __future__ import annotations

from .conftest import Mailbox, flat, is_error


def raw_mail(sender: str, subject: str, mid: str) -> bytes:
    return (f"From: {sender}\r\nTo: pbm@pbm.test\r\nMessage-ID: <{mid}@example.org>\r\n"
            f"Subject: {subject}\r\n\r\n\r\n").encode()


def test_raw_utf8_passwords_are_read_as_utf8_not_as_unreadable_characters(mail: Mailbox):
    mail.deliver(raw_mail("alice@example.org", "signup alice pässwörd日本", "u1"))
    assert mail.pipeline.store.find_user("alice") is not None
    wrong = mail.deliver(raw_mail("alice@example.org", "trax limit alice pÿsswÿrd丸丸 5", "u2"))
    assert "wrong userid or password" in flat(wrong[0])
    right = mail.deliver(raw_mail("alice@example.org", "trax limit alice pässwörd日本 5", "u3"))
    assert not is_error(right[0]), flat(right[0])


def test_a_word_that_could_not_be_read_is_no_password(mail: Mailbox):
    raw = b"From: alice@example.org\r\nTo: pbm@pbm.test\r\nMessage-ID: <u4@example.org>\r\n" \
          b"Subject: signup alice p\xff\xfess\r\n\r\n\r\n"
    replies = mail.deliver(raw)
    assert "the password is not valid: a password has no characters that could not be read" in flat(replies[0])
    assert mail.pipeline.store.find_user("alice") is None


def test_passwords_are_the_same_in_every_unicode_form(mail: Mailbox):
    mail.send("bob@example.org", "signup bob ｐａｓｓ１")  # full-width letters and digit
    assert not is_error(mail.send("bob@example.org", "trax limit bob pass1 5")[0])


def test_new_userids_are_from_a_safe_set(mail: Mailbox):
    for userid in ("аlice", "αlice", "al=?ce", "_alice", "ａlice", "ﬁona"):
        replies = mail.send("eve@example.org", f"signup {userid} pw")
        assert is_error(replies[0]), userid
        assert "a new userid is Latin letters (accents are fine), digits, _ . and -" in flat(replies[0]) \
            or "userid is not valid" in flat(replies[0]), (userid, flat(replies[0]))
    assert mail.pipeline.store.all_users() == []
    assert not is_error(mail.send("eve@example.org", "signup Eve.Smith-2 pw")[0])
    assert not is_error(mail.send("eve@example.org", "signup Jörg pw")[0])
    # invisible characters never reach a userid: the subject drops them
    mail.send("eve@example.org", "signup ali\u200bce pw")
    assert mail.pipeline.store.find_user("alice").userid == "alice"


def test_a_sender_address_that_is_not_ascii_gets_no_reply(mail: Mailbox):
    replies = mail.deliver(raw_mail("jörg@example.org", "help", "u5"))
    assert replies == [] and mail.result.status == "dropped"
