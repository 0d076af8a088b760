"""The nodes of one level, newest first, read from the store a window of time at a time.

A scan of the segments usually stops after a page or two, so reading (and sorting) every
segment of the history first would cost more than the scan itself: on a store of 300,000
segments, or on a store that decodes a file per node, by far the most. :func:`newest_first`
asks the store for one window of time at a time, through the ordinary
:meth:`~tocsearch.storage.protocol.Storage.get_nodes_by_level`, walking back from the newest
end; the caller stops pulling when it has read enough, and nothing older is read.

The order is exactly that of sorting every node of the range by ``(start_time, node_id)``,
descending: a window ``[a, b)`` yields only the nodes that *start* in it, and a node that
merely overlaps it is yielded by the window it starts in.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta

from tocsearch.levels import TocLevel
from tocsearch.models import TocNode, time_order
from tocsearch.navigate.timehints import TimeRange
from tocsearch.storage.protocol import Storage

__all__ = ["newest_first", "newest_in"]

# Windows start at a day and adapt: doubled while they hold few nodes (sparse histories, long
# gaps), halved while they hold many (so a scan that stops early has read little beyond it).
_FIRST_WINDOW = timedelta(days=1)
_SHORTEST_WINDOW = timedelta(minutes=15)
_FEW = 256
_MANY = 4096
_TICK = timedelta(microseconds=1)


def newest_first(
    storage: Storage, ranges: Sequence[TimeRange], level: TocLevel = TocLevel.SEGMENT
) -> Iterator[TocNode]:
    """The nodes of ``level`` overlapping any of ``ranges`` (every node of the level when
    ``ranges`` is empty), each once, by ``(start_time, node_id)`` descending.

    Lazy: the store is read one window at a time as the iterator is advanced.
    Runtime complexity: O(log n + k) store work per window of k nodes.
    """
    spans: list[tuple[datetime | None, datetime | None]] = [
        (span.start, span.end) for span in ranges
    ] or [(None, None)]
    if len(spans) == 1:
        # One range never yields a node twice: each node comes from the window it starts in.
        return newest_in(storage, level, *spans[0])
    return _distinct(
        heapq.merge(
            *(newest_in(storage, level, *span) for span in spans), key=time_order, reverse=True
        )
    )


def _distinct(nodes: Iterator[TocNode]) -> Iterator[TocNode]:
    """``nodes`` without repeats (overlapping ranges yield a node once per range)."""
    emitted: set[str] = set()
    for node in nodes:
        if node.node_id not in emitted:
            emitted.add(node.node_id)
            yield node


def newest_in(
    storage: Storage, level: TocLevel, start: datetime | None, end: datetime | None
) -> Iterator[TocNode]:
    """The nodes of ``level`` overlapping ``[start, end)`` (open where None), by
    ``(start_time, node_id)`` descending, read a window at a time as they are pulled."""
    if start is None or end is None:
        # The years bound the history; anything stored outside them is still read, by the
        # open-ended reads before and after the windows.
        years = storage.get_nodes_by_level(TocLevel.YEAR)
        if not years:
            yield from sorted(
                storage.get_nodes_by_level(level, start, end), key=time_order, reverse=True
            )
            return
        high = end if end is not None else max(year.end_time for year in years)
        low = start if start is not None else min(year.start_time for year in years)
        if start is None:
            low = min(low, high)
        if end is None:
            high = max(high, low)
            # Whatever starts at or after the newest year's end (in a well-formed tree, none).
            newer = storage.get_nodes_by_level(level, high, None)
            yield from sorted(
                (node for node in newer if node.start_time >= high), key=time_order, reverse=True
            )
    else:
        low, high = start, end
    width = _FIRST_WINDOW
    upper = high
    while upper > low:
        # Compared before subtracting, so a wide window never reaches below datetime.min.
        lower = low if upper - low <= width else upper - width
        # The store returns them by (start_time, node_id); filtering keeps that order.
        window = [
            node
            for node in storage.get_nodes_by_level(level, lower, upper)
            if node.start_time >= lower
        ]
        yield from reversed(window)
        if len(window) < _FEW:
            width *= 2
        elif len(window) > _MANY and width > _SHORTEST_WINDOW:
            width /= 2
        upper = lower
    # What starts before the low end: every older node when the range is open there, else the
    # nodes that start earlier but reach into the range.
    if start is None:
        older = storage.get_nodes_by_level(level, None, low)
    else:
        older = [
            node
            for node in storage.get_nodes_by_level(level, low, low + _TICK)
            if node.start_time < low
        ]
    yield from sorted(older, key=time_order, reverse=True)
