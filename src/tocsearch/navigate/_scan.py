"""The scan: the segments of a period read directly, a page per step, because summaries above
them keep only a few bullets and a term can be missing from every level above its segment.

Where the years carry digests the pages follow a :class:`~tocsearch.navigate._route.DigestRoute`
(segments that may hold the most terms first, newest first among them); otherwise every segment
of the period is read newest first (:func:`~tocsearch.navigate._pages.newest_first`), from the
store a window at a time, so a scan that stops early has not read the older ones.

On a route, the digests picked every segment read, so most of a page holds a term: the pages
start small and grow (:func:`_page_sizes`), a page holds the segments of one pass only (those
that may hold as many terms), and the scan stops as soon as the evidence of the best class is
in hand: :data:`~tocsearch.navigate._descent.ENOUGH_FULL_SEGMENTS` segments holding every term
(or one, once a page's worth of segments was read, as an unrouted scan stops), or as many
evidence items as the answer offers. A pair of words said all over the history but rarely in
one segment then costs the segments that may hold both and a few pages of the rest, not every
segment that holds one of them.
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
# A routed scan's first page holds this many times the matches a step reports.
_FIRST_PAGE_WIDTHS = 4


def scan(walk: Walk, ranges: Sequence[TimeRange], *, phase: StepPhase, where: str) -> None:
    """Read the unseen segments of ``ranges`` (all segments when empty), a page per step,
    until enough of them hold every term (:func:`_stop`), the answer is full, or they run out.

    A page reports only matches at least as good as the evidence already in hand.
    """
    trail, book = walk.trail, walk.book
    threshold = trail.limits.threshold
    route = DigestRoute(walk.storage, walk.lens, ranges, walk.children, walk.skeleton)
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
            (need, [node for node in batch if node.node_id not in trail.seen])
            for need, batch in route.graded(years, proceed)
        )
        pages = _graded_pages(unseen_batches, _page_sizes(trail.limits.width, page))
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
        first += len(chunk)
        stop = _stop(walk, read=first, routed=years is not None)
        if stop:
            trail.annotate(stop)
            return
        chunk = next(pages, [])
        if chunk:
            trail.annotate("Reading the next, older page of segments")
        else:
            trail.annotate(f"Read every segment {where} ({first} in this scan)")


def _stop(walk: Walk, *, read: int, routed: bool) -> str:
    """Why the scan stops after a page, having read ``read`` segments, or "" to go on.

    A page of an unrouted scan is a full ``scan_page``: one segment holding every term ends
    it. A routed scan reads the best class first, so it stops once that class has given
    enough: a few segments holding every term, one after a page's worth of reading (no more
    than an unrouted scan would read), or as many evidence items as the answer offers."""
    book = walk.book
    full = book.full_segments()
    if full and (not routed or read >= walk.trail.limits.scan_page):
        return "Found a segment that contains every term; the scan stops here"
    if not routed:
        return ""
    if full >= ENOUGH_FULL_SEGMENTS:
        return f"Found {full} segments that contain every term; the scan stops here"
    if book.enough():
        return f"Collected {len(book.evidence)} evidence items; the scan stops here"
    return ""


def _page_sizes(width: int, largest: int) -> Iterator[int]:
    """The sizes of a routed scan's pages: a few times the ``width`` a page reports at first,
    twice as many each page after, up to ``largest`` (``scan_page``)."""
    size = min(largest, _FIRST_PAGE_WIDTHS * width)
    while True:
        yield size
        size = min(largest, 2 * size)


def _graded_pages(
    batches: Iterable[tuple[int, list[TocNode]]], sizes: Iterator[int]
) -> Iterator[list[TocNode]]:
    """``batches`` regrouped into pages of the next of ``sizes`` (a page ends early where a
    pass ends: it never mixes segments that may hold different numbers of terms). A batch is
    pulled only when the page needs it, so a scan that stops early pulls no further."""
    page: list[TocNode] = []
    grade = 0
    size = next(sizes)
    for need, batch in batches:
        if not batch:
            continue
        if page and need != grade:
            yield page
            page = []
            size = next(sizes)
        grade = need
        page.extend(batch)
        while len(page) >= size:
            yield page[:size]
            page = page[size:]
            size = next(sizes)
    if page:
        yield page
