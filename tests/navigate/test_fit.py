"""Fitting a navigation result to its budget: the explanation gives way to the evidence."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone

import attrs
from hypothesis import given
from hypothesis import strategies as st
from tests._support.budget import rendered_tokens
from tests.strategies import (
    any_text,
    evidence_items,
    navigation_steps,
    nearby_events,
    sentences,
    tricky_texts,
    words,
)

from tocsearch.navigate import (
    Evidence,
    EvidenceKind,
    NavigationResult,
    cited_event_ids,
    parse_time_hints,
)
from tocsearch.navigate._fit import (
    _Cost,
    _costs,
    _json,
    _least_path_characters,
    _Meter,
    _Shape,
    fit,
    grouped,
)
from tocsearch.navigate.result import EVENT_REFS_NOTE, EXPAND_EVENT, NavigationStep, step_dicts
from tocsearch.text import TokenEstimator, estimate_tokens

NOW = datetime(2026, 2, 4, 15, tzinfo=timezone.utc)
# A reason as long as a walk's explanation can get: where it looked, what it found.
EXPLAINED = "; ".join(
    f"searched the segments of week {week} and found a match" for week in range(6)
)


def _note(returned: int, offered: int) -> str:
    return f"{returned} of {offered} items fit the budget"


def _offered(count: int) -> list[Evidence]:
    start = datetime(2026, 1, 5, 9, tzinfo=timezone.utc)
    return [
        Evidence(
            segment_id=f"toc:segment:2026-01-05:s{number % 3}",
            segment_title="Deploy review",
            kind=EvidenceKind.EVENT,
            text=f"Event {number}: the deploy failed because the cache was cold " * 2,
            field=None,
            grip_ids=(),
            event_ids=(f"evt:{int((start + timedelta(minutes=number)).timestamp() * 1000)}:e",),
            score=1.0,
            matched_terms=("deploy",),
            start_time=start + timedelta(minutes=number),
            end_time=start + timedelta(minutes=number),
        )
        for number in range(count)
    ]


def _fitted(
    reason: str,
    budget: int,
    offered: list[Evidence],
    estimator: TokenEstimator = estimate_tokens,
) -> NavigationResult:
    result = NavigationResult(
        query="deploy",
        topic="deploy",
        terms=("deploy",),
        time_hints=parse_time_hints("deploy", NOW),
        steps=(),
        evidence=(),
        partial=False,
        reason=reason,
        tokens_used=0,
        token_budget=budget,
        nodes_visited=3,
        iterations=2,
    )
    return fit(result, offered, budget=budget, estimator=estimator, full_path=False, note=_note)


def test_a_long_reason_gives_way_when_not_every_item_fits() -> None:
    """When not every item fits, the reason is cut to how many did if that returns more
    items: as many as with no explanation at all."""
    offered = _offered(12)
    explained = _fitted(EXPLAINED, 500, offered)
    unexplained = _fitted("", 500, offered)
    assert 0 < len(explained.evidence) < len(offered)
    assert len(explained.evidence) == len(unexplained.evidence)
    assert explained.reason == f"{len(explained.evidence)} of 12 items fit the budget"
    assert rendered_tokens(explained) <= explained.tokens_used <= 500


def test_the_reason_stays_whole_when_everything_fits() -> None:
    """With room for every item, the whole explanation is returned beside them."""
    offered = _offered(3)
    result = _fitted(EXPLAINED, 2000, offered)
    assert len(result.evidence) == 3
    assert result.reason == EXPLAINED
    assert not result.partial


def test_slimmed_items_leave_out_what_their_ids_lead_back_to() -> None:
    """When not every item fits, the items come without matched terms, titles and
    conversations, the best segment's included, so that more of them fit."""
    offered = [
        attrs.evolve(item, project="/home/dev/shop", session_id="77e0") for item in _offered(12)
    ]
    result = _fitted("", 600, offered)
    assert 3 < len(result.evidence) < len(offered)
    assert result.evidence[0] == attrs.evolve(
        offered[0], matched_terms=(), segment_title="", project="", session_id=""
    )
    assert all(
        (item.matched_terms, item.segment_title, item.project, item.session_id) == ((), "", "", "")
        for item in result.evidence
    )
    assert {item.segment_id for item in result.evidence} == {item.segment_id for item in offered}
    assert rendered_tokens(result) <= result.tokens_used <= 600


