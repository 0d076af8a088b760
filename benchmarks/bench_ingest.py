"""Measure ingest speed into InMemoryStorage with the default summarizer.

Run: ``python benchmarks/bench_ingest.py [events ...]`` (defaults: 10000 100000). Prints events
per second for a one-batch build, for the same history ingested in 100-event batches, for one
late event into the full store, for re-ingesting everything (all duplicates), and for the same
texts as one conversation over two days, fed to the builder as ``tocsearch ingest`` and ``sync``
feed it (batches of whole days, at least 5,000 events each; a long chat export, one busy agent
session).

``--locomo FILE`` takes the events from a LoCoMo-format file (the dev split:
``../shared/data/locomo/locomo-dev.json``) instead of the synthetic coding sessions: its
conversations are copied, each copy under new sample ids with its session dates moved on by a
multiple of four years, until there are enough turns, written to a temporary file and read by
the LoCoMo importer (``tocsearch.importers.load_locomo``); the first ``events`` turns are kept.

``--helpers N`` builds with ``N`` helper processes (``TocBuilder(helpers=N)``; by default one
fewer than the CPUs, at most three; 0 builds in one process) and prints the CPU time of this
process and of its helpers beside each wall-clock time.

``--one-batch`` runs only the one-batch build, ``--one-session`` only the one-conversation build
and ``--generate-only`` only makes the events:
under ``PYTHONHASHSEED=0 valgrind --tool=cachegrind --cache-sim=no`` the difference of the two
is the instruction count of a build, which a busy machine does not change.
Not a test: nothing here asserts a time.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

# The synthetic coding sessions live with the test helpers, which the builder tests use too.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests._support.synthetic import history

from tocsearch import ids
from tocsearch.importers import load_locomo
from tocsearch.ingest import TocBuilder
from tocsearch.ingest._batches import day_batches
from tocsearch.models import Event
from tocsearch.storage import InMemoryStorage

_CLI_BATCH = 5_000  # the least tocsearch ingest and sync hand the builder at a time
# The year of a LoCoMo session date ("1:56 pm on 8 May, 2023"); moved by whole leap cycles
# (four years), so that 29 February stays a real date.
_LOCOMO_YEAR = re.compile(r"\d{4}\s*$")


def locomo_events(source: Path, count: int) -> list[Event]:
    """The first ``count`` turns (in time order) of copies of the LoCoMo-format file ``source``,
    as the LoCoMo importer reads them: copy ``k`` names its samples ``<id>-k`` and moves its
    session dates on by ``4 * k`` years."""
    samples: list[dict[str, Any]] = json.loads(source.read_text(encoding="utf-8"))
    turns = sum(
        len(value)
        for sample in samples
        for key, value in sample["conversation"].items()
        if key.startswith("session_") and isinstance(value, list)
    )
    if not turns:
        sys.exit(f"{source} holds no LoCoMo turns")
    copies: list[dict[str, Any]] = []
    for copy in range(-(-count // turns)):
        for sample in samples:
            conversation = dict(sample["conversation"])
            for key, value in conversation.items():
                if key.endswith("_date_time") and isinstance(value, str):
                    year = _LOCOMO_YEAR.search(value)
                    if year is not None:
                        moved = int(year.group().strip()) + 4 * copy
                        conversation[key] = value[: year.start()] + str(moved)
            copies.append(
                {"sample_id": f"{sample['sample_id']}-{copy}", "conversation": conversation}
            )
    with tempfile.TemporaryDirectory(prefix="bench-locomo-") as scratch:
        path = Path(scratch) / "locomo.json"
        path.write_text(json.dumps(copies), encoding="utf-8")
        events = sorted(load_locomo(path).events, key=lambda event: event.event_id)
    return events[:count]


def one_session(events: Sequence[Event]) -> list[Event]:
    """The texts, roles and types of ``events`` as one conversation, evenly spread over the two
    days from the first event's time."""
    if not events:
        return []
    start = events[0].timestamp
    step = timedelta(days=2) * 0.9 / len(events)
    made: list[Event] = []
    for index, event in enumerate(events):
        when = start + step * index
        made.append(
            Event(
                event_id=ids.event_id(when, f"one-{index}"),
                session_id="one-session",
                timestamp=when,
                role=event.role,
                event_type=event.event_type,
                text=event.text,
            )
        )
    return made


def _builder(storage: InMemoryStorage, helpers: int | None) -> TocBuilder:
    """A builder with ``helpers`` helper processes (the builder's default when None, passed
    on only when given, so that the script also runs code from before helpers)."""
    return TocBuilder(storage) if helpers is None else TocBuilder(storage, helpers=helpers)


