"""The handler table against the grammar: every handler says, in its
``Request[...]`` annotation, the argument class it reads, and that is the
class the parsers of its commands make (so mypy's checks of ``req.args``
are checks of what the grammar really gives)."""

from __future__ import annotations

import typing

from pbm.app.handlers import HANDLERS
from pbm.app.request import Request
from pbm.grammar import REGISTRY


def _made_by_parser(name: str) -> type:
    return typing.get_type_hints(REGISTRY[name].parse)["return"]


def _read_by_handler(name: str) -> set[type]:
    hint = typing.get_type_hints(HANDLERS[name])["req"]
    assert typing.get_origin(hint) is Request, name
    (args,) = typing.get_args(hint)
    return set(typing.get_args(args)) or {args}


def test_every_handler_reads_the_class_its_commands_parser_makes():
    assert len(HANDLERS) > 40
    for name in HANDLERS:
        assert _made_by_parser(name) in _read_by_handler(name), name


def test_a_handler_of_several_commands_reads_no_class_none_of_them_makes():
    commands: dict[object, set[type]] = {}
    for name, handler in HANDLERS.items():
        commands.setdefault(handler, set()).add(_made_by_parser(name))
    shared = 0
    for name, handler in HANDLERS.items():
        assert _read_by_handler(name) == commands[handler], name
        shared += len(commands[handler]) > 1
    assert shared >= 2  # limit and seek: one handler, two classes
