"""``tocsearch ingest``: import event files and build the tree."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from tocsearch import _render
from tocsearch.cli._common import (
    CommandError,
    Commands,
    ProgressLine,
    SharedOptions,
    emit,
    open_store,
    store_path,
    write_notice,
)
from tocsearch.converter import to_dict
from tocsearch.errors import UnknownFormat
from tocsearch.importers import FORMATS, load_events
from tocsearch.ingest import TocBuilder
from tocsearch.ingest._batches import day_batches
from tocsearch.models import Event
from tocsearch.privacy import load_ignore_list, without_ignored
from tocsearch.privacy._pending import store_directory
from tocsearch.storage.protocol import Storage

__all__ = ["register"]

_PROGRESS_BATCH = 5_000


def register(commands: Commands, shared: SharedOptions) -> None:
    """Add the ``ingest`` command."""
    ingest = commands.add_parser(
        "ingest",
        parents=[shared.store, shared.output],
        help="import event files and build the tree",
    )
    ingest.add_argument("files", nargs="+", type=Path, metavar="FILE")
    ingest.add_argument("--format", choices=FORMATS, help="input format (default: detect)")
    ingest.add_argument(
        "--strict", action="store_true", help="refuse the whole batch on the first bad record"
    )
    ingest.set_defaults(run=_ingest)


def _ingest(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    write_notice(err, f"store {store_path(args)}")
    progress = ProgressLine(err)
    try:
        loaded, problems, unknown = _read(args, progress)
    finally:
        progress.end()
    for problem in problems:
        write_notice(err, f"skipped {problem}")
    if unknown:
        kinds = ", ".join(f"{kind} ({count:,})" for kind, count in sorted(unknown.items()))
        write_notice(err, f"read content of unknown types, text kept where it had any: {kinds}")
    with open_store(args, writing=True) as storage:
        directory = store_directory(storage)
        ignore = None if directory is None else load_ignore_list(directory)
        loaded, ignored = without_ignored(loaded, ignore)
        try:
            totals = _build(storage, loaded, progress)
        finally:
            progress.end()
    totals["records_skipped"] = len(problems)
    totals["unknown_content"] = sum(unknown.values())
    totals["events_ignored"] = ignored
    emit(args, out, totals, lambda: _render.ingest_report(totals))
    return 0


def _read(
    args: argparse.Namespace, progress: ProgressLine
) -> tuple[list[Event], list[str], dict[str, int]]:
    """The events of every input, the bad records skipped and the unknown content types met,
    with a progress line per input (and per transcript of a Claude Code folder)."""
    loaded: list[Event] = []
    problems: list[str] = []
    unknown: dict[str, int] = {}
    for number, path in enumerate(args.files, start=1):
        where = f"{path} ({number:,}/{len(args.files):,})" if len(args.files) > 1 else str(path)

        def show(line: str, where: str = where) -> None:
            progress(f"{where}: {line}")

        show("reading")
        try:
            result = load_events(path, format=args.format, strict=args.strict, progress=show)
        except UnknownFormat as error:
            raise CommandError(f"{error.detail}; pass --format ({', '.join(FORMATS)})") from None
        loaded.extend(result.events)
        problems.extend(str(problem) for problem in result.problems)
        for kind, count in result.unknown_content.items():
            unknown[kind] = unknown.get(kind, 0) + count
        show(f"{len(result.events):,} events")
    return loaded, problems, unknown


def _build(storage: Storage, loaded: list[Event], progress: ProgressLine) -> dict[str, int]:
    """Build the tree from ``loaded`` a batch of whole days at a time (each day built once),
    with a progress line per batch; the report's counts summed."""
    builder = TocBuilder(storage)
    totals: dict[str, int] = {}
    done = 0
    # With nothing read, one empty build still gives the full report, every count zero.
    for batch in list(day_batches(loaded, _PROGRESS_BATCH)) or [[]]:
        report = builder.ingest(batch)
        for key, value in to_dict(report).items():
            if isinstance(value, int):
                totals[key] = totals.get(key, 0) + value
        done += len(batch)
        progress(f"ingested {done:,}/{len(loaded):,} events")
    return totals
