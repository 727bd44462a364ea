"""The HTML part of mail, as a phone shows it: mails made through the real
pipeline (a whole game by mail, every template that carries a board, and
the plain ones), their HTML parts opened in headless Chromium at 360, 400
and 1280 pixels, and the screenshots checked by pixel facts:

- nothing is wider than the screen: the page is laid out at the screen's
  width inside a wider window whose margin is painted magenta, and no
  column past the screen's edge holds anything but magenta;
- the next step (its box's own colour) begins within the first 800 pixels;
- a board mail shows its picture (the tiles' own colours) and no text
  diagram;
- in dark mode the sheet is dark and its text light.

Set ``PBM_MAIL_SHOTS`` to a folder to keep the screenshots there."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
from PIL import Image

from pbm.app.pipeline import Pipeline
from pbm.domain import computer
from pbm.domain.store import Store
from pbm.trax.picture import COLOURS
from tests.app.conftest import Clock, Mailbox, server_config
from tests.ticks import tick_mails

from .test_browser import chromium, count_near

pytestmark = pytest.mark.integration

A, B, C = "alice@example.org", "bob@example.org", "carol@example.org"
LOOP_GAME = ["@0+", "@1+", "B0/", "C1/", "B0/", "B0/", "B0+", "D4+", "C1\\", "D6\\", "A2+"]
#: The colours of the HTML part that the checks look for (templates/html/).
NEXT_BOX = (255, 244, 214)
DARK_SHEET = (29, 31, 35)
MAGENTA = (255, 0, 255)
WIDTHS = (360, 400, 1280)


def first(replies: list[EmailMessage], to: str) -> EmailMessage:
    return next(m for m in replies if str(m["To"]) == to)


@pytest.fixture(scope="module")
def mails(tmp_path_factory) -> Iterator[dict[str, EmailMessage]]:
    """One mail of each kind, by name, as the players get them."""
    folder = tmp_path_factory.mktemp("mails")
    config = server_config(folder)
    store = Store(config.server.database)
    mail = Mailbox(Pipeline(store, config), Clock())
    out: dict[str, EmailMessage] = {}
    out["welcome"] = mail.send(A, "signup alice apple")[0]
    mail.send(B, "signup bob banana")
    mail.send(C, "signup carol cherry")
    out["new-board"] = first(mail.send(A, "trax challenge alice bob apple"), B)
    for n, move in enumerate(LOOP_GAME, start=1):
        who, password, address = ("alice", "apple", A) if n % 2 else ("bob", "banana", B)
        body = "Nice one, I did not see that coming at all!" if n == 4 else ""
        replies = mail.send(address, f"trax move 101 {who} {password} {move}#{n}", body)
        out[f"move-{n}"] = first(replies, A if n % 2 == 0 else B)
        if n == 10:  # a long error above a board of eight rows
            out["stale-error"] = mail.send(A, "trax move 101 alice apple B2/#9")[0]
    out["game-end"] = out.pop(f"move-{len(LOOP_GAME)}")
    mail.send(A, "trax challenge alice bob apple")
    mail.send(A, "trax move 102 alice apple @0/")
    out["show"] = mail.send(B, "trax show 102")[0]
    out["error-with-board"] = mail.send(B, "trax move 102 bob banana Z9/")[0]
    out["submitted"] = mail.send(B, "trax submit 102 bob banana B1+")[0]
    out["preview"] = mail.send(B, "trax preview 102 B1+")[0]
    out["lucky"] = first(mail.send(A, "luckytrax challenge alice bob apple"), A)
    out["point"] = first(mail.send(A, "pointtrax challenge alice bob apple"), A)
    assert computer.ensure_account(store, config, mail.clock.now) is not None
    out["computer-new"] = mail.send(C, "trax challenge carol computer cherry -level=1")[0]
    mail.clock.advance(days=8)
    nags = [mail.received(m) for m in tick_mails(mail.pipeline, mail.clock.now)]
    out["nag"] = next(m for m in nags if str(m["Subject"]).startswith("Nag:"))
    mail.send("dave@example.org", "signup dave date language=ja")
    (new,) = {re.search(r"Board (\d+)", str(m["Subject"]))[1] for m in mail.send(A, "trax challenge alice dave apple")}
    moved = mail.send(A, f"trax move {new} alice apple @0/", "よろしくお願いします。")
    out["japanese"] = first(moved, "dave@example.org")
    out["help-commands"] = mail.send(C, "help commands")[0]
    out["ratings"] = mail.send(C, "trax ratings")[0]
    out["games"] = mail.send(C, "trax games alice")[0]
    out["usage-error"] = mail.send(C, "trax move")[0]
    yield out
    store.close()


#: The mails that carry a board: their card shows a picture; those of a game
#: going on show the next step.
BOARD_MAILS = ("new-board", "move-1", "move-4", "move-10", "game-end", "show", "error-with-board", "stale-error",
               "submitted", "lucky", "point", "computer-new", "nag", "japanese")
NEXT_STEP = ("new-board", "move-1", "move-4", "move-10", "show", "error-with-board", "stale-error", "lucky", "point",
             "nag", "computer-new", "japanese")
PLAIN_MAILS = ("welcome", "help-commands", "ratings", "games", "usage-error", "preview")


def page(msg: EmailMessage, folder: Path, name: str, width: int | None = None) -> Path:
    """The HTML part written to ``folder`` with its pictures beside it
    (``cid:`` made file names); with ``width``, laid out at that width in a
    wider window whose margin is magenta."""
    html_part = msg.get_body(("html",))
    assert html_part is not None, f"{name} has no HTML part"
    body = html_part.get_content()
    for part in msg.walk():
        cid = part["Content-ID"]
        if cid:
            file = folder / (re.sub(r"\W", "-", cid.strip("<>")) + ".png")
            file.write_bytes(part.get_content())
            body = body.replace(f"cid:{cid.strip('<>')}", file.name)
    if width is not None:
        body = body.replace("</head>", f"<style>html {{ background: #ff00ff !important; }} body {{ width: {width}px "
                                       "!important; max-width: {width}px !important; }}</style></head>", 1)
        body = body.replace("{width}", str(width))
    path = folder / f"{name}.html"
    path.write_text(body, encoding="utf-8")
    return path


def shot(folder: Path, path: Path, width: int, *flags: str, height: int = 2000) -> Image.Image:
    out = folder / f"{path.stem}-{width}{'-dark' if flags else ''}.png"
    done = chromium(folder, f"--window-size={width},{height}", f"--screenshot={out}", *flags, path.as_uri())
    assert out.exists(), done.stderr[-2000:]
    keep = os.environ.get("PBM_MAIL_SHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(out, Path(keep) / out.name)
    return Image.open(out).convert("RGB")


def first_row(image: Image.Image, colour: tuple[int, int, int]) -> int | None:
    """The first row that holds a run of ``colour`` (a box, not a stray pixel)."""
    width, height = image.size
    pixels = image.load()
    for y in range(height):
        run = 0
        for x in range(width):
            run = run + 1 if pixels[x, y] == colour else 0
            if run >= 20:
                return y
    return None


def overflow(image: Image.Image, width: int) -> int:
    """Pixels past the screen's edge (``width``) that are not the margin's magenta."""
    margin = image.crop((width + 1, 0, image.width, image.height))
    return margin.width * margin.height - count_near(margin, MAGENTA, 2)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", BOARD_MAILS + PLAIN_MAILS)
def test_the_html_part_fits_the_screen_and_shows_the_next_step_first(mails, tmp_path, name, width):
    msg = mails[name]
    image = shot(tmp_path, page(msg, tmp_path, name, width), width + 120)
    assert overflow(image, width) == 0, f"{name} runs past {width} px"
    screen = image.crop((0, 0, width, image.height))
    assert len(screen.getcolors(1 << 16) or range(1 << 17)) > 20  # not blank
    if name in (*BOARD_MAILS, "preview"):
        assert count_near(screen, COLOURS["tile"], 6) > 300, f"{name} shows no board picture"
    if name in NEXT_STEP:
        top = first_row(screen, NEXT_BOX)
        assert top is not None and top < 800, f"{name}: the next step begins at {top} px"
    else:
        assert first_row(screen, NEXT_BOX) is None


@pytest.mark.parametrize("name", ["move-4", "game-end", "help-commands"])
def test_in_dark_mode_the_sheet_is_dark_and_its_text_light(mails, tmp_path, name):
    image = shot(tmp_path, page(mails[name], tmp_path, name), 360, "--blink-settings=preferredColorScheme=0")
    assert count_near(image, DARK_SHEET, 3) > 360 * 200
    light_text = count_near(image.crop((0, 0, 360, 900)), (236, 235, 230), 24)
    assert light_text > 500, "the text is not light on the dark sheet"
    assert count_near(image, (235, 231, 221), 3) < 500  # the light page around the sheet is gone (a few
    # anti-aliased pixels of the picture are near its colour)


def test_the_html_of_a_board_mail_has_no_text_diagram_and_no_remote_content(mails):
    for name in BOARD_MAILS:
        body = mails[name].get_body(("html",)).get_content()
        assert "<pre" not in body and "o = white, # = black" not in body, name
        assert not re.search(r"(?i)<script|https?:|data:|src=\"(?!cid:)", body), name


def test_a_computer_game_names_its_level(mails):
    body = mails["computer-new"].get_body(("html",)).get_content()
    assert "level 1" in body, body


def test_the_next_step_of_a_reply_move_board_is_large_and_short(mails):
    """The first screen's large line is the short instruction; the subject
    line alternative follows in normal type with the command to copy."""
    body = mails["move-4"].get_body(("html",)).get_content()
    large = re.search(r'font-size:20px[^>]*>([^<]+)</p>', body)
    assert large is not None and large.group(1).startswith("alice moves next: reply to this mail")
    assert len(large.group(1)) < 100
    assert "trax move 101 alice PASSWORD &lt;move&gt;#5" in body



# ----------------------------------------------------------------------
# every mail of the recorded session (every command the language has)

GOLDEN = Path(__file__).parent.parent / "app" / "golden" / "recorded-session.txt"
#: What the harness page writes for each mail: its number, the width of
#: its laid-out page, and the top of its next step's box (-1 for none).
HARNESS_SCRIPT = """
<script>
window.addEventListener("load", () => {
  const out = [];
  for (const frame of document.querySelectorAll("iframe")) {
    const doc = frame.contentDocument;
    const next = doc.querySelector(".pbm-next");
    out.push(frame.id + " " + doc.documentElement.scrollWidth + " "
             + (next ? Math.round(next.getBoundingClientRect().top) : -1));
  }
  document.getElementById("results").textContent = out.join(";");
});
</script>"""


def session_html_parts() -> list[tuple[str, str]]:
    """The HTML part of every mail of the golden recorded session, with the
    command it answered."""
    from email import message_from_string, policy

    out = []
    command = ""
    for chunk in re.split(r"\n(?=---- to |######## )", GOLDEN.read_text(encoding="utf-8")):
        if chunk.startswith("######## "):
            command = chunk.splitlines()[0][9:]
        elif chunk.startswith("---- to "):
            msg = message_from_string(chunk.split("\n", 1)[1], policy=policy.default)
            part = msg.get_body(("html",))
            if part is not None:
                out.append((command, part.get_content()))
    return out


def placeholder(folder: Path, width: int, height: int) -> str:
    """A picture of the size an HTML part gives (the golden file keeps a
    picture's hash, not its bytes)."""
    path = folder / f"picture-{width}x{height}.png"
    if not path.exists():
        Image.new("RGB", (2 * width, 2 * height), COLOURS["tile"]).save(path)
    return path.name


@pytest.mark.parametrize("width", WIDTHS)
def test_every_mail_of_the_recorded_session_fits_the_screen(tmp_path, width):
    """All the HTML parts of the session of every command, laid out in
    Chromium at each width (one page, each mail in a frame of that width):
    none is wider than its frame, and in a mail of one board the next step
    begins within 800 px."""
    parts = session_html_parts()
    assert len(parts) > 150
    frames = []
    for n, (_, html) in enumerate(parts):
        html = re.sub(r'src="cid:[^"]+"([^>]*?) width="(\d+)" height="(\d+)"',
                      lambda m: f'src="{placeholder(tmp_path, int(m[2]), int(m[3]))}"{m[1]} width="{m[2]}" '
                                f'height="{m[3]}"', html)
        assert "cid:" not in html
        srcdoc = html.replace("&", "&amp;").replace('"', "&quot;")
        frames.append(f'<iframe id="m{n}" srcdoc="{srcdoc}" style="width:{width}px;height:1000px;border:0;'
                      'display:block"></iframe>')
    harness = tmp_path / "harness.html"
    harness.write_text('<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">'
                       '<div id="results"></div>' + "".join(frames) + HARNESS_SCRIPT + "</body></html>",
                       encoding="utf-8")
    done = chromium(tmp_path, f"--window-size={width},1000", "--allow-file-access-from-files",
                    "--virtual-time-budget=60000", "--dump-dom", harness.as_uri(), timeout=300)
    found = re.search(r'<div id="results">([^<]*)</div>', done.stdout)
    assert found is not None and found.group(1), done.stderr[-2000:]
    results = [line.split() for line in found.group(1).split(";")]
    assert len(results) == len(parts)
    wide = [(parts[int(name[1:])][0], scroll) for name, scroll, _ in results if int(scroll) > width]
    late = [(parts[int(name[1:])][0], top) for name, _, top in results
            if int(top) >= 800 and parts[int(name[1:])][1].count("<img ") == 1]  # (a mail of one board)
    assert wide == [], f"replies wider than {width} px"
    assert late == [], f"replies whose next step begins past 800 px at {width}"


def test_the_japanese_board_mail_is_in_japanese(mails):
    body = mails["japanese"].get_body(("html",)).get_content()
    assert 'lang="ja"' in body and "次は dave の手番です。" in body and "白 (o)" in body
    assert re.search(r"trax move \d+ dave PASSWORD &lt;move&gt;#2", body)  # the command line stays as it is
