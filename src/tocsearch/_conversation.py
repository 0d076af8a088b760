"""Which conversation a segment holds. A segment never spans two sessions or two projects, so
its first event names the conversation (project, session, agent) for all of it."""

from __future__ import annotations

from tocsearch.models import Event, TocNode
from tocsearch.storage.protocol import Storage

__all__ = ["opening_event"]


def opening_event(
    storage: Storage, segment_id: str, *, segment: TocNode | None = None
) -> Event | None:
    """The first event of the segment ``segment_id``, or None when the store has no such
    segment or it holds no stored event (a hand-made tree). ``segment`` is the segment when
    the caller read it already: it is not read again."""
    node = segment if segment is not None else storage.find_node(segment_id)
    if node is None or not node.event_ids:
        return None
    return storage.find_event(node.event_ids[0])
