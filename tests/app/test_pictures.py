"""Board mails carry a picture: multipart/alternative with the text first,
then the HTML part and the PNG it shows (multipart/related); the picture
outlines the last turn and, at the end, the winning track; players and the
operator can turn pictures off."""

from __future__ import annotations

import html
import io
import re
from email.message import EmailMessage

import pytest
from PIL import Image

import pbm.app.compose as compose
from pbm.app.compose import MAIL_ZOOM, PICTURE_MAX_HEIGHT, Renderer
from pbm.app.pipeline import Pipeline
from pbm.domain.store import Store
from pbm.trax import Board
from pbm.trax.picture import INDEX, cell_box

from .conftest import Clock, Mailbox, server_config, text_of

#: A won Trax game from the recorded games: white closes a loop on move 11.
LOOP_GAME = ["@0+", "@1+", "B0/", "C1/", "B0/", "B0/", "B0+", "D4+", "C1\\", "D6\\", "A2+"]


def parts(msg: EmailMessage) -> tuple[EmailMessage, EmailMessage, EmailMessage]:
    """The text part, the HTML part and the picture of a board mail, after
    checking the structure: alternative(text, related(html, png)), inside a
    multipart/mixed with the game record when the game is over."""
    if msg.get_content_type() == "multipart/mixed":
        msg, record = msg.get_payload()
        assert record.get_content_disposition() == "attachment"
        assert re.fullmatch(r"trax-\d+\.txt", record.get_filename())
    assert msg.get_content_type() == "multipart/alternative"
    text, related = msg.get_payload()
    assert text.get_content_type() == "text/plain"
    assert related.get_content_type() == "multipart/related"
    assert related.get_param("type") == "text/html"
    page, picture = related.get_payload()
    assert page.get_content_type() == "text/html"
    assert picture.get_content_type() == "image/png"
    return text, page, picture


def image_of(picture: EmailMessage) -> Image.Image:
    data = picture.get_content()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def indexes(image: Image.Image) -> set[int]:
    """The palette indexes used in a palette image (one byte a pixel)."""
    return set(image.tobytes())


def indexes_in(image: Image.Image, box: tuple[int, int, int, int]) -> set[int]:
    return indexes(image.crop(box))


def outside(image: Image.Image, boxes: list[tuple[int, int, int, int]], grow: int) -> set[int]:
    """The palette indexes of every pixel outside the (grown) boxes."""
    copy = image.copy()
    blank = INDEX["background"]
    for x0, y0, x1, y1 in boxes:
        copy.paste(blank, (x0 - grow, y0 - grow, x1 + grow, y1 + grow))
    return indexes(copy)


def check_board_mail(msg: EmailMessage, moves: list[str], game: str = "trax") -> Image.Image:
    """One board mail: its structure, its HTML (no remote content, the CID
    resolves, the board as a card with no text diagram, the status and the
    next step's command line as the text part has them), and its picture
    (drawn at MAIL_ZOOM, shown at the look's size) against the position."""
    text, page, picture = parts(msg)
    body = page.get_content()
    cid = picture["Content-ID"].strip("<>")
    assert f'src="cid:{cid}"' in body
    assert picture.get_content_disposition() == "inline"
    assert not re.search(r"(?i)<script|https?:|data:|src=\"(?!cid:)", body)
    alt = html.unescape(re.search(r'alt="([^"]*)"', body).group(1))
    assert (" ".join(moves) in alt) if moves else "empty board" in alt
    plain = text.get_content()
    assert "<pre" not in body and "o = white, # = black" in plain and "o = white" not in body
    words = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())
    status = next(line for line in plain.splitlines() if line.startswith(("It is ", "Game ", "Board ")))
    assert status in words
    for command in re.findall(r"(?m)^  (\S+ move \d+ \S+ PASSWORD \S+)$", plain):
        assert 'class="pbm-code"' in body and command in words
    image = image_of(picture)
    assert image.mode == "P"
    board = Board.replay(moves, game)
    width = int(re.search(r'<img [^>]*width="(\d+)"', body).group(1))
    assert image.size[0] == MAIL_ZOOM * width or image.size[1] > MAIL_ZOOM * PICTURE_MAX_HEIGHT
    last = board.last_turn()
    if last is None:
        assert INDEX["chosen"] not in indexes(image)
        return image
    chosen = cell_box(board, last.placed.column, last.placed.row, zoom=MAIL_ZOOM)
    assert INDEX["chosen"] in indexes_in(image, chosen)
    forced = [cell_box(board, m.column, m.row, zoom=MAIL_ZOOM) for m in last.forced]
    assert INDEX["chosen"] not in outside(image, [chosen], 3)
    for box in forced:
        assert INDEX["forced"] in indexes_in(image, box)
    if not forced:
        assert INDEX["forced"] not in indexes(image)
    return image


