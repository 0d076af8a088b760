"""Deterministic synthetic conversation histories, dense and many years long.

Text is drawn from a Zipf-distributed vocabulary of made-up words (a few very common words, a
long tail of rare ones), and a set of *planted topics* (three distinctive words each) is woven
into a few known places, so that queries with a known answer can be asked at any size.

Two products, from the same seed give the same output on every machine:

- :func:`generate_events`: raw events (days x sessions per day x events per session), for
  ingest benchmarks through the real builder.
- :func:`generate_tree`: a finished tree built directly, for search and navigation benchmarks
  at sizes where running the builder would take too long: segments with 5 bullets (one grip
  each) and 7 keywords (their rarest words), then day/week/month/year parents rolled up by the
  library's own :class:`~tocsearch.ExtractiveSummarizer` and
  :func:`tocsearch.ingest._rollup.parent_node`, as the builder makes them, with the term digests
  the builder would give them (:mod:`tocsearch.digest`). Such a tree holds no events unless
  asked for them (``with_events``): then each bullet quotes an assistant message that answers a
  user message, and its grip covers the two, as the builder grips a quoted event with the
  events just before it; a segment owns the events of its bullets, and the digests hold their
  words.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Mapping, Sequence
from datetime import date, datetime, timedelta, timezone

import attrs

from tocsearch import ids
from tocsearch.digest import TermDigest
from tocsearch.errors import InvalidArgument
from tocsearch.ingest._digests import day_digest, segment_positions, union_digest
from tocsearch.ingest._rollup import child_summary, parent_node
from tocsearch.levels import TocLevel
from tocsearch.models import Event, EventRole, EventType, Grip, TocBullet, TocNode
from tocsearch.summarize import ExtractiveSummarizer

__all__ = [
    "PlantedTopic",
    "SyntheticTree",
    "Vocabulary",
    "generate_events",
    "generate_tree",
    "made_up_word",
    "month_hint",
]

_SYLLABLES = ("ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "do", "gu", "fe", "hi")
_TOPIC_SYLLABLES = ("qua", "xil", "yor", "wex", "jub", "zym", "qor", "vux")
_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

BULLETS_PER_SEGMENT = 5
KEYWORDS_PER_SEGMENT = 7


def made_up_word(index: int, syllables: Sequence[str]) -> str:
    """A pronounceable made-up word, distinct for each index: its base-n syllable digits."""
    parts = []
    base = len(syllables)
    index += base  # at least two syllables, so no word is shorter than MIN_TERM_LENGTH
    while index:
        index, digit = divmod(index, base)
        parts.append(syllables[digit])
    return "".join(reversed(parts))


class Vocabulary:
    """``size`` made-up words with Zipf weights ``1 / rank**exponent``; word 0 is the commonest."""

    def __init__(self, size: int = 5000, exponent: float = 1.1) -> None:
        if size < 10:
            raise InvalidArgument(f"vocabulary size must be at least 10, got {size}")
        self.words: tuple[str, ...] = tuple(
            made_up_word(index, _SYLLABLES) for index in range(size)
        )
        self.rank: dict[str, int] = {word: rank for rank, word in enumerate(self.words)}
        self._cumulative = list(
            itertools.accumulate(1.0 / (rank + 1) ** exponent for rank in range(size))
        )

    def sample(self, rng: random.Random, count: int) -> list[str]:
        """``count`` words drawn with Zipf weights."""
        return rng.choices(self.words, cum_weights=self._cumulative, k=count)


@attrs.frozen
class PlantedTopic:
    """Three distinctive words planted in a few known segments (or sessions)."""

    words: tuple[str, str, str]
    places: tuple[int, ...]
    """Indexes of the segments (tree) or sessions (events) that carry the topic."""

    @property
    def query(self) -> str:
        """The topic's words as a query."""
        return " ".join(self.words)


def _topics(count: int, places: int, occurrences: int, rng: random.Random) -> list[PlantedTopic]:
    topics = []
    for number in range(count):
        words = tuple(
            made_up_word(number * 3 + offset, _TOPIC_SYLLABLES) + "x" for offset in range(3)
        )
        chosen = tuple(sorted(rng.sample(range(places), min(occurrences, places))))
        topics.append(PlantedTopic((words[0], words[1], words[2]), chosen))
    return topics


def _sentence(vocabulary: Vocabulary, rng: random.Random, low: int, high: int) -> list[str]:
    return vocabulary.sample(rng, rng.randint(low, high))


def _utc(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=timezone.utc)


