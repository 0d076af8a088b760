"""Hypothesis strategies for tocsearch records and whole trees, shared by every test module."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from typing import Any

from hypothesis import strategies as st

from tocsearch import ids
from tocsearch._segment_map import SegmentMap
from tocsearch.digest import DIGEST_BITS, TermDigest
from tocsearch.levels import TocLevel
from tocsearch.models import Event, EventRole, EventType, Grip, TocBullet, TocNode
from tocsearch.navigate._terms import topic_terms
from tocsearch.navigate._weights import TermMatcher

EPOCH_2020 = datetime(2020, 1, 1, tzinfo=timezone.utc)

# Text that exercises Unicode case folding without drowning the searches in noise.
words = st.sampled_from(
    [
        "jwt",
        "refresh",
        "token",
        "postgres",
        "migration",
        "flaky",
        "ci",
        "cache",
        "deploy",
        "Straße",
        "ÉCOLE",
        "naïve",
        "日本語",
        "auth",
        "bug",
        "rotation",
        "index",
        "lock",
        "Caroline",
        "schema",
        "retry",
        "timeout",
        "the",
        "we",
        "a",
    ]
)
sentences = st.lists(words, min_size=1, max_size=8).map(" ".join)
# Words that share stems and prefixes, with case and non-ASCII folds and separators inside a
# word, mixed with arbitrary text: where term matching and term digests could disagree.
TRICKY_WORDS = ["Token", "tokens", "tokenizer", "JWT", "Straße", "strasse", "İstanbul", "node.js"]
tricky_texts = st.lists(
    st.one_of(st.sampled_from(TRICKY_WORDS), st.text(max_size=12)), max_size=8
).map(" ".join)
topic_matchers = st.lists(
    st.one_of(st.sampled_from(TRICKY_WORDS), st.text(min_size=1, max_size=8)), max_size=4
).map(lambda words: TermMatcher(topic_terms(" ".join(words))))
"""The navigator's matcher for a topic of up to four tricky or arbitrary words."""
suffixes = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.",
    min_size=1,
    max_size=12,
)


@st.composite
def utc_datetimes(
    draw: st.DrawFn,
    min_value: datetime = EPOCH_2020,
    max_value: datetime = datetime(2030, 12, 31, tzinfo=timezone.utc),
) -> datetime:
    """Timezone-aware UTC datetimes with microseconds."""
    naive = draw(
        st.datetimes(
            min_value=min_value.replace(tzinfo=None), max_value=max_value.replace(tzinfo=None)
        )
    )
    return naive.replace(tzinfo=timezone.utc)


@st.composite
def events(draw: st.DrawFn, timestamp: datetime | None = None) -> Event:
    """A valid event whose id carries its timestamp."""
    when = timestamp if timestamp is not None else draw(utc_datetimes())
    role = draw(st.sampled_from(EventRole))
    kind = {
        EventRole.USER: EventType.USER_MESSAGE,
        EventRole.ASSISTANT: EventType.ASSISTANT_MESSAGE,
        EventRole.TOOL: EventType.TOOL_RESULT,
        EventRole.SYSTEM: EventType.SESSION_START,
    }[role]
    return Event(
        event_id=ids.event_id(when, draw(suffixes)),
        session_id=draw(st.sampled_from(["s1", "s2", "session-three"])),
        timestamp=when,
        role=role,
        event_type=kind,
        text=draw(sentences),
        metadata=draw(
            st.dictionaries(st.sampled_from(["tool", "cwd", "model"]), words, max_size=2)
        ),
        agent=draw(st.none() | st.sampled_from(["claude", "codex"])),
    )


bullets = st.builds(
    TocBullet,
    text=sentences,
    grip_ids=st.lists(
        st.builds(lambda n, s: f"grip:{n}:{s}", st.integers(0, 10**12), suffixes), max_size=3
    ).map(tuple),
)


@st.composite
def toc_nodes(draw: st.DrawFn, level: TocLevel | None = None) -> TocNode:
    """A valid node of any level with an id that matches its level."""
    chosen = level if level is not None else draw(st.sampled_from(TocLevel))
    day: date = draw(st.dates(min_value=date(2020, 1, 6), max_value=date(2030, 12, 20)))
    if chosen is TocLevel.SEGMENT:
        node_id = ids.segment_id(day, draw(suffixes))
    else:
        node_id = ids.calendar_node_id(chosen, day)
    start = datetime(day.year, day.month, day.day, tzinfo=timezone.utc) + timedelta(
        seconds=draw(st.integers(0, 80_000))
    )
    end = start + timedelta(seconds=draw(st.integers(0, 6_000)))
    return TocNode(
        node_id=node_id,
        level=chosen,
        title=draw(sentences),
        start_time=start,
        end_time=end,
        bullets=tuple(draw(st.lists(bullets, max_size=5))),
        keywords=tuple(draw(st.lists(words, max_size=7))),
        child_node_ids=(),
        summary=draw(st.none() | sentences),
        version=draw(st.integers(1, 5)),
    )


