"""Which conversations a question is about: the ``project`` and ``session`` filters.

A project filter matches a part of the project's name or of the working directory it was
recorded in, ignoring case (``--project shop`` finds ``-home-dev-shop`` and ``/home/dev/shop``);
a session filter matches a session id exactly or by its start (``--session 5b1c`` as git
matches commit ids). A segment is one conversation, so its first event says where it belongs.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from tocsearch.models import Event, TocNode
from tocsearch.storage.protocol import Storage

__all__ = ["Scope"]


@attrs.frozen
class Scope:
    """A project and/or session filter; an empty scope keeps everything."""

    project: str | None = None
    session: str | None = None

    def __bool__(self) -> bool:
        return bool(self.project or self.session)

    def holds(self, event: Event) -> bool:
        """Whether ``event`` is said in a conversation of this scope."""
        if self.session and not event.session_id.startswith(self.session):
            return False
        if self.project:
            wanted = self.project.casefold()
            places = (event.metadata.get("project", ""), event.metadata.get("cwd", ""))
            if not any(wanted in place.casefold() for place in places):
                return False
        return True

    def first_event_test(self, storage: Storage) -> Callable[[tuple[str, ...]], bool]:
        """A test of a run of event ids (a segment's, an evidence item's) by its first event,
        which names the run's conversation."""

        def test(event_ids: tuple[str, ...]) -> bool:
            if not event_ids:
                return False
            event = storage.find_event(event_ids[0])
            return event is not None and self.holds(event)

        return test

    def keeps_segment(self, storage: Storage) -> Callable[[TocNode], bool]:
        """A test of segments: whether one is a conversation of this scope."""
        test = self.first_event_test(storage)
        return lambda node: test(node.event_ids)
