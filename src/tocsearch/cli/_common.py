"""What every command shares: argument types, the store and output options, opening the store,
printing a result as text or JSON, and the error a command raises when it cannot go on."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date, datetime, time, timedelta, tzinfo
from pathlib import Path
from typing import Any, NoReturn, TextIO, TypeAlias

import attrs

from tocsearch._clock import local_zone, parse_zone
from tocsearch._paths import default_store_path
from tocsearch._terminal import terminal_json, visible
from tocsearch.converter import _parse_datetime
from tocsearch.errors import InvalidArgument
from tocsearch.privacy import finish_pending
from tocsearch.storage import Storage, store_backend
from tocsearch.storage import open_store as open_existing_store
from tocsearch.storage._open import BACKENDS as STORE_BACKENDS
from tocsearch.storage._open import DEFAULT_BACKEND

__all__ = [
    "BACKENDS",
    "CommandError",
    "Commands",
    "Parser",
    "ProgressLine",
    "Run",
    "SharedOptions",
    "asker_zone",
    "day_bound",
    "emit",
    "moment",
    "non_negative",
    "open_store",
    "positive",
    "shared_options",
    "store_path",
    "whole_number",
    "window_bound",
    "write_notice",
    "zone",
]

BACKENDS = tuple(STORE_BACKENDS)

Run = Callable[[argparse.Namespace, TextIO, TextIO], int]
"""A command: parsed arguments, stdout, stderr -> exit status."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors exit with status 2 and one line on stderr."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


Commands: TypeAlias = "argparse._SubParsersAction[Parser]"
"""The sub-command table that each command module adds its parsers to."""


@attrs.frozen
class SharedOptions:
    """Parent parsers that commands include: where the store is, and ``--json``."""

    store: Parser
    output: Parser


def shared_options() -> SharedOptions:
    """Fresh parent parsers for ``--store``/``--backend`` and ``--json``."""
    store = Parser(add_help=False)
    store.add_argument(
        "--store",
        type=Path,
        help="store directory (default: $TOCSEARCH_HOME, else the user data directory)",
    )
    store.add_argument(
        "--backend",
        choices=BACKENDS,
        help=f"backend of a new store (default: {DEFAULT_BACKEND}); "
        "an existing store opens with its own",
    )
    output = Parser(add_help=False)
    output.add_argument("--json", action="store_true", help="print one JSON document")
    return SharedOptions(store=store, output=output)


def whole_number(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse type for whole numbers of at least ``minimum`` (and at most ``maximum``)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected at least {minimum}, got {value}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"expected at most {maximum}, got {value}")
        return value

    return parse


positive = whole_number(1)
non_negative = whole_number(0)


def moment(text: str) -> datetime:
    """An argparse type for an ISO 8601 moment."""
    try:
        return _parse_datetime(text, datetime)
    except InvalidArgument as error:
        raise argparse.ArgumentTypeError(
            f"{error}; write e.g. 2026-03-20T18:00:00Z or 2026-03-20T18:00+01:00"
        ) from None


def zone(text: str) -> tzinfo:
    """An argparse type for a time zone (see :func:`tocsearch._clock.parse_zone`)."""
    try:
        return parse_zone(text)
    except InvalidArgument as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def asker_zone(args: argparse.Namespace) -> tzinfo:
    """The zone of the person at the terminal: ``--tz`` when given, else the system's."""
    return args.tz if args.tz is not None else local_zone()


def window_bound(text: str) -> datetime | date:
    """An argparse type for ``--since``/``--until``: an ISO 8601 moment with its offset, or a
    date (read in the user's zone by :func:`day_bound`)."""
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        return moment(text)


