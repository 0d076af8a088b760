"""Forgetting and redacting: events out of a store, and every record derived from them rebuilt.

Both run the same steps (:class:`~tocsearch.privacy._pending.PendingWork`): note the work in
the store directory, delete events and put redacted versions (through the search index too,
when the store has one), rebuild the affected days with :meth:`TocBuilder.rebuild_days` (their
segments, grips, digests, and the weeks, months and years above them; nodes left empty are
removed), scrub the files so no old copy stays readable, and remove the note. The tree is
rebuilt by the same builder that made it, so it is exactly the tree of the events that remain.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, datetime, timezone

import attrs

from tocsearch.errors import InvalidArgument
from tocsearch.index import IndexingStorage
from tocsearch.index._sidecar import existing_index
from tocsearch.ingest import BuildConfig, TocBuilder
from tocsearch.models import Event, event_project
from tocsearch.privacy._ignore import load_ignore_list, save_ignore_list
from tocsearch.privacy._pending import (
    PendingWork,
    clear_pending,
    ensure_writable,
    read_pending,
    store_directory,
    write_pending,
)
from tocsearch.privacy._select import ForgetRequest, iter_stored_events
from tocsearch.storage.protocol import Storage
from tocsearch.summarize import Summarizer

__all__ = [
    "REDACTED",
    "ForgetReport",
    "RedactReport",
    "RedactRequest",
    "finish_pending",
    "forget_events",
    "redact_events",
]

REDACTED = "[redacted]"
"""What :func:`redact_events` puts in place of each match."""
_MAX_PATTERN = 1_000


@attrs.frozen
class ForgetReport:
    """What :func:`forget_events` removed (or, on a dry run, would remove).

    Attributes:
        dry_run: nothing was changed.
        events: events removed.
        sessions: the sessions they were said in.
        projects: where they were said (:func:`~tocsearch.models.event_project`), where the
            source recorded it.
        first: the earliest removed event's time, or None.
        last: the latest removed event's time, or None.
        days_rebuilt: days whose tree was rebuilt from the events that remain.
        ignored: whether the store's ignore list now refuses them (see :class:`IgnoreList`).
    """

    dry_run: bool
    events: int
    sessions: tuple[str, ...]
    projects: tuple[str, ...]
    first: datetime | None
    last: datetime | None
    days_rebuilt: int = 0
    ignored: bool = False


def _pattern(value: object) -> re.Pattern[str]:
    source = value.pattern if isinstance(value, re.Pattern) else value
    if not isinstance(source, str) or not source:
        raise InvalidArgument(f"pattern must be a non-empty regular expression, got {value!r}")
    if len(source) > _MAX_PATTERN:
        raise InvalidArgument(
            f"pattern must be at most {_MAX_PATTERN} characters, got {len(source):,}"
        )
    if isinstance(value, re.Pattern):
        return value
    try:
        return re.compile(source)
    except re.error as error:
        raise InvalidArgument(f"pattern {source!r} is not a regular expression: {error}") from None
    except (OverflowError, RecursionError):
        raise InvalidArgument(f"pattern {source[:80]!r} is too large or too nested") from None


@attrs.frozen
class RedactRequest:
    """Replace every match of ``pattern`` (a Python :mod:`re` regular expression, or a compiled
    one for flags such as ``re.IGNORECASE``) in event texts and metadata values with
    :data:`REDACTED`.

    Attributes:
        pattern: what to remove; it must not match the empty string.
        dry_run: only report what would change.
    """

    pattern: re.Pattern[str] = attrs.field(converter=_pattern)
    dry_run: bool = False

    def __attrs_post_init__(self) -> None:
        if self.pattern.fullmatch(""):
            raise InvalidArgument(
                f"pattern {self.pattern.pattern!r} matches the empty string, "
                "so it would redact between every character"
            )

    def redacted(self, event: Event) -> tuple[Event, int] | None:
        """``event`` with its matches replaced and how many there were, or None without any."""
        sub = self.pattern.subn
        text, count = sub(REDACTED, event.text)
        metadata: dict[str, str] = {}
        for key, value in event.metadata.items():
            metadata[key], found = sub(REDACTED, value)
            count += found
        agent = event.agent
        if agent is not None:
            agent, found = sub(REDACTED, agent)
            count += found
        if not count:
            return None
        return attrs.evolve(event, text=text, metadata=metadata, agent=agent), count


@attrs.frozen
class RedactReport:
    """What :func:`redact_events` changed (or, on a dry run, would change).

    Attributes:
        dry_run: nothing was changed.
        events: events that held a match.
        matches: matches replaced.
        sessions: the sessions of those events.
        days_rebuilt: days whose tree was rebuilt.
    """

    dry_run: bool
    events: int
    matches: int
    sessions: tuple[str, ...]
    days_rebuilt: int = 0


def forget_events(
    storage: Storage,
    request: ForgetRequest,
    *,
    summarizer: Summarizer | None = None,
    config: BuildConfig | None = None,
    now: datetime | None = None,
) -> ForgetReport:
    """Remove the events ``request`` selects and rebuild everything derived from them.

    Afterwards no event, node (title, summary, bullets, keywords, digest), grip or search-index
    row holds their text, and the tree passes :func:`~tocsearch.ingest.check_tree`. Pass the
    ``summarizer`` and ``config`` the store was built with, if not the defaults. With
    ``request.keep_out`` (the default) an on-disk store's ignore list refuses them from then
    on; when nothing matches, nothing changes (the list included). Unfinished work a crash
    left behind is finished first.

    Runtime complexity: the selection (see :meth:`ForgetRequest.select`), then linear in the
    events of the affected days, then a scrub of the store's files.

    Raises:
        StoreReadOnly: the store was opened read-only (and there is something to remove).
    """
    if not isinstance(request, ForgetRequest):
        raise InvalidArgument(f"request must be a ForgetRequest, got {type(request).__name__}")
    if not request.dry_run:
        finish_pending(storage, summarizer=summarizer, config=config)
    events = request.select(storage)
    report = ForgetReport(
        dry_run=request.dry_run,
        events=len(events),
        sessions=tuple(sorted({event.session_id for event in events})),
        projects=tuple(sorted({place for e in events if (place := event_project(e))})),
        first=events[0].timestamp if events else None,
        last=events[-1].timestamp if events else None,
    )
    if request.dry_run or not events:
        # Nothing matched: most likely a mistyped session or project, which must not land
        # on the ignore list unseen.
        return report
    ensure_writable(storage, "forget events")
    directory = store_directory(storage)
    ignored = False
    if request.keep_out and directory is not None:
        # Refused first: a crash before the events are gone leaves them for the re-run to
        # find, never a sync that brings them back meanwhile.
        moment = now if now is not None else datetime.now(timezone.utc)
        ignore = load_ignore_list(directory)
        save_ignore_list(
            directory,
            ignore.with_forgotten(request, (event.event_id for event in events), moment),
        )
        ignored = True
    work = PendingWork(delete=tuple(event.event_id for event in events), days=_days_of(events))
    rebuilt = _carry_out(storage, work, summarizer, config)
    return attrs.evolve(report, days_rebuilt=rebuilt, ignored=ignored)


def redact_events(
    storage: Storage,
    request: RedactRequest,
    *,
    summarizer: Summarizer | None = None,
    config: BuildConfig | None = None,
) -> RedactReport:
    """Replace every match of ``request.pattern`` in the stored events with :data:`REDACTED`
    and rebuild everything derived from them, so no node, grip or index row holds a match
    that came from an event. Unfinished work a crash left behind is finished first.

    Runtime complexity: one pass over every event (in batches), then linear in the events of
    the affected days, then a scrub of the store's files.
    """
    if not isinstance(request, RedactRequest):
        raise InvalidArgument(f"request must be a RedactRequest, got {type(request).__name__}")
    if not request.dry_run:
        finish_pending(storage, summarizer=summarizer, config=config)
    changed: list[Event] = []
    matches = 0
    for event in iter_stored_events(storage):
        found = request.redacted(event)
        if found is not None:
            changed.append(found[0])
            matches += found[1]
    report = RedactReport(
        dry_run=request.dry_run,
        events=len(changed),
        matches=matches,
        sessions=tuple(sorted({event.session_id for event in changed})),
    )
    if request.dry_run or not changed:
        return report
    ensure_writable(storage, "redact events")
    work = PendingWork(put=tuple(changed), days=_days_of(changed))
    return attrs.evolve(report, days_rebuilt=_carry_out(storage, work, summarizer, config))


def finish_pending(
    storage: Storage,
    *,
    summarizer: Summarizer | None = None,
    config: BuildConfig | None = None,
) -> bool:
    """Finish a forget or redact that a crash cut short in this on-disk store; True when there
    was one. Writers call it before they write (``tocsearch`` commands that write do)."""
    directory = store_directory(storage)
    if directory is None:
        return False
    work = read_pending(directory)
    if work is None:
        return False
    _carry_out(storage, work, summarizer, config)
    return True


def _days_of(events: Sequence[Event]) -> tuple[date, ...]:
    return tuple(sorted({event.timestamp.date() for event in events}))


def _carry_out(
    storage: Storage,
    work: PendingWork,
    summarizer: Summarizer | None,
    config: BuildConfig | None,
) -> int:
    """Do ``work`` (noted first in an on-disk store) and return the days rebuilt.

    When the store has a search index beside it, the writes go through it too, so the index
    loses the same texts in the same calls.
    """
    directory = store_directory(storage)
    # The index is opened (and brought up to date) before the note is written: a damaged
    # index fails the forget before it starts instead of leaving a note no writer can finish.
    index = None if isinstance(storage, IndexingStorage) else existing_index(storage)
    try:
        target = storage if index is None else IndexingStorage(index)
    except BaseException:
        if index is not None:
            index.close()
        raise
    if directory is not None:
        write_pending(directory, work)
    try:
        target.delete_events(work.delete)
        target.put_events(work.put)
        builder = TocBuilder(target, summarizer=summarizer, config=config)
        report = builder.rebuild_days(work.days)
        target.scrub()
    finally:
        if index is not None:
            index.close()
    if directory is not None:
        clear_pending(directory)
    return report.days_rebuilt