def test_a_game_by_mail_to_a_win_has_a_picture_in_every_board_mail(players):
    new = players.send("alice@example.org", "trax challenge alice bob apple")
    sizes = []
    for msg in new:
        check_board_mail(msg, [])
    for n, move in enumerate(LOOP_GAME, start=1):
        who, password = ("alice", "apple") if n % 2 else ("bob", "banana")
        replies = players.send(f"{who}@example.org", f"trax move 101 {who} {password} {move}#{n}")
        assert [str(m["To"]) for m in replies] == ["alice@example.org", "bob@example.org"]
        for msg in replies:
            image = check_board_mail(msg, LOOP_GAME[:n])
        sizes.append(image.size)
        text = text_of(replies[0])
        assert all(len(line) <= 78 for line in text.splitlines())
        if n < len(LOOP_GAME):
            assert text.rstrip().endswith(f"trax move 101 {'bob' if n % 2 else 'alice'} PASSWORD <move>#{n + 1}")
    # the picture grows with the board
    assert sizes[-1][0] > sizes[0][0] and sizes[-1][1] > sizes[0][1]
    # the final mail: the loop glows, and only on the loop's cells
    final = Board.replay(LOOP_GAME)
    track = final.winning_track()
    assert track is not None and track.kind == "loop"
    image = image_of(parts(replies[0])[2])
    loop_boxes = [cell_box(final, c, r, zoom=MAIL_ZOOM) for c, r in track.cells]
    for box in loop_boxes:
        assert INDEX["win"] in indexes_in(image, box)
    assert INDEX["win"] not in outside(image, loop_boxes, 0)
    assert "Game won by alice (white loop)." in text_of(replies[0])
    # the final mail carries the game's record as a file
    record = next(p for p in replies[0].walk() if p.get_content_disposition() == "attachment")
    assert record.get_filename() == "trax-101.txt"
    assert record.get_content().startswith('[Game "Trax"]')
    assert "\n11. A2+\n" in record.get_content()


def test_the_last_turn_is_marked_in_the_text_too(players):
    players.send("alice@example.org", "trax challenge alice bob apple")
    moves = ["@0/", "B1+", "A2\\", "B0\\"]
    for n, move in enumerate(moves, start=1):
        who, password = ("alice", "apple") if n % 2 else ("bob", "banana")
        replies = players.send(f"{who}@example.org", f"trax move 101 {who} {password} {move}#{n}")
    text = text_of(replies[0])
    assert "* = last move (B0\\), x = tiles it forced" in text
    assert "Last turn: bob played B0\\ (forced: A1/)" in text
    assert " * " in text and " x " in text


def test_a_player_can_turn_pictures_off_and_on(players):
    players.send("alice@example.org", "trax challenge alice bob apple")
    (done,) = players.send("alice@example.org", "set alice apple pictures off")
    assert done["Subject"] == "Trax PBM: settings of alice"
    assert "your setting pictures is now off" in text_of(done)
    alice, bob = players.send("alice@example.org", "trax move 101 alice apple @0/")
    assert alice.get_content_type() == "text/plain" and "alice played @0/" in text_of(alice)
    parts(bob)
    (listed,) = players.send("alice@example.org", "set alice apple")
    assert "pictures  off" in text_of(listed)
    players.send("alice@example.org", "set alice apple pictures on")
    for msg in players.send("bob@example.org", "trax move 101 bob banana B1+"):
        parts(msg)


def test_a_wrong_password_changes_no_setting(players):
    (refused,) = players.send("mallory@example.org", "set alice wrong pictures off")
    assert refused["Subject"] == "Trax error"
    assert players.pipeline.store.find_user("alice").pictures == 1


