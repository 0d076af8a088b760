"""The term digests of built nodes (:mod:`tocsearch.digest`).

A day's digest holds every word of its events (every role, tool output whole) and of its
segments' titles, summaries, bullets and keywords, so it is a function of the stored events
alone. A week, month or year holds the union of its children's; when any child's digest is
unknown (empty), so is the parent's, because a parent that claims less than its children say
would hide them from a search.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tocsearch.digest import TermDigest
from tocsearch.errors import InvalidArgument
from tocsearch.models import Event, TocNode

__all__ = ["day_digest", "node_texts", "union_digest"]


def node_texts(node: TocNode) -> list[str]:
    """The searchable texts of a node: title, summary, bullets and keywords."""
    texts = [node.title, node.summary or ""]
    texts.extend(bullet.text for bullet in node.bullets)
    texts.extend(node.keywords)
    return texts


def day_digest(events: Iterable[Event], segments: Sequence[TocNode]) -> str:
    """The digest text of a day with ``events`` and ``segments``."""
    texts = [event.text for event in events]
    for segment in segments:
        texts.extend(node_texts(segment))
    return TermDigest.from_texts(texts).to_text()


def union_digest(children: Sequence[TocNode]) -> str:
    """The digest text of a parent: the union of its children's, or "" when any is unknown
    or unreadable."""
    if not children or any(not child.digest for child in children):
        return ""
    try:
        digests = [TermDigest.from_text(child.digest) for child in children]
    except InvalidArgument:
        return ""
    return digests[0].union(digests[1:]).to_text()
