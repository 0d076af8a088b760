"""The JSON form of a navigation result: evidence grouped by segment, each item without what its
group or its ids say, and read back to the same result."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests._support.budget import group_dicts
from tests.strategies import evidence_items, navigation_steps, nearby_events, sentences, words

from tocsearch import ids
from tocsearch.converter import to_dict
from tocsearch.errors import InvalidArgument
from tocsearch.navigate import (
    Evidence,
    EvidenceKind,
    NavigationResult,
    NavigationStep,
    cited_event_ids,
    parse_time_hints,
)
from tocsearch.navigate import result as result_module
from tocsearch.navigate._event_refs import resolve_ref
from tocsearch.navigate._terms import searched_terms
from tocsearch.navigate.result import EVENT_REFS_NOTE, evidence_dict, step_dicts
from tocsearch.navigate.timehints import topic_without

_GROUP_KEYS = ("segment_title", "project", "session_id")
_COUNTED = ("tokens_used", "token_budget", "nodes_visited", "iterations")
_RESULT = "tocsearch.navigate.result"

NOW = datetime(2026, 2, 4, 15, tzinfo=timezone.utc)
EVENT_ID = "evt:1769763600000:x"  # 2026-01-30 09:00 UTC


def _result(
    query: str, evidence: list[Evidence], terms: tuple[str, ...] | None
) -> NavigationResult:
    hints = parse_time_hints(query, NOW)
    return NavigationResult(
        query=query,
        topic=hints.topic,
        terms=terms if terms is not None else ("jwt",),
        time_hints=hints,
        steps=(),
        evidence=tuple(evidence),
        partial=False,
        reason="done",
        tokens_used=1,
        token_budget=10,
        nodes_visited=1,
        iterations=1,
    )


# Time phrases placed before, after or inside a topic: the topic left out of the JSON is the
# query without them.
_PHRASES = ["", "last week", "yesterday", "in January", "between Jan 5 and Jan 9", "since may"]


@st.composite
def _queries(draw: st.DrawFn) -> str:
    """A question of a few words with a time phrase at either end or none, or only filler."""
    topic = draw(st.lists(words, max_size=5))
    phrase = draw(st.sampled_from(_PHRASES))
    parts = [phrase, *topic] if draw(st.booleans()) else [*topic, phrase]
    query = " ".join(part for part in parts if part)
    return query or draw(st.sampled_from(["what did I work on", "recap", "JWT"]))


@given(
    evidence=st.lists(
        evidence_items(("s1", "s2", "s3")) | nearby_events(("s1", "s2", "s3")), max_size=8
    ),
    query=_queries(),
    terms=st.none() | st.just(("other", "terms")) | st.just(()),
    topic=st.none() | sentences,
    zone=st.sampled_from(["UTC", "America/Los_Angeles", "+05:30"]),
)
def test_any_result_reads_back_from_its_json(
    evidence: list[Evidence],
    query: str,
    terms: tuple[str, ...] | None,
    topic: str | None,
    zone: str,
) -> None:
    """to_dict, through JSON text, and from_dict give back the same result, whatever the items
    (events whose times are or are not those of their ids, statements, runs of one segment
    broken by another, titles and conversations that change within a run), the query and its
    time phrases, whether the topic and terms are the query's own or not, and the zone."""
    result = attrs.evolve(_result(query, evidence, terms), zone=zone)
    if topic is not None:
        result = attrs.evolve(result, topic=topic)
    text = json.dumps(result.to_dict(), ensure_ascii=False)
    assert NavigationResult.from_dict(json.loads(text)) == result


