"""The codes of the refusals the application raises itself, and every code.

A handler refuses with the domain's classes (:mod:`pbm.domain.refusals`)
and a code of its own from :data:`CODES`; the words of every code, of every
layer, are in ``templates/errors/reasons/`` (:meth:`Renderer.words
<pbm.app.compose.Renderer.words>` turns a refusal into them).
"""

from __future__ import annotations

from pbm.domain.refusals import CODES as DOMAIN_CODES
from pbm.grammar.refusals import CODES as GRAMMAR_CODES
from pbm.trax import CODES as ENGINE_CODES

#: Every code a refusal raised in the application carries.
CODES = frozenset({
    # accounts, broadcasts, help
    "addresses-would-be", "broadcasts-off", "no-confirmed-address", "broadcasts-today", "no-help-topic",
    "code-not-waiting", "not-available",
    # tournaments
    "computer-entry-only", "announcement-empty",
    # moves
    "submit-tile", "queue-drawn", "preview-refused",
    # replies to board mails and digests
    "not-in-digest", "reply-moved-on", "reply-used", "unknown-reply-target", "reply-moves-several",
    "reply-no-legal-move",
    # the web view's error pages (PageError, raised by pbm.app.web_data and pbm.server.web)
    "no-board", "no-position", "no-player", "no-game-type", "no-tournament", "no-page", "only-pages",
    "http-error", "page-failed", "move-number-twice", "move-number-form",
})

#: The codes of every layer, by the layer that raises them (no code is in two).
LAYERS = {"engine": ENGINE_CODES, "grammar": GRAMMAR_CODES, "domain": DOMAIN_CODES, "app": CODES}

#: Every code a refusal of any layer carries.
EVERY_CODE = ENGINE_CODES | GRAMMAR_CODES | DOMAIN_CODES | CODES
