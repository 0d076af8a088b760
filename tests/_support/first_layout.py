"""Writing a JSON directory store in its first layout (one file per record), as earlier
versions of tocsearch left it, so migration can be tested."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from tocsearch.converter import to_json
from tocsearch.levels import TocLevel
from tocsearch.models import Event, Grip, TocNode


def write_first_layout(
    path: Path, nodes: Iterable[TocNode], grips: Iterable[Grip], events: Iterable[Event]
) -> None:
    """Lay out a first-layout store at ``path`` holding these records."""
    for level in TocLevel:
        (path / "nodes" / level.value).mkdir(parents=True)
    (path / "grips").mkdir()
    (path / "events").mkdir()
    for number, node in enumerate(nodes):
        (path / "nodes" / node.level.value / f"n{number}.json").write_text(to_json(node))
    for number, grip in enumerate(grips):
        (path / "grips" / f"g{number}.json").write_text(to_json(grip))
    sessions: dict[str, Path] = {}
    for number, event in enumerate(events):
        folder = sessions.setdefault(event.session_id, path / "events" / f"s{len(sessions)}")
        folder.mkdir(exist_ok=True)
        (folder / f"e{number}.json").write_text(to_json(event))
    (path / "spans.json").write_text("{}")
    (path / "tocsearch-store.json").write_text(
        json.dumps({"format": "tocsearch.jsondir", "version": 1})
    )
