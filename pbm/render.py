"""Reply texts from Jinja2 templates.

Every word the server mails is in ``templates/``.  A template renders to a
first line ``Subject: ...``, a blank line, and the body::

    Subject: Trax Board {{ board.number }} {{ board.to_move }}

    It is {{ board.to_move }}'s turn.

Templates are named by audience and case: ``replies/board.txt``,
``errors/not-your-turn.txt``, ``help/commands/move.txt``.  Undefined values
are errors (``StrictUndefined``), so a template mistake aborts the whole
transaction instead of mailing a half-filled reply.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from .grammar import REGISTRY, usage
from .trax import Board
from .trax.render import render as render_board

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


@dataclass(frozen=True)
class Text:
    subject: str
    body: str


def _diagram(board: Board, style: str = "full", highlight_last: bool = False) -> str:
    return render_board(board, style, highlight_last=highlight_last)


class Renderer:
    def __init__(self, directory: Path | str = TEMPLATES, **globals_: Any) -> None:
        self.directory = Path(directory)
        self.env = Environment(
            loader=FileSystemLoader(str(self.directory)),
            undefined=StrictUndefined,
            keep_trailing_newline=True,
            trim_blocks=True,
            lstrip_blocks=True,
            autoescape=False,
            auto_reload=False,  # templates are read once: no stat() of every include per reply
        )
        self.env.globals.update(usage=usage, registry=REGISTRY, **globals_)
        self.env.filters["diagram"] = _diagram

    def exists(self, name: str) -> bool:
        return (self.directory / name).is_file()

    def render(self, name: str, **context: Any) -> Text:
        text = self.env.get_template(name).render(**context)
        first, _, body = text.partition("\n")
        if not first.startswith("Subject:"):
            raise ValueError(f"template {name} must begin with a 'Subject:' line")
        subject = " ".join(first[len("Subject:"):].split())
        body = body.lstrip("\n").rstrip() + "\n"
        return Text(subject, body)
