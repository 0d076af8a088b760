"""Reading and rewriting a JSON-dir tree file by hand, as damage from outside would."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tocsearch.storage._jsondir_tree import Group


def tree_records(path: Path) -> dict[str, Any]:
    """The records line of a tree file: ``{"nodes": {...}, "grips": {...}}``."""
    lines = path.read_bytes().splitlines()
    return dict(json.loads(lines[-1]))


def edit_tree(path: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    """Change a tree file's records in place and write it back with a first line that agrees,
    so the change looks like records deleted or altered cleanly."""
    body = tree_records(path)
    edit(body)
    path.write_bytes(Group(path, body, None).encode())
