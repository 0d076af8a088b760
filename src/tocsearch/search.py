"""Index-free term search inside one TOC node and across a node's children.

This is the search that always works: no index, no state, just the node's own text. A query is
split into terms (see :func:`tocsearch.text.query_terms`); a field's score is the share of the
terms it contains as substrings, case-insensitively.
"""

from __future__ import annotations

import enum
import logging
import time
from collections.abc import Iterable, Sequence
from datetime import datetime

import attrs

from tocsearch._checks import whole_number
from tocsearch.errors import InvalidArgument
from tocsearch.levels import TocLevel
from tocsearch.models import TocNode
from tocsearch.storage.protocol import Storage
from tocsearch.text import query_terms

__all__ = [
    "DEFAULT_LIMIT",
    "SearchChildrenResult",
    "SearchField",
    "SearchMatch",
    "SearchNodeResult",
    "rank_nodes",
    "search_children",
    "search_node",
    "term_overlap_score",
]

logger = logging.getLogger("tocsearch")

DEFAULT_LIMIT = 10


class SearchField(str, enum.Enum):
    """A field of a node that a search can look in, in the order matches tie-break."""

    TITLE = "title"
    SUMMARY = "summary"
    BULLETS = "bullets"
    KEYWORDS = "keywords"

    @classmethod
    def parse(cls, value: str) -> SearchField:
        """A field from its name, case-insensitively.

        Raises:
            InvalidArgument: the name is not a field.
        """
        try:
            return cls(value.strip().lower())
        except ValueError:
            names = ", ".join(field.value for field in cls)
            raise InvalidArgument(f"field must be one of {names}, got {value!r}") from None


@attrs.frozen
class SearchMatch:
    """One place in a node where query terms occur."""

    field: SearchField
    text: str
    grip_ids: tuple[str, ...]
    score: float


@attrs.frozen
class SearchNodeResult:
    """A node that matched, with its matches, their mean score and the node's time span.

    For a segment, the service also names its conversation: ``project`` (the working directory
    or project name, empty when the source has none) and ``session_id``; both are empty for
    longer periods, which span many conversations, and from :func:`rank_nodes` alone.
    """

    node_id: str
    title: str
    level: TocLevel
    matches: tuple[SearchMatch, ...]
    relevance_score: float
    start_time: datetime
    end_time: datetime
    project: str = ""
    session_id: str = ""


@attrs.frozen
class SearchChildrenResult:
    """The best-scoring nodes, and whether more matched than ``limit`` let through."""

    results: tuple[SearchNodeResult, ...]
    has_more: bool


def term_overlap_score(text: str, terms: Sequence[str]) -> float | None:
    """The share of ``terms`` that occur in ``text`` (case-insensitive substrings), or None.

    ``terms`` must already be case-folded, as :func:`tocsearch.text.query_terms` returns them.

    >>> term_overlap_score("JWT authentication", ["jwt", "debugging"])
    0.5
    """
    if not terms:
        return None
    folded = text.casefold()
    matched = sum(1 for term in terms if term in folded)
    return matched / len(terms) if matched else None


def _wanted(fields: Iterable[SearchField]) -> frozenset[SearchField]:
    chosen = frozenset(fields)
    return chosen or frozenset(SearchField)


def search_node(
    node: TocNode, query: str, *, fields: Iterable[SearchField] = ()
) -> list[SearchMatch]:
    """Every match of the query's terms in one node, best first.

    Title and summary score the share of terms they contain; each bullet is matched on its own
    and carries its grip ids; a keyword that contains any term scores 1.0. The summary is
    ``node.summary`` or, when there is none, the bullets joined. Empty ``fields`` means all fields.
    Matches are sorted by score, descending; ties keep field order (title, summary, bullets,
    keywords). A query with no term of three or more characters matches nothing.

    Runtime complexity: O(t * c) for t terms over c characters of node text.
    """
    terms = query_terms(query)
    if not terms:
        return []
    return _match_node(node, terms, _wanted(fields))


def _share(folded: str, terms: tuple[str, ...]) -> float | None:
    """:func:`term_overlap_score` of an already case-folded text."""
    matched = sum(1 for term in terms if term in folded)
    return matched / len(terms) if matched else None


