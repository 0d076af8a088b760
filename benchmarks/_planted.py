"""Histories with needles: generated conversations where each needle's terms are said once, in
one raw turn, and nowhere else.

A history is made by :func:`benchmarks.synth.generate_events` (8-turn sessions of Zipf-drawn
made-up words over six years, like a long chat history), then each needle's one, two or three
terms are inserted into the text of one randomly chosen turn. Needle terms are made-up words
from syllables no other generated word uses, ending in a letter no syllable starts with, so no
needle term is a prefix of another word. :func:`write_jsonl` stores the history in the generic
JSONL format so that benchmarks import it with the library's own importer.

After a tree is built, :func:`leaked_needles` lists the needles whose terms reached any node's
title, summary, bullets or keywords, or any grip's excerpt: such a needle could be found
without reading raw events, so benchmarks leave it out (and report how many). A term said once
is just what an extractive summary likes to quote, so about half of them leak; a history
therefore holds ``SPARE`` times the needles a benchmark asks, and :func:`pick_needles` takes the
first ones of each size that stayed in raw turns only.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Collection, Iterable, Sequence
from datetime import datetime
from pathlib import Path

import attrs

from benchmarks.synth import generate_events, made_up_word, month_hint
from tocsearch.errors import InvalidArgument
from tocsearch.importers import event_to_json_line
from tocsearch.levels import TocLevel
from tocsearch.models import Event
from tocsearch.storage.protocol import Storage

__all__ = [
    "DAYS",
    "SPARE",
    "TURNS_PER_SESSION",
    "Needle",
    "PlantedHistory",
    "leaked_needles",
    "needle_word",
    "pick_needles",
    "plant_history",
    "read_needles",
    "write_jsonl",
    "write_needles",
]

DAYS = 6 * 365
"""Six years of days: 105,120 events at 6 sessions of 8 turns a day, 1M at 57."""
TURNS_PER_SESSION = 8
SPARE = 4
"""Needles planted per needle asked: enough that leaks still leave the asked number."""

_NEEDLE_SYLLABLES = ("brin", "stov", "glap", "trum", "skel", "drof", "plin", "crag", "whel")
_NEEDLE_END = "k"  # no syllable starts with k, so a needle word is a prefix of nothing else
_WORD = re.compile(r"\w+")


def needle_word(index: int) -> str:
    """The ``index``-th needle term: at least two syllables, distinct for each index.

    >>> needle_word(0), needle_word(1), needle_word(80)
    ('stovbrink', 'stovstovk', 'stovbrinwhelk')
    """
    return made_up_word(index, _NEEDLE_SYLLABLES) + _NEEDLE_END


@attrs.frozen
class Needle:
    """Terms said once, together, in the turn ``event_id`` at ``timestamp``."""

    terms: tuple[str, ...]
    event_id: str
    timestamp: datetime

    @property
    def query(self) -> str:
        """The terms as a question."""
        return " ".join(self.terms)

    @property
    def hinted_query(self) -> str:
        """The terms followed by the month they were said in."""
        return f"{self.query} {month_hint(self.timestamp.date())}"


@attrs.frozen
class PlantedHistory:
    """Events in time order and the needles planted in them."""

    events: tuple[Event, ...]
    needles: tuple[Needle, ...]

    @property
    def end(self) -> datetime:
        """The last event's time: a ``now`` for navigation."""
        return self.events[-1].timestamp


