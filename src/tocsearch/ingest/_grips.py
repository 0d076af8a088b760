"""Grips: from a segment summary's bullets to the event ranges that support them.

A grip covers the inclusive id range from the first to the last event a bullet names; that
range is contiguous in event order, so ``Storage.get_event_range(grip.event_id_start,
grip.event_id_end)`` returns the grip's events and ``get_events_before`` /
``get_events_after`` give the context on either side. Grip ids are a function of the segment id
and the range, so rebuilding the same segment gives the same grips.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from tocsearch.errors import InvalidArgument
from tocsearch.ids import grip_id
from tocsearch.ingest._segmenter import SegmentPlan
from tocsearch.models import Event, Grip, TocBullet
from tocsearch.summarize import _terms
from tocsearch.summarize._summarizer import Summary
from tocsearch.text import clip

__all__ = ["excerpt_for", "make_grip_id", "segment_bullets"]


def make_grip_id(segment_node_id: str, first: Event, last: Event) -> str:
    """``grip:<epoch ms of the first event>:<16 hex digits>``, a function of the segment and
    the range."""
    key = f"{segment_node_id}|{first.event_id}|{last.event_id}".encode()
    return grip_id(first.timestamp, hashlib.blake2b(key, digest_size=8).hexdigest())


def excerpt_for(text: str, support: Sequence[Event], limit: int) -> str:
    """Real text from the supporting events, at most ``limit`` characters cut at a word
    boundary, starting where ``text`` (a bullet) is quoted from, or else at the sentence that
    shares most words with it."""
    opening = " ".join(text.split()[:6])
    for event in support:
        # Extractive bullets quote a sentence; its opening words locate it directly.
        found = event.text.find(opening) if opening else -1
        if found >= 0:
            return clip(event.text[found:], limit)
    wanted = {_terms.term_key(token) for token in _terms.tokens(text)}
    best: tuple[int, str] | None = None
    for event in support:
        for start, end in _terms.sentence_spans(event.text):
            words = map(_terms.term_key, _terms.tokens(event.text[start:end]))
            shared = len(wanted.intersection(words))
            if best is None or shared > best[0]:
                best = (shared, event.text[start:])
    if best is None:
        return ""
    return clip(best[1], limit)


def segment_bullets(
    plan: SegmentPlan, summary: Summary, excerpt_chars: int
) -> tuple[tuple[TocBullet, ...], tuple[Grip, ...]]:
    """The node bullets and the grips of one segment's summary.

    Raises:
        InvalidArgument: a bullet names no event, or an event the segment does not own.
    """
    position = {event.event_id: index for index, event in enumerate(plan.events)}
    bullets: list[TocBullet] = []
    grips: dict[str, Grip] = {}
    for bullet in summary.bullets:
        if not bullet.event_ids:
            raise InvalidArgument(
                f"summary bullet {bullet.text!r} of {plan.node_id} names no supporting event"
            )
        indexes: list[int] = []
        for event_id in bullet.event_ids:
            index = position.get(event_id)
            if index is None:
                raise InvalidArgument(
                    f"summary bullet {bullet.text!r} names event {event_id!r}, which segment "
                    f"{plan.node_id} does not own"
                )
            indexes.append(index)
        first, last = plan.events[min(indexes)], plan.events[max(indexes)]
        identifier = make_grip_id(plan.node_id, first, last)
        if identifier not in grips:
            support = [plan.events[index] for index in sorted(set(indexes))]
            grips[identifier] = Grip(
                grip_id=identifier,
                excerpt=excerpt_for(bullet.text, support, excerpt_chars),
                event_id_start=first.event_id,
                event_id_end=last.event_id,
                timestamp=first.timestamp,
                source=first.session_id,
                toc_node_id=plan.node_id,
            )
        bullets.append(TocBullet(bullet.text, (identifier,)))
    return tuple(bullets), tuple(grips.values())
