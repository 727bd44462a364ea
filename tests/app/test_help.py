"""Docs tests for the help by mail: every command has a page, every page and
topic renders for every game type, reads well in a mail, and ``help WORDS``
finds the right pages."""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path
from types import SimpleNamespace

import pytest

from pbm.app.compose import TEMPLATES, Renderer
from pbm.app.help import (
    EXAMPLE_MOVES,
    FORCED_MOVES,
    LISTED_TOPICS,
    TOPICS,
    UnknownTopicError,
    command_template,
    help_context,
    resolve_topics,
)
from pbm.domain.refusals import PbmError
from pbm.grammar import GAMES, REGISTRY, Scope, usage
from pbm.grammar.registry import PHRASES
from pbm.trax.render import render as render_plain
from tests.prose import english_prose
from tests.widths import columns

SERVER = SimpleNamespace(name="Trax PBM", address="pbm@localhost")
GAME_CHOICES = (None, *GAMES)
MAX_LINE = 78
#: Diagrams as help draws them, with the words of templates/partials/diagram-words.txt.
render_board = partial(render_plain, words=Renderer().diagram_words)

HELP_DIR = TEMPLATES / "help"
ALL_HELP_TEMPLATES = sorted(
    str(path.relative_to(TEMPLATES))
    for path in HELP_DIR.rglob("*.txt")
    if not path.name.startswith("_")
)


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return Renderer()


def render(renderer: Renderer, name: str, game: str | None):
    return renderer.render(name, **help_context(game, SERVER))


def shown_usage(name: str, game: str | None) -> str:
    """The usage line a help text shows: game commands for the game asked
    about (trax for plain help), the others as they are."""
    spec = REGISTRY[name]
    return usage(name, (game or "trax") if spec.scope is Scope.GAME else game)


def flat(text: str) -> str:
    """Blanks and line breaks folded to single blanks (long usage lines are
    wrapped to fit a mail line)."""
    return " ".join(text.split())


def diagram_lines(game: str | None) -> set[str]:
    """Every line of every diagram a help text can draw."""
    lines: set[str] = set()
    context = help_context(game, SERVER)
    for board in (context["example_board"], context["forced_board"]):
        for style in ("full", "compact"):
            for highlight in (False, True):
                lines.update(render_board(board, style, highlight_last=highlight).splitlines())
    return lines


# --- every command has a page ---------------------------------------------------------


@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_command_has_a_help_page(name):
    path = TEMPLATES / command_template(name)
    assert path.is_file(), f"{name!r} has no help page {path}"


def test_every_command_page_belongs_to_a_command():
    pages = {path.name for path in (HELP_DIR / "commands").glob("*.txt")}
    expected = {Path(command_template(name)).name for name in REGISTRY}
    assert pages == expected


@pytest.mark.parametrize("game", GAME_CHOICES)
@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_command_page_renders_with_its_usage_line(renderer, name, game):
    text = render(renderer, command_template(name), game)
    assert text.subject.startswith("Trax PBM help")
    assert name in text.subject
    assert flat(shown_usage(name, game)) in flat(text.body)
    assert len(text.body.strip().splitlines()) > 5


@pytest.mark.parametrize("name", list(REGISTRY))
def test_game_command_pages_use_the_game_asked_about_in_their_examples(renderer, name):
    if REGISTRY[name].scope is not Scope.GAME:
        return
    body = render(renderer, command_template(name), "looptrax").body
    assert "looptrax " + name in body
    assert "trax " + name not in body.replace("looptrax " + name, "")


# --- topics ------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAME_CHOICES)
@pytest.mark.parametrize("topic", list(TOPICS))
def test_every_topic_renders(renderer, topic, game):
    text = render(renderer, TOPICS[topic], game)
    assert text.subject.startswith("Trax PBM help")
    assert len(text.body.splitlines()) > 10


@pytest.mark.parametrize("game", GAME_CHOICES)
@pytest.mark.parametrize("name", ALL_HELP_TEMPLATES)
def test_help_texts_render_with_only_game_and_server(renderer, name, game):
    text = renderer.render(name, game=game, server=SERVER)
    assert text.subject


@pytest.mark.parametrize("game", GAME_CHOICES)
def test_commands_lists_every_usage_line(renderer, game):
    body = flat(render(renderer, TOPICS["commands"], game).body)
    for name in REGISTRY:
        assert flat(shown_usage(name, game)) in body, name


