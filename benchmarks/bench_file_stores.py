"""Ingest speed and footprint of the file stores, through the real builder, beside baselines.

Run: ``python benchmarks/bench_file_stores.py [--events N ...] [--backends NAME ...]
[--repeats R]`` (defaults: 100000 events; memory, jsondir, shelf and sqlite where present; 1
repeat). Each backend ingests the same synthetic coding-session history with ``TocBuilder`` in
batches of 5,000 events, as ``tocsearch ingest`` does, into a fresh store in a temporary folder.
Printed per backend: median events/s, its time over the in-memory ingest's in the same run, files,
bytes (apparent and on disk), and bytes per event. The flat baseline writes the same events as
one JSON Lines file with one fsync: the floor of any store that keeps the events. Backends run in
turn, repeat by repeat, so a noisy machine slows them alike. Not a test: nothing asserts a time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests._support.synthetic import history

from benchmarks._backends import BACKENDS, backend_available, open_backend
from tocsearch.converter import to_json
from tocsearch.ingest import TocBuilder
from tocsearch.models import Event

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


def _input_bytes(events: list[Event]) -> int:
    return sum(len(to_json(event).encode()) + 1 for event in events)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, nargs="+", default=[100_000])
    parser.add_argument("--backends", nargs="+", default=list(BACKENDS), choices=BACKENDS)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    backends = [name for name in args.backends if backend_available(name)]
    for count in args.events:
        events = history(count)
        size = _input_bytes(events)
        days = len({event.timestamp.date() for event in events})
        print(f"\n{count:,} events over {days:,} days; the events as JSON Lines: {size:,} bytes")
        times: dict[str, list[float]] = {name: [] for name in ["flat", *backends]}
        footprints: dict[str, tuple[int, int, int]] = {}
        with tempfile.TemporaryDirectory(prefix="tocsearch-bench-") as scratch:
            for _ in range(args.repeats):
                elapsed, path = _flat(events, Path(scratch))
                times["flat"].append(elapsed)
                footprints["flat"] = _footprint(path)
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


if __name__ == "__main__":
    main()
