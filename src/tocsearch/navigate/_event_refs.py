"""Event ids written short in an answer: a segment's ids said once as a pattern, each event by
what fills its two holes.

An event id is ``evt:<13 digits of epoch ms>:<suffix>`` (:mod:`tocsearch.ids`), some 30 to 55
characters, and an answer cites one per item. The events of one segment were said within hours
of each other in one conversation, so their ids share most of their characters: the first
digits of their time, the zeros a clock that counts whole seconds leaves at its end, and the
conversation's part of the suffix. A segment whose items share them names them once, as the
pattern of its first event's id: the first :data:`_HEAD` digits, ``*`` for the digits that
vary, the trailing zeros (up to three), and the suffix up to its last ``:`` before a second
``*``. An event whose id fits the pattern is cited by the reference ``<digits>:<rest>``, which
fills the two holes in order (the digits never hold a ``:``, so the first ``:`` parts them):

>>> first = "evt:1683554220000:conv-26:D1:3"
>>> pattern = id_pattern(first)
>>> pattern
'evt:16835*000:conv-26:D1:*'
>>> short_ref(pattern, "evt:1683554280000:conv-26:D1:5")
'54280:5'
>>> resolve_ref(pattern, "54280:5")
'evt:1683554280000:conv-26:D1:5'

An id that does not fit the pattern (another day's, a suffix of another conversation) is
written in full. The pattern is chosen from a segment's first event alone, so an answer is
costed item by item as it grows (:mod:`tocsearch.navigate._fit`); a segment with no second
event that fits its first one's pattern writes no pattern and every id in full.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from tocsearch.errors import InvalidArgument
from tocsearch.ids import EVENT_PREFIX, check_event_id

__all__ = [
    "cited_event_ids",
    "id_pattern",
    "item_ref",
    "resolve_ref",
    "run_pattern",
    "short_ref",
    "sole_event",
]

# Digits of the epoch milliseconds a pattern says: 10^8 ms is about 28 hours, so the events of
# a segment (one conversation, within a day) share them but where a 28-hour block turns over.
_HEAD = 5
# Trailing zeros a pattern says at most: a clock of whole seconds leaves three.
_ZEROS = 3
_MS_DIGITS = 13
_HOLE = "*"
_PATTERN = re.compile(
    r"evt:(?P<head>\d{5})\*(?P<zeros>0{0,3}):(?P<stem>[A-Za-z0-9_.:-]*)\*", re.ASCII
)


def id_pattern(event_id: str) -> str | None:
    """The pattern of ``event_id``'s segment written from it, None when it is not an event
    id (then no pattern is written)."""
    parts = _parts(event_id)
    if parts is None:
        return None
    ms, suffix = parts
    zeros = min(_ZEROS, len(ms) - len(ms.rstrip("0")))
    stem = suffix[: suffix.rfind(":") + 1]
    return f"{EVENT_PREFIX}{ms[:_HEAD]}{_HOLE}{'0' * zeros}:{stem}{_HOLE}"


# An answer asks the reference of each of its events some twenty times: as the fit costs the
# item in each place it may take (JSON and Markdown), and as the answer is written.
@functools.lru_cache(maxsize=1024)
def short_ref(pattern: str, event_id: str) -> str | None:
    """The reference that cites ``event_id`` under ``pattern``, None when it does not fit;
    kept for the last few pairs.

    Raises:
        InvalidArgument: ``pattern`` is not a pattern.
    """
    head, zeros, stem = _parsed(pattern)
    parts = _parts(event_id)
    if parts is None:
        return None
    ms, suffix = parts
    if not (ms.startswith(head) and ms.endswith(zeros) and suffix.startswith(stem)):
        return None
    return f"{ms[len(head) : _MS_DIGITS - len(zeros)]}:{suffix[len(stem) :]}"


def resolve_ref(pattern: str, ref: str) -> str:
    """The full event id that ``ref`` cites under ``pattern``.

    Raises:
        InvalidArgument: ``pattern`` is not a pattern, or ``ref`` does not fill it to an
            event id.
    """
    head, zeros, stem = _parsed(pattern)
    digits, colon, rest = ref.partition(":") if isinstance(ref, str) else ("", "", "")
    if not colon or len(digits) != _MS_DIGITS - len(head) - len(zeros) or not digits.isdigit():
        raise InvalidArgument(
            f"{ref!r:.80} does not fill the event id pattern {pattern!r}: it takes "
            f"{_MS_DIGITS - len(head) - len(zeros)} digits, ':' and the rest of the suffix"
        )
    event_id = f"{EVENT_PREFIX}{head}{digits}{zeros}:{stem}{rest}"
    try:
        check_event_id(event_id)
    except ValueError as error:
        raise InvalidArgument(f"{ref!r:.80} under {pattern!r}: {error}") from None
    return event_id


def _parts(event_id: str) -> tuple[str, str] | None:
    """The milliseconds and the suffix of an event id's text, None when it has not their
    shape (the parts are not checked further: a stored id is well formed)."""
    if not event_id.startswith(EVENT_PREFIX):
        return None
    ms, colon, suffix = event_id[len(EVENT_PREFIX) :].partition(":")
    if not colon or len(ms) != _MS_DIGITS or not (ms.isascii() and ms.isdigit()):
        return None
    return ms, suffix


def _parsed(pattern: str) -> tuple[str, str, str]:
    """The digits, trailing zeros and suffix stem ``pattern`` says.

    Raises:
        InvalidArgument: ``pattern`` is not a pattern.
    """
    parsed = _parsed_text(pattern) if isinstance(pattern, str) else None
    if parsed is None:
        raise InvalidArgument(
            f"{pattern!r:.80} is not an event id pattern (evt:<5 digits>*<zeros>:<stem>*)"
        )
    return parsed


@functools.lru_cache(maxsize=1024)
def _parsed_text(pattern: str) -> tuple[str, str, str] | None:
    """What :func:`_parsed` reads, kept per pattern: an answer's items share a few."""
    match = _PATTERN.fullmatch(pattern)
    return None if match is None else (match["head"], match["zeros"], match["stem"])


