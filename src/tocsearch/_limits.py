"""Caps on the work one request may ask for, declared once and read by every entry point (the
service, the agent tools and the command line), so a caller meets the same limit and the same
message wherever it asks."""

from __future__ import annotations

__all__ = ["CONTEXT_EVENTS_LIMIT"]

CONTEXT_EVENTS_LIMIT = 100
"""The most events of context ``expand`` returns on each side of a grip or event
(``events_before`` / ``events_after``, ``--before`` / ``--after``). More is refused with a clear
error rather than answered with a whole history: to read further, expand again from the first
or last event shown."""