@pytest.mark.parametrize("game", GAME_CHOICES)
def test_index_names_every_topic_and_the_server(renderer, game):
    body = render(renderer, TOPICS["index"], game).body
    for topic in (*LISTED_TOPICS, *GAMES):
        assert f"help {topic}" in body
    assert "pbm@localhost" in body
    assert "multiple" in body
    for word in ("signup", "challenge", "move"):
        assert word in body


def test_rules_and_notation_draw_the_example_board(renderer):
    context = help_context(None, SERVER)
    drawn = render_board(context["example_board"], "full")
    forced = render_board(context["forced_board"], "full", highlight_last=True)
    for name in ("help/trax.txt", "help/tutorial.txt"):
        body = render(renderer, name, None).body
        assert drawn in body and forced in body, name
    assert drawn in render(renderer, "help/notation.txt", None).body


def test_the_example_boards_are_real_positions():
    context = help_context("8x8trax", SERVER)
    example, forced = context["example_board"], context["forced_board"]
    assert [str(m) for m in example.moves] == list(EXAMPLE_MOVES)
    assert [str(m) for m in forced.moves] == list(FORCED_MOVES)
    assert example.outcome() is None and forced.outcome() is None
    assert forced.tile_count > len(FORCED_MOVES)  # its last move forced a tile
    assert example.variant.name == "8x8trax"


@pytest.mark.parametrize("game", ["trax", "8x8trax", "looptrax"])
def test_each_game_types_rules_say_how_it_differs(renderer, game):
    body = render(renderer, TOPICS[game], game).body
    assert "@0+" in body and "@0/" in body
    assert "forced" in body.lower() and "illegal" in body.lower()
    if game == "looptrax":
        assert "only loops win" in body
    else:
        assert "at least 8" in body or "8 columns" in body
    if game == "8x8trax":
        assert "draw" in body


# --- mail-friendly text -------------------------------------------------------------------


@pytest.mark.parametrize("game", GAME_CHOICES)
@pytest.mark.parametrize("name", ALL_HELP_TEMPLATES)
def test_help_lines_fit_a_mail(renderer, name, game):
    text = render(renderer, name, game)
    exempt = diagram_lines(game)
    long = [
        line for line in text.body.splitlines() if len(line) > MAX_LINE and line not in exempt
    ]
    assert not long, f"{name} ({game}): lines over {MAX_LINE} characters: {long}"
    assert not [line for line in text.body.splitlines() if line != line.rstrip()], "trailing blanks"
    assert "\n\n\n" not in text.body, f"{name} ({game}): two blank lines in a row"


@pytest.mark.parametrize("game", GAME_CHOICES)
@pytest.mark.parametrize("name", ALL_HELP_TEMPLATES)
def test_nothing_unfilled_shows(renderer, name, game):
    text = render(renderer, name, game)
    whole = text.subject + "\n" + text.body
    for marker in ("None", "{{", "}}", "{%", "%}", "{#", "#}"):
        assert marker not in whole, f"{name} ({game}) shows {marker!r}"


# --- resolve_topics ----------------------------------------------------------------------


def test_plain_help_is_the_index():
    assert resolve_topics([], None) == ["help/index.txt"]


@pytest.mark.parametrize("game", GAMES)
def test_game_help_is_the_rules_of_that_game(game):
    assert resolve_topics([], game) == [f"help/{game}.txt"]


def test_topics_in_the_order_asked_without_repeats():
    assert resolve_topics(["tutorial", "Notation", "tutorial"], None) == [
        "help/tutorial.txt",
        "help/notation.txt",
    ]


def test_command_names_of_several_words_with_blanks_or_dashes():
    expected = ["help/commands/change-password.txt"]
    assert resolve_topics(["change", "password"], None) == expected
    assert resolve_topics(["Change-Password"], None) == expected
    assert resolve_topics(["CHANGE", "PASSWORD"], "trax") == expected
    assert resolve_topics(["tournament", "create", "move"], "trax") == [
        "help/commands/tournament-create.txt",
        "help/commands/move.txt",
    ]
    assert resolve_topics(["all-show"], None) == ["help/commands/all-show.txt"]


def test_a_topic_wins_over_a_command_alias():
    assert resolve_topics(["ratings"], "trax") == ["help/ratings.txt"]
    assert resolve_topics(["standings"], "trax") == ["help/commands/standings.txt"]


def test_other_spellings_of_topics():
    assert resolve_topics(["tournament"], None) == ["help/tournaments.txt"]
    assert resolve_topics(["rating"], None) == ["help/ratings.txt"]
    assert resolve_topics(["help"], None) == ["help/commands/help.txt"]