def plant_history(
    events: int, *, needles_per_size: int = 20, max_terms: int = 3, seed: int = 29
) -> PlantedHistory:
    """About ``events`` events over six years (fewer days for small sizes, so sessions keep
    their 8 turns), with ``SPARE * needles_per_size`` needles of each size from 1 to
    ``max_terms`` terms, each in its own turn.

    Raises:
        InvalidArgument: fewer events than needles, or a count below 1.
    """
    for name, value in (
        ("events", events),
        ("needles_per_size", needles_per_size),
        ("max_terms", max_terms),
    ):
        if value < 1:
            raise InvalidArgument(f"{name} must be at least 1, got {value}")
    sessions = max(1, events // TURNS_PER_SESSION)
    days = min(DAYS, sessions)
    generated, _ = generate_events(
        days=days,
        sessions_per_day=max(1, round(sessions / days)),
        events_per_session=TURNS_PER_SESSION,
        topics=0,
        seed=seed,
    )
    count = SPARE * needles_per_size * max_terms
    if count > len(generated):
        raise InvalidArgument(f"{count} needles do not fit in {len(generated)} events")
    rng = random.Random(seed)
    places = rng.sample(range(len(generated)), count)
    needles: list[Needle] = []
    words = iter(range(count * max_terms))
    for number, place in enumerate(places):
        size = number % max_terms + 1
        terms = tuple(needle_word(next(words)) for _ in range(size))
        event = generated[place]
        said = event.text.split(" ")
        for term in terms:
            said.insert(rng.randrange(len(said) + 1), term)
        generated[place] = attrs.evolve(event, text=" ".join(said))
        needles.append(Needle(terms, event.event_id, event.timestamp))
    return PlantedHistory(tuple(generated), tuple(needles))


def pick_needles(
    needles: Sequence[Needle], leaked: Collection[str], per_size: int
) -> tuple[Needle, ...]:
    """The first ``per_size`` needles of each size whose event id is not in ``leaked``, in the
    order given.

    Raises:
        InvalidArgument: ``per_size`` is less than 1.
    """
    if per_size < 1:
        raise InvalidArgument(f"per_size must be at least 1, got {per_size}")
    taken: dict[int, int] = {}
    picked: list[Needle] = []
    for needle in needles:
        size = len(needle.terms)
        if needle.event_id in leaked or taken.get(size, 0) >= per_size:
            continue
        taken[size] = taken.get(size, 0) + 1
        picked.append(needle)
    return tuple(picked)


def write_jsonl(events: Iterable[Event], path: Path) -> int:
    """Write ``events`` as generic JSONL (one object per line) and return how many."""
    written = 0
    with path.open("w", encoding="utf-8") as handle:
        for event in events:
            handle.write(event_to_json_line(event) + "\n")
            written += 1
    return written


def write_needles(needles: Sequence[Needle], path: Path) -> None:
    """Store the needles as JSON beside their history."""
    records = [
        {"terms": list(n.terms), "event_id": n.event_id, "timestamp": n.timestamp.isoformat()}
        for n in needles
    ]
    path.write_text(json.dumps(records, indent=1), encoding="utf-8")


def read_needles(path: Path) -> tuple[Needle, ...]:
    """The needles :func:`write_needles` stored."""
    return tuple(
        Needle(tuple(r["terms"]), r["event_id"], datetime.fromisoformat(r["timestamp"]))
        for r in json.loads(path.read_text(encoding="utf-8"))
    )


def _tree_texts(storage: Storage) -> Iterable[str]:
    for level in TocLevel:
        for node in storage.get_nodes_by_level(level):
            yield node.title
            if node.summary:
                yield node.summary
            yield from (bullet.text for bullet in node.bullets)
            yield from node.keywords
    for grip_id in storage.iter_grip_ids():
        yield storage.get_grip(grip_id).excerpt


def leaked_needles(storage: Storage, needles: Sequence[Needle]) -> tuple[Needle, ...]:
    """The needles any of whose terms occurs as a word in a node's title, summary, bullet or
    keyword, or in a grip's excerpt (case-folded), in the order given.

    Runtime: one pass over every node and grip of the store.
    """
    wanted = {term.casefold(): needle for needle in needles for term in needle.terms}
    leaked: set[str] = set()
    for text in _tree_texts(storage):
        for word in _WORD.findall(text.casefold()):
            needle = wanted.get(word)
            if needle is not None:
                leaked.add(needle.event_id)
    return tuple(needle for needle in needles if needle.event_id in leaked)
