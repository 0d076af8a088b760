"""The scan: the segments of a period read directly, a page per step, because summaries above
them keep only a few bullets and a term can be missing from every level above its segment.

Where the years carry digests the pages follow a :class:`~tocsearch.navigate._route.DigestRoute`
(segments that may hold the most terms first, newest first among them); otherwise every segment
of the period is read newest first (:func:`~tocsearch.navigate._pages.newest_first`), from the
store a window at a time, so a scan that stops early has not read the older ones.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence

from tocsearch.levels import TocLevel
from tocsearch.models import TocNode
from tocsearch.navigate._descent import ENOUGH_FULL_SEGMENTS
from tocsearch.navigate._pages import newest_first
from tocsearch.navigate._route import DigestRoute
from tocsearch.navigate._walk import Walk, search
from tocsearch.navigate.result import StepPhase
from tocsearch.navigate.timehints import TimeRange

__all__ = ["scan"]

_EPSILON = 1e-9


def scan(walk: Walk, ranges: Sequence[TimeRange], *, phase: StepPhase, where: str) -> None:
    """Read the unseen segments of ``ranges`` (all segments when empty), a page per step,
    until a segment holding every term turns up or they run out.

    A page reports only matches at least as good as the evidence already in hand.
    """
    trail, book = walk.trail, walk.book
    threshold = trail.limits.threshold
    route = DigestRoute(walk.storage, walk.lens, ranges, walk.children)
    years = route.years()
    page = trail.limits.scan_page
    pages: Iterator[list[TocNode]]
    if years is not None:
        count = len(walk.lens.terms)

        def proceed(need: int) -> bool:
            # A segment holds no more terms than its digests say: a pass whose share is below
            # what the scan still reports could add nothing.
            bound = need / count
            best = book.best_score()
            if bound < max(threshold, best) - _EPSILON:
                return False
            return not (bound <= best + _EPSILON and len(book.segments) >= ENOUGH_FULL_SEGMENTS)

        unseen_batches = (
            [node for node in batch if node.node_id not in trail.seen]
            for batch in route.segments(years, proceed)
        )
        pages = _paged(unseen_batches, page)
        order = "by how many terms their digest may hold, then newest first"
    else:
        pending = (
            node for node in newest_first(walk.storage, ranges) if node.node_id not in trail.seen
        )
        pages = iter(lambda: list(itertools.islice(pending, page)), [])
        order = "newest first"
    chunk = next(pages, [])
    first = 0
    if not chunk and years is not None and route.pruning:
        trail.note(
            phase=phase,
            level=TocLevel.SEGMENT,
            scope=f"Segments {where}",
            reason="Nothing to read" + route.note(),
        )
    while chunk:
        floor = max(threshold, book.best_score())
        reported = search(
            walk,
            chunk,
            phase=phase,
            level=TocLevel.SEGMENT,
            scope=f"Segments {where}, {order} ({first + 1}-{first + len(chunk)})"
            + (route.note() if first == 0 else ""),
            floor=floor,
        )
        if reported is None:
            trail.annotate(trail.stop_note())
            return
        for item in reported:
            book.collect(item.node, item.coverage)
        if trail.halted is not None:
            trail.annotate(trail.stop_note())
            return
        if book.full_segments() > 0:
            trail.annotate("Found a segment that contains every term; the scan stops here")
            return
        first += len(chunk)
        chunk = next(pages, [])
        if chunk:
            trail.annotate("Reading the next, older page of segments")
        else:
            trail.annotate(f"Read every segment {where} ({first} in this scan)")


def _paged(batches: Iterable[list[TocNode]], size: int) -> Iterator[list[TocNode]]:
    """``batches`` regrouped into pages of ``size`` (the last may be shorter). A batch is
    pulled only when the page needs it, so a scan that stops early pulls no further."""
    page: list[TocNode] = []
    for batch in batches:
        page.extend(batch)
        while len(page) >= size:
            yield page[:size]
            page = page[size:]
    if page:
        yield page
