"""What packing segments costs a question: one generated tree in three in-memory stores, the
same questions asked of each in turn.

Run: ``python benchmarks/bench_packed_reads.py [--segments N] [--calls C] [--rounds R]``
(defaults: 100,000 segments, 50 questions of each kind, 3 rounds, the first a warm-up). The
stores: ``InMemoryStorage()`` (segments as objects, the baseline), ``pack_segments=True`` as
it is (segments compressed 16 to a leaf), and the same with its packed segments moved into a
plain dict of one packed ``bytes`` each (the layout before leaves). Questions alternate between
the stores, so a noisy machine slows them alike. Printed: median navigate time per store and
question kind (plain, with a month hint) and its ratio to the baseline, and how many answers
agreed between the stores. Not a test: nothing asserts a time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._speed import _navigate_queries, load_tree
from benchmarks.synth import generate_tree
from tocsearch.navigate.navigator import Navigator
from tocsearch.storage.memory import InMemoryStorage


def main(argv: Sequence[str] | None = None) -> int:
    """Build the stores, ask the questions, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--segments", type=int, default=100_000)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    if args.segments < 1 or args.calls < 1 or args.rounds < 2:
        parser.error("--segments and --calls must be at least 1, --rounds at least 2")
    tree = generate_tree(args.segments, years=5, seed=11)
    objects = InMemoryStorage()
    leaves = InMemoryStorage(pack_segments=True)
    flat = InMemoryStorage(pack_segments=True)
    for storage in (objects, leaves, flat):
        load_tree(tree, storage)
    # The layout before leaves: InMemoryStorage reads a dict of packed bytes the same way.
    flat._packed_nodes = {  # type: ignore[assignment]
        node_id: flat._packed_nodes.get(node_id) for node_id in flat._packed_nodes
    }
    stores = {"objects": objects, "packed, leaves of 16": leaves, "packed, dict of bytes": flat}
    navigators = {name: Navigator(storage, now=tree.end) for name, storage in stores.items()}
    plain, hinted = _navigate_queries(tree, args.calls, 11)
    times: dict[tuple[str, str], list[float]] = {}
    answers: dict[tuple[str, str], set[str]] = {}
    for round_number in range(args.rounds):
        for kind, queries in (("plain", plain), ("month hint", hinted)):
            for query in queries:
                for name, navigator in navigators.items():
                    started = time.perf_counter()
                    result = navigator.navigate(query)
                    elapsed = time.perf_counter() - started
                    if round_number:
                        times.setdefault((name, kind), []).append(elapsed)
                    answers.setdefault((kind, query), set()).add(repr(result.evidence))
    agreed = sum(len(given) == 1 for given in answers.values())
    print(
        f"{args.segments:,} generated segments, {args.calls} questions of each kind, "
        f"{args.rounds - 1} timed rounds after a warm-up; the same answer from every store "
        f"for {agreed} of {len(answers)} questions\n"
    )
    print("| store | questions | navigate ms median | / objects |\n|---|---|---:|---:|")
    for kind in ("plain", "month hint"):
        baseline = statistics.median(times[("objects", kind)])
        for name in stores:
            median = statistics.median(times[(name, kind)])
            print(f"| {name} | {kind} | {median * 1000:.2f} | {median / baseline:.2f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
