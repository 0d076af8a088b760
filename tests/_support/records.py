"""Everything a store holds, as text, so privacy tests can look for a word anywhere."""

from __future__ import annotations

from pathlib import Path

from tocsearch.converter import to_json
from tocsearch.storage.protocol import Storage


def records_text(store: Storage) -> str:
    """Every stored node, grip and event as JSON: what a reader of the store can see."""
    parts = [to_json(store.get_node(node_id)) for node_id in store.iter_node_ids()]
    parts += [to_json(store.get_grip(grip_id)) for grip_id in store.iter_grip_ids()]
    parts += [to_json(event) for event in store.get_events()]
    return "\n".join(parts)


def files_text(directory: Path) -> bytes:
    """Every byte of every file under a store directory."""
    return b"".join(path.read_bytes() for path in sorted(directory.rglob("*")) if path.is_file())
