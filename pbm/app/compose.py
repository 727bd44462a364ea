"""Replies composed: Jinja2 templates to text, text to mail.

Every word the server mails is in the templates (``templates/`` at the top
of the repository, shipped in the wheel as the package data
``pbm.templates`` and read through :mod:`importlib.resources`, so an
installed server finds them wherever it runs).  A template renders to a
first line ``Subject: ...``, a blank line, and the body::

    Subject: Trax Board {{ board.number }} {{ board.to_move }}

    It is {{ board.to_move }}'s turn.

Templates are named by audience and case: ``replies/board.txt``,
``errors/not-your-turn.txt``, ``help/commands/move.txt``.  Undefined values
are errors (``StrictUndefined``), so a template mistake aborts the whole
transaction instead of mailing a half-filled reply.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from email.message import Message
from email.utils import format_datetime, make_msgid
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

from jinja2 import Environment, FunctionLoader, StrictUndefined

from pbm.config import Config
from pbm.grammar import REGISTRY, usage
from pbm.trax import Board
from pbm.trax.render import render as render_board

from .messages import outgoing
from .request import Reply

#: A Message-ID that a reply may name in In-Reply-To and References:
#: printable ASCII with one "@" and no blank, quote or angle bracket inside.
MESSAGE_ID = re.compile(r"<[!#-;=?A-~]+@[!#-;=?A-~]+>")

#: The templates, wherever the package is installed.
TEMPLATES: Traversable = files("pbm").joinpath("templates")


@dataclass(frozen=True)
class Text:
    subject: str
    body: str


def _diagram(board: Board, style: str = "full", highlight_last: bool = False) -> str:
    return render_board(board, style, highlight_last=highlight_last)


def _template(name: str) -> Traversable:
    return TEMPLATES.joinpath(*name.split("/"))


class Renderer:
    """Renders the templates (read once each, then kept)."""

    def __init__(self, **globals_: Any) -> None:
        self.env = Environment(
            loader=FunctionLoader(self._source),
            undefined=StrictUndefined,
            keep_trailing_newline=True,
            trim_blocks=True,
            lstrip_blocks=True,
            autoescape=False,
            auto_reload=False,  # templates are read once: no look at every include per reply
        )
        self.env.globals.update(usage=usage, registry=REGISTRY, **globals_)
        self.env.filters["diagram"] = _diagram

    @staticmethod
    def _source(name: str) -> str | None:
        path = _template(name)
        return path.read_text(encoding="utf-8") if path.is_file() else None

    @staticmethod
    def exists(name: str) -> bool:
        return _template(name).is_file()

    def partial(self, name: str, **context: Any) -> str:
        """A template with no subject of its own, rendered."""
        return self.env.get_template(name).render(**context)

    def render(self, name: str, **context: Any) -> Text:
        text = self.env.get_template(name).render(**context)
        first, _, body = text.partition("\n")
        if not first.startswith("Subject:"):
            raise ValueError(f"template {name} must begin with a 'Subject:' line")
        subject = " ".join(first[len("Subject:"):].split())
        body = body.lstrip("\n").rstrip() + "\n"
        return Text(subject, body)


class Composer:
    """Turns replies into mail from the server: each rendered once, then one
    message per recipient."""

    def __init__(self, config: Config, renderer: Renderer | None = None) -> None:
        self.config = config
        self.renderer = renderer or Renderer()

    @property
    def domain(self) -> str:
        """The domain of our Message-IDs."""
        return self.config.server.address.rpartition("@")[2] or "localhost"

    def text(self, reply: Reply) -> Text:
        """The reply rendered, its body at most ``[limits] max_reply_bytes``
        long (what is cut is said in a note at the end)."""
        server = self.config.server
        if reply.template == "replies/combined.txt":
            parts = [self.renderer.render(p.template, **{"server": server, **p.context})
                     for p in reply.context["parts"]]
            text = self.renderer.render(reply.template, server=server, parts=parts)
        else:
            text = self.renderer.render(reply.template, **{"server": server, **reply.context})
        return self._cut(text)

    def _cut(self, text: Text) -> Text:
        limit = self.config.limits.max_reply_bytes
        data = text.body.encode("utf-8")
        if len(data) <= limit:
            return text
        note = self.renderer.partial("partials/cut.txt", size=len(data), limit=limit)
        kept = data[: limit - len(note.encode("utf-8"))].decode("utf-8", "ignore")
        kept = kept[: kept.rfind("\n") + 1] if "\n" in kept else kept
        return Text(text.subject, kept + note)

    def compose(self, replies: list[Reply], key: str, now: datetime) -> list[Message]:
        """The messages of ``replies`` to the mail ``key`` (a Message-ID they
        answer, when it is one)."""
        server = self.config.server
        in_reply_to = key if MESSAGE_ID.fullmatch(key) and "=?" not in key else None
        out = []
        for reply in replies:
            text = self.text(reply)
            for recipient in dict.fromkeys(reply.to):
                out.append(outgoing(
                    sender=(server.name, server.address), recipient=recipient, subject=text.subject,
                    body=text.body, date=format_datetime(now), message_id=make_msgid(domain=self.domain),
                    in_reply_to=in_reply_to,
                ))
        return out
