"""Issue 28, "trust no From": a password typed where the grammar has no
place for it is never echoed, through the real pipeline.

For each form a player writes by habit (a password after the userid of
``password reset``, a password in the command word's place, a whole command
as a line of a digest's reply, a login after the move of a reply to a board
mail), the password is found neither in a reply (every part of it, decoded),
nor in the line the daemon logs (``Result.summary``), nor in any table of the
database afterwards.  And the log's line for a mail stays one line of at
most 1,000 characters, however much the mail holds.
"""

from __future__ import annotations

import logging
import re
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser

from pbm.server.logtext import cut
from tests.ticks import tick_mails

from .conftest import Mailbox, flat, is_error, server_config, to_of
from .replies import client_reply
from .test_password_orders import tables_holding

A, B = "alice@example.org", "bob@example.org"


def texts(msg: EmailMessage) -> str:
    """Every text part of a reply, decoded, and its header."""
    parts = [str(msg.items())]
    for part in msg.walk():
        if part.get_content_maintype() == "text":
            parts.append(part.get_content())
    return "\n".join(parts)


def assert_never_echoed(mail: Mailbox, replies: list[EmailMessage], secret: str) -> None:
    for reply in replies:
        assert secret not in texts(reply), texts(reply)
    assert mail.result is not None and secret not in mail.result.summary, mail.result.summary
    assert tables_holding(mail.pipeline.store, secret) == []


def received(mail: Mailbox, message: Message) -> EmailMessage:
    """A mail the clock work queued, as its recipient gets it."""
    if hasattr(mail, "received"):  # the outbox writes secrets into queued mail as it sends it
        return mail.received(message)
    return BytesParser(policy=policy.default).parsebytes(bytes(message))


def moves_of(mail: Mailbox, number: int = 101) -> list[str]:
    return mail.pipeline.store.board(number).moves.split()


def mine(replies: list[EmailMessage], address: str) -> EmailMessage:
    (msg,) = [m for m in replies if to_of(m) == address]
    return msg


def test_a_password_after_the_userid_of_password_reset(players):
    mail = players
    replies = mail.send(A, "password reset alice apple")
    (error,) = replies
    assert is_error(error)
    assert "password reset takes the userid alone, no password" in flat(error)
    assert "password reset ******** ********" in flat(error)
    assert_never_echoed(mail, replies, "apple")
    # the userid alone still mails a code
    assert sorted(to_of(r) for r in mail.send(A, "password reset alice")) == [A, A]


def test_a_password_in_the_command_words_place(players):
    mail = players
    for subject, quoted in (("trax apple 101 alice", "trax ******** ..."),
                            ("trax move apple", "trax move ********"),
                            ("trax standings alice apple", "trax standings ******** ********")):
        replies = mail.send(A, subject)
        (error,) = replies
        assert is_error(error) and quoted in flat(error), flat(error)
        assert_never_echoed(mail, replies, "apple")
    (error,) = mail.send(A, "trax apple 101 alice")
    assert "the word after trax is not a trax command" in flat(error)
    # in a body of commands too
    replies = mail.send(A, "multiple", "trax show 101\napple 101 alice\n")
    assert "the first word is not a command" in flat(replies[0])
    assert_never_echoed(mail, replies, "apple")


def test_a_whole_command_as_a_line_of_a_digest_reply(players):
    mail = players
    mail.send(B, "set bob banana digest daily 18")
    mail.send(A, "trax challenge alice bob apple")
    mail.send(A, "trax move 101 alice apple @0/")
    mail.clock.now = mail.clock.now.replace(hour=18, minute=0)
    (digest,) = [received(mail, m) for m in tick_mails(mail.pipeline, mail.clock.now) if "digest" in str(m["Subject"])]
    replies = mail.deliver(client_reply(digest, B, "101 bob banana B1+", when=mail.clock.now))
    (error,) = replies
    assert to_of(error) == B and is_error(error)
    assert "a line of a reply to a digest is a board and a move, nothing else" in flat(error)
    assert "101 ******** ******** B1+ (in your reply)" in flat(error)
    assert_never_echoed(mail, replies, "banana")
    assert moves_of(mail) == ["@0/"]
    # the line as it should be plays the move
    mail.deliver(client_reply(digest, B, "101 B1+", when=mail.clock.now))
    assert moves_of(mail) == ["@0/", "B1+"]