def generate_events(
    *,
    days: int,
    sessions_per_day: int,
    events_per_session: int,
    start: date = date(2021, 1, 4),
    topics: int = 10,
    occurrences: int = 3,
    seed: int = 7,
    vocabulary: Vocabulary | None = None,
) -> tuple[list[Event], list[PlantedTopic]]:
    """Alternating user and assistant messages, sessions spread over each day, plus the topics
    planted in ``occurrences`` sessions each (their place is a session index).

    Raises:
        InvalidArgument: a count is less than 1.
    """
    for name, value in (
        ("days", days),
        ("sessions_per_day", sessions_per_day),
        ("events_per_session", events_per_session),
    ):
        if value < 1:
            raise InvalidArgument(f"{name} must be at least 1, got {value}")
    rng = random.Random(seed)
    words = vocabulary or Vocabulary()
    planted = _topics(topics, days * sessions_per_day, occurrences, rng)
    topic_of_session: dict[int, list[PlantedTopic]] = {}
    for topic in planted:
        for place in topic.places:
            topic_of_session.setdefault(place, []).append(topic)
    session_gap = timedelta(seconds=86_000 // sessions_per_day)
    events: list[Event] = []
    for session in range(days * sessions_per_day):
        day, slot = divmod(session, sessions_per_day)
        started = _utc(start + timedelta(days=day)) + slot * session_gap
        session_id = f"s{session:07d}"
        carried = topic_of_session.get(session, [])
        for turn in range(events_per_session):
            when = started + timedelta(seconds=turn * 7)
            text_words = _sentence(words, rng, 8, 24)
            if carried and turn == 1:
                for topic in carried:
                    text_words.extend(topic.words)
            user = turn % 2 == 0
            events.append(
                Event(
                    event_id=ids.event_id(when, f"{session_id}-{turn:03d}"),
                    session_id=session_id,
                    timestamp=when,
                    role=EventRole.USER if user else EventRole.ASSISTANT,
                    event_type=EventType.USER_MESSAGE if user else EventType.ASSISTANT_MESSAGE,
                    text=" ".join(text_words),
                )
            )
    return events, planted


def month_hint(day: date) -> str:
    """A time hint naming the calendar month of ``day``, such as ``"in March 2023"``: the form
    the navigator's time parser reads."""
    return f"in {_MONTHS[day.month - 1]} {day.year}"


@attrs.frozen
class SyntheticTree:
    """A finished tree: every node (segments first, then rollups bottom-up), every grip, the
    planted topics (their places are segment indexes into ``segments``) and the events, when
    it was made with them."""

    segments: tuple[TocNode, ...]
    rollups: tuple[TocNode, ...]
    grips: tuple[Grip, ...]
    topics: tuple[PlantedTopic, ...]
    first_day: date
    days: int
    events: tuple[Event, ...] = ()
    """The events the segments own, in id (time) order; none unless asked for."""

    def month_hint(self, segment_index: int) -> str:
        """A time hint naming the calendar month of a segment, such as ``"in March 2023"``."""
        return month_hint(self.segments[segment_index].start_time.date())

    @property
    def end(self) -> datetime:
        """Midnight after the last day: a ``now`` for navigation."""
        return _utc(self.first_day + timedelta(days=self.days))


def _keywords(words: Sequence[str], rank: dict[str, int], count: int) -> tuple[str, ...]:
    # The rarest words of a text are its most telling ones; planted words rank rarest of all.
    distinct = dict.fromkeys(words)
    return tuple(sorted(distinct, key=lambda word: -rank.get(word, 1 << 30))[:count])


def _segment(
    day: date,
    number: int,
    start: datetime,
    length: timedelta,
    words: Vocabulary,
    rng: random.Random,
    planted: list[PlantedTopic],
    asked: random.Random | None,
) -> tuple[TocNode, list[Grip], list[Event]]:
    """A segment, its grips and, when ``asked`` draws the words of the user messages its
    bullets answer, its events (none without it)."""
    suffix = f"{number:06d}"
    node_id = ids.segment_id(day, suffix)
    end = start + length
    bullets: list[TocBullet] = []
    grips: list[Grip] = []
    events: list[Event] = []
    all_words: list[str] = []
    step = length / BULLETS_PER_SEGMENT
    for index in range(BULLETS_PER_SEGMENT):
        text_words = _sentence(words, rng, 6, 12)
        if index == 0:
            for topic in planted:
                text_words.extend(topic.words)
        all_words.extend(text_words)
        when = start + index * step
        grip = Grip(
            grip_id=ids.grip_id(when, f"{suffix}-{index}"),
            excerpt=" ".join(text_words[:8]),
            event_id_start=ids.event_id(when, f"{suffix}-{index}a"),
            event_id_end=ids.event_id(when + step / 2, f"{suffix}-{index}b"),
            timestamp=when,
            source="synthetic",
            toc_node_id=node_id,
        )
        grips.append(grip)
        bullets.append(TocBullet(" ".join(text_words), (grip.grip_id,)))
        if asked is not None:
            events.extend(_exchange(grip, f"s{suffix}", words.sample(asked, 6), text_words))
    node = TocNode(
        node_id=node_id,
        level=TocLevel.SEGMENT,
        title=" ".join(all_words[:5]),
        start_time=start,
        end_time=end,
        bullets=tuple(bullets),
        keywords=_keywords(all_words, words.rank, KEYWORDS_PER_SEGMENT),
        event_ids=tuple(event.event_id for event in events),
    )
    # The digest of its events and texts, sized to them, as the builder gives a segment.
    digest = TermDigest.from_positions(segment_positions(events, node), sized=True)
    return attrs.evolve(node, digest=digest.to_text()), grips, events


def _exchange(
    grip: Grip, session_id: str, question: Sequence[str], answer: Sequence[str]
) -> tuple[Event, Event]:
    """The two events a bullet's grip covers: a user message of ``question``'s words, then
    the assistant message of ``answer``'s that the bullet quotes."""
    return (
        _message(grip.event_id_start, session_id, question, user=True),
        _message(grip.event_id_end, session_id, answer, user=False),
    )


def _message(event_id: str, session_id: str, words: Sequence[str], *, user: bool) -> Event:
    return Event(
        event_id=event_id,
        session_id=session_id,
        timestamp=ids.parse_event_id(event_id)[0],
        role=EventRole.USER if user else EventRole.ASSISTANT,
        event_type=EventType.USER_MESSAGE if user else EventType.ASSISTANT_MESSAGE,
        text=" ".join(words),
    )


def _roll_up(
    children: Sequence[TocNode],
    level: TocLevel,
    summarizer: ExtractiveSummarizer,
    events: Mapping[str, Sequence[Event]],
) -> list[TocNode]:
    """The parents of one level, summarised by the library's own extractive summarizer, as
    the builder would make them from these children; ``events`` are the segments' (by id)."""
    groups: dict[str, list[TocNode]] = {}
    for child in children:
        groups.setdefault(ids.calendar_node_id(level, child.start_time), []).append(child)
    return [
        attrs.evolve(
            parent_node(
                node_id,
                level,
                group,
                summarizer.summarize_children([child_summary(child) for child in group]),
            ),
            # A day's digest holds its events' and segments' words; a higher node's is the
            # union of its children's, as the builder makes them.
            digest=(
                day_digest(_day_events(group, events), group)
                if level is TocLevel.DAY
                else union_digest(group)
            ),
        )
        for node_id, group in groups.items()
    ]


def _day_events(segments: Sequence[TocNode], events: Mapping[str, Sequence[Event]]) -> list[Event]:
    return [event for segment in segments for event in events.get(segment.node_id, ())]


def generate_tree(
    segments: int,
    *,
    years: int = 5,
    days: int | None = None,
    start: date = date(2021, 1, 4),
    topics: int = 20,
    occurrences: int = 3,
    seed: int = 11,
    vocabulary: Vocabulary | None = None,
    with_events: bool = False,
) -> SyntheticTree:
    """A tree of ``segments`` segments spread evenly over ``years`` years of days (or over
    exactly ``days`` days when given); ``with_events`` gives it two events a bullet (the
    nodes, grips and topics are those of the same tree without them, but for the segments'
    event ids and the digests, which hold the events' words).

    Runtime: about 60 µs per segment (300,000 segments in well under a minute), three times
    that with events.

    Raises:
        InvalidArgument: ``segments`` or ``years`` is less than 1.
    """
    if segments < 1:
        raise InvalidArgument(f"segments must be at least 1, got {segments}")
    if years < 1:
        raise InvalidArgument(f"years must be at least 1, got {years}")
    if days is not None and days < 1:
        raise InvalidArgument(f"days must be at least 1, got {days}")
    rng = random.Random(seed)
    words = vocabulary or Vocabulary()
    days = days if days is not None else years * 365
    planted = _topics(topics, segments, occurrences, rng)
    topics_at: dict[int, list[PlantedTopic]] = {}
    for topic in planted:
        for place in topic.places:
            topics_at.setdefault(place, []).append(topic)
    nodes: list[TocNode] = []
    grips: list[Grip] = []
    events: dict[str, list[Event]] = {}
    # The user messages draw from their own stream: the tree's draws stay those without them.
    asked = random.Random(f"{seed}-asked") if with_events else None
    made = 0
    for day_number in range(days):
        # Spread segments evenly: day d holds the segments numbered [d*n/D, (d+1)*n/D).
        upto = (day_number + 1) * segments // days
        count = upto - made
        if count == 0:
            continue
        day = start + timedelta(days=day_number)
        length = timedelta(seconds=86_000 / count)
        for slot in range(count):
            node, node_grips, node_events = _segment(
                day,
                made,
                _utc(day) + slot * length,
                length * 0.9,
                words,
                rng,
                topics_at.get(made, []),
                asked,
            )
            nodes.append(node)
            grips.extend(node_grips)
            if node_events:
                events[node.node_id] = node_events
            made += 1
    rollups: list[TocNode] = []
    summarizer = ExtractiveSummarizer()
    level_nodes: list[TocNode] = nodes
    for level in (TocLevel.DAY, TocLevel.WEEK, TocLevel.MONTH, TocLevel.YEAR):
        level_nodes = _roll_up(level_nodes, level, summarizer, events)
        rollups.extend(level_nodes)
    return SyntheticTree(
        tuple(nodes),
        tuple(rollups),
        tuple(grips),
        tuple(planted),
        start,
        days,
        tuple(event for node in nodes for event in events.get(node.node_id, ())),
    )


def iter_tree_nodes(tree: SyntheticTree) -> Iterator[TocNode]:
    """Every node of a synthetic tree, segments first."""
    yield from tree.segments
    yield from tree.rollups