@given(
    query=_queries(),
    terms=st.none() | st.just(("other", "terms")) | st.just(()),
    topic=st.none() | sentences,
    renderings=st.integers(1, 4),
)
def test_what_the_json_leaves_out_is_worked_out_once_per_result(
    query: str, terms: tuple[str, ...] | None, topic: str | None, renderings: int
) -> None:
    """However often a result is rendered, its topic and terms are compared with the ones its
    query implies once (and not again for another result of the same question, as the fit
    makes), and every rendering is the same JSON, leaving out the topic exactly when it is the
    query without its time phrases and the terms exactly when they are the topic's own."""
    result = _result(query, [], terms)
    if topic is not None:
        result = attrs.evolve(result, topic=topic)
    result_module._derived.cache_clear()
    calls: list[str] = []

    def counted(name: str, function: Any) -> Any:
        def call(*args: Any) -> Any:
            calls.append(name)
            return function(*args)

        return call

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(f"{_RESULT}.topic_without", counted("topic", topic_without))
        patch.setattr(f"{_RESULT}.searched_terms", counted("terms", searched_terms))
        rendered = [result.to_dict() for _ in range(renderings)]
        counted_again = attrs.evolve(result, tokens_used=result.tokens_used + 1).to_dict()
    assert sorted(calls) == ["terms", "topic"]
    counted_again["counts"][0] = result.tokens_used
    assert counted_again == rendered[0]
    assert all(data == rendered[0] for data in rendered)
    implied_topic = topic_without(result.query, result.time_hints.phrases)
    assert ("topic" in rendered[0]) == (result.topic != implied_topic)
    assert ("terms" in rendered[0]) == (result.terms != searched_terms(result.topic))


@given(evidence=st.lists(evidence_items(("s1", "s2")), max_size=6), query=_queries())
def test_the_full_form_reads_back_too(evidence: list[Evidence], query: str) -> None:
    """The form with every key (the converter's, the evidence as one flat list) reads back to
    the same result as the compact one."""
    result = _result(query, evidence, None)
    assert NavigationResult.from_dict(to_dict(result)) == result


@given(counters=st.tuples(*[st.integers(0, 10**9)] * 4), query=_queries())
def test_the_counters_are_one_list_read_back_in_order(
    counters: tuple[int, int, int, int], query: str
) -> None:
    """The four counters are written as one list under counts, in the documented order, and
    read back to the same result, as the full form's four keys are."""
    tokens_used, token_budget, nodes_visited, iterations = counters
    result = attrs.evolve(
        _result(query, [], None),
        tokens_used=tokens_used,
        token_budget=token_budget,
        nodes_visited=nodes_visited,
        iterations=iterations,
    )
    data = json.loads(json.dumps(result.to_dict()))
    assert data["counts"] == list(counters)
    assert not {"tokens_used", "token_budget", "nodes_visited", "iterations"} & set(data)
    assert NavigationResult.from_dict(data) == result == NavigationResult.from_dict(to_dict(result))


@pytest.mark.parametrize(
    "counts", ["1, 2, 3, 4", [1, 2, 3], [1, 2, 3, 4, 5], [1, 2, 3, "4"], [1, 2, True, 4], None]
)
def test_counts_that_are_not_four_whole_numbers_are_refused(counts: Any) -> None:
    """A counts value that is not a list of four whole numbers is an InvalidArgument that says
    what it must be and what it was."""
    frame = {key: value for key, value in _FRAME.items() if key not in _COUNTED}
    with pytest.raises(InvalidArgument) as caught:
        NavigationResult.from_dict({**frame, "counts": counts, "segments": []})
    assert "'counts' must be a list of four whole numbers" in str(caught.value)
    assert repr(counts)[:20] in str(caught.value)


def test_left_out_keys_are_the_derivable_ones() -> None:
    """A result whose topic and terms are its query's own leaves both out; one whose topic or
    terms differ keeps them."""
    own = _result("JWT expiry last week", [], None)
    own = attrs.evolve(own, terms=searched_terms(own.topic))
    data = own.to_dict()
    assert "topic" not in data
    assert "terms" not in data
    assert data["time_hints"]["phrases"] == ["last week"]
    other = attrs.evolve(own, topic="JWT", terms=("jwt", "expiry"))
    kept = other.to_dict()
    assert kept["topic"] == "JWT"
    assert kept["terms"] == ["jwt", "expiry"]


