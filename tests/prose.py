"""Is a line English prose?  For the tests that check a translation left no
English behind: a line with two or more of the commonest English words is
a sentence, not a command, a userid, a move or the board (their words are
the same in every language)."""

from __future__ import annotations

ENGLISH_WORDS = frozenset([
    "the", "is", "a", "an", "to", "of", "and", "your", "you", "this", "it", "in", "for", "with", "on", "by",
    "not", "no", "be", "are", "has", "was", "that", "or", "from", "at", "as", "his", "their", "who", "what",
    "when", "there", "here",
])


def english_prose(line: str) -> bool:
    """Two or more of :data:`ENGLISH_WORDS` among the line's blank-separated
    words (a userid such as ``asked_for_the_first_time`` is one word)."""
    return sum(word.strip(".,;:!?()\"'") in ENGLISH_WORDS for word in line.lower().split()) >= 2