def _match_node(
    node: TocNode, terms: tuple[str, ...], wanted: frozenset[SearchField]
) -> list[SearchMatch]:
    # Each wanted text is folded once; a node none of whose texts holds a term (most nodes of
    # a search) is rejected by one substring test per term over all of them. Query terms never
    # hold whitespace, so none can match across the line breaks that join the texts.
    title = node.title if SearchField.TITLE in wanted else None
    summary = node.summary_text if SearchField.SUMMARY in wanted else None
    bullets = node.bullets if SearchField.BULLETS in wanted else ()
    keywords = node.keywords if SearchField.KEYWORDS in wanted else ()
    folded_title = title.casefold() if title is not None else ""
    folded_summary = summary.casefold() if summary is not None else ""
    folded_bullets = [bullet.text.casefold() for bullet in bullets]
    folded_keywords = [keyword.casefold() for keyword in keywords]
    haystack = "\n".join((folded_title, folded_summary, *folded_bullets, *folded_keywords))
    if not any(term in haystack for term in terms):
        return []
    matches: list[SearchMatch] = []
    if title is not None:
        score = _share(folded_title, terms)
        if score is not None:
            matches.append(SearchMatch(SearchField.TITLE, title, (), score))
    if summary is not None:
        score = _share(folded_summary, terms)
        if score is not None:
            matches.append(SearchMatch(SearchField.SUMMARY, summary, (), score))
    for bullet, folded in zip(bullets, folded_bullets, strict=True):
        score = _share(folded, terms)
        if score is not None:
            matches.append(SearchMatch(SearchField.BULLETS, bullet.text, bullet.grip_ids, score))
    for keyword, folded in zip(keywords, folded_keywords, strict=True):
        if any(term in folded for term in terms):
            matches.append(SearchMatch(SearchField.KEYWORDS, keyword, (), 1.0))
    # sort() is stable, so equal scores keep the field order in which they were appended.
    matches.sort(key=lambda match: -match.score)
    return matches


def rank_nodes(
    nodes: Iterable[TocNode],
    query: str,
    *,
    fields: Iterable[SearchField] = (),
    limit: int = DEFAULT_LIMIT,
) -> SearchChildrenResult:
    """Search each node and rank those that match by the mean score of their matches.

    Ties go newest first (by start time; nodes that start together keep the order of
    ``nodes``): of two equally good answers, the recent one is usually the one wanted. At most
    ``limit`` results are returned; ``has_more`` says whether more nodes matched.

    Raises:
        InvalidArgument: ``limit`` is less than 1.
    """
    whole_number("limit", limit)
    terms = query_terms(query)
    if not terms:
        return SearchChildrenResult((), False)
    wanted = _wanted(fields)
    results: list[SearchNodeResult] = []
    for node in nodes:
        matches = _match_node(node, terms, wanted)
        if matches:
            relevance = sum(match.score for match in matches) / len(matches)
            results.append(
                SearchNodeResult(
                    node.node_id,
                    node.title,
                    node.level,
                    tuple(matches),
                    relevance,
                    node.start_time,
                    node.end_time,
                )
            )
    results.sort(key=lambda result: (-result.relevance_score, -result.start_time.timestamp()))
    return SearchChildrenResult(tuple(results[:limit]), len(results) > limit)


def search_children(
    storage: Storage,
    parent_id: str,
    query: str,
    *,
    child_level: TocLevel = TocLevel.YEAR,
    fields: Iterable[SearchField] = (),
    limit: int = DEFAULT_LIMIT,
) -> SearchChildrenResult:
    """Search the children of ``parent_id`` and rank them (see :func:`rank_nodes`).

    An empty ``parent_id`` searches every stored node of ``child_level`` (by default the years).

    Raises:
        NodeNotFound: ``parent_id`` is not empty and names no stored node.
        InvalidArgument: ``limit`` is less than 1.
    """
    started = time.perf_counter()
    if parent_id:
        children = storage.get_child_nodes(parent_id)
    else:
        children = storage.get_nodes_by_level(child_level)
    outcome = rank_nodes(children, query, fields=fields, limit=limit)
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug(
            "search_children parent=%r query=%r searched=%d results=%d has_more=%s in %.3f ms",
            parent_id,
            query,
            len(children),
            len(outcome.results),
            outcome.has_more,
            (time.perf_counter() - started) * 1000,
        )
    return outcome