def test_the_operator_can_turn_pictures_off(tmp_path):
    path = tmp_path / "pbm.toml"
    config = server_config(tmp_path)
    path.write_text(path.read_text().replace('name = "Trax PBM"\n', 'name = "Trax PBM"\npictures = false\n'))
    from pbm.config import load_config

    config = load_config(path)
    assert config.server.pictures is False
    store = Store(config.server.database)
    mail = Mailbox(Pipeline(store, config), Clock())
    mail.send("alice@example.org", "signup alice apple")
    mail.send("bob@example.org", "signup bob banana")
    for msg in mail.send("alice@example.org", "trax challenge alice bob apple"):
        assert msg.get_content_type() == "text/plain"
    store.close()


def test_one_picture_per_board_state_shared_by_every_mail_of_it(players, monkeypatch):
    drawn = []
    real = compose.board_png
    monkeypatch.setattr(compose, "board_png", lambda board, **kw: drawn.append(board.ply) or real(board, **kw))
    players.send("carol@example.org", "signup carol cherry")
    players.send("alice@example.org", "trax challenge alice bob apple")
    players.send("carol@example.org", "trax subscribe 101 carol cherry")
    drawn.clear()
    replies = players.send("alice@example.org", "trax move 101 alice apple @0/")
    assert len(replies) == 3 and drawn == [1]
    cids = {parts(m)[2]["Content-ID"] for m in replies}
    assert len(cids) == 1
    players.send("dave@example.org", "trax show 101")
    assert drawn == [1]  # the same state again: drawn once


def test_a_show_of_a_past_position_pictures_that_position(players):
    players.send("alice@example.org", "trax challenge alice bob apple")
    for n, move in enumerate(["@0/", "B1+", "A2\\"], start=1):
        who, password = ("alice", "apple") if n % 2 else ("bob", "banana")
        players.send(f"{who}@example.org", f"trax move 101 {who} {password} {move}#{n}")
    (shown,) = players.send("carol@example.org", "trax show 101#2")
    check_board_mail(shown, ["@0/", "B1+"])
    assert "Board 101 as it stood after move 2, B1+ by bob; the game now has 3 moves." in text_of(shown)


def test_a_submitted_move_says_it_is_not_played(players):
    players.send("alice@example.org", "trax challenge alice bob apple")
    players.send("alice@example.org", "trax move 101 alice apple @0/")
    (submitted,) = players.send("bob@example.org", "trax submit 101 bob banana B1+")
    text = text_of(submitted)
    assert "Board 101 as it would stand after move 2, B1+, which has not been played." in text
    assert "as it stood" not in text
    check_board_mail(submitted, ["@0/", "B1+"])


def test_a_board_decided_with_no_moves_is_not_called_empty(players):
    players.send("alice@example.org", "trax challenge alice bob apple")
    (cancelled, _) = players.send("alice@example.org", "trax resign 101 alice apple")
    text = text_of(cancelled)
    assert "Game cancelled" in text and "The board is empty" not in text


@pytest.mark.parametrize("columns", [10, 24, 32])
def test_a_wide_board_keeps_every_line_within_78_columns(players, columns):
    players.send("alice@example.org", "looptrax challenge alice bob apple")
    board = Board("looptrax")
    moves = ["@0+"]
    board.play("@0+")
    while board.width < columns:
        move = next(str(m) for m in board.legal_moves() if m.symbol == "+" and m.column == board.width + 1)
        board.play(move)
        moves.append(move)
    for n, move in enumerate(moves, start=1):
        who, password = ("alice", "apple") if n % 2 else ("bob", "banana")
        replies = players.send(f"{who}@example.org", f"looptrax move 101 {who} {password} {move}#{n}")
    text = text_of(replies[0])
    assert max(len(line) for line in text.splitlines()) <= 78
    assert ("Columns @ to" in text) == (columns >= 24)
    image = check_board_mail(replies[0], moves, "looptrax")
    assert image.width > 36 * columns


def alt(board: Board) -> str:
    return " ".join(Renderer().partial("html/picture-alt.txt", board=board).split())


def test_the_alt_text_gives_the_moves_and_who_is_to_move_or_how_it_ended():
    assert alt(Board.replay(["@0/", "A2+"])) == "Trax position after 2 moves: @0/ A2+; white (o) to move"
    assert alt(Board.replay(["@0/"])) == "Trax position after 1 move: @0/; black (#) to move"
    assert alt(Board("looptrax")).startswith("LoopTrax position before the first move (the empty board)")
    assert alt(Board.replay(LOOP_GAME)).endswith("; white won with a loop")
    line = Board.replay(["@0+", "B1+", "C1+", "D1+", "E1+", "F1+", "G1+", "H1+"])
    assert alt(line).endswith("; black won with a line")
