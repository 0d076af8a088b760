"""``tocsearch sync``: read what is new in Claude Code and ChatGPT histories into the store."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from tocsearch._paths import default_store_path
from tocsearch.cli._common import Commands, SharedOptions, emit, open_store
from tocsearch.converter import to_dict
from tocsearch.sync import SyncReport, default_claude_projects, sync_sources

__all__ = ["register"]


def register(commands: Commands, shared: SharedOptions) -> None:
    """Add the ``sync`` command."""
    sync = commands.add_parser(
        "sync",
        parents=[shared.store, shared.output],
        help="read what is new in Claude Code transcripts and ChatGPT exports",
    )
    sync.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="transcript folders or files, ChatGPT export folders, .json or .zip "
        "(default: ~/.claude/projects)",
    )
    sync.add_argument("--full", action="store_true", help="read every file again from its start")
    sync.set_defaults(run=_sync)


def _sync(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    store: Path = args.store if args.store is not None else default_store_path()
    paths = args.paths or [default_claude_projects()]
    err.write(f"tocsearch: store {store}\n")

    def progress(line: str) -> None:
        if err.isatty():
            err.write(f"\r{line}")
            err.flush()

    report = sync_sources(
        store, paths, lambda: open_store(args, writing=True), full=args.full, progress=progress
    )
    if err.isatty() and (report.files_read >= 50 or report.events_read > 5_000):
        err.write("\n")
    for problem in report.problems:
        err.write(f"tocsearch: skipped {problem}\n")
    emit(args, out, to_dict(report), lambda: _text(report))
    return 0


def _text(report: SyncReport) -> str:
    return (
        f"{report.files_seen:,} files: {report.files_read:,} read "
        f"({report.files_reread:,} from the start), {report.files_unchanged:,} unchanged; "
        f"{report.events_added:,} new events of {report.events_read:,} read, "
        f"{report.days_rebuilt:,} days rebuilt"
    )