_FRAME: dict[str, Any] = {
    "query": "JWT",
    "partial": False,
    "reason": "",
    "tokens_used": 1,
    "token_budget": 10,
    "nodes_visited": 0,
    "iterations": 0,
}


@pytest.mark.parametrize(
    ("segments", "message"),
    [
        ("x", "'segments' must be a list, got str"),
        ([1], "segments[0] must be an object, got int"),
        ([["s"]], "segments[0] must be an object or a row [segment_id, (ids,) evidence]"),
        ([[1, []]], "segments[0] must have a string 'segment_id'"),
        ([["s", 1, []]], "segments[0].ids must be a string, got int"),
        ([["s", "evt:1*:*", [["1:a", 1.0, "a"]]]], "is not an event id pattern"),
        ([["s", "evt:16835*000:*", [["5422:a", 1.0, "a"]]]], "segments[0].evidence[0]: '5422:a'"),
        ([["s", {}]], "segments[0] must have a list 'evidence'"),
        ([{"evidence": []}], "segments[0] must have a string 'segment_id'"),
        ([{"segment_id": "s"}], "segments[0] must have a list 'evidence'"),
        ([{"segment_id": "s", "evidence": [1]}], "segments[0].evidence[0] must be an object"),
        (
            [{"segment_id": "s", "evidence": [{"text": "a", "event_ids": [EVENT_ID]}]}],
            "required field missing @ $.evidence[0].score",
        ),
        (
            [{"segment_id": "s", "evidence": [{"text": "a", "score": 1}]}],
            "required field missing @ $.evidence[0].start_time",
        ),
        (
            [{"segment_id": "s", "evidence": [{"text": "a", "score": 1, "event_ids": ["bad"]}]}],
            "required field missing @ $.evidence[0].start_time",
        ),
        (
            [{"segment_id": "s", "evidence": [[EVENT_ID, 1.0]]}],
            "segments[0].evidence[0] must be an object or a row [event_id, score, text]",
        ),
        (
            [{"segment_id": "s", "evidence": [[1, 1.0, "a"]]}],
            "segments[0].evidence[0] must be an object or a row [event_id, score, text]",
        ),
        (
            [{"segment_id": "s", "evidence": [["bad", 1.0, "a"]]}],
            "required field missing @ $.evidence[0].start_time",
        ),
        ([{"segment_id": "s", "evidence": [[EVENT_ID, "high", "a"]]}], "evidence[0].score"),
    ],
)
def test_malformed_segments_are_a_clear_error(segments: Any, message: str) -> None:
    """Groups or items that are not objects, or miss what cannot be worked out (a segment id,
    a score, a time no event id carries), are refused with InvalidArgument naming the part."""
    with pytest.raises(InvalidArgument) as caught:
        NavigationResult.from_dict({**_FRAME, "segments": segments})
    assert message in str(caught.value)


def test_an_item_short_of_keys_gets_its_defaults() -> None:
    """An item with only text, score and one event id is an event at that event's time, in
    its group's segment, with empty grips and terms."""
    data = {
        **_FRAME,
        "segments": [
            {"segment_id": "s", "evidence": [{"text": "a", "score": 1, "event_ids": [EVENT_ID]}]}
        ],
    }
    (item,) = NavigationResult.from_dict(data).evidence
    assert item.segment_id == "s"
    assert item.segment_title == ""
    assert item.kind is EvidenceKind.EVENT
    assert item.start_time == item.end_time == datetime(2026, 1, 30, 9, tzinfo=timezone.utc)
    assert (item.grip_ids, item.matched_terms, item.clipped) == ((), (), False)


