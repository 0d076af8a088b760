"""What merging a SqliteStorage's own full-text tables costs its writes.

Run: ``python benchmarks/bench_fts_merges.py [--events 100000] [--batch 1000]``.

The planted-needle history of ``--events`` events (under ``benchmarks/.cache/planted/``,
generated there when missing) is read with the JSONL importer and put in batches of
``--batch`` events into a fresh SqliteStorage; the time spent in each merge the store makes
(:class:`~tocsearch.storage._fts_merge.MergeSchedule`, timed by wrapping its
``merge_when_grown``) is reported beside the whole writing, and beside a bare FTS5 table built
over the same texts in the same run. Seconds of one run each. Not a test: nothing here asserts
a time.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._lexical import Fts5Index
from benchmarks._planted_cache import DEFAULT_ROOT, ensure_history
from tocsearch.importers import load_jsonl
from tocsearch.storage._fts_merge import MergeSchedule
from tocsearch.storage.sqlite import SqliteStorage


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=1_000)
    args = parser.parse_args(argv)
    DEFAULT_ROOT.mkdir(parents=True, exist_ok=True)
    history = ensure_history(DEFAULT_ROOT, args.events, needles_per_size=20, seed=29)
    events = load_jsonl(history.jsonl).events
    merges: list[tuple[int, float]] = []
    merge = MergeSchedule.merge_when_grown

    def timed(schedule: MergeSchedule, count: int, merged: str | None) -> bool:
        started = time.perf_counter()
        done = merge(schedule, count, merged)
        if done:
            merges.append((count, time.perf_counter() - started))
        return done

    MergeSchedule.merge_when_grown = timed  # type: ignore[method-assign,assignment]
    with tempfile.TemporaryDirectory(dir=DEFAULT_ROOT) as scratch:
        store = SqliteStorage(Path(scratch) / "store")
        started = time.perf_counter()
        for start in range(0, len(events), args.batch):
            store.put_events(events[start : start + args.batch])
        writing = time.perf_counter() - started
        store.close()
        started = time.perf_counter()
        Fts5Index(
            ((event.event_id, event.text) for event in events), path=Path(scratch) / "fts.sqlite"
        ).close()
        bare = time.perf_counter() - started
    merging = sum(seconds for _, seconds in merges)
    print(f"{len(events):,} events in batches of {args.batch:,}:\n")
    print("| what | seconds | / bare FTS5 build |")
    print("|---|---:|---:|")
    print(f"| SqliteStorage puts, all | {writing:.2f} | {writing / bare:.2f} |")
    print(f"| of which {len(merges)} merges | {merging:.2f} | {merging / bare:.2f} |")
    print(f"| bare FTS5 table build | {bare:.2f} | 1.00 |")
    print("\nmerges (events: seconds): " + ", ".join(f"{n:,}: {s:.2f}" for n, s in merges))


if __name__ == "__main__":
    main()
