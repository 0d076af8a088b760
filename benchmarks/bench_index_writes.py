"""Batches of events written through IndexingStorage into a search index that embeds, at the
store sizes users reach, beside the same batches into an index without an embedder and into
the bare store.

Run: ``python benchmarks/bench_index_writes.py [--events 100000] [--batch 100] [--batches 20]
[--cache-dir DIR] [--index-dir DIR]``.

The store is the planted-needle history of ``--events`` events built through the JSONL
importer and TocBuilder into an ``InMemoryStorage`` (the latest build in the planted cache
under ``--cache-dir``, only read; built there first when there is none). Two sidecar indexes
in files are synced over it: one with ``HashingEmbedder(64)`` (every event embedded before the
timing starts) and one with full text only, in a temporary directory or in ``--index-dir``,
where a later run finds them current and skips the embedding. Each batch is ``--batch`` of the
history's own turns, copied after its end under new ids, and is written three ways in turn
(the order rotates from batch to batch): through IndexingStorage over the embedding index,
through IndexingStorage over the full-text index, and into the bare store; after each write
the batch is deleted again (untimed), so every write meets the same store. Also timed on the
embedding index: the scan for events without a vector alone (the statement a sync runs when
it cannot tell that every event has one).

Prints medians in milliseconds per batch and their ratio to the full-text-only write. Run it
once per version of the code (``PYTHONPATH=<checkout>/src``) and alternate the versions. Not a
test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import timedelta
from pathlib import Path

import attrs

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._planted_cache import (
    DEFAULT_ROOT,
    ensure_history,
    ensure_store,
    latest_built,
    open_built,
)
from tocsearch import ids
from tocsearch.index import HashingEmbedder, IndexingStorage, SearchIndex
from tocsearch.models import Event
from tocsearch.storage.protocol import Storage

_NEEDLES_PER_SIZE = 20
_SEED = 29
_SCAN = (
    "SELECT events.id, events.event_id FROM events "
    "LEFT JOIN vectors ON vectors.id = events.id WHERE vectors.id IS NULL ORDER BY events.id"
)


def _batches(store: Storage, size: int, count: int) -> list[list[Event]]:
    """``count`` batches of ``size`` of the store's own turns, copied after its last event
    under new ids, one millisecond apart."""
    stored = store.get_events()
    after = stored[-1].timestamp + timedelta(days=1)
    batches = []
    for number in range(count):
        batch = []
        for offset in range(size):
            source = stored[(number * size + offset) * 7 % len(stored)]
            when = after + timedelta(milliseconds=number * size + offset)
            batch.append(
                attrs.evolve(
                    source, event_id=ids.event_id(when, f"late{number}-{offset}"), timestamp=when
                )
            )
        batches.append(batch)
    return batches


def _timed(call: Callable[..., object], *args: object) -> float:
    """Milliseconds ``call(*args)`` took."""
    gc.collect()
    started = time.perf_counter()
    call(*args)
    return (time.perf_counter() - started) * 1000


def _scan(index: SearchIndex) -> None:
    """The statement that looks for events without a vector, run to its end."""
    index._connection.execute(_SCAN).fetchall()


def measure(store: Storage, batch: int, count: int, directory: Path) -> str:
    """The Markdown table of one run, with the indexes kept in ``directory``."""
    embedding = SearchIndex(store, directory / "embedding.sqlite3", embedder=HashingEmbedder(64))
    started = time.perf_counter()
    embedding.sync()
    took = time.perf_counter() - started
    print(f"<!-- embedding index synced in {took:.0f} s -->", file=sys.stderr)
    text_only = SearchIndex(store, directory / "text.sqlite3")
    text_only.sync()
    writers: dict[str, Storage] = {
        "IndexingStorage, index with HashingEmbedder(64)": IndexingStorage(embedding),
        "IndexingStorage, full-text index": IndexingStorage(text_only),
        "bare InMemoryStorage": store,
    }
    runs: dict[str, list[float]] = {name: [] for name in writers}
    scans: list[float] = []
    names = list(writers)
    for number, events in enumerate(_batches(store, batch, count)):
        event_ids = [event.event_id for event in events]
        for name in names[number % 3 :] + names[: number % 3]:
            runs[name].append(_timed(writers[name].put_events, events))
            writers[name].delete_events(event_ids)
        scans.append(_timed(_scan, embedding))
    embedding.check()
    text_only.check()
    runs["scan for events without a vector (alone)"] = scans
    base = statistics.median(runs["IndexingStorage, full-text index"])
    lines = [
        f"{count} batches of {batch} events into a store of {store.count_events():,} events "
        "(indexes in files), medians:",
        "",
        "| write | ms per batch | / full-text-only write |",
        "|---|---:|---:|",
    ]
    for name, values in runs.items():
        middle = statistics.median(values)
        lines.append(f"| {name} | {middle:.1f} | {middle / base:.2f} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--batches", type=int, default=20)
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_ROOT)
    parser.add_argument(
        "--index-dir",
        type=Path,
        default=None,
        help="keep the two indexes here between runs (default: a temporary directory)",
    )
    args = parser.parse_args(argv)
    history = ensure_history(
        args.cache_dir, args.events, needles_per_size=_NEEDLES_PER_SIZE, seed=_SEED
    )
    built = latest_built(history, "memory") or ensure_store(history, "memory")
    print(f"<!-- store: {built.path} -->", file=sys.stderr)
    store = open_built(built)
    if args.index_dir is not None:
        args.index_dir.mkdir(parents=True, exist_ok=True)
        print(measure(store, args.batch, args.batches, args.index_dir))
        return
    with tempfile.TemporaryDirectory() as scratch:
        print(measure(store, args.batch, args.batches, Path(scratch)))


if __name__ == "__main__":
    main()