@given(evidence=st.lists(evidence_items(("s1", "s2")), min_size=1, max_size=8))
def test_each_run_of_one_segment_is_one_group(evidence: list[Evidence]) -> None:
    """The groups are the runs of consecutive items from one segment, in order, and no item
    repeats its segment's id."""
    data = _result("JWT", evidence, None).to_dict()
    runs = [
        item.segment_id
        for index, item in enumerate(evidence)
        if index == 0 or evidence[index - 1].segment_id != item.segment_id
    ]
    groups = group_dicts(data)
    assert [group["segment_id"] for group in groups] == runs
    assert sum(len(group["evidence"]) for group in groups) == len(evidence)
    assert all("segment_id" not in item for group in groups for item in group["evidence"])
    # A group that says nothing but its id, pattern and items is a row.
    for written, group in zip(data["segments"], groups, strict=True):
        assert isinstance(written, list) == (set(group) <= {"segment_id", "ids", "evidence"})


def test_an_event_item_leaves_out_what_its_id_and_group_say() -> None:
    """An event citing one event whose id carries its time has no kind, times, segment id or
    repeated title in its JSON; with nothing else to say it is the row [event_id, score,
    text]."""
    event_id = "evt:1770127514000:backfill.02"
    item = Evidence(
        segment_id="toc:segment:2026-02-03:140000-a8",
        segment_title="Backfill",
        kind=EvidenceKind.EVENT,
        text="How long will it take?",
        field=None,
        grip_ids=(),
        event_ids=(event_id,),
        score=1.0,
        matched_terms=(),
        start_time=datetime.fromtimestamp(1770127514, tz=timezone.utc),
        end_time=datetime.fromtimestamp(1770127514, tz=timezone.utc),
    )
    data = _result("JWT", [item], None).to_dict()
    assert data["segments"] == [
        {
            "segment_id": "toc:segment:2026-02-03:140000-a8",
            "segment_title": "Backfill",
            # Nothing but its id, score and text: a row.
            "evidence": [[event_id, 1.0, "How long will it take?"]],
        }
    ]
    # A second event of the segment whose id fits the first's pattern: the group says the
    # pattern once, and each item its reference.
    minute_on = datetime.fromtimestamp(1770127574, tz=timezone.utc)
    later = attrs.evolve(
        item,
        event_ids=("evt:1770127574000:backfill.03",),
        clipped=True,
        text="An hour.",
        start_time=minute_on,
        end_time=minute_on,
    )
    data = _result("JWT", [item, later], None).to_dict()
    assert data["segments"] == [
        {
            "segment_id": "toc:segment:2026-02-03:140000-a8",
            "segment_title": "Backfill",
            "ids": "evt:17701*000:*",
            "evidence": [
                ["27514:backfill.02", 1.0, "How long will it take?"],
                {
                    "text": "An hour.",
                    "event_ids": ["27574:backfill.03"],
                    "score": 1.0,
                    "clipped": True,
                },
            ],
        }
    ]
    assert "terms" not in data  # the terms of "JWT" are worked out again from the topic
    assert NavigationResult.from_dict(data).evidence == (item, later)


def _said_in(project: str, session_id: str, text: str, minute: int) -> Evidence:
    when = datetime(2026, 1, 30, 9, minute, tzinfo=timezone.utc)
    return Evidence(
        segment_id="toc:segment:2026-01-30:090000-abc",
        segment_title="JWT expiry",
        kind=EvidenceKind.EVENT,
        text=text,
        field=None,
        grip_ids=(),
        event_ids=(f"evt:{int(when.timestamp() * 1000)}:{minute}",),
        score=1.0,
        matched_terms=(),
        start_time=when,
        end_time=when,
        project=project,
        session_id=session_id,
    )


def test_a_segment_group_names_its_conversation_once() -> None:
    """The project and session are said by the group; its items repeat neither, unless one
    differs (then that item says its own, and reads back so)."""
    same = [_said_in("/home/dev/shop", "5b1c", f"jwt {n}", n) for n in range(3)]
    group = _result("jwt", same, None).to_dict()["segments"][0]
    assert (group["project"], group["session_id"]) == ("/home/dev/shop", "5b1c")
    assert all("project" not in item and "session_id" not in item for item in group["evidence"])
    odd = [*same, _said_in("", "", "jwt lean", 4)]
    data = _result("jwt", odd, None).to_dict()
    last = data["segments"][0]["evidence"][-1]
    assert (last["project"], last["session_id"]) == ("", "")
    assert NavigationResult.from_dict(json.loads(json.dumps(data))).evidence == tuple(odd)


