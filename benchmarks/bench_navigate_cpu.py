"""Navigation at one tree size timed by CPU time, over a store generated once and pickled.

``bench_speed.py --sections navigate`` generates its tree on every run (about five minutes at
300k segments) and reports wall-clock medians, which on a shared machine measure the load as
much as the code. This script pickles the loaded store the first time and reuses it, asks the
same questions the same way (three warm-up questions, each question once, the garbage
collector paused) and reports the median CPU time of a question beside its wall time; old and
new code run alternately by pointing ``PYTHONPATH`` at each. The pickle is named by size and
question count alone: delete it when the generator or the store's layout changes.

Each run times two stores of the same tree: the one ``bench_speed`` generates, which holds no
events (a navigator then reads no grip and greps nothing), and the same tree with its events
(two a bullet, which its grip covers: :func:`benchmarks.synth.generate_tree` ``with_events``),
as a store the builder made holds them. The second is what users get; the first is kept for
continuity with earlier figures. Each store is read, timed and let go before the next.

Usage::

    python benchmarks/bench_navigate_cpu.py --segments 300000
    # instructions of the questions alone: a run of 50 less a run of the warm-ups only
    PYTHONHASHSEED=0 valgrind --tool=cachegrind --cache-sim=no \\
        python benchmarks/bench_navigate_cpu.py --segments 300000 --only 50 [--events]
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


def stored(
    segments: int, calls: int, cache: Path, *, events: bool = False
) -> tuple[Navigator, list[str], list[str]]:
    """A navigator over the tree ``bench_speed`` generates for ``segments`` (its seed and
    years), with its events when ``events`` says so, and its plain and hinted questions; the
    store is pickled under ``cache`` once."""
    name = f"navigate-{segments}-{calls}{'-events' if events else ''}.pickle"
    path = cache / name
    if not path.exists():
        _pickle(path, segments, calls, events=events)
    # Unpickled with the collector paused: it would walk the half-built store again and again.
    # Read from the file as it goes: the whole pickle in memory would take as much again as
    # the store of its events does.
    gc.disable()
    try:
        with path.open("rb") as pickled:
            storage, end, plain, hinted = pickle.load(pickled)
    finally:
        gc.enable()
    return Navigator(storage, now=end), plain, hinted


def _pickle(path: Path, segments: int, calls: int, *, events: bool) -> None:
    """Generate and pickle the store, written to the side and moved into place whole; the
    tree and the store are let go on return, before the pickle is read back."""
    tree = generate_tree(segments, years=5, seed=11, with_events=events)
    plain, hinted = _navigate_queries(tree, calls, 11)
    storage = InMemoryStorage()
    load_tree(tree, storage)
    end = tree.end
    del tree
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with partial.open("wb") as written:
        pickle.dump((storage, end, plain, hinted), written, protocol=5)
    partial.replace(path)


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
    """Time the plain and hinted questions on the store without events and on the one with
    them, or ask only the first ``--only`` plain ones of one store."""
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
    parser.add_argument(
        "--events", action="store_true", help="with --only: ask them of the store with events"
    )
    args = parser.parse_args(argv)
    if args.segments < 1 or args.calls < 1:
        parser.error("--segments and --calls must be at least 1")
    if args.only is not None:
        navigator, plain, _ = stored(args.segments, args.calls, args.cache, events=args.events)
        for question in [*plain[:_WARMUP], *plain[: args.only]]:
            navigator.navigate(question)
        return 0
    if args.events:
        parser.error("--events chooses the store of --only; a timed run times both")
    medians: dict[str, dict[str, float]] = {}
    for events, prefix in ((False, ""), (True, "events_")):
        navigator, plain, hinted = stored(args.segments, args.calls, args.cache, events=events)
        medians[f"{prefix}plain"] = timed(navigator, plain)
        medians[f"{prefix}hinted"] = timed(navigator, hinted)
        # One store in memory at a time.
        del navigator
        gc.collect()
    print(json.dumps(medians))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
