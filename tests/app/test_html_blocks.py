"""The HTML part read from the text part (``compose.blocks``) and built
from the board's card: pure, no browser (tests/web/test_mail_html.py looks
at the pages in Chromium)."""

from __future__ import annotations

import re

from pbm.app.compose import TEMPLATES, Block, blocks

from .conftest import text_of


def kinds(text: str, lead: bool = False) -> list[str]:
    return [b.kind for b in blocks(text, lead=lead)]


def test_paragraphs_folded_by_the_text_part_are_joined_again():
    (para,) = blocks("It is your turn on two boards, the most urgent\nfirst, as the digest says.\n")
    assert para == Block("para", "It is your turn on two boards, the most urgent first, as the digest says.")


def test_a_short_first_paragraph_is_the_lead_and_a_long_one_is_not():
    assert kinds("bob played C1/ (move 4).\n\nIt is alice's turn.", lead=True) == ["lead", "para"]
    assert kinds("word " * 60, lead=True) == ["para"]


def test_label_lines_are_facts_with_their_continuations():
    (facts,) = blocks("Your command:  trax move 101 alice ******** Z9/\n"
                      "Problem:       Z9 is off the board: columns run\n"
                      "               from @ to B")
    assert facts.kind == "facts"
    assert facts.rows == (("Your command", "trax move 101 alice ******** Z9/"),
                          ("Problem", "Z9 is off the board: columns run from @ to B"))


def test_an_indented_line_after_a_colon_is_a_command_to_copy():
    text = ("To start a game, send (with your own password in place of PASSWORD):\n"
            "  trax challenge alice OPPONENT PASSWORD\n")
    assert blocks(text) == (Block("para", "To start a game, send (with your own password in place of PASSWORD):"),
                            Block("command", "trax challenge alice OPPONENT PASSWORD"))


def test_an_indented_description_is_a_note_not_a_command():
    text = "help [TOPIC ...]\n    help by mail: the index of topics,\n    or the topics asked for"
    assert blocks(text) == (Block("para", "help [TOPIC ...]"),
                            Block("note", "help by mail: the index of topics, or the topics asked for"))


def test_a_text_table_becomes_rows_of_cells():
    text = "#  Rating  Games  W-L-D  Player\n1    1800      1  1-0-0  alice\n2    1400      1  0-1-0  bob"
    (table,) = blocks(text)
    assert table.kind == "table"
    assert table.rows[0] == ("#", "Rating", "Games", "W-L-D", "Player")
    assert table.rows[2] == ("2", "1400", "1", "0-1-0", "bob")


def test_a_diagram_is_kept_as_it_is():
    diagram = "     @     A\n  .     .     .\n0    +--o--+    0\n     |  o  |\n"
    (block,) = blocks(diagram)
    assert block.kind == "pre" and block.text == diagram.rstrip("\n")


def test_a_folded_value_after_a_single_blank_stays_one_paragraph():
    text = "The right form: trax challenge USERID1 USERID2\n                [--nagtime=D] [--forfeittime=D]"
    assert blocks(text) == (Block("para", "The right form: trax challenge USERID1 USERID2 "
                                          "[--nagtime=D] [--forfeittime=D]"),)


def test_every_template_that_places_a_picture_closes_it():
    """The HTML part shows a picture (or a card) in place of the text up to
    ``picture_end()``: a template that forgot it would lose its text."""
    placed = 0
    for folder in ("replies", "partials", "errors"):
        for path in TEMPLATES.joinpath(folder).iterdir():
            if path.is_file():
                source = path.read_text(encoding="utf-8")
                assert source.count("{{ picture(") == source.count("{{ picture_end() }}"), path.name
                placed += source.count("{{ picture(")
    assert placed == 3  # partials/board.txt, replies/preview.txt and replies/analysis.txt


def test_a_board_mail_says_the_same_in_both_parts(players):
    """The card's status, next step and command are the text part's own."""
    players.send("alice@example.org", "trax challenge alice bob apple")
    (_, bob) = players.send("alice@example.org", "trax move 101 alice apple @0/", "Your move!")
    html = bob.get_body(("html",)).get_content()
    words = " ".join(re.sub(r"<[^>]+>", " ", html).replace("&#39;", "'").split())
    text = " ".join(text_of(bob).split())
    for said in ("alice played @0/ (move 1).", "It is bob's turn (black).",
                 "bob moves next: reply to this mail with the move on the first line (for example C3/).",
                 "trax move 101 bob PASSWORD &lt;move&gt;#2", "alice writes:", "Your move!"):
        assert said in words, said
        assert said.replace("&lt;", "<").replace("&gt;", ">") in text, said


def test_a_player_with_pictures_off_gets_plain_text(players):
    players.send("bob@example.org", "set bob banana pictures off")
    (alice, bob) = players.send("alice@example.org", "trax challenge alice bob apple")
    assert bob.get_content_type() == "text/plain"
    assert alice.get_body(("html",)) is not None


def test_japanese_text_is_read_into_the_same_blocks():
    """A fact with a Japanese label, a command brought in by a full-width
    colon, and a short Japanese line that holds capitals (no heading: only
    a line of Latin capitals is)."""
    text = ("白 (o)：  alice\n\n次のコマンドを送ってください：\n  trax move 101 bob PASSWORD B2/\n\n"
            "1. 自分のユーザーIDとパスワード")
    found = blocks(text)
    assert found[0] == Block("facts", rows=(("白 (o)", "alice"),))
    assert Block("command", "trax move 101 bob PASSWORD B2/") in found
    assert found[-1].kind == "para"
