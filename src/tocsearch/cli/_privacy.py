"""``tocsearch forget`` and ``tocsearch redact``: remove history, or a pattern in it, from a
store and from everything derived from it."""

from __future__ import annotations

import argparse
import re
from datetime import datetime
from typing import Any, TextIO

from tocsearch._clock import local_zone
from tocsearch.cli._common import (
    CommandError,
    Commands,
    SharedOptions,
    day_bound,
    emit,
    open_store,
    window_bound,
    zone,
)
from tocsearch.converter import to_dict
from tocsearch.errors import InvalidArgument
from tocsearch.privacy import (
    ForgetReport,
    ForgetRequest,
    RedactReport,
    RedactRequest,
    forget_events,
    redact_events,
)
from tocsearch.privacy._forget import REDACTED
from tocsearch.privacy._pending import store_directory

__all__ = ["register"]


def register(commands: Commands, shared: SharedOptions) -> None:
    """Add the ``forget`` and ``redact`` commands."""
    forget = commands.add_parser(
        "forget",
        parents=[shared.store, shared.output],
        help="remove a session, a project, a time range or events, and all derived from them",
        description="Remove the events that every given option matches, rebuild the days they "
        "were on, and scrub the store's files. What is forgotten goes on the store's ignore "
        "list, so sync and ingest do not bring it back (--allow-again leaves it off).",
    )
    forget.add_argument("--session", help="a whole session id")
    forget.add_argument(
        "--project", help="a project name or working directory (and the folders below it)"
    )
    forget.add_argument(
        "--since", type=window_bound, help="from this ISO 8601 moment or date (in --tz) on"
    )
    forget.add_argument(
        "--until", type=window_bound, help="up to this ISO 8601 moment, or through this date"
    )
    forget.add_argument(
        "--event", action="append", default=[], metavar="ID", help="an event id (repeatable)"
    )
    forget.add_argument("--tz", type=zone, help="the zone --since/--until dates are read in")
    forget.add_argument(
        "--dry-run", action="store_true", help="say what would be removed and change nothing"
    )
    forget.add_argument(
        "--allow-again",
        action="store_true",
        help="do not add what is forgotten to the ignore list (a later sync may bring it back)",
    )
    forget.set_defaults(run=_forget)

    redact = commands.add_parser(
        "redact",
        parents=[shared.store, shared.output],
        help=f"replace a regular expression's matches with {REDACTED} and rebuild",
        description="Replace every match of PATTERN (a Python regular expression) in event "
        f"texts and metadata with {REDACTED}, rebuild the days of the changed events, and "
        "scrub the store's files.",
    )
    redact.add_argument("pattern", metavar="PATTERN", help="a Python regular expression")
    redact.add_argument("--ignore-case", "-i", action="store_true", help="match in any case")
    redact.add_argument(
        "--dry-run", action="store_true", help="count the matches and change nothing"
    )
    redact.set_defaults(run=_redact)


def _forget(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    clock = args.tz if args.tz is not None else local_zone()
    try:
        request = ForgetRequest(
            session=args.session,
            project=args.project,
            since=day_bound(args.since, clock, end_of_day=False),
            until=day_bound(args.until, clock, end_of_day=True),
            event_ids=tuple(args.event),
            dry_run=args.dry_run,
            keep_out=not args.allow_again,
        )
    except InvalidArgument as error:
        raise CommandError(_cli_words(str(error))) from None
    with open_store(args, writing=not args.dry_run, create=False) as storage:
        report = forget_events(storage, request)
        where = store_directory(storage)
    if not report.events:
        raise CommandError(f"no stored event matches {_criteria(args)}; nothing removed")
    data: dict[str, Any] = to_dict(report)
    emit(args, out, data, lambda: _forget_text(report, where is not None))
    return 0


def _criteria(args: argparse.Namespace) -> str:
    """The options a forget was given, as typed."""
    given = [
        f"--{name} {value}"
        for name, value in (
            ("session", args.session),
            ("project", args.project),
            ("since", args.since),
            ("until", args.until),
        )
        if value is not None
    ]
    given += [f"--event {event_id}" for event_id in args.event]
    return " ".join(given)


def _cli_words(message: str) -> str:
    """A request's error in the words of the command line."""
    return (
        message.replace("since/until", "--since/--until")
        .replace("event ids", "--event")
        .replace("a session,", "--session,")
        .replace("a project,", "--project,")
        .replace("(since/until)", "(--since/--until)")
        .replace("since (", "--since (")
        .replace("before until (", "before --until (")
    )


def _counted(count: int, noun: str, plural: str = "") -> str:
    """``1 event``, ``2 events``."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def _when(moment: datetime | None) -> str:
    return "" if moment is None else moment.astimezone(local_zone()).strftime("%Y-%m-%d %H:%M")


def _forget_text(report: ForgetReport, on_disk: bool) -> str:
    verb = "would remove" if report.dry_run else "removed"
    lines = [
        f"{verb} {_counted(report.events, 'event')} of "
        f"{_counted(len(report.sessions), 'session')}, "
        f"{_when(report.first)} to {_when(report.last)}"
    ]
    lines += [f"  session {session}" for session in report.sessions[:20]]
    if len(report.sessions) > 20:
        lines.append(f"  and {len(report.sessions) - 20:,} more sessions")
    if report.projects:
        lines.append("projects: " + ", ".join(report.projects))
    if not report.dry_run:
        lines.append(
            f"{_counted(report.days_rebuilt, 'day')} rebuilt; the store's files are scrubbed"
        )
        if report.ignored:
            lines.append("sync and ingest will not bring them back (the store's ignore list)")
        elif on_disk:
            lines.append("not on the ignore list: a later sync or ingest may bring them back")
    return "\n".join(lines)


def _redact(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    flags = re.IGNORECASE if args.ignore_case else 0
    try:
        pattern = re.compile(args.pattern, flags)
    except re.error as error:
        raise CommandError(
            f"PATTERN {args.pattern!r} is not a regular expression: {error}"
        ) from None
    except (OverflowError, RecursionError):
        raise CommandError(f"PATTERN {args.pattern[:80]!r} is too large or nested") from None
    try:
        request = RedactRequest(pattern=pattern, dry_run=args.dry_run)
    except InvalidArgument as error:
        raise CommandError(str(error).replace("pattern", "PATTERN", 1)) from None
    with open_store(args, writing=not args.dry_run, create=False) as storage:
        report = redact_events(storage, request)
    emit(args, out, to_dict(report), lambda: _redact_text(report))
    return 0


def _redact_text(report: RedactReport) -> str:
    if not report.events:
        return "no stored event matches; nothing changed"
    verb = "would replace" if report.dry_run else "replaced"
    text = (
        f"{verb} {_counted(report.matches, 'match', 'matches')} in "
        f"{_counted(report.events, 'event')} of {_counted(len(report.sessions), 'session')}"
    )
    if not report.dry_run:
        text += f"; {_counted(report.days_rebuilt, 'day')} rebuilt; the store's files are scrubbed"
    return text