def test_a_whole_answer_keeps_its_titles_and_conversations() -> None:
    """When every item fits, each keeps its segment's title and conversation."""
    offered = [
        attrs.evolve(item, project="/home/dev/shop", session_id="77e0") for item in _offered(3)
    ]
    result = _fitted("", 2000, offered)
    assert len(result.evidence) == 3
    assert all(
        (item.segment_title, item.project, item.session_id)
        == ("Deploy review", "/home/dev/shop", "77e0")
        for item in result.evidence
    )


def _surcharged(text: str) -> int:
    """An estimator that is not additive: a long text costs a surcharge on top of its
    characters, so that items measured one by one fit and their sum does not."""
    return estimate_tokens(text) + (120 if len(text) > 1200 else 0)


def test_the_count_of_fitting_items_follows_the_trim() -> None:
    """When the final measure trims items that the estimates let in, the reason's count of
    the items that fit is the count returned, and ``partial`` says that not all did."""
    offered = _offered(12)
    fitted = _fitted("", 700, offered, _surcharged)
    assert 0 < len(fitted.evidence) < len(offered)
    assert fitted.partial
    assert fitted.reason.endswith(f"{len(fitted.evidence)} of 12 items fit the budget")
    assert rendered_tokens(fitted, _surcharged) <= fitted.tokens_used <= 700


def test_the_reason_gives_way_for_more_of_the_same_items_too() -> None:
    """When the brief reason returns as many items as the whole one but more of their text (an
    event clipped less), the brief one is returned: as much evidence as with no explanation."""
    short = _offered(3)
    long = [
        attrs.evolve(item, text=f"Long event {number}: " + "the cache was cold again. " * 80)
        for number, item in enumerate(_offered(5)[3:])
    ]
    offered = [*short, *long]
    explained = _fitted(EXPLAINED, 600, offered)
    unexplained = _fitted("", 600, offered)
    assert len(explained.evidence) == 4
    assert any(item.clipped for item in explained.evidence)
    assert explained.evidence == unexplained.evidence
    assert explained.reason == "4 of 5 items fit the budget"
    assert rendered_tokens(explained) <= explained.tokens_used <= 600


def _pieces(result: NavigationResult, estimator: TokenEstimator) -> _Cost:
    """What the fit adds up for ``result``: its frame, its path and each item in its place
    (after its segment's first item, with the closing lines when it is the first of all)."""
    meter = _Meter(estimator, result.zone)
    total = meter.frame(result, result.tokens_used, reason=result.reason, partial=result.partial)
    total += meter.path(result.steps)
    openers: dict[str, Evidence] = {}
    shortened: set[str] = set()
    for number, item in enumerate(result.evidence):
        segment = item.segment_id
        opener = openers.get(segment)
        total += meter.item(item, opener=opener, first=number == 0, shortened=segment in shortened)
        if opener is None:
            openers[segment] = item
        elif meter.fits(item, opener):
            shortened.add(segment)
    if not result.evidence:
        total += meter.nothing_found
    return total


def _characters(text: str) -> int:
    return len(text)


_SEGMENTS = ("toc:segment:2026-01-05:s1", "toc:segment:2026-01-06:s2", "s3")
# Any items, and events of one conversation whose ids an answer writes by references.
_items = evidence_items(_SEGMENTS) | nearby_events(_SEGMENTS)