def test_a_login_after_the_move_of_a_reply_is_ignored_not_relayed(players):
    mail = players
    new = mail.send(A, "trax challenge alice bob apple")
    replies = mail.deliver(client_reply(mine(new, A), A, "@0+ alice apple\nGood luck, Bob!",
                                        when=mail.clock.now))
    assert moves_of(mail) == ["@0+"]
    to_bob = mine(replies, B)
    assert "alice writes:" in flat(to_bob) and "Good luck, Bob!" in flat(to_bob)
    assert_never_echoed(mail, replies, "apple")
    # a login before the move: the one legal move of the line is played, the login neither
    # quoted nor relayed
    replies = mail.deliver(client_reply(mine(replies, B), B, "bob banana B1+", when=mail.clock.now))
    assert not any(is_error(r) for r in replies)
    assert_never_echoed(mail, replies, "banana")
    assert moves_of(mail) == ["@0+", "B1+"]
    # two moves after it, both legal: refused, the login masked
    replies = mail.deliver(client_reply(mine(replies, A), A, "alice apple C1+ A2+", when=mail.clock.now))
    (error,) = replies
    assert is_error(error) and "names more than one move that is legal here" in flat(error)
    assert "******** ******** C1+ A2+ (in your reply)" in flat(error)
    assert_never_echoed(mail, replies, "apple")
    assert moves_of(mail) == ["@0+", "B1+"]



# --- issue 30: a move that is no move is named, once its sender logged in ------------------------


def failures(mail: Mailbox, sender: str, userid: str = "alice") -> int:
    store = mail.pipeline.store
    row = store.login_failures(sender, store.find_user(userid).id)
    return 0 if row is None else row.failures


def test_a_typo_in_the_move_is_named_and_the_password_masked(players):
    mail = players
    mail.send(A, "trax challenge alice bob apple")
    replies = mail.send(A, "trax move 101 alice apple B2x", "gg, Bob!")
    (error,) = replies  # nothing to bob: a refused command relays no comment
    assert to_of(error) == A and is_error(error) and str(error["Subject"]) == "Trax Board 101 Error"
    assert "Your command: trax move 101 alice ******** B2x" in flat(error)
    assert "Problem: B2x is not Trax notation; moves look like B2/, @0+ or C3\\" in flat(error)
    assert "instead of a move you may write resign, propose, undo, accept, reject" in flat(error)
    assert "The right form: trax move BOARD USERID PASSWORD MOVE[#N]" in flat(error)
    assert "Trax board 101" in flat(error)  # the board it was meant for
    assert_never_echoed(mail, replies, "apple")
    # the log keeps the word masked: the operator sees no word that was not read
    assert mail.result is not None and mail.result.summary.endswith("trax move 101 alice ******** ********")
    assert "B2x" not in mail.result.summary
    # the reply alone holds the word, as written (a random token or hash may hold "b2x" in another case)
    store = mail.pipeline.store
    holding = {table for table in store.db.table_names() for row in store.db.table(table).rows
               for value in row.values()
               if "B2x" in (value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value))}
    assert holding == {"outbox"}
    assert moves_of(mail) == [] and failures(mail, A) == 0
    # a wrong #N is named the same way
    (error,) = mail.send(A, "trax move 101 alice apple @0+#0")
    assert "Your command: trax move 101 alice ******** @0+#0" in flat(error)
    assert "Problem: @0+#0 is not a valid move: a move number after # is at least 1" in flat(error)


def test_a_password_typed_in_another_place_is_never_echoed(players):
    mail = players
    mail.send(A, "trax challenge alice bob apple")
    for subject in ("trax move 101 alice B2x apple",  # the password where the move stands
                    "trax move 101 apple alice B2x",  # ... where the userid stands
                    "trax move 101 alice apple apple",  # typed twice: in its place, and as the move
                    "trax move 101 alice apple xapplex",  # a move that holds it
                    "trax move 101 alice apple APPLE"):  # in another case
        replies = mail.send(A, subject)
        (error,) = replies
        assert is_error(error), subject
        assert_never_echoed(mail, replies, "apple")
        assert mail.result is not None and "apple" not in mail.result.summary.lower()
    (error,) = mail.send(A, "trax move 101 alice apple apple")
    assert "Your command: trax move 101 alice ******** ********" in flat(error)
    assert "Problem: the move is not Trax notation" in flat(error)
    (error,) = mail.send(A, "trax move 101 alice B2x apple")
    assert "Your command: trax move ******** ******** ******** ********" in flat(error)
    assert "wrong userid or password" in flat(error)
    assert moves_of(mail) == []


