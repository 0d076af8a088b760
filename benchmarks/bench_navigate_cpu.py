"""Navigation at one tree size timed by CPU time, over a store generated once and pickled.

``bench_speed.py --sections navigate`` generates its tree on every run (about five minutes at
300k segments) and reports wall-clock medians, which on a shared machine measure the load as
much as the code. This script pickles the loaded store the first time and reuses it, asks the
same questions the same way (three warm-up questions, each question once, the garbage
collector paused) and reports the median CPU time of a question beside its wall time; old and
new code run alternately by pointing ``PYTHONPATH`` at each. The pickle is named by size and
question count alone: delete it when the generator or the store's layout changes.

Usage::

    python benchmarks/bench_navigate_cpu.py --segments 300000
    # instructions of the questions alone: a run of 50 less a run of the warm-ups only
    PYTHONHASHSEED=0 valgrind --tool=cachegrind --cache-sim=no \\
        python benchmarks/bench_navigate_cpu.py --segments 300000 --only 50
"""

from __future__ import annotations

import argparse
import gc
import json
import pickle
import sys
import time
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):
    # Run as a script: make the repository root importable so `benchmarks` resolves.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._speed import _navigate_queries, load_tree
from benchmarks._timing import timing_of
from benchmarks.synth import generate_tree
from tocsearch.navigate import Navigator
from tocsearch.storage.memory import InMemoryStorage

_WARMUP = 3


def stored(segments: int, calls: int, cache: Path) -> tuple[Navigator, list[str], list[str]]:
    """A navigator over the tree ``bench_speed`` generates for ``segments`` (its seed and
    years), with its plain and hinted questions; the store is pickled under ``cache`` once."""
    path = cache / f"navigate-{segments}-{calls}.pickle"
    if not path.exists():
        tree = generate_tree(segments, years=5, seed=11)
        plain, hinted = _navigate_queries(tree, calls, 11)
        storage = InMemoryStorage()
        load_tree(tree, storage)
        cache.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pickle.dumps((storage, tree.end, plain, hinted), protocol=5))
    # Unpickled with the collector paused: it would walk the half-built store again and again.
    gc.disable()
    try:
        storage, end, plain, hinted = pickle.loads(path.read_bytes())
    finally:
        gc.enable()
    return Navigator(storage, now=end), plain, hinted


def timed(navigator: Navigator, questions: Sequence[str]) -> dict[str, float]:
    """Median CPU and wall milliseconds a question, as ``time_calls`` asks them."""
    for question in questions[:_WARMUP]:
        navigator.navigate(question)
    gc.collect()
    gc.disable()
    cpu: list[float] = []
    wall: list[float] = []
    try:
        for question in questions:
            cpu_start, wall_start = time.process_time(), time.perf_counter()
            navigator.navigate(question)
            cpu.append(time.process_time() - cpu_start)
            wall.append(time.perf_counter() - wall_start)
    finally:
        gc.enable()
    return {"cpu_ms": timing_of(cpu).median * 1e3, "wall_ms": timing_of(wall).median * 1e3}


def main(argv: Sequence[str] | None = None) -> int:
    """Time the plain and hinted questions, or ask only the first ``--only`` plain ones."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--segments", type=int, default=300_000, help="tree size (300000)")
    parser.add_argument("--calls", type=int, default=50, help="questions of each kind (50)")
    parser.add_argument(
        "--cache", type=Path, default=Path("benchmarks/.cache/navigate"), help="pickled stores"
    )
    parser.add_argument(
        "--only",
        type=int,
        metavar="N",
        help="ask the warm-up questions, then the first N plain ones, untimed (for valgrind)",
    )
    args = parser.parse_args(argv)
    if args.segments < 1 or args.calls < 1:
        parser.error("--segments and --calls must be at least 1")
    navigator, plain, hinted = stored(args.segments, args.calls, args.cache)
    if args.only is not None:
        for question in [*plain[:_WARMUP], *plain[: args.only]]:
            navigator.navigate(question)
        return 0
    print(json.dumps({"plain": timed(navigator, plain), "hinted": timed(navigator, hinted)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