@st.composite
def _results(draw: st.DrawFn) -> NavigationResult:
    """A result as the fit shapes one: items grouped by segment, a path or none, any reason,
    either status, a zone, and the budget as its count."""
    budget = draw(st.integers(200, 2000))
    return NavigationResult(
        query=draw(tricky_texts),
        topic="deploy",
        terms=tuple(draw(st.lists(words, max_size=3))),
        time_hints=parse_time_hints(draw(st.sampled_from(["deploy", "deploy last week"])), NOW),
        steps=draw(st.just(()) | navigation_steps()),
        evidence=grouped(draw(st.lists(_items, max_size=8))),
        partial=draw(st.booleans()),
        reason=draw(st.just("") | sentences | tricky_texts),
        tokens_used=budget,
        token_budget=budget,
        nodes_visited=draw(st.integers(0, 5000)),
        iterations=draw(st.integers(0, 40)),
        zone=draw(st.sampled_from(["UTC", "America/Los_Angeles", "+05:30"])),
    )


@given(result=_results())
def test_the_pieces_bound_the_rendering(result: NavigationResult) -> None:
    """The sum of a result's pieces, each costed alone, is at least what the whole result
    costs in each rendering: the fit may add them up instead of rendering every choice."""
    rendered = _costs(result, estimate_tokens)
    assert rendered.within(_pieces(result, estimate_tokens))


@given(result=_results())
def test_the_pieces_are_the_rendering_in_characters(result: NavigationResult) -> None:
    """Counted in characters, the pieces are the JSON to the character (but the separator
    after the last segment) and the Markdown but the lines a piece may say that the whole
    does not (the note that the path was left out, the closing lines of the other kind)."""
    rendered = _costs(result, _characters)
    pieces = _pieces(result, _characters)
    assert pieces.json - rendered.json == (2 if result.evidence else 0)
    path_note = len(", path left out") if result.steps and result.iterations else 0
    closing = len(f", times {result.zone}\n{EXPAND_EVENT}{EVENT_REFS_NOTE}\n")
    assert path_note <= pieces.markdown - rendered.markdown <= path_note + closing


@st.composite
def _offers(
    draw: st.DrawFn, least: int = 200
) -> tuple[NavigationResult, list[Evidence], int, bool]:
    """A walk's result to fit (any reason, a path or none), what it offers, a budget of at
    least ``least`` tokens and whether the full path was asked for."""
    budget = draw(st.integers(least, 2000))
    reason = draw(st.just("") | st.just(EXPLAINED) | sentences)
    steps = draw(st.just(()) | navigation_steps())
    result = attrs.evolve(_fitted(reason, budget, []), steps=steps)
    return (
        result,
        draw(st.lists(_items, max_size=12)),
        budget,
        draw(st.booleans()),
    )


@given(case=_offers())
def test_an_answer_fits_without_trimming(
    case: tuple[NavigationResult, list[Evidence], int, bool],
) -> None:
    """Whatever the offer, the budget and the path, the fitted answer is within its budget in
    both renderings, its pieces add up within it too (so the final measure had nothing to
    trim), and the reason counts the items returned when not all were."""
    result, offered, budget, full_path = case
    fitted = fit(
        result, offered, budget=budget, estimator=estimate_tokens, full_path=full_path, note=_note
    )
    assert rendered_tokens(fitted) <= fitted.tokens_used <= budget
    assert _pieces(attrs.evolve(fitted, tokens_used=budget), estimate_tokens).widest <= budget
    shaped = len(fitted.evidence)
    assert fitted.partial == (shaped < len(offered))
    if shaped < len(offered):
        assert fitted.reason.endswith(_note(shaped, len(offered)))


@given(case=_offers())
def test_a_run_says_its_title_and_conversation_once(
    case: tuple[NavigationResult, list[Evidence], int, bool],
) -> None:
    """Every item of a run of one segment says the title and conversation its run's first
    item says (the segment's, or none when that item left them to its ids), so that the
    heading says them for the whole run in both renderings."""
    result, offered, budget, full_path = case
    fitted = fit(
        result, offered, budget=budget, estimator=estimate_tokens, full_path=full_path, note=_note
    )
    said: dict[str, tuple[str, str, str]] = {}
    for item in fitted.evidence:
        shown = (item.segment_title, item.project, item.session_id)
        assert said.setdefault(item.segment_id, shown) == shown


