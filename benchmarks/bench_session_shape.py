"""Ingest speed by the shape of a history: one long conversation against many short ones.

Run: ``python benchmarks/bench_session_shape.py [--messages N] [--repeats R] [--backend NAME]``
(defaults: 50,000 messages, 2 repeats, memory).

Two ChatGPT exports of the same number of messages, written to disk and read by the ChatGPT
importer: *one* conversation whose messages span two days, and *spread*: conversations of 200
messages, one a day. Each is imported and built with :class:`tocsearch.TocBuilder` into a fresh
store in batches of at least 5,000 events cut at day boundaries, as ``tocsearch ingest`` and
``sync`` feed the builder; the long conversation also in plain batches of 5,000 (which rebuild
its days once per batch), for comparison. Runs alternate, so load slows them alike. A builder
whose work grows with the size of a session or a day shows as a ratio well above 1. Not a test:
nothing asserts a time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._backends import open_backend
from tocsearch.importers import load_chatgpt
from tocsearch.ingest import TocBuilder
from tocsearch.ingest._batches import day_batches

_START = 1_767_225_600  # 2026-01-01 00:00 UTC
_WORDS = (
    "deploy",
    "cluster",
    "staging",
    "rollout",
    "kubectl",
    "pasta",
    "garlic",
    "invoice",
    "ledger",
    "migration",
    "schema",
    "index",
    "token",
    "refresh",
    "cache",
    "redis",
    "latency",
    "budget",
    "sprint",
    "review",
    "patch",
    "release",
    "tests",
    "flaky",
    "retry",
)
_BATCH = 5_000


def _text(number: int) -> str:
    picked = [_WORDS[(number * 7 + step * 3) % len(_WORDS)] for step in range(12)]
    return f"message {number}: " + " ".join(picked)


def _conversation(
    ident: str, first: int, count: int, start: float, step: float
) -> dict[str, object]:
    mapping: dict[str, dict[str, object]] = {}
    parent: str | None = None
    for offset in range(count):
        node = f"{ident}-{offset}"
        mapping[node] = {
            "id": node,
            "parent": parent,
            "children": [],
            "message": {
                "id": node,
                "author": {"role": "user" if offset % 2 == 0 else "assistant"},
                "create_time": start + offset * step,
                "content": {"content_type": "text", "parts": [_text(first + offset)]},
            },
        }
        if parent is not None:
            children = mapping[parent]["children"]
            assert isinstance(children, list)
            children.append(node)
        parent = node
    return {"id": ident, "title": f"conversation {ident}", "create_time": start, "mapping": mapping}


def write_exports(folder: Path, messages: int) -> dict[str, Path]:
    """The two exports of ``messages`` messages: one conversation over two days, and
    conversations of 200 messages, one a day."""
    one = [_conversation("one", 0, messages, _START, 2 * 86_400 / messages)]
    per = 200
    spread = [
        _conversation(
            f"day{day}", day * per, min(per, messages - day * per), _START + day * 86_400, 60
        )
        for day in range((messages + per - 1) // per)
    ]
    paths = {"one": folder / "one.json", "spread": folder / "spread.json"}
    for name, data in (("one", one), ("spread", spread)):
        paths[name].write_text(json.dumps(data), encoding="utf-8")
    return paths


def _ingest(path: Path, backend: str, scratch: Path, *, by_day: bool) -> tuple[float, int]:
    began = time.perf_counter()
    events = load_chatgpt(path).events
    if by_day:
        batches = list(day_batches(events, _BATCH))
    else:
        batches = [list(events[start : start + _BATCH]) for start in range(0, len(events), _BATCH)]
    with open_backend(backend, scratch / f"{path.stem}-{time.monotonic_ns()}") as store:
        builder = TocBuilder(store)
        for batch in batches:
            builder.ingest(batch)
    return time.perf_counter() - began, len(events)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--backend", default="memory")
    args = parser.parse_args(argv)
    if args.messages < 1 or args.repeats < 1:
        parser.error("--messages and --repeats must be at least 1")
    with tempfile.TemporaryDirectory(prefix="bench-shape-") as scratch:
        folder = Path(scratch)
        paths = write_exports(folder, args.messages)
        runs = {
            "one conversation, two days": (paths["one"], True),
            "one conversation, plain batches of 5,000": (paths["one"], False),
            "200 a day": (paths["spread"], True),
        }
        seconds: dict[str, list[float]] = {label: [] for label in runs}
        counts: dict[str, int] = {}
        for _ in range(args.repeats):
            for label, (path, by_day) in runs.items():
                took, counts[label] = _ingest(path, args.backend, folder, by_day=by_day)
                seconds[label].append(took)
        print(f"{args.messages:,} ChatGPT messages into {args.backend}, median of {args.repeats}")
        print("| shape | events | seconds | events/s | time / spread |")
        print("| --- | ---: | ---: | ---: | ---: |")
        spread = statistics.median(seconds["200 a day"])
        for label in runs:
            median = statistics.median(seconds[label])
            print(
                f"| {label} | {counts[label]:,} | {median:.1f} | {counts[label] / median:,.0f} "
                f"| {median / spread:.2f}x |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