@st.composite
def grips(draw: st.DrawFn) -> Grip:
    """A valid grip over an ordered pair of event ids."""
    first = draw(utc_datetimes())
    last = first + timedelta(seconds=draw(st.integers(0, 3_600)))
    return Grip(
        grip_id=ids.grip_id(first, draw(suffixes)),
        excerpt=draw(sentences)[:200],
        event_id_start=ids.event_id(first, "a"),
        event_id_end=ids.event_id(last, "b"),
        timestamp=first,
        source=draw(st.sampled_from(["s1", "s2"])),
        toc_node_id=draw(st.none() | st.just("toc:segment:2026-01-30:x")),
    )


@st.composite
def tricky_segments(draw: st.DrawFn, day: date = date(2026, 1, 5)) -> TocNode:
    """Segments of ``day`` whose every searchable text is drawn from :data:`tricky_texts`."""
    start = datetime(day.year, day.month, day.day, 12, tzinfo=timezone.utc)
    return TocNode(
        node_id=ids.segment_id(day, draw(suffixes)),
        level=TocLevel.SEGMENT,
        title=draw(tricky_texts),
        start_time=start,
        end_time=start,
        bullets=tuple(TocBullet(text) for text in draw(st.lists(tricky_texts, max_size=4))),
        keywords=tuple(draw(st.lists(tricky_texts, max_size=4))),
        summary=draw(st.none() | tricky_texts),
    )


# Any text Python can hold, unpaired surrogates included (st.text leaves those out by default).
surrogates = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, exclude_categories=())
any_text = st.text(alphabet=st.characters(exclude_categories=()) | surrogates)

# Ids no record can have: strings that are not ids (empty, malformed, unencodable), and values
# that are not strings at all.
malformed_ids = st.one_of(
    st.sampled_from(["", "garbage", "grip:", "grip:x:y", "grip:1:", "grip:\udc80:odd"]),
    any_text,
)
non_string_ids = st.one_of(
    st.none(),
    st.integers(),
    st.floats(allow_nan=False),
    st.binary(max_size=12),
    st.tuples(st.text(max_size=4)),
)


# -- requests ----------------------------------------------------------------------------

_terms = st.lists(words.filter(lambda word: len(word) >= 3), min_size=1, max_size=4).map(" ".join)
_ids = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789:-.", min_size=1, max_size=30)
_budgets = st.one_of(st.none(), st.integers(1, 10_000))


@st.composite
def _window(draw: st.DrawFn) -> dict[str, Any]:
    """The filters of a search or navigate request: a time window, a project, a session."""
    since = draw(st.one_of(st.none(), utc_datetimes()))
    until = draw(st.one_of(st.none(), utc_datetimes()))
    if since is not None and until is not None and until <= since:
        since, until = until - timedelta(seconds=1), since
    names = st.one_of(st.none(), st.text(min_size=1, max_size=20))
    return {"since": since, "until": until, "project": draw(names), "session": draw(names)}


@st.composite
def requests(draw: st.DrawFn) -> object:
    """A valid request record of any kind from :mod:`tocsearch.requests`."""
    from tocsearch import requests as r
    from tocsearch.search import SearchField

    fields = st.lists(st.sampled_from(list(SearchField)), max_size=4, unique=True).map(tuple)
    context = st.integers(0, 20)
    kind = draw(st.integers(0, 7))
    if kind == 0:
        return r.SearchNodeRequest(
            draw(_ids), draw(_terms), draw(fields), draw(st.integers(1, 50)), draw(_budgets)
        )
    if kind == 1:
        return r.SearchChildrenRequest(
            draw(_terms),
            draw(st.one_of(st.just(""), _ids)),
            draw(st.sampled_from(list(TocLevel))),
            draw(fields),
            draw(st.integers(1, 50)),
            draw(_budgets),
            **draw(_window()),
        )
    if kind == 2:
        return r.NavigateRequest(
            draw(sentences.filter(str.strip)),
            draw(st.integers(1, 10_000)),
            draw(st.one_of(st.none(), st.integers(1, 50))),
            full_path=draw(st.booleans()),
            **draw(_window()),
        )
    if kind == 3:
        return r.BrowseTocRequest(
            draw(st.one_of(st.just(""), _ids)),
            draw(st.integers(1, 100)),
            draw(st.one_of(st.none(), _ids)),
        )
    if kind == 4:
        return r.ExpandGripRequest(draw(_ids), draw(context), draw(context))
    if kind == 5:
        return r.ExpandEventRequest(draw(_ids), draw(context), draw(context))
    if kind == 6:
        return r.ExpandRequest(draw(_ids), draw(context), draw(context))
    return r.SyncRequest(tuple(draw(st.lists(_ids, max_size=3))), draw(st.booleans()))