@given(case=_offers())
def test_every_event_an_answer_cites_is_offered_and_resolves(
    case: tuple[NavigationResult, list[Evidence], int, bool],
) -> None:
    """Whatever the offer and the budget, the fitted answer reads back from its JSON as it
    was, cites in its Markdown the events its JSON cites (references filled into their
    segment's pattern), and every event and segment it cites is one that was offered."""
    result, offered, budget, full_path = case
    fitted = fit(
        result, offered, budget=budget, estimator=estimate_tokens, full_path=full_path, note=_note
    )
    back = NavigationResult.from_dict(json.loads(json.dumps(fitted.to_dict(), ensure_ascii=False)))
    assert back == fitted
    events = [
        event_id
        for item in back.evidence
        if item.kind is EvidenceKind.EVENT
        for event_id in item.event_ids
    ]
    assert cited_event_ids(fitted.to_markdown()) == tuple(events)
    assert {event_id for item in back.evidence for event_id in item.event_ids} <= {
        event_id for item in offered for event_id in item.event_ids
    }
    assert {item.segment_id for item in back.evidence} <= {item.segment_id for item in offered}


@given(result=_results())
def test_the_pieces_add_up_to_the_rendering_to_the_character(result: NavigationResult) -> None:
    """For the default estimator the fit counts a result's characters from its pieces
    instead of rendering it: the count is each rendering's length, to the character."""
    meter = _Meter(estimate_tokens, result.zone)
    meter.frame(result, result.tokens_used, reason=result.reason, partial=result.partial)
    shape = _Shape(result.steps, result.evidence, result.reason, result.partial)
    assert meter.shape_characters(shape) == _costs(result, _characters)
    assert meter.showing(result, shape) == _costs(result, estimate_tokens)


@given(case=_offers(least=120))
def test_counting_characters_chooses_what_rendering_chooses(
    case: tuple[NavigationResult, list[Evidence], int, bool],
) -> None:
    """The fit with the default estimator (its pieces' characters added up) returns the
    same answer, to its count of tokens, as with the same estimator under another name
    (every choice confirmed by rendering it)."""
    result, offered, budget, full_path = case

    def rendering(text: str) -> int:
        return estimate_tokens(text)

    counted, rendered = (
        fit(result, offered, budget=budget, estimator=e, full_path=full_path, note=_note)
        for e in (estimate_tokens, rendering)
    )
    assert counted == rendered


@given(items=st.lists(_items, min_size=2, max_size=4), first=st.booleans(), shortened=st.booleans())
def test_an_item_costs_what_any_estimator_adds_up(
    items: list[Evidence], first: bool, shortened: bool
) -> None:
    """An item's cost in its place, after its run's first item, is the same in tokens whether
    the meter counts characters or not: an item that makes its run write its id pattern adds
    that pattern's tokens as any estimator's are added, so the two choose alike."""
    opener, *later = items

    def rendering(text: str) -> int:
        return estimate_tokens(text)

    counting, other = _Meter(estimate_tokens, "UTC"), _Meter(rendering, "UTC")
    for item in later:
        assert counting.item(item, opener=opener, first=first, shortened=shortened) == other.item(
            item, opener=opener, first=first, shortened=shortened
        )


@given(steps=navigation_steps())
def test_the_least_a_path_takes_is_at_most_its_json(steps: tuple[NavigationStep, ...]) -> None:
    """The characters a path is told to take at the least, without writing it, are at most
    those of the JSON the fit counts for it (the text of its piece)."""
    written = '"steps": ' + json.dumps(step_dicts(steps), ensure_ascii=False) + ", "
    assert _least_path_characters(steps) <= len(written)


