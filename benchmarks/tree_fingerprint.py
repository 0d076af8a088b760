"""Fingerprints of the trees the builder makes from several histories, to show that a change
leaves every node and grip byte-identical.

Run: ``python benchmarks/tree_fingerprint.py [DATA]`` in two checkouts (or with ``PYTHONPATH``
naming another ``src``) and compare the output: one line per history with the SHA-256 (first 16 hex
digits) of every node and grip as JSON, and the node count. The histories: the bundled example
in one batch and in batches of 13, 5,000 synthetic coding-session events in one batch, 3,200
in batches of 97, ``synth.generate_events`` (30 days), and, when a data folder ``DATA`` is
named, its Claude Code transcripts (``claude-code/projects``) and LoCoMo dev split
(``locomo/locomo-dev.json``).
Not a test: it builds and prints.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

# Run as a script: the repository root makes `benchmarks` and `tests` importable.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests._support.synthetic import history

from benchmarks import synth
from tocsearch import TocLevel
from tocsearch.converter import to_json
from tocsearch.examples import load_example_events
from tocsearch.importers import load_claude_code, load_locomo
from tocsearch.ingest import TocBuilder
from tocsearch.models import Event
from tocsearch.storage import InMemoryStorage


def fingerprint(events: Sequence[Event], batch: int | None = None) -> tuple[str, int]:
    """The hash of every node (level by level, in store order) and grip of the tree built from
    ``events`` (in one batch, or ``batch`` at a time), and the number of nodes."""
    storage = InMemoryStorage()
    builder = TocBuilder(storage)
    size = batch or max(len(events), 1)
    for start in range(0, len(events), size):
        builder.ingest(events[start : start + size])
    digest = hashlib.sha256()
    grip_ids: set[str] = set()
    for level in TocLevel:
        for node in storage.get_nodes_by_level(level):
            digest.update(to_json(node).encode())
            grip_ids.update(grip for bullet in node.bullets for grip in bullet.grip_ids)
    for grip_id in sorted(grip_ids):
        digest.update(to_json(storage.get_grip(grip_id)).encode())
    return digest.hexdigest()[:16], storage.count_nodes()


def _cases(data: Path | None) -> dict[str, Callable[[], tuple[str, int]]]:
    cases: dict[str, Callable[[], tuple[str, int]]] = {
        "example": lambda: fingerprint(load_example_events()),
        "example, batches of 13": lambda: fingerprint(load_example_events(), 13),
        "synthetic 5,000": lambda: fingerprint(history(5000)),
        "synthetic 3,200, batches of 97": lambda: fingerprint(history(3200, seed=3), 97),
        "synth.generate_events, 30 days": lambda: fingerprint(
            synth.generate_events(days=30, sessions_per_day=4, events_per_session=12)[0]
        ),
    }
    if data is None:
        return cases
    transcripts = data / "claude-code" / "projects"
    if transcripts.is_dir():
        cases["Claude Code transcripts"] = lambda: fingerprint(
            load_claude_code(transcripts, strict=False).events
        )
    locomo = data / "locomo" / "locomo-dev.json"
    if locomo.is_file():
        cases["LoCoMo dev"] = lambda: fingerprint(load_locomo(locomo, strict=False).events)
    return cases


def main(argv: list[str]) -> None:
    data = Path(argv[0]) if argv else None
    if data is not None and not data.is_dir():
        sys.exit(f"not a folder: {data}")
    for name, case in _cases(data).items():
        digest, nodes = case()
        print(f"{name:32} {digest}  {nodes} nodes", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