def test_a_wrong_password_with_a_bad_move_stays_masked_and_counts_as_a_failed_login(players):
    mail = players
    mail.send(A, "trax challenge alice bob apple")
    replies = mail.send(A, "trax move 101 alice wonder1 B2x")
    (error,) = replies
    assert "Your command: trax move ******** ******** ******** ********" in flat(error)
    assert "Problem: wrong userid or password" in flat(error)
    assert "B2x" not in texts(error) and "wonder1" not in texts(error)
    assert_never_echoed(mail, replies, "wonder1")
    assert failures(mail, A) == 1
    mail.send(A, "trax queue 101 alice wonder2 B2x")
    assert failures(mail, A) == 2
    # only with the right password is the move named
    (error,) = mail.send(A, "trax move 101 alice apple B2x")
    assert "Your command: trax move 101 alice ******** B2x" in flat(error)


def test_queue_and_submit_name_the_word_that_is_no_move(players):
    mail = players
    mail.send(A, "trax challenge alice bob apple")
    replies = mail.send(A, "trax queue 101 alice apple @0+ B1+ resign")
    (error,) = replies
    assert "Your command: trax queue 101 alice ******** @0+ B1+ resign" in flat(error)
    assert "Problem: resign is not a valid move: only tiles can be given here, not resign" in flat(error)
    assert_never_echoed(mail, replies, "apple")
    (error,) = mail.send(A, "trax submit 101 alice apple XYZ")
    assert "Your command: trax submit 101 alice ******** XYZ" in flat(error)
    assert "Problem: XYZ is not Trax notation" in flat(error)
    assert moves_of(mail) == []
    # someone who is no player of the board is told only that
    mail.send("carol@example.org", "signup carol cherry")
    (error,) = mail.send("carol@example.org", "trax move 101 carol cherry B2x")
    assert "Your command: trax move ******** ******** ******** ********" in flat(error)
    assert "B2x" not in texts(error)


def test_a_luckytrax_cell_that_is_no_cell_is_named(players):
    mail = players
    mail.send(A, "luckytrax challenge alice bob apple")
    replies = mail.send(A, "luckytrax move 101 alice apple C3x")
    (error,) = replies
    assert "Your command: luckytrax move 101 alice ******** C3x" in flat(error)
    assert "Problem: C3x is not Trax notation" in flat(error)
    assert "The right form: luckytrax move BOARD USERID PASSWORD CELL[#N]" in flat(error)
    assert_never_echoed(mail, replies, "apple")


# --- the log: one line a mail, of bounded length -------------------------------------------------


def test_a_log_line_is_cut_in_its_middle_with_a_marker():
    assert cut("short") == "short"
    text = "head " + "x" * 20_000 + " tail"
    shown = cut(text)
    assert len(shown) <= 1000 and shown.startswith("head ") and shown.endswith(" tail")
    marker = re.search(r" \[\.\.\. (\d+) characters cut \.\.\.\] ", shown)
    assert marker is not None and len(shown) - len(marker.group(0)) + int(marker.group(1)) == len(text)
    assert cut("a\nforged: line\r\x00") == "a\\nforged: line\\r\\x00"
    assert len(cut("y" * 5000, most=50)) <= 50


def test_the_daemon_logs_a_mail_of_many_commands_in_short_lines(tmp_path, caplog):
    from pbm.server.daemon import Daemon

    config = server_config(tmp_path)
    daemon = Daemon(config)
    body = "".join(f"trax show {' '.join(['alice'] * 30)} {n}\n" for n in range(101, 201))
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = A, "pbm@pbm.test", "multiple"
    msg["Message-ID"] = "<many-commands@example.org>"
    msg.set_content(body)
    try:
        with caplog.at_level(logging.INFO, logger="pbm.daemon"):
            assert daemon._handle_one(bytes(msg), "smtp") == (True, 1)
        (record,) = [r for r in caplog.records if "many-commands" in r.getMessage()]
        logged = record.getMessage()
        assert len(logged) <= 1000 and "characters cut" in logged
        assert logged.startswith("<many-commands@example.org> from=alice@example.org via=smtp cmd=")
        assert logged.endswith("-> handled, 1 replies, " + logged.rsplit(", ", 1)[1])  # the outcome stays
        # the database keeps the summary whole
        (row,) = daemon.store.db.query("SELECT summary FROM handled WHERE message_key = ?",
                                       ["<many-commands@example.org>"])
        assert len(row["summary"]) > 15_000
    finally:
        daemon.outbox.close()
        daemon.store.close()