@st.composite
def evidence_items(draw: st.DrawFn, segments: tuple[str, ...] = ()) -> Any:
    """An evidence item of a navigation result: an event (its times those of its id, or not)
    or a statement, with or without the keys its JSON form may leave out, its conversation
    named or not; often a whole event with nothing but its id, score and text (what the JSON
    writes as a row)."""
    from tocsearch.navigate.result import Evidence, EvidenceKind
    from tocsearch.search import SearchField

    kind = draw(st.sampled_from(EvidenceKind))
    start = draw(utc_datetimes())
    if kind is EvidenceKind.EVENT and draw(st.booleans()):
        cited_id = ids.event_id(start, draw(suffixes))
        at = ids.parse_event_id(cited_id)[0]
        return Evidence(
            segment_id=draw(st.sampled_from(segments or ("s1", "s2"))),
            segment_title=draw(st.sampled_from(["", "Title"])),
            kind=kind,
            text=draw(sentences),
            field=None,
            grip_ids=(),
            event_ids=(cited_id,),
            score=draw(st.floats(0.0, 1.0)),
            matched_terms=(),
            start_time=at,
            end_time=at,
            project=draw(st.sampled_from(["", "/home/dev/shop"])),
            session_id=draw(st.sampled_from(["", "77e0"])),
        )
    cited = draw(st.lists(st.builds(ids.event_id, utc_datetimes(), suffixes), max_size=3))
    if kind is EvidenceKind.EVENT and draw(st.booleans()):
        cited = [ids.event_id(start, draw(suffixes))]
        start = ids.parse_event_id(cited[0])[0]
    end = start if draw(st.booleans()) else start + timedelta(seconds=draw(st.integers(1, 99)))
    field = draw(st.none() | st.sampled_from(SearchField))
    segment = draw(st.sampled_from(segments)) if segments else draw(st.sampled_from(["s1", "s2"]))
    return Evidence(
        segment_id=segment,
        segment_title=draw(st.sampled_from(["", "Title", "Other title"])),
        kind=kind,
        text=draw(sentences),
        field=field,
        grip_ids=tuple(draw(st.lists(_ids, max_size=2))),
        event_ids=tuple(cited),
        score=draw(st.floats(0.0, 1.0)),
        matched_terms=tuple(draw(st.lists(words, max_size=2))),
        start_time=start,
        end_time=end,
        clipped=draw(st.booleans()),
        project=draw(st.sampled_from(["", "/home/dev/shop", "-home-dev-blog"])),
        session_id=draw(st.sampled_from(["", "5b1c-aaaa", "77e0"])),
    )


@st.composite
def nearby_events(draw: st.DrawFn, segments: tuple[str, ...] = ()) -> Any:
    """An event item of one of a few conversations said within hours of 2023-05-08 13:56
    UTC (on whole minutes, whole seconds or to the millisecond): events of one segment whose
    ids share the parts an answer writes once as its pattern, or that miss them by a day, a
    conversation or a clock."""
    from tocsearch.navigate.result import Evidence, EvidenceKind

    base = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
    at = base + draw(
        st.sampled_from(
            [
                timedelta(minutes=draw(st.integers(-30, 600))),
                timedelta(seconds=draw(st.integers(0, 3600))),
                timedelta(milliseconds=draw(st.integers(0, 10**7))),
                timedelta(days=draw(st.integers(1, 3))),
            ]
        )
    )
    conversation = draw(st.sampled_from(["conv-26:D1:", "conv-26:D2:", "", "x.y:"]))
    cited_id = ids.event_id(at, conversation + str(draw(st.integers(0, 40))))
    at = ids.parse_event_id(cited_id)[0]
    return Evidence(
        segment_id=draw(st.sampled_from(segments or ("s1", "s2"))),
        segment_title=draw(st.sampled_from(["", "Title"])),
        kind=EvidenceKind.EVENT,
        text=draw(sentences),
        field=None,
        grip_ids=tuple(draw(st.lists(_ids, max_size=1))),
        event_ids=(cited_id,),
        score=draw(st.sampled_from([1.0, 0.41, 0.0])),
        matched_terms=(),
        start_time=at,
        end_time=at,
        clipped=draw(st.booleans()),
        session_id=draw(st.sampled_from(["", "conv-26:session_1"])),
    )


