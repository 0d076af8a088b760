"""How the builder cuts events into segments and grips."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import attrs

from tocsearch._checks import whole_number
from tocsearch.errors import InvalidArgument

__all__ = ["BuildConfig"]


def _positive_duration(instance: Any, attribute: attrs.Attribute[timedelta], value: Any) -> None:
    if not isinstance(value, timedelta) or value <= timedelta(0):
        raise InvalidArgument(
            f"BuildConfig.{attribute.name} must be a positive timedelta, got {value!r}"
        )


def _duration(instance: Any, attribute: attrs.Attribute[timedelta], value: Any) -> None:
    if not isinstance(value, timedelta) or value < timedelta(0):
        raise InvalidArgument(
            f"BuildConfig.{attribute.name} must be a timedelta >= 0, got {value!r}"
        )


def _count(minimum: int) -> Any:
    def check(instance: Any, attribute: attrs.Attribute[int], value: Any) -> None:
        whole_number(f"BuildConfig.{attribute.name}", value, minimum)

    return check


@attrs.frozen
class BuildConfig:
    """Segmentation and grip settings; every value is checked on construction.

    Attributes:
        segment_gap: a silence longer than this starts a new segment.
        max_segment_tokens: a segment is closed before the event that would take it past this
            many tokens (an event larger than the limit gets a segment of its own).
        overlap_window: the tail of the previous segment within this time of its last event is
            carried as overlap context.
        overlap_max_tokens: the overlap holds at most this many tokens.
        tool_result_cut: tool results are cut to this many characters before they are counted
            and summarized.
        grip_excerpt_chars: longest grip excerpt, cut at a word boundary.
    """

    segment_gap: timedelta = attrs.field(
        default=timedelta(minutes=30), validator=_positive_duration
    )
    max_segment_tokens: int = attrs.field(default=4000, validator=_count(1))
    overlap_window: timedelta = attrs.field(default=timedelta(minutes=5), validator=_duration)
    overlap_max_tokens: int = attrs.field(default=500, validator=_count(0))
    tool_result_cut: int = attrs.field(default=1000, validator=_count(1))
    grip_excerpt_chars: int = attrs.field(default=200, validator=_count(20))
