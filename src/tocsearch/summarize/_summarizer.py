"""What a summarizer produces, the protocol it implements, and an adapter for plain callables.

A segment summary is made from raw events; every bullet names the events that support it
(:attr:`SummaryBullet.event_ids`), and the builder turns those into grips. A parent summary
(day, week, month, year) is made from its children's summaries; every bullet names the grips
of the child bullets it came from (:attr:`SummaryBullet.grip_ids`), so evidence can be cited
from any level.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, runtime_checkable

import attrs

from tocsearch._checks import records_of
from tocsearch.errors import InvalidArgument
from tocsearch.models import Event

__all__ = ["CallableSummarizer", "Summarizer", "Summary", "SummaryBullet"]


def _strings(values: Iterable[str]) -> tuple[str, ...]:
    if isinstance(values, str):
        raise InvalidArgument(f"expected a sequence of strings, got the string {values!r}")
    items = tuple(values)
    for item in items:
        if not isinstance(item, str) or not item:
            raise InvalidArgument(f"expected non-empty strings, got {item!r}")
    return items


def _nonblank(instance: Any, attribute: attrs.Attribute[str], value: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgument(
            f"{type(instance).__name__}.{attribute.name} must be non-blank text, got {value!r}"
        )


def _bullets(values: Iterable[SummaryBullet]) -> tuple[SummaryBullet, ...]:
    return records_of(SummaryBullet, values, "Summary.bullets")


@attrs.frozen
class SummaryBullet:
    """One statement with its evidence.

    At segment level ``event_ids`` names the events that support the statement (the builder
    makes a grip over them). At parent levels ``grip_ids`` names the grips of the child bullets
    the statement came from.
    """

    text: str = attrs.field(validator=_nonblank)
    event_ids: tuple[str, ...] = attrs.field(default=(), converter=_strings)
    grip_ids: tuple[str, ...] = attrs.field(default=(), converter=_strings)


@attrs.frozen
class Summary:
    """A title, bullets and keywords for one node, plus a short prose ``text``.

    ``keywords`` are ordered from the most to the least important. An empty ``text`` lets the
    builder use the bullets instead.
    """

    title: str = attrs.field(validator=_nonblank)
    bullets: tuple[SummaryBullet, ...] = attrs.field(default=(), converter=_bullets)
    keywords: tuple[str, ...] = attrs.field(default=(), converter=_strings)
    text: str = ""


@runtime_checkable
class Summarizer(Protocol):
    """Makes segment summaries from events and parent summaries from child summaries.

    Implementations must be deterministic (the same input gives the same summary), or the
    tree would depend on the order and batching of ingestion.
    """

    def summarize_events(self, events: Sequence[Event]) -> Summary:
        """A summary of one segment's events (in time order); each bullet's ``event_ids``
        must name some of these events."""
        ...

    def summarize_children(self, summaries: Sequence[Summary]) -> Summary:
        """A summary of a parent node from its children's summaries (in time order); each
        bullet's ``grip_ids`` must come from the children's bullets."""
        ...


EventsFn = Callable[[Sequence[Event]], Summary]
ChildrenFn = Callable[[Sequence[Summary]], Summary]


@attrs.frozen
class CallableSummarizer:
    """A :class:`Summarizer` from one or two plain functions, such as calls to a language model.

    ``on_children`` may be left out: parent levels are then rolled up by ``fallback`` (by
    default the extractive summarizer), which only rearranges the children's bullets.
    """

    on_events: EventsFn
    on_children: ChildrenFn | None = None
    fallback: Summarizer | None = None

    def summarize_events(self, events: Sequence[Event]) -> Summary:
        return _expect_summary(self.on_events(events), "on_events")

    def summarize_children(self, summaries: Sequence[Summary]) -> Summary:
        if self.on_children is not None:
            return _expect_summary(self.on_children(summaries), "on_children")
        return self._fallback().summarize_children(summaries)

    def _fallback(self) -> Summarizer:
        if self.fallback is not None:
            return self.fallback
        # Imported here: the extractive summarizer builds on this module's records.
        from tocsearch.summarize._extractive import ExtractiveSummarizer

        return ExtractiveSummarizer()


def _expect_summary(value: object, source: str) -> Summary:
    if not isinstance(value, Summary):
        raise InvalidArgument(f"{source} must return a Summary, got {type(value).__name__}")
    return value