def test_a_group_with_a_bad_conversation_is_refused() -> None:
    """A group whose project is not a string is an InvalidArgument naming it."""
    data = _result("jwt", [_said_in("shop", "5b1c", "jwt", 1)], None).to_dict()
    data["segments"][0]["project"] = 7
    with pytest.raises(InvalidArgument, match=r"segments\[0\]\.project must be a string"):
        NavigationResult.from_dict(data)


def test_an_unknown_zone_is_refused() -> None:
    """A result whose zone no clock has is an InvalidArgument, from its JSON too."""
    data = _result("jwt", [], None).to_dict()
    data["zone"] = "Mars/Olympus"
    with pytest.raises(InvalidArgument, match="Mars/Olympus"):
        NavigationResult.from_dict(data)
    assert "zone" not in _result("jwt", [], None).to_dict()


def test_markdown_heads_each_segment_with_its_local_start_and_conversation() -> None:
    """The heading shows the project and session, and the local date of its first event only
    where the segment's id names another day; an event's line shows its time on the result's
    clock (named once, in the status line) and its date only when its local day differs from
    the heading's; a run that opens with a statement shows its local start."""
    items = [_said_in("/home/dev/shop", "5b1c", "jwt early", 0)]
    late = _said_in("/home/dev/shop", "5b1c", "jwt late", 1)
    items.append(attrs.evolve(late, start_time=late.start_time.replace(hour=23)))
    items[1] = attrs.evolve(items[1], end_time=items[1].start_time)
    result = attrs.evolve(_result("jwt", items, None), zone="America/Los_Angeles")
    text = result.to_markdown()
    assert (
        "**toc:segment:2026-01-30:090000-abc** JWT expiry "
        "(project /home/dev/shop, session 5b1c, ids evt:17697*000:*)"
    ) in text.splitlines()
    assert '- 01:00 "jwt early" [63600:0]' in text
    assert '- 15:01 "jwt late"' in text
    assert "times America/Los_Angeles)_" in text
    # 05:00 UTC on the id's day is the evening before in Los Angeles: the heading says so.
    at = items[0].start_time.replace(hour=5)
    early = attrs.evolve(items[0], start_time=at, end_time=at)
    before = attrs.evolve(result, evidence=(early,)).to_markdown()
    assert (
        "**toc:segment:2026-01-30:090000-abc** JWT expiry "
        "(2026-01-29, project /home/dev/shop, session 5b1c)"
    ) in before.splitlines()
    assert '- 21:00 "jwt early"' in before
    kiritimati = attrs.evolve(result, zone="Pacific/Kiritimati").to_markdown()
    assert '- 2026-01-31 13:01 "jwt late"' in kiritimati
    statement = attrs.evolve(items[0], kind=EvidenceKind.BULLET, grip_ids=("grip:1:a",))
    stated = attrs.evolve(result, evidence=(statement,)).to_markdown()
    assert "(2026-01-30 01:00 PST, project /home/dev/shop, session 5b1c)" in stated
    assert "times " not in stated


def test_the_status_line_stands_alone_without_a_reason() -> None:
    """A reason the fit cut away leaves "_Done (…)", not an empty "Done: " before the counts."""
    result = _result("jwt", [], None)
    with_reason = attrs.evolve(result, reason="found 1 segment").to_markdown()
    assert "_Done: found 1 segment (" in with_reason
    bare = attrs.evolve(result, reason="", partial=False).to_markdown()
    assert "_Done (" in bare
    assert "Done: " not in bare
    assert "_Partial (" in attrs.evolve(result, reason="", partial=True).to_markdown()