def day_bound(value: datetime | date | None, clock: tzinfo, *, end_of_day: bool) -> datetime | None:
    """A ``--since``/``--until`` value as a moment: a date is the midnight that starts it on
    ``clock``, or with ``end_of_day`` the one that ends it, so ``--until 2026-03-05`` includes
    the 5th.

    Raises:
        InvalidArgument: ``end_of_day`` and the date is 9999-12-31, which no midnight ends.
    """
    if value is None or isinstance(value, datetime):
        return value
    if end_of_day and value == date.max:
        raise InvalidArgument(
            f"--until {value.isoformat()}: no midnight ends the last day of the calendar; "
            "give an earlier date"
        )
    day = value + timedelta(days=1) if end_of_day else value
    return datetime.combine(day, time(), tzinfo=clock)


class CommandError(Exception):
    """A command that cannot be carried out; exits with status 1."""


def store_path(args: argparse.Namespace) -> Path:
    """The store a command works on: ``--store``, else the default (``$TOCSEARCH_HOME`` or the
    user data directory), as an absolute path so that what is printed can be found again."""
    path: Path = args.store if args.store is not None else default_store_path()
    return path.absolute()


class ProgressLine:
    """A progress line on stderr, rewritten in place, shown only when stderr is a terminal (a
    log file or a pipe gets none, and ``--json`` on stdout is never touched).

    Call it with each new line; :meth:`end` wipes the line, if one was shown, so that what is
    printed next starts on a clean line and no stale count stays on the screen.
    """

    def __init__(self, err: TextIO) -> None:
        self._err = err
        self._shown = err.isatty()
        self._width = 0

    def __call__(self, line: str) -> None:
        if not self._shown:
            return
        # A line may name a file, whose name may hold what would steer the terminal.
        line = visible(line)
        # Spaces cover what a longer line before left behind.
        self._err.write(f"\r{line}{' ' * (self._width - len(line))}")
        self._err.flush()
        self._width = max(self._width, len(line))

    def end(self) -> None:
        """Wipe the progress line, if one was shown."""
        if self._width:
            self._err.write(f"\r{' ' * self._width}\r")
            self._err.flush()
            self._width = 0


@contextmanager
def open_store(
    args: argparse.Namespace, *, writing: bool, create: bool = True
) -> Iterator[Storage]:
    """The store at ``--store``, open for the length of a command: an existing store with the
    backend its marker names, a new one (when writing and ``create``) with ``--backend``.

    Raises:
        CommandError: reading (or, without ``create``, writing) a store that does not exist,
            or ``--backend`` naming another backend than the existing store's.
    """
    path = store_path(args)
    if not writing and not path.exists():
        raise CommandError(
            f"no store at {path}; run 'tocsearch ingest FILE' first or pass --store DIR"
        )
    existing = store_backend(path)
    if existing is None and writing and not create:
        raise CommandError(f"no store at {path}; pass --store DIR")
    if existing is not None and args.backend not in (None, existing):
        raise CommandError(f"{path} holds a {existing} store, not {args.backend}; drop --backend")
    storage: Storage
    if existing is None and writing:
        storage = STORE_BACKENDS[args.backend or DEFAULT_BACKEND](path)
    else:
        storage = open_existing_store(path, readonly=not writing)
    with storage:
        if writing:
            # A forget or redact that a crash cut short is finished before anything else.
            finish_pending(storage)
        yield storage


def emit(args: argparse.Namespace, out: TextIO, data: Any, text: Callable[[], str]) -> None:
    """Print ``data`` as one JSON document under ``--json``, else the text ``text()`` renders.

    Either way nothing that steers a terminal is printed raw (see :mod:`tocsearch._terminal`):
    the text shows such characters as visible escapes, the JSON as ``\\u`` escapes that read
    back as the very characters."""
    if args.json:
        out.write(terminal_json(data, indent=2) + "\n")
    else:
        rendered = visible(text())
        out.write(rendered if rendered.endswith("\n") else rendered + "\n")


def write_notice(err: TextIO, message: str) -> None:
    """Write ``tocsearch: <message>`` as one line on stderr, any character that would steer a
    terminal shown as a visible escape: a message may name a file or quote a record."""
    err.write(f"tocsearch: {visible(message)}\n")