@given(
    steps=navigation_steps(),
    room=st.builds(_Cost, st.integers(0, 1500), st.integers(0, 1500)),
    costed=st.booleans(),
)
def test_a_path_sure_not_to_fit_does_not_fit(
    steps: tuple[NavigationStep, ...], room: _Cost, costed: bool
) -> None:
    """A path the meter is sure cannot fit a room, costed or told by its least, does not fit
    it as costed; with another estimator nothing not costed is ruled out."""
    meter = _Meter(estimate_tokens, "UTC")
    if costed:
        meter.path(steps)
    if meter.path_exceeds(steps, room):
        assert not meter.path(steps).within(room)
    other = _Meter(_characters, "UTC")
    assert not other.path_exceeds(steps, room)


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | tricky_texts | any_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(any_text, inner, max_size=4),
    max_leaves=12,
)


@given(data=_json_values)
def test_a_piece_is_written_as_json_dumps_writes_it(data: object) -> None:
    """The fit writes a piece's JSON (by the encoder's core, made once) exactly as
    ``json.dumps(data, ensure_ascii=False)`` does, floats that are not numbers and lone
    surrogates among it."""
    assert _json(data) == json.dumps(data, ensure_ascii=False)


# Items of any length, up to forty times their text.
_long_items = st.builds(
    lambda item, repeats: attrs.evolve(item, text=" ".join([item.text] * repeats)),
    _items,
    st.integers(1, 40),
)


def _words(text: str) -> int:
    """An estimator that counts words, and does not add up over the pieces of a rendering."""
    return len(text.split()) + 1


def _kept(evidence: Sequence[Evidence]) -> Counter[tuple[object, ...]]:
    """Which offered items ``evidence`` holds, in whatever form (whole, lean, slim or
    clipped): what every form of an item keeps of it."""
    return Counter(
        (item.segment_id, item.kind, item.field, item.score, item.start_time, item.end_time)
        for item in evidence
    )


@given(
    result=st.builds(
        lambda reason, steps: attrs.evolve(_fitted(reason, 200, []), steps=steps),
        st.just("") | st.just(EXPLAINED) | sentences,
        st.just(()) | navigation_steps(),
    ),
    # Any items, or a dozen of one length: there a path summary the budget's tenth just
    # admits would take one's room.
    offered=st.lists(_long_items, max_size=16) | st.integers(2, 14).map(_offered),
    budget=st.integers(120, 1500),
    far=st.integers(1, 6000),
    estimator=st.sampled_from([estimate_tokens, _characters, _words]),
)
def test_a_larger_budget_keeps_the_evidence_a_smaller_one_kept(
    result: NavigationResult,
    offered: list[Evidence],
    budget: int,
    far: int,
    estimator: TokenEstimator,
) -> None:
    """Every item the fit keeps at a budget, in any form, it keeps at every larger budget:
    the best evidence is taken in order, a short item further down never takes the place of
    a longer one before it, and a path that takes an item's room gives way to the item.
    Checked at budgets a few tokens apart (between two of them a path summary may come to
    fit the budget's tenth) and at one far larger."""
    kept = [
        _kept(
            fit(
                result, offered, budget=b, estimator=estimator, full_path=False, note=_note
            ).evidence
        )
        for b in [*range(budget, budget + 1000, 9), budget + 1000 + far]
    ]
    assert all(not smaller - larger for smaller, larger in itertools.pairwise(kept))


@given(
    result=st.builds(
        lambda reason, steps: attrs.evolve(_fitted(reason, 200, []), steps=steps),
        st.just("") | st.just(EXPLAINED) | sentences,
        navigation_steps(),
    ),
    offered=st.lists(_long_items, min_size=1, max_size=16),
    budget=st.integers(120, 1500),
    extra=st.integers(1, 40) | st.integers(1, 6000),
)
def test_a_larger_budget_keeps_the_best_item_beside_the_full_path(
    result: NavigationResult, offered: list[Evidence], budget: int, extra: int
) -> None:
    """With the full path asked for, the path comes first and may take more of a larger
    budget than the evidence it left room for; the best item a budget keeps, every larger
    budget keeps too."""
    small, large = (
        fit(result, offered, budget=b, estimator=estimate_tokens, full_path=True, note=_note)
        for b in (budget, budget + extra)
    )
    assert not _kept(small.evidence[:1]) - _kept(large.evidence)