@given(evidence=st.lists(evidence_items(("s1", "s2")), min_size=1, max_size=8))
def test_a_row_is_exactly_a_whole_event_with_nothing_else_to_say(
    evidence: list[Evidence],
) -> None:
    """An item is written as the row [event_id, score, text] exactly when it is an event that
    cites one event at the time of its id, with no grips, terms or clip and its group's title
    and conversation; the row holds that id (or its reference under its group's pattern),
    score and text."""
    data = _result("JWT", evidence, None).to_dict()
    groups = group_dicts(data)
    written = [item for group in groups for item in group["evidence"]]
    group_of = {id(item): group for group in groups for item in group["evidence"]}
    for item, shown in zip(evidence, written, strict=True):
        group = group_of[id(shown)]
        plain = (
            item.kind is EvidenceKind.EVENT
            and len(item.event_ids) == 1
            and item.start_time == item.end_time
            and item.start_time == ids.parse_event_id(item.event_ids[0])[0]
            and not (item.grip_ids or item.matched_terms or item.clipped)
            and item.field is None
            and all(getattr(item, key) == group.get(key, "") for key in _GROUP_KEYS)
        )
        assert isinstance(shown, list) == plain
        if plain:
            pattern = group.get("ids")
            cited = item.event_ids[0] if pattern is None else resolve_ref(pattern, shown[0])
            assert [cited, *shown[1:]] == [item.event_ids[0], item.score, item.text]


@given(item=evidence_items(("s1", "s2")))
def test_an_item_unstructures_as_the_converter_does(item: Evidence) -> None:
    """The evidence's own dict is the shared converter's, key for key and in order: the JSON
    the budget counts is the one the converter would write."""
    assert list(evidence_dict(item).items()) == list(to_dict(item).items())


@given(steps=navigation_steps())
def test_the_steps_unstructure_as_the_converter_does(steps: tuple[NavigationStep, ...]) -> None:
    """A path's dicts are the converter's without the keys that hold their default, which
    from_dict puts back."""
    shown = step_dicts(steps)
    defaults: dict[str, Any] = {"parent_ids": [], "matches": [], "chosen": None}
    for step, every in zip(shown, to_dict(list(steps)), strict=True):
        kept = [
            (key, value)
            for key, value in every.items()
            if key not in defaults or value != defaults[key]
        ]
        assert list(step.items()) == kept
    data = NavigationResult.from_dict({**_FRAME, "steps": shown, "segments": []})
    assert data.steps == steps


# Segments of the day of nearby_events (whose headings need not say the date) and others.
_NEARBY = ("toc:segment:2023-05-08:s1", "toc:segment:2023-05-09:s2", "s3")


@given(
    evidence=st.lists(evidence_items(_NEARBY) | nearby_events(_NEARBY), max_size=8),
    zone=st.sampled_from(["UTC", "America/Los_Angeles", "+05:30"]),
)
def test_the_markdown_cites_every_event_in_full_or_by_reference(
    evidence: list[Evidence], zone: str
) -> None:
    """Every event item's event is read back from the Markdown, in order, whether its id is
    written in full or as a reference under its segment's pattern; a reference is written
    only where a pattern stands above it, and the JSON cites the same events."""
    # Grips as a store names them (the strategy's grip ids are any text).
    evidence = [
        attrs.evolve(item, grip_ids=tuple(f"grip:1:g{n}" for n in range(len(item.grip_ids))))
        for item in evidence
    ]
    result = attrs.evolve(_result("jwt", evidence, None), zone=zone)
    markdown = result.to_markdown()
    events = [
        cited for item in evidence if item.kind is EvidenceKind.EVENT for cited in item.event_ids
    ]
    assert cited_event_ids(markdown) == tuple(events)
    shortened = any(", ids evt:" in line or "(ids evt:" in line for line in markdown.splitlines())
    assert shortened == any("ids" in group for group in group_dicts(result.to_dict()))
    if shortened:
        assert EVENT_REFS_NOTE in markdown
