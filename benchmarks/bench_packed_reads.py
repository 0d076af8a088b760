"""What packing segments costs a question: one generated tree in three in-memory layouts, each
in a fresh interpreter, the same questions asked of each.

Run: ``python benchmarks/bench_packed_reads.py [--segments N] [--calls C] [--rounds R]``
(defaults: 100,000 segments, 50 questions of each kind, 2 rounds). The layouts:
``InMemoryStorage(pack_segments=False)`` (segments as objects, the baseline), the default
(segments packed, each compressed alone against a learned dictionary), and the layout before
it (segments compressed 16 to a leaf). Each layout runs in its own interpreter, as a user's
store would: one process holding several stores would make every store's reads pay for the
garbage collector walking the objects of the others. The layouts take turns, round by round,
so a noisy machine slows them alike; in each process the questions are asked once to warm up,
then timed. Printed: median and mean navigate time per layout and question kind (plain, with
a month hint) and their ratios to the baseline, and whether every layout gave the same
evidence. Not a test: nothing asserts a time.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._speed import _navigate_queries, load_tree
from benchmarks.synth import SyntheticTree, generate_tree
from tocsearch.navigate.navigator import Navigator
from tocsearch.storage._leaf_map import LeafMap
from tocsearch.storage.memory import InMemoryStorage

LAYOUTS = ("objects", "packed (default)", "packed, leaves of 16 (before)")


def _store(layout: str) -> InMemoryStorage:
    if layout == "objects":
        return InMemoryStorage(pack_segments=False)
    storage = InMemoryStorage()
    if layout != "packed (default)":
        # The layout before: leaves of 16 neighbours, zlib-framed, no dictionary.
        storage._packed_nodes = LeafMap(leaf_size=16, kept_open=64)
    return storage


def _child(path: Path, layout: str, calls: int) -> dict[str, object]:
    """Navigate times (seconds) by question kind for one layout, and a digest of its answers."""
    with path.open("rb") as handle:
        tree: SyntheticTree = pickle.load(handle)
    plain, hinted = _navigate_queries(tree, calls, 11)
    storage = _store(layout)
    load_tree(tree, storage)
    navigator = Navigator(storage, now=tree.end)
    del tree
    times: dict[str, list[float]] = {"plain": [], "month hint": []}
    answers = hashlib.sha256()
    for timed in (False, True):
        for kind, queries in (("plain", plain), ("month hint", hinted)):
            for query in queries:
                started = time.perf_counter()
                result = navigator.navigate(query)
                elapsed = time.perf_counter() - started
                if timed:
                    times[kind].append(elapsed)
                else:
                    answers.update(repr(result.evidence).encode())
    return {"times": times, "answers": answers.hexdigest()}


def main(argv: Sequence[str] | None = None) -> int:
    """Build the tree, run the layouts in turn, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--segments", type=int, default=100_000)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        path, layout, calls = args.child
        print(json.dumps(_child(Path(path), layout, int(calls))))
        return 0
    if args.segments < 1 or args.calls < 1 or args.rounds < 1:
        parser.error("--segments, --calls and --rounds must be at least 1")
    times: dict[tuple[str, str], list[float]] = {}
    answers: set[str] = set()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "tree.pickle"
        with path.open("wb") as handle:
            tree = generate_tree(args.segments, years=5, seed=11)
            pickle.dump(tree, handle, protocol=pickle.HIGHEST_PROTOCOL)
            del tree
        for _ in range(args.rounds):
            for layout in LAYOUTS:
                output = subprocess.run(
                    [sys.executable, __file__, "--child", str(path), layout, str(args.calls)],
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout
                measured = json.loads(output)
                answers.add(measured["answers"])
                for kind, spent in measured["times"].items():
                    times.setdefault((layout, kind), []).extend(spent)
    print(
        f"{args.segments:,} generated segments, {args.calls} questions of each kind, "
        f"{args.rounds} rounds of one process a layout; every layout gave the same evidence: "
        f"{'yes' if len(answers) == 1 else 'NO'}\n"
    )
    print(
        "| layout | questions | navigate ms median | / objects | mean ms | / objects |\n"
        "|---|---|---:|---:|---:|---:|"
    )
    for kind in ("plain", "month hint"):
        base = times[("objects", kind)]
        for layout in LAYOUTS:
            spent = times[(layout, kind)]
            median, mean = statistics.median(spent), statistics.mean(spent)
            print(
                f"| {layout} | {kind} | {median * 1000:.2f} "
                f"| {median / statistics.median(base):.2f}x | {mean * 1000:.2f} "
                f"| {mean / statistics.mean(base):.2f}x |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
