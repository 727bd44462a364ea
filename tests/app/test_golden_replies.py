"""The main replies, word for word (golden files in tests/server/golden/)."""

from .conftest import text_of, to_of
from .test_conversations import play_moves


def as_text(replies) -> str:
    return "\n".join(
        f"To: {to_of(r)}\nSubject: {r['Subject']}\n\n{text_of(r)}" for r in replies
    )


def test_golden_new_board_mail(players, golden):
    replies = players.send("carol@example.org", "trax challenge alice bob apple", "Have fun, both of you.")
    golden.check("new-board.txt", as_text(replies[:1]))


def test_golden_board_mail_with_a_comment(players, golden):
    players.send("alice@example.org", "trax challenge alice bob apple")
    play_moves(players, 101, ["@0/", "B1+", "C1/"])
    replies = players.send("bob@example.org", "trax move 101 bob banana C2\\#4", "Your move!\n\n> quoted old text")
    golden.check("board-mail.txt", as_text(replies[:1]))


def test_golden_final_board_mail(players, golden):
    players.send("alice@example.org", "trax challenge alice bob apple")
    replies = play_moves(players, 101, ["@0+", "B1\\", "B2/", "A2+", "A3/", "A0\\", "@3+", "@3\\", "B2+"])
    golden.check("won-loop.txt", as_text(replies[:1]))


def test_golden_illegal_move_error(players, golden):
    players.send("alice@example.org", "trax challenge alice bob apple")
    play_moves(players, 101, ["@0/", "B1+", "C1/", "C2\\", "@1+", "A2/", "A3/", "D3\\"])
    replies = players.send("alice@example.org", "trax move 101 alice apple B3\\")
    golden.check("illegal-move.txt", as_text(replies))


def test_golden_usage_error(players, golden):
    replies = players.send("alice@example.org", "trax challenge alice")
    golden.check("usage-error.txt", as_text(replies))


def test_golden_games_table(players, golden):
    players.send("alice@example.org", "trax challenge alice bob apple")
    players.send("alice@example.org", "trax challenge bob alice banana")
    play_moves(players, 101, ["@0/"])
    golden.check("games.txt", as_text(players.send("carol@example.org", "trax games")))
