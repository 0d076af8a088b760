"""``tocsearch stats``: how much the store holds and over what time."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, TextIO

from tocsearch.cli._common import Commands, SharedOptions, emit, open_store, store_path
from tocsearch.levels import TocLevel

__all__ = ["register"]


def register(commands: Commands, shared: SharedOptions) -> None:
    """Add the ``stats`` command."""
    stats = commands.add_parser(
        "stats",
        parents=[shared.store, shared.output],
        help="events, sessions, projects, time span and size of the store",
    )
    stats.set_defaults(run=_stats)


def _stats(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    path = store_path(args)
    with open_store(args, writing=False) as storage:
        sessions: set[str] = set()
        projects: set[str] = set()
        # One pass over the events: sessions and projects are properties of events only.
        for event in storage.get_events():
            sessions.add(event.session_id)
            project = event.metadata.get("project")
            if project:
                projects.add(project)
        years = storage.get_toc_root()
        data: dict[str, Any] = {
            "store": os.fspath(path),
            "events": storage.count_events(),
            "sessions": len(sessions),
            "projects": len(projects),
            "segments": len(storage.get_nodes_by_level(TocLevel.SEGMENT)),
            "first": years[0].start_time.isoformat() if years else None,
            "last": years[-1].end_time.isoformat() if years else None,
            "store_bytes": _size(path),
        }
    emit(args, out, data, lambda: _text(data))
    return 0


def _size(path: Path) -> int:
    total = 0
    for folder, _, names in os.walk(path):
        for name in names:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                continue  # removed while walking: a writer beside us
    return total


def _text(data: dict[str, Any]) -> str:
    span = f"{data['first'][:10]} .. {data['last'][:10]}" if data["first"] else "empty"
    return "\n".join(
        [
            f"store     {data['store']}",
            f"events    {data['events']:,}",
            f"sessions  {data['sessions']:,}",
            f"projects  {data['projects']:,}",
            f"segments  {data['segments']:,}",
            f"span      {span}",
            f"size      {data['store_bytes'] / 1_048_576:,.1f} MiB",
        ]
    )