def _cpu() -> tuple[float, float]:
    """CPU seconds used so far by this process and by its ended helper processes."""
    times = os.times()
    return times.user + times.system, times.children_user + times.children_system


def _cpu_note(began: tuple[float, float]) -> str:
    own, helpers = _cpu()
    return f"  cpu {own - began[0]:5.2f} s here, {helpers - began[1]:5.2f} s in helpers"


def _one_session(count: int, events: Sequence[Event], helpers: int | None) -> None:
    single = one_session(events)
    builder = _builder(InMemoryStorage(), helpers)
    cpu = _cpu()
    began = time.perf_counter()
    for batch in day_batches(single, _CLI_BATCH):
        builder.ingest(batch)
    elapsed = time.perf_counter() - began
    print(
        f"{count:>7} one session, 2 days: {elapsed:6.2f} s  {count / elapsed:9.0f} events/s"
        + _cpu_note(cpu)
    )


def _measure(count: int, steps: str, locomo: Path | None, helpers: int | None) -> None:
    events = history(count) if locomo is None else locomo_events(locomo, count)
    if steps == "generate-only":
        one_session(events)
        print(f"{count:>7} events made")
        return
    if steps == "one-session":
        _one_session(count, events, helpers)
        return
    storage = InMemoryStorage()
    builder = _builder(storage, helpers)
    cpu = _cpu()
    began = time.perf_counter()
    report = builder.ingest(events)
    one_batch = time.perf_counter() - began
    print(
        f"{count:>7} events, one batch : {one_batch:6.2f} s  {count / one_batch:9.0f} events/s  "
        f"({storage.count_nodes()} nodes, {report.segments_created} segments)" + _cpu_note(cpu)
    )
    if steps == "one-batch":
        return

    batched = _builder(InMemoryStorage(), helpers)
    began = time.perf_counter()
    for start in range(0, count, 100):
        batched.ingest(events[start : start + 100])
    elapsed = time.perf_counter() - began
    print(f"{count:>7} events, 100/batch : {elapsed:6.2f} s  {count / elapsed:9.0f} events/s")

    middle = events[len(events) // 2]
    late_time = middle.timestamp + timedelta(seconds=1)
    late = Event(
        event_id=ids.event_id(late_time, "late-1"),
        session_id=middle.session_id,
        timestamp=late_time,
        role="user",
        event_type="user_message",
        text="One more note: the Postgres lock_timeout must stay below the pool timeout.",
    )
    began = time.perf_counter()
    late_report = builder.ingest([late])
    print(
        f"{'':>7} one late event      : {(time.perf_counter() - began) * 1000:6.1f} ms  "
        f"({late_report.days_rebuilt} days rebuilt, {late_report.nodes_updated} nodes updated)"
    )

    began = time.perf_counter()
    builder.ingest(events)
    elapsed = time.perf_counter() - began
    print(f"{count:>7} re-ingested (dups)  : {elapsed:6.2f} s  {count / elapsed:9.0f} events/s")
    _one_session(count, events, helpers)


def main(argv: list[str]) -> None:
    locomo: Path | None = None
    if "--locomo" in argv:
        at = argv.index("--locomo")
        if at + 1 >= len(argv):
            sys.exit("usage: --locomo needs a LoCoMo-format file")
        locomo = Path(argv[at + 1])
        argv = argv[:at] + argv[at + 2 :]
    helpers: int | None = None
    if "--helpers" in argv:
        at = argv.index("--helpers")
        if at + 1 >= len(argv) or not argv[at + 1].isdigit():
            sys.exit("usage: --helpers needs a whole number")
        helpers = int(argv[at + 1])
        argv = argv[:at] + argv[at + 2 :]
    flags = [arg for arg in argv if arg.startswith("--")]
    unknown = set(flags) - {"--one-batch", "--one-session", "--generate-only"}
    if unknown or len(flags) > 1:
        sys.exit(
            "usage: bench_ingest.py [--one-batch | --one-session | --generate-only] "
            f"[--locomo FILE] [--helpers N] [events ...], not {flags}"
        )
    steps = flags[0][2:] if flags else "all"
    counts = [int(arg) for arg in argv if not arg.startswith("--")]
    for count in counts or [10_000, 100_000]:
        _measure(count, steps, locomo, helpers)


if __name__ == "__main__":
    main(sys.argv[1:])