def sole_event(kind: str, event_ids: Sequence[str]) -> str | None:
    """The event an item cites by a reference when its run has a pattern: an event item's
    one event id (a statement's events are always written in full)."""
    return event_ids[0] if kind == "event" and len(event_ids) == 1 else None


def item_ref(pattern: str | None, kind: str, event_ids: Sequence[str]) -> str | None:
    """The reference an item (of ``kind``, citing ``event_ids``) is cited by in a run whose
    pattern is ``pattern``: its :func:`sole_event`'s, None when the run has no pattern, the
    item has no sole event or that event does not fit."""
    sole = sole_event(kind, event_ids)
    return None if pattern is None or sole is None else short_ref(pattern, sole)


def run_pattern(cited: Sequence[str | None]) -> str | None:
    """The pattern a run of one segment's items writes, given the :func:`sole_event` of each
    item in order: its first item's, when a later item's fits it; else None (every id is then
    written in full)."""
    if not cited or cited[0] is None:
        return None
    pattern = id_pattern(cited[0])
    if pattern is None:
        return None
    for event_id in cited[1:]:
        if event_id is not None and short_ref(pattern, event_id) is not None:
            return pattern
    return None


# A segment's heading in an answer's Markdown, ending with the pattern of its events' ids.
_HEADING_PATTERN = re.compile(r"(?:\(|, )ids (?P<pattern>evt:\S*)\)$")
# A citation in brackets: an event id, a reference, a grip id.
_CITATION = re.compile(r"\[([^\]\s]+)\]")


def cited_event_ids(markdown: str) -> tuple[str, ...]:
    """The full ids of the events an answer's Markdown cites, in order: an id written in full
    as it is, a reference ``[a:b]`` filled into its segment's pattern (the heading's ``ids``).

    What :meth:`~tocsearch.navigate.NavigationResult.to_markdown` writes for event items
    (a statement cites grips, which are not events); the citations of a line are read after
    its quoted text.

    >>> cited = cited_event_ids(
    ...     "**toc:segment:2023-05-08:135600-6d3e** Support group "
    ...     "(session conv-26:session_1, ids evt:16835*000:conv-26:D1:*)\\n"
    ...     '- 13:57 "Caroline: I went to a LGBTQ support group yesterday." [54220:3]\\n'
    ...     '- 13:58 "Melanie: Wow, what was it like?" [54280:4]\\n'
    ...     "\\n**toc:segment:2023-07-20:205600-edf3**\\n"
    ...     '- 20:58 "Caroline: Our group meets every week." [evt:1689886680000:conv-26:D10:5]\\n'
    ... )
    >>> for event_id in cited:
    ...     print(event_id)
    evt:1683554220000:conv-26:D1:3
    evt:1683554280000:conv-26:D1:4
    evt:1689886680000:conv-26:D10:5

    Raises:
        InvalidArgument: a reference does not fill its segment's pattern.
    """
    cited: list[str] = []
    pattern: str | None = None
    for line in markdown.splitlines():
        if line.startswith("**"):
            heading = _HEADING_PATTERN.search(line)
            pattern = None if heading is None else heading["pattern"]
            continue
        if not line.startswith("- "):
            continue
        tokens = _CITATION.findall(line[line.rfind('"') + 1 :])
        # A reference is an event line's first citation (an event item that cites its one
        # event by reference); grips follow it.
        if pattern is not None and tokens and _is_reference(tokens[0]):
            cited.append(resolve_ref(pattern, tokens[0]))
            tokens = tokens[1:]
        cited.extend(token for token in tokens if token.startswith(EVENT_PREFIX))
    return tuple(cited)


def _is_reference(token: str) -> bool:
    """Whether a citation has the shape of a reference: digits, ``:`` and the rest."""
    digits, colon, _ = token.partition(":")
    return bool(colon) and digits.isascii() and digits.isdigit()