def planted_token(index: int) -> str:
    """A word no other text holds, planted in event ``index`` of :func:`planted_histories`."""
    return f"zqv{index}k"


@st.composite
def planted_histories(draw: st.DrawFn, max_size: int = 24) -> list[Event]:
    """Events over one to three days in two projects and three sessions, each holding a word of
    its own (:func:`planted_token`) among ordinary sentences, so a test can tell exactly which
    event's text survives anywhere."""
    count = draw(st.integers(2, max_size))
    clock = datetime(2026, 1, 28, 20, 0, tzinfo=timezone.utc)
    made: list[Event] = []
    for index in range(count):
        clock += timedelta(seconds=draw(st.sampled_from([30, 200, 2_000, 20_000])))
        session = draw(st.sampled_from(["s1", "s2", "s3"]))
        role = draw(st.sampled_from([EventRole.USER, EventRole.ASSISTANT]))
        made.append(
            Event(
                event_id=ids.event_id(clock, f"p{index}"),
                session_id=session,
                timestamp=clock,
                role=role,
                event_type=EventType.USER_MESSAGE
                if role is EventRole.USER
                else EventType.ASSISTANT_MESSAGE,
                text=f"{draw(sentences)} {planted_token(index)} {draw(sentences)}",
                metadata={"project": "shop" if session != "s3" else "blog", "cwd": "/w/x"},
            )
        )
    return made


@st.composite
def navigation_steps(draw: st.DrawFn) -> Any:
    """A path of a navigation: one to four steps of any phase, each with up to four matches
    (events or nodes), a chosen node or none, and a reason that may be empty."""
    from tocsearch.navigate.result import NavigationStep, StepMatch, StepPhase
    from tocsearch.search import SearchField

    steps = []
    for number in range(1, draw(st.integers(1, 4)) + 1):
        matches = tuple(
            StepMatch(
                node_id=draw(_ids),
                title=draw(sentences),
                score=draw(st.floats(0.0, 1.0)),
                field=draw(st.none() | st.sampled_from(SearchField)),
                text=draw(tricky_texts),
                event_id=draw(st.none() | _ids),
            )
            for _ in range(draw(st.integers(0, 4)))
        )
        steps.append(
            NavigationStep(
                number=number,
                phase=draw(st.sampled_from(StepPhase)),
                level=draw(st.sampled_from(TocLevel)),
                scope=draw(sentences),
                parent_ids=tuple(draw(st.lists(_ids, max_size=2))),
                searched=draw(st.integers(0, 500)),
                matched=draw(st.integers(0, 500)),
                matches=matches,
                chosen=draw(st.none() | _ids),
                reason=draw(st.just("") | sentences),
            )
        )
    return tuple(steps)


@st.composite
def segment_maps(draw: st.DrawFn) -> SegmentMap:
    """A day's :class:`~tocsearch._segment_map.SegmentMap`: made from segments' digests (some
    unknown, of a few sizes) or read from raw stored columns, whose bits past the last
    segment may be set as in a damaged store; 0 to 40 segments."""
    if draw(st.booleans()):
        bits = draw(st.sampled_from([8, 16, 64, 512, 1024]))
        count = draw(st.integers(0, 40))
        columns = draw(
            st.binary(min_size=bits * ((count + 7) // 8), max_size=bits * ((count + 7) // 8))
        )
        return SegmentMap(columns, bits, count, draw(st.integers(0, 2**32 - 1)))
    texts = draw(
        st.lists(
            st.one_of(st.none(), st.lists(words, max_size=60).map(" ".join)),
            min_size=1,
            max_size=40,
        )
    )
    digests = [None if text is None else TermDigest.sized_for([text]) for text in texts]
    return SegmentMap.of(
        digests, [f"toc:segment:2026-01-05:s{index}" for index in range(len(texts))]
    )


# The digest bits of a query's terms, or None for a term never ruled out.
digest_probes = st.lists(
    st.one_of(
        st.none(),
        words.map(TermDigest.probes),
        st.lists(st.integers(0, DIGEST_BITS - 1), min_size=1, max_size=3).map(tuple),
    ),
    max_size=5,
)