def test_game_names_are_topics():
    assert resolve_topics(["looptrax"], None) == ["help/looptrax.txt"]
    assert resolve_topics(["8x8trax", "notation"], "trax") == ["help/8x8trax.txt", "help/notation.txt"]


def test_rules_means_the_rules_of_the_game_asked_about():
    assert resolve_topics(["rules"], "8x8trax") == ["help/8x8trax.txt"]
    assert resolve_topics(["rules"], None) == ["help/trax.txt"]


def test_one_word_of_longer_names_gives_every_command_with_it():
    assert resolve_topics(["change"], None) == [
        "help/commands/change-password.txt",
        "help/commands/change-address.txt",
    ]
    assert resolve_topics(["reset"], None) == ["help/commands/password-reset.txt"]


def test_unknown_words_are_refused_with_a_suggestion(renderer):
    with pytest.raises(UnknownTopicError) as caught:
        resolve_topics(["notaton", "move", "xyzzy"], None)
    error = caught.value
    assert error.words == ("notaton", "xyzzy")
    assert error.suggestions == {"notaton": "notation"}
    message = renderer.words(PbmError("no-help-topic", error.params))  # as the reply words it
    assert message.startswith("there is no help on notaton (did you mean help notation?) or xyzzy. The topics are")
    assert "did you mean help notation?" in message
    assert "xyzzy" in message
    for topic in LISTED_TOPICS:
        assert topic in message
    assert isinstance(error, ValueError)


def test_unknown_words_after_a_game_suggest_the_game_help(renderer):
    with pytest.raises(UnknownTopicError) as caught:
        resolve_topics(["queu"], "trax")
    assert "did you mean trax help queue" in renderer.words(PbmError("no-help-topic", caught.value.params))


def test_every_topic_and_command_resolves_to_an_existing_template():
    for topic in TOPICS:
        for template in resolve_topics([topic], None):
            assert (TEMPLATES / template).is_file()
    for spec in REGISTRY.values():
        for phrase in (spec.name, *spec.aliases):
            for template in resolve_topics(phrase.split(" "), "trax"):
                assert (TEMPLATES / template).is_file()


def test_an_unknown_game_type_is_a_bug_not_a_topic():
    with pytest.raises(ValueError, match="unknown game type"):
        resolve_topics([], "chess")
    with pytest.raises(ValueError, match="unknown game type"):
        help_context("chess", SERVER)


@pytest.mark.parametrize("name", ALL_HELP_TEMPLATES)
def test_every_command_a_help_text_quotes_is_one(renderer, name):
    """A quoted "trax WORD ..." in a help text names a command (or one of
    its aliases) a player can send: "trax rating" once pointed to nothing."""
    body = flat(renderer.render(name, game="trax", server=SERVER).body)
    games = "|".join(map(re.escape, GAMES))
    quoted = re.findall(rf'"((?:{games}) [a-z][^"]*)"', body)
    assert name != "help/computer.txt" or quoted
    for text in quoted:
        words = text.split()[1:]
        assert any(" ".join(words[:n]) in PHRASES for n in (1, 2, 3)), (name, text)


@pytest.mark.parametrize("language", ["de", "ja"])
def test_every_help_page_reads_in_each_language(renderer, language):
    """Every help page for every game type in German and Japanese: within
    78 columns as a terminal shows them, no placeholder left, no line of
    English prose that the English page has, and every usage line and
    command example of the English page kept as it is (commands are
    English words in every language)."""
    translated = Renderer(language)
    problems = []
    for name in ALL_HELP_TEMPLATES:
        for game in GAME_CHOICES:
            english = render(renderer, name, game).body
            text = render(translated, name, game).body
            lines = text.splitlines()
            prose = {" ".join(line.split()) for line in english.splitlines() if english_prose(line)}
            kept = {line.strip() for line in lines}
            for line in lines:
                if columns(line) > MAX_LINE:
                    problems.append(f"{name} {game}: too wide: {line}")
                if "%(" in line or "{{" in line:
                    problems.append(f"{name} {game}: placeholder: {line}")
                if " ".join(line.split()) in prose:
                    problems.append(f"{name} {game}: English: {line}")
            for line in english.splitlines():
                command = line.strip()
                if re.fullmatch(r"(?:trax|[a-z0-9]*trax|signup|set|help|all) [ -~]+", command) \
                        and "  " not in command and ": " not in command and not english_prose(command) \
                        and command not in kept:
                    problems.append(f"{name} {game}: command lost: {command}")
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:60])
