"""Reply lines in columns as a terminal shows them, and Japanese folded
between characters by its rules of line breaking (pbm.app.widths, and the
fold of pbm.app.compose: fill, wrap, reflow, table)."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbm.app.compose import WIDTH, fill, reflow, table, wrap
from pbm.app.widths import NO_END, NO_START, asian, columns, cut, index_at, pieces
from tests.widths import columns as terminal_columns

COMMAND = "trax move 101 alice PASSWORD B2/"
#: A Japanese paragraph as a translation would have it: no blanks between
#: words, ASCII words (userids, a move, a command) set off by blanks or
#: brackets, closing punctuation and small kana everywhere.
JAPANESE = (
    "盤101で alice さんが B2/ を打ちました。次は bob さんの番です。返信するか、件名に"
    f"「{COMMAND}」のように書いて送ってください（パスワードは平文で送られるので、"
    "ほかで使っていないものにしてください）。ちょっと待ってね…。タイル、ループ、ライン、"
    "ぎりぎりっ、ゃゅょっ。"
)
#: Characters a Japanese line may not begin with, as the brief names them.
CLOSING = "。、」）ー…ゃゅょっ"


def lines_of(text: str) -> list[str]:
    return text.split("\n")


# ---------------------------------------------------------------- columns


@pytest.mark.parametrize(("text", "expected"), [
    ("", 0),
    ("trax move 101 alice B2/", 23),
    ("ひらがな", 8),  # kana: wide
    ("カタカナ", 8),
    ("漢字", 4),  # kanji: wide
    ("ＡＢＣ１２３", 12),  # fullwidth forms
    ("ｶﾀｶﾅ", 4),  # halfwidth katakana: one each
    ("。、「」", 8),  # Japanese punctuation: wide
    ("e\u0301", 1),  # e and a combining acute: one
    ("Zu\u0308ge", 4),  # a decomposed umlaut
    ("Züge Grüße", 10),  # precomposed umlauts and ß: one each
    ("😀", 2),  # an emoji: wide
    ("a\u200db", 2),  # a zero-width joiner: none
    ("盤101で alice", 13),
])
def test_columns_count_as_a_terminal_shows_them(text, expected):
    assert columns(text) == expected
    assert terminal_columns(text) == expected  # the tests' own count agrees


def test_pieces_break_japanese_between_characters_but_never_an_ascii_word():
    assert pieces("B2/") == ["B2/"]
    assert pieces("Grüße") == ["Grüße"]
    assert pieces("盤101で") == ["盤", "101", "で"]
    assert pieces("打ちました。") == ["打", "ち", "ま", "し", "た。"]
    assert pieces("ちょっと") == ["ちょっ", "と"]  # small kana stay with the character before
    assert pieces("「trax」を") == ["「trax」", "を"]  # no line ends with 「 or begins with 」
    assert pieces("ー") == ["ー"]
    assert pieces("か\u3099き") == ["か\u3099", "き"]  # a combining mark stays on its character


def test_cut_and_index_at_go_by_columns():
    assert cut("日本語です", 5) == ("日本", "語です")  # the third would need columns 5 and 6
    assert cut("ab", 5) == ("ab", "")
    assert cut("e\u0301x", 1) == ("e\u0301", "x")
    assert index_at("終了:    盤", 9) == 7  # 7 characters, 9 columns
    assert index_at("終了:    盤", 1) is None  # inside 終
    assert index_at("Ending:    when", 11) == 11
    assert asian("盤") and asian("ｶ") and not asian("ü") and not asian("B")


# ---------------------------------------------------------------- the fold


def assert_folded(lines: list[str], width: int = WIDTH) -> None:
    for before, line in zip(["", *lines], lines, strict=False):
        assert terminal_columns(line) <= width, f"{terminal_columns(line)} columns: {line}"
        if line and before:
            assert line.lstrip()[0] not in CLOSING, f"a line begins with closing punctuation: {line}"
            assert before[-1] not in NO_END, f"a line ends with an opening bracket: {before}"


def test_japanese_prose_is_folded_between_characters_within_78_columns():
    lines = lines_of(reflow(JAPANESE))
    assert len(lines) >= 4
    assert_folded(lines)
    assert "".join(lines).replace(" ", "") == JAPANESE.replace(" ", "")
    assert max(terminal_columns(line) for line in lines) >= WIDTH - 3  # filled, not cut at blanks only
    assert sum(line.count(COMMAND) for line in lines) == 1  # the command on one line, whole
    for word in ("alice", "bob", "B2/", "101"):
        assert any(word in line for line in lines)


def test_a_japanese_sentence_without_a_blank_still_folds():
    sentence = "このサーバーはトラックスの対局を電子メールで取り次ぎます。" * 8
    lines = lines_of(wrap(sentence))
    assert len(lines) > 1
    assert_folded(lines)
    assert "".join(lines) == sentence
    assert all(terminal_columns(line) >= WIDTH - 4 for line in lines[:-1])


@pytest.mark.parametrize("width", [20, 31, 40, 60, 78])
def test_kinsoku_holds_at_every_width(width):
    lines = lines_of(reflow(JAPANESE, width))
    assert_folded(lines, width)
    for token in ("alice", "bob", "B2/", "PASSWORD", "trax", "move"):
        assert any(token in line for line in lines)  # never cut
    assert "".join(lines).replace(" ", "") == JAPANESE.replace(" ", "")


def test_a_lone_closing_mark_after_a_blank_stays_on_the_line_before():
    text = "あ" * 37 + " B2/ 。"  # 74 columns, the move, then 。 alone
    lines = lines_of(wrap(text))
    assert lines == ["あ" * 37, "B2/ 。"]


def test_reflow_joins_japanese_lines_without_a_blank():
    source = "次は bob さんの番\nです。返信してください。\nThe move B2/\nwas played."
    assert reflow(source) == "次は bob さんの番です。返信してください。 The move B2/ was played."


def test_wrap_keeps_the_indent_and_the_label_of_japanese_lines():
    label = "終了:      "  # 11 columns, 9 characters
    line = label + "相手の番のまま" * 10
    lines = lines_of(wrap(line, hang=11))
    assert lines[0].startswith(label + "相手")
    assert all(line.startswith(" " * 11) and line[11] != " " for line in lines[1:])
    assert_folded(lines)
    indented = "    " + "パスワードを忘れたときは" * 6
    lines = lines_of(wrap(indented, hang=2))
    assert all(line.startswith("      ") for line in lines[1:])
    assert_folded(lines)


def test_fill_mixes_ascii_words_and_japanese():
    words = [COMMAND, "を", "送ってください。"] * 5
    lines = fill(" ".join(words).split(), 40)
    assert_folded(lines, 40)
    for line in lines:  # each ASCII word of the command is whole where it stands
        for word in line.replace("を", " ").split():
            if word.isascii():
                assert word in COMMAND.split()


def test_an_unbreakable_word_longer_than_a_line_is_still_cut_to_fit():
    text = "見て: https://example.org/" + "x" * 100 + "ですね"
    lines = lines_of(wrap(text))
    assert_folded(lines[:1])
    assert all(terminal_columns(line) <= WIDTH for line in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")


def test_german_counts_an_umlaut_as_one_column_and_folds_as_textwrap_does():
    text = ("Der Zug B2/ von Bärbel wurde gespielt; jetzt ist Jürgen am Zug. Schicke "
            f"„{COMMAND}“ als Betreff einer Mail an den Server, wenn du so weit bist. "
            "Übrigens: Grüße aus Köln, und viel Glück bei den nächsten Zügen!") * 2
    lines = lines_of(reflow(text))
    assert lines == textwrap.wrap(text, WIDTH, break_on_hyphens=False)
    assert any(len(line) == columns(line) >= WIDTH - 3 for line in lines)  # filled to the edge
    decomposed = text.replace("ü", "u\u0308")
    assert [terminal_columns(line) for line in lines_of(reflow(decomposed))] == \
        [terminal_columns(line) for line in lines]


def test_english_is_folded_as_before():
    text = ("It is alice's turn on board 101. Reply to this mail with your move, or send "
            f"{COMMAND} in the Subject line of a mail to the server. ") * 3
    assert lines_of(reflow(text)) == textwrap.wrap(text, WIDTH, break_on_hyphens=False)


# ---------------------------------------------------------------- tables


def test_a_table_of_japanese_cells_lines_up_in_columns():
    out = table(["プレイヤー", "勝", "状態"], [["alice", 3, "対局中"], ["ボブ", 12, "待ち"]], "<>")
    lines = lines_of(out)
    assert lines == [
        "プレイヤー  勝  状態",
        "alice        3  対局中",
        "ボブ        12  待ち",
    ]
    starts = {terminal_columns(line[: line.index(cell)]) for line, cell in zip(lines, ["状態", "対局中", "待ち"],
                                                                               strict=True)}
    assert starts == {16}  # the third column starts at one column in every row


def test_a_japanese_table_too_wide_runs_on_within_the_width():
    rows = [[f"{n}", "アレクサンドラ・モンゴメリー", "バーソロミュー・フィッツジェラルド", "対局中（白の番）"]
            for n in (101, 102)]
    lines = lines_of(table(["盤", "白", "黒", "状態"], rows, width=40))
    assert lines[0] == "盤   白 / 黒 / 状態"
    assert_folded(lines, 40)
    assert all(line.startswith("     ") for line in lines if not line.startswith(("盤", "10")))


def test_an_ascii_table_is_as_before():
    out = table(["Board", "White", "Status"], [[101, "alice", "active"], [7, "bob", "won"]], "><")
    assert out == "Board  White  Status\n  101  alice  active\n    7  bob    won"


# ---------------------------------------------------------------- properties

ASCII_WORDS = st.text(alphabet="abcxyzAB0129/@.-", min_size=1, max_size=15)
#: A Japanese run: an optional opening bracket, kana and kanji, an optional
#: closing mark (never two closing marks in a row: a run of them is one
#: unbreakable piece, and could be cut like any word longer than a line).
JAPANESE_RUNS = st.builds(
    lambda open_, body, close: open_ + body + close,
    st.sampled_from(["", "", "「", "（"]),
    st.text(alphabet="あいうかきくさしすたちつ盤手番対局打送信ちょっとッ", min_size=1, max_size=12)
    .filter(lambda s: s[0] not in NO_START),
    st.sampled_from(["", "", "。", "、", "」", "）", "ー", "…"]),
)
MIXES = st.lists(st.tuples(st.one_of(ASCII_WORDS, JAPANESE_RUNS), st.sampled_from(["", " ", " "])),
                 min_size=1, max_size=40)


def _breaks(lines: list[str], text: str) -> list[tuple[int, bool]]:
    """Where in ``text`` (its blanks single) each line after the first
    begins, and whether a blank was dropped there; fails unless the lines
    are the text in order, broken only at blanks or between characters."""
    normal = " ".join(text.split())
    at, found = 0, []
    for n, line in enumerate(lines):
        blank = normal[at: at + 1] == " " and n > 0
        at += blank
        if n:
            found.append((at, blank))
        assert normal.startswith(line, at), f"line {n} is not the text in order: {line!r}"
        at += len(line)
    assert at == len(normal)
    return found


@given(MIXES, st.integers(min_value=20, max_value=WIDTH))
def test_folding_a_mix_keeps_its_characters_and_breaks_only_where_it_may(parts, width):
    text = "".join(word + gap for word, gap in parts).strip()
    lines = lines_of(reflow(text, width))
    normal = " ".join(text.split())
    for at, blank in _breaks(lines, text):
        start, end = at, at  # the run of ASCII characters around the break
        while start and normal[start - 1] != " " and not asian(normal[start - 1]):
            start -= 1
        while end < len(normal) and normal[end] != " " and not asian(normal[end]):
            end += 1
        if end - start + 4 > width:
            continue  # a word wider than a line: cut where it must be
        before, after = normal[at - 1 - blank], normal[at]
        if blank:  # at a blank, as in English: but no line begins with "。" or ends with "「"
            assert not (after in NO_START and asian(after)), f"a line begins with {after}"
            assert not (before in NO_END and asian(before)), f"a line ends with {before}"
        else:  # between two characters: only next to a Japanese one, by the rules
            assert asian(before) or asian(after), f"an ASCII word cut: {normal[start:end]!r}"
            assert after not in NO_START, f"a line begins with {after}: {normal[at - 10: at + 10]!r}"
            assert before not in NO_END, f"a line ends with {before}: {normal[at - 10: at + 10]!r}"
    for line in lines:
        assert terminal_columns(line) <= width  # a word wider than a line is cut to fit


@given(st.lists(st.one_of(ASCII_WORDS, JAPANESE_RUNS), min_size=1, max_size=30),
       st.integers(min_value=2, max_value=30))
def test_no_line_is_wider_than_the_width_even_for_long_words(words, width):
    lines = fill(words, width)
    assert all(terminal_columns(line) <= width for line in lines)
    assert "".join(lines).replace(" ", "") == "".join(words)
