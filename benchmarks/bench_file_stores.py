"""Ingest speed and footprint of the file stores, through the real builder, beside baselines.

Run: ``python benchmarks/bench_file_stores.py [--events N ...] [--backends NAME ...]
[--repeats R]`` (defaults: 100000 events; memory, jsondir, shelf and sqlite where present; 1
repeat). Each backend ingests the same synthetic coding-session history with ``TocBuilder`` in
batches of 5,000 events, as ``tocsearch ingest`` does, into a fresh store in a temporary folder.
Printed per backend: median events/s, its time over the in-memory ingest's in the same run, files,
bytes (apparent and on disk), and bytes per event. The flat baseline writes the same events as
one JSON Lines file with one fsync: the floor of any store that keeps the events. Backends run in
turn, repeat by repeat, so a noisy machine slows them alike. Not a test: nothing asserts a time.

The in-memory store's bytes are resident ones: a fresh interpreter reads the flat baseline's
JSON Lines 5,000 events at a time, builds them into an ``InMemoryStorage`` (as it is and with
``pack_segments=False``) and reports how much its resident set grew, so neither the generator
nor the events list of this process is counted.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests._support.synthetic import history

from benchmarks._backends import BACKENDS, backend_available, open_backend
from benchmarks._timing import resident_bytes
from tocsearch.converter import from_json, to_json
from tocsearch.ingest import TocBuilder
from tocsearch.models import Event
from tocsearch.storage.memory import InMemoryStorage

_BATCH = 5_000


def _footprint(path: Path) -> tuple[int, int, int]:
    """Files, apparent bytes and bytes on disk under ``path``."""
    files = apparent = on_disk = 0
    for folder, _, names in os.walk(path):
        for name in names:
            found = os.lstat(os.path.join(folder, name))
            files += 1
            apparent += found.st_size
            on_disk += found.st_blocks * 512
    return files, apparent, on_disk


def _ingest(backend: str, events: list[Event], scratch: Path) -> tuple[float, Path]:
    path = scratch / backend
    shutil.rmtree(path, ignore_errors=True)
    began = time.perf_counter()
    with open_backend(backend, path) as store:
        builder = TocBuilder(store)
        for start in range(0, len(events), _BATCH):
            builder.ingest(events[start : start + _BATCH])
    return time.perf_counter() - began, path


def _flat(events: list[Event], scratch: Path) -> tuple[float, Path]:
    path = scratch / "flat"
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir()
    began = time.perf_counter()
    with open(path / "events.jsonl", "wb") as stream:
        for event in events:
            stream.write(to_json(event).encode() + b"\n")
        stream.flush()
        os.fsync(stream.fileno())
    return time.perf_counter() - began, path


def _resident_build(jsonl: Path, *, pack_segments: bool = True) -> int:
    """Resident bytes an InMemoryStorage adds when built from ``jsonl`` in batches, in this
    (fresh) interpreter."""
    gc.collect()
    before = resident_bytes()
    store = InMemoryStorage(pack_segments=pack_segments)
    builder = TocBuilder(store)
    with jsonl.open("rb") as stream:
        batch: list[Event] = []
        for line in stream:
            batch.append(from_json(line, Event))
            if len(batch) == _BATCH:
                builder.ingest(batch)
                batch = []
        builder.ingest(batch)
    del batch, builder
    gc.collect()
    return resident_bytes() - before


def _resident_in_child(jsonl: Path, *, pack_segments: bool) -> int:
    flags = [] if pack_segments else ["--segments-as-objects"]
    output = subprocess.run(
        [sys.executable, __file__, "--resident-child", str(jsonl), *flags],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return int(json.loads(output))


def _input_bytes(events: list[Event]) -> int:
    return sum(len(to_json(event).encode()) + 1 for event in events)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, nargs="+", default=[100_000])
    parser.add_argument("--backends", nargs="+", default=list(BACKENDS), choices=BACKENDS)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--resident-child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--segments-as-objects", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.resident_child is not None:
        print(
            json.dumps(
                _resident_build(args.resident_child, pack_segments=not args.segments_as_objects)
            )
        )
        return
    backends = [name for name in args.backends if backend_available(name)]
    for count in args.events:
        events = history(count)
        size = _input_bytes(events)
        days = len({event.timestamp.date() for event in events})
        print(f"\n{count:,} events over {days:,} days; the events as JSON Lines: {size:,} bytes")
        times: dict[str, list[float]] = {name: [] for name in ["flat", *backends]}
        footprints: dict[str, tuple[int, int, int]] = {}
        resident: dict[str, int] = {}
        with tempfile.TemporaryDirectory(prefix="tocsearch-bench-") as scratch:
            for _ in range(args.repeats):
                elapsed, path = _flat(events, Path(scratch))
                times["flat"].append(elapsed)
                footprints["flat"] = _footprint(path)
                if "memory" in backends and not resident:
                    for packed in (True, False):
                        name = "memory" if packed else "memory, pack_segments=False"
                        resident[name] = _resident_in_child(
                            path / "events.jsonl", pack_segments=packed
                        )
                for name in backends:
                    elapsed, path = _ingest(name, events, Path(scratch))
                    times[name].append(elapsed)
                    footprints[name] = _footprint(path) if name != "memory" else (0, 0, 0)
                    shutil.rmtree(path, ignore_errors=True)
        memory = statistics.median(times["memory"]) if "memory" in times else None
        print(
            f"{'backend':<8} {'events/s':>9} {'time/mem':>8} {'files':>7} {'bytes':>13} "
            f"{'on disk':>13} {'B/event':>8} {'x input':>7}"
        )
        for name, measured in times.items():
            median = statistics.median(measured)
            files, apparent, on_disk = footprints[name]
            ratio = f"{median / memory:8.2f}" if memory else f"{'-':>8}"
            print(
                f"{name:<8} {count / median:9,.0f} {ratio} {files:7,} {apparent:13,} "
                f"{on_disk:13,} {apparent / count:8,.0f} {apparent / size:7.2f}"
            )
        for name, added in resident.items():
            print(
                f"{name}: {added:,} bytes resident, {added / count:,.0f} B/event, "
                f"{added / size:.2f}x input"
            )


if __name__ == "__main__":
    main()
