"""What the summarizer reads of a segment: its events less the noise of agent clients.

Agent clients write bookkeeping into transcripts: reminders they inject (``<system-reminder>``),
notes of what the IDE showed (``<ide_opened_file>``, ``<ide_selection>``), the markup around
slash commands (``<command-name>``, ``<command-message>``, ``<command-args>``,
``<local-command-stdout>``), and todo-list updates (the ``TodoWrite`` tool). Summarised as
they are, these name segments ("command-message", "ide_selection") and fill bullets with lists
of chores. The stored events keep every word, so all of it stays searchable; only titles,
summaries, bullets and keywords are made from the rest.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import attrs

from tocsearch.ingest._config import BuildConfig
from tocsearch.ingest._segmenter import counted_text
from tocsearch.models import Event

__all__ = ["BOOKKEEPING_TOOLS", "for_summary", "without_client_markup"]

BOOKKEEPING_TOOLS = frozenset({"TodoWrite", "TodoRead"})
"""Tools whose calls and results only keep the agent's own lists."""

# Blocks whose whole content is the client's, not the conversation's.
_CLIENT_BLOCKS = re.compile(
    r"<(system-reminder|ide_opened_file|ide_selection|user-prompt-submit-hook)>.*?</\1>",
    re.DOTALL,
)
# Tags around text that is the conversation's (a command, its arguments, its output).
_CLIENT_TAGS = re.compile(
    r"</?(?:command-name|command-message|command-args|local-command-stdout|local-command-stderr)>"
)


def without_client_markup(text: str) -> str:
    """``text`` without the blocks and tags agent clients inject (see the module docstring).

    >>> without_client_markup("<system-reminder>a</system-reminder>ok")
    'ok'
    >>> without_client_markup("<command-name>/init</command-name> here")
    '/init here'
    """
    if "<" not in text:
        return text
    return _CLIENT_TAGS.sub("", _CLIENT_BLOCKS.sub("", text)).strip()


def _is_bookkeeping(event: Event) -> bool:
    return event.metadata.get("tool") in BOOKKEEPING_TOOLS


def for_summary(events: Sequence[Event], config: BuildConfig) -> list[Event]:
    """The events of a segment as the summarizer sees them: bookkeeping left out, client markup
    removed, tool results cut as segmentation counts them. A segment of nothing but noise is
    summarised from its cut events, so that it still gets a title of its own words."""
    shown: list[Event] = []
    for event in events:
        if _is_bookkeeping(event):
            continue
        text = without_client_markup(counted_text(event, config))
        if not text:
            continue
        shown.append(event if text == event.text else attrs.evolve(event, text=text))
    if shown:
        return shown
    return [
        event
        if (text := counted_text(event, config)) is event.text
        else attrs.evolve(event, text=text)
        for event in events
    ]
