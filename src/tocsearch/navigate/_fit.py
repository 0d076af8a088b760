"""Fitting a navigation result to its token budget: the budget bounds what the caller gets.

The result is measured as it is rendered, by the navigator's estimator: its JSON (what
:meth:`~tocsearch.navigate.NavigationResult.to_dict` gives, serialised as the agent tools and
the CLI serialise it) and its Markdown (:meth:`~tocsearch.navigate.NavigationResult.to_markdown`
with the path). Neither may exceed the budget. Within it:

1. the frame: the query, its time hints and terms, how the walk ended, the counters;
2. the path, one step per phase within a tenth of the budget (or the full path when the
   caller asked for it);
3. the evidence, best first, in order: every candidate up to the first that does not fit
   whole, which is taken lean (without what its ids lead back to) or, an event too long for
   what is left, clipped to fit (and marked so), and ends the evidence; when not all fit,
   the items without what can be worked out again or looked up by id (matched terms, the
   grips of an event, the titles and conversations of the segments), if that returns more
   of them. When not every item fits, the answer with the path in the evidence's leftover
   room is taken too, if it returns more: a path summary that a budget's tenth just admits
   never takes an item's room. So a larger budget never keeps less of the best evidence:
   what a budget keeps, every larger budget keeps too (with the full path asked for, which
   comes first and grows with the budget, the best item). Each item is costed as it is
   rendered: its segment's heading with a segment's first item, the Markdown's closing line
   with the first of all;
4. with room left, the full path in place of the one-step-per-phase summary.

Every piece is costed once, as the text it adds to each rendering: the frame (the result
without path or evidence, at its widest: the budget as its count, the longer status), each
candidate path, each item as it reads in its place, the note that says how many items fit.
The choice adds the pieces up; the whole result is measured once at the end to confirm, and
trimmed only if the sum was off. For the default estimator,
:func:`~tocsearch.text.estimate_tokens`, which counts characters, the sum is an upper bound
of the rendering's cost, so the confirmation trims nothing, and the pieces' characters add up
to the renderings' exactly, so the result is measured without being rendered. Another
estimator may not add up: the result is rendered to confirm, and the confirmation trims.

The chosen items are returned grouped by segment (:func:`grouped`), as both renderings show
them.
"""

from __future__ import annotations

import json
import json.encoder
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import attrs

from tocsearch._clock import parse_zone
from tocsearch.errors import InvalidArgument
from tocsearch.navigate._event_refs import id_pattern, item_ref, sole_event
from tocsearch.navigate._evidence_json import compact_item, segment_group, written_group
from tocsearch.navigate.result import (
    ELIDED_PATH_NOTE,
    EMPTY_EVIDENCE,
    EVENT_REFS_NOTE,
    EXPAND_EVENT,
    EXPAND_GRIP,
    Evidence,
    EvidenceKind,
    NavigationResult,
    NavigationStep,
    StepPhase,
    evidence_dict,
    evidence_line,
    frame_markdown,
    path_markdown,
    run_markdown,
    step_dicts,
)
from tocsearch.text import (
    ELLIPSIS,
    TokenEstimator,
    clip,
    estimate_tokens,
    tokens_for_characters,
)

__all__ = ["compact_path", "fit", "frame_cost", "grouped"]

# The shortest clipped event worth returning, in characters of its text; and the shortest
# when nothing else would be returned at all.
_SHORTEST_CLIP = 120
_SHORTEST_LEAN_CLIP = 40
# Below this many tokens left in either rendering no item fits (its ids alone take more).
_SMALLEST_ITEM = 8
# Characters of a scope or reason kept in the one-step-per-phase path, and in its terse form
# (which drops the reasons) for small budgets.
_COMPACT_TEXT = 80
_TERSE_TEXT = 40
# The share of the budget the path may take before the evidence is chosen (the full path on
# request may take it all); what the evidence leaves may widen the path afterwards.
_PATH_SHARE = 0.1


# What json.dumps(data, ensure_ascii=False) writes, by one encoder: dumps makes a new one for
# every call with an option, and a fit writes a dozen small pieces an answer. The pieces are
# made from records, never circular: the encoder need not track the containers it is in.
_ENCODER = json.JSONEncoder(ensure_ascii=False, check_circular=False)


def _c_encoder() -> Callable[[Any, int], Iterable[str]] | None:
    """The C core of :data:`_ENCODER`, made as its ``encode`` makes it (with the same
    arguments); None where the json module has none or makes it otherwise."""
    make: Callable[..., Callable[[Any, int], Iterable[str]]] | None = getattr(
        json.encoder, "c_make_encoder", None
    )
    if make is None:
        return None
    try:
        return make(
            None,
            _ENCODER.default,
            json.encoder.encode_basestring,
            None,
            _ENCODER.key_separator,
            _ENCODER.item_separator,
            _ENCODER.sort_keys,
            _ENCODER.skipkeys,
            _ENCODER.allow_nan,
        )
    except TypeError:
        return None


# ``encode`` makes its C core (and a closure for floats) again on every call, which costs
# more than writing a small piece: it is made once.
_C_ENCODER = _c_encoder()


def _json(data: Any) -> str:
    """``json.dumps(data, ensure_ascii=False)``."""
    if _C_ENCODER is None:
        return _ENCODER.encode(data)
    return "".join(_C_ENCODER(data, 0))


# Not frozen: a fit makes dozens of costs, and a frozen class's __init__ sets each field
# through object.__setattr__. None is ever changed.
@attrs.define
class _Cost:
    """Tokens of the two renderings, JSON and Markdown, each of which must fit the budget."""

    json: int
    markdown: int

    def __add__(self, other: _Cost) -> _Cost:
        return _Cost(self.json + other.json, self.markdown + other.markdown)

    def __sub__(self, other: _Cost) -> _Cost:
        return _Cost(self.json - other.json, self.markdown - other.markdown)

    def within(self, room: _Cost) -> bool:
        return self.json <= room.json and self.markdown <= room.markdown

    @property
    def widest(self) -> int:
        return max(self.json, self.markdown)


_NOTHING = _Cost(0, 0)


@attrs.frozen
class _Shape:
    """What a fit chose to show of a result: its path, its evidence, its reason and whether
    it is partial; made into the result (:meth:`shown`) once its count is known."""

    steps: tuple[NavigationStep, ...]
    evidence: tuple[Evidence, ...]
    reason: str
    partial: bool

    def shown(self, result: NavigationResult, tokens_used: int) -> NavigationResult:
        """``result`` showing this, counting ``tokens_used``."""
        return attrs.evolve(
            result,
            steps=self.steps,
            evidence=self.evidence,
            reason=self.reason,
            partial=self.partial,
            tokens_used=tokens_used,
        )


# The Markdown's last line when it cites statements with grips and no event.
_GRIPS_CLOSING = f"\n{EXPAND_GRIP}\n"


def _tokens_of(characters: _Cost) -> _Cost:
    """:func:`~tocsearch.text.estimate_tokens` of texts of so many characters."""
    return _Cost(tokens_for_characters(characters.json), tokens_for_characters(characters.markdown))


def _costs(result: NavigationResult, estimator: TokenEstimator) -> _Cost:
    return _Cost(estimator(_json(result.to_dict())), estimator(result.to_markdown()))


def frame_cost(result: NavigationResult, estimator: TokenEstimator) -> int:
    """The tokens ``result`` takes without steps or evidence, in the larger rendering."""
    return _costs(attrs.evolve(result, steps=(), evidence=()), estimator).widest


def _prefix(text: str, limit: int) -> str:
    """The start of an event's raw text, at most ``limit`` characters with the ellipsis that
    marks the cut (unlike :func:`~tocsearch.text.clip`, white space is kept as it was)."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(ELLIPSIS))] + ELLIPSIS


def compact_path(
    steps: Sequence[NavigationStep], *, text: int = _COMPACT_TEXT
) -> tuple[NavigationStep, ...]:
    """One step per phase, in the order the phases began: the first scope, the totals of what
    was searched and matched, and the last reason, each clipped to ``text`` characters (no
    reason at all when ``text`` is below :data:`_TERSE_TEXT`); no per-node matches."""
    groups: dict[StepPhase, list[NavigationStep]] = {}
    for step in steps:
        # A drill and a backtrack are one phase of the descent.
        key: StepPhase = StepPhase.DRILL if step.phase is StepPhase.BACKTRACK else step.phase
        groups.setdefault(key, []).append(step)
    compact: list[NavigationStep] = []
    for number, (phase, members) in enumerate(groups.items(), start=1):
        first, last = members[0], members[-1]
        scope = clip(first.scope, text)
        if len(members) > 1:
            scope += f" (+{len(members) - 1})"
        compact.append(
            NavigationStep(
                number=number,
                phase=phase,
                level=last.level,
                scope=scope,
                parent_ids=(),
                searched=sum(step.searched for step in members),
                matched=sum(step.matched for step in members),
                matches=(),
                chosen=None,
                reason=clip(last.reason, text) if text >= _TERSE_TEXT else "",
            )
        )
    return tuple(compact)


# A step's JSON and a match's with every text empty and every number one digit: what each
# writes besides its texts, at the least (a step's empty keys left out, a match's kept).
_STEP_FRAME = len(
    _json(
        {
            "number": 0,
            "phase": "",
            "level": "",
            "scope": "",
            "searched": 0,
            "matched": 0,
            "reason": "",
        }
    )
)
_MATCH_FRAME = len(
    _json({"node_id": "", "title": "", "score": 0, "field": "", "text": "", "event_id": ""})
)
# What the steps' piece writes around them ('"steps": [', '], '), a step's matches around
# them (', "matches": []'), and between two of either.
_STEPS_AROUND = len('"steps": [], ')
_MATCHES_AROUND = len(', "matches": []')
_BETWEEN = len(", ")


def _least_path_characters(steps: Sequence[NavigationStep]) -> int:
    """A lower bound of the characters :meth:`_Meter.path` counts for ``steps`` in the JSON:
    their texts as they are (escaping only lengthens one), the keys and punctuation each step
    and match always writes, each number one digit."""
    characters = _STEPS_AROUND + _BETWEEN * (len(steps) - 1)
    for step in steps:
        characters += _STEP_FRAME + len(step.phase.value) + len(step.level.value)
        characters += len(step.scope) + len(step.reason)
        matches = step.matches
        if matches:
            characters += _MATCHES_AROUND + _BETWEEN * (len(matches) - 1)
            for match in matches:
                characters += _MATCH_FRAME + len(match.node_id) + len(match.title)
                characters += len(match.text) + len(match.event_id or "")
    return characters


class _Paths:
    """The full path and its two summaries (:func:`compact_path`, then its terse form), in
    that order, each summary made when it is first asked for."""

    def __init__(self, full: tuple[NavigationStep, ...]) -> None:
        self._forms = [full]

    def __getitem__(self, index: int) -> tuple[NavigationStep, ...]:
        forms = self._forms
        while len(forms) <= min(index, 2):
            text = _COMPACT_TEXT if len(forms) == 1 else _TERSE_TEXT - 1
            forms.append(compact_path(forms[0], text=text))
        return forms[index]

    def __iter__(self) -> Iterator[tuple[NavigationStep, ...]]:
        return (self[index] for index in range(3))

    def summaries(self) -> Iterator[tuple[NavigationStep, ...]]:
        """The two summaries, one step per phase."""
        return (self[index] for index in range(1, 3))


class _Meter:
    """What the pieces of a result add to its renderings, each measured once: the frame, a
    path, an item (as it reads after its segment's first item, ``opener``, or with its
    segment's heading when it is the first; with the Markdown's closing, the events' clock
    and the last line, when it is the first item of all)."""

    def __init__(self, estimator: TokenEstimator, zone: str) -> None:
        self.estimator = estimator
        # The clock the Markdown shows times on: a local date can be longer to write.
        self.zone = parse_zone(zone)
        self._known: dict[tuple[Evidence, Evidence | None, bool, bool], _Cost] = {}
        self._paths: dict[int, tuple[tuple[NavigationStep, ...], _Cost]] = {}
        self._frame: tuple[NavigationResult, NavigationResult, dict[str, Any]] | None = None
        self._budget = 0
        self._frames: dict[tuple[str, bool], _Cost] = {}
        self._lean: dict[Evidence, Evidence] = {}
        self._dicts: dict[Evidence, dict[str, Any]] = {}
        self._least: dict[tuple[Evidence, Evidence | None, bool, bool], tuple[_Cost, ...]] = {}
        self._patterns: dict[Evidence, str | None] = {}
        self._fits: dict[tuple[Evidence, Evidence], bool] = {}
        self._groups: dict[tuple[Evidence, str | None], dict[str, Any]] = {}
        self._switches: dict[Evidence, tuple[_Cost, _Cost]] = {}
        self._openings: dict[Evidence, tuple[str, str]] = {}
        self._slim: tuple[Sequence[Evidence], list[Evidence]] | None = None
        self.nothing_found = _Cost(0, estimator(EMPTY_EVIDENCE))
        # The status line names the events' clock, and a last line says how to expand.
        self._events_closing = f", times {zone}\n{EXPAND_EVENT}\n"
        # ... with a note on references when a segment's events are cited by them.
        self._refs_closing = f", times {zone}\n{EXPAND_EVENT}{EVENT_REFS_NOTE}\n"
        self._closing = max(estimator(self._refs_closing), estimator(_GRIPS_CLOSING))
        # For the default estimator, which counts characters, the characters of each piece
        # (the frame by reason and status, a path, an item in its place without the closing
        # lines): they add up to the renderings exactly (see :meth:`showing`).
        self._counts_characters = estimator is estimate_tokens
        self._characters: dict[object, _Cost] = {}

    def frame(self, result: NavigationResult, budget: int, *, reason: str, partial: bool) -> _Cost:
        """``result`` without path or evidence (nor what comes with its first item: the
        events' clock, the last line), with ``reason`` and ``partial`` and the budget as its
        count, the widest number it can show. Its JSON is made once for every reason."""
        if self._frame is None or self._frame[0] is not result or self._budget != budget:
            frame = attrs.evolve(result, steps=(), evidence=(), tokens_used=budget)
            self._frame = (result, frame, frame.to_dict())
            self._budget = budget
            self._frames.clear()
        known = self._frames.get((reason, partial))
        if known is not None:
            return known
        _, frame, data = self._frame
        shown = frame
        if (reason, partial) != (frame.reason, frame.partial):
            shown = attrs.evolve(frame, reason=reason, partial=partial)
        cost = self._frames[reason, partial] = self._measured(
            ("frame", reason, partial),
            _json({**data, "partial": partial, "reason": reason}),
            frame_markdown(shown),
        )
        return cost

    def _measured(self, key: object, json_text: str, markdown: str) -> _Cost:
        """What the two texts of a piece cost; their characters are kept under ``key`` when
        the estimator counts characters."""
        if self._counts_characters:
            characters = self._characters[key] = _Cost(len(json_text), len(markdown))
            return _tokens_of(characters)
        return _Cost(self.estimator(json_text), self.estimator(markdown))

    def path(self, steps: tuple[NavigationStep, ...]) -> _Cost:
        """What ``steps`` add to a result without a path."""
        if not steps:
            return _NOTHING
        known = self._paths.get(id(steps))
        if known is not None and known[0] is steps:
            return known[1]
        shown = '"steps": ' + _json(step_dicts(steps)) + ", "
        cost = self._measured(("path", id(steps)), shown, path_markdown(steps))
        self._paths[id(steps)] = (steps, cost)
        return cost

    def path_exceeds(self, steps: tuple[NavigationStep, ...], room: _Cost) -> bool:
        """Whether ``steps`` are sure not to fit ``room``: as costed already, or for the
        default estimator by the least their JSON can take (:func:`_least_path_characters`),
        without writing it. A full path too long for what the evidence left is not costed."""
        known = self._paths.get(id(steps))
        if known is not None and known[0] is steps:
            return not known[1].within(room)
        # No path costs nothing; another estimator's tokens are not bounded by characters.
        if not steps or not self._counts_characters:
            return False
        return tokens_for_characters(_least_path_characters(steps)) > room.json

    def item(
        self,
        item: Evidence,
        *,
        opener: Evidence | None,
        first: bool,
        shortened: bool = False,
    ) -> _Cost:
        """What ``item`` adds in its place: as its segment's first item (``opener`` None), or
        after ``opener``, its event cited by its reference when it fits the opener's pattern.
        ``shortened`` says whether the run already writes the pattern: when not, an item that
        fits it also pays for writing it (see :meth:`switch`)."""
        key = (item, opener, first, shortened)
        known = self._known.get(key)
        if known is not None:
            return known
        if opener is None:
            group_json, lines = self._opening(item, None)
            cost = self._measured(key, group_json + ", ", lines + "\n\n")
        else:
            # Its JSON leaves out what the opener's group says (the title); its Markdown line
            # gives the date only when it differs from the opener's.
            pattern = self.pattern(opener) if self.fits(item, opener) else None
            shown = compact_item(self._dict(item), self._group(opener, pattern))
            line = evidence_line(item, opener, self.zone, pattern)
            cost = self._measured(key, _json(shown) + ", ", line + "\n")
            if pattern is not None and not shortened:
                characters, switch = self.switch(opener)
                if self._counts_characters:
                    self._characters[key] += characters
                # Its tokens are added as any estimator's are, not made from the characters
                # added up: counting characters chooses what rendering would.
                cost += switch
        if first:
            cost += _Cost(0, self._closing)
        self._known[key] = cost
        return cost

    def pattern(self, opener: Evidence) -> str | None:
        """The event id pattern a run that ``opener`` begins may write, made once."""
        try:
            return self._patterns[opener]
        except KeyError:
            sole = sole_event(opener.kind.value, opener.event_ids)
            pattern = self._patterns[opener] = None if sole is None else id_pattern(sole)
            return pattern

    def fits(self, item: Evidence, opener: Evidence) -> bool:
        """Whether ``item``, after ``opener`` in its run, is cited by a reference: its one
        event fits the pattern of the opener's. Known once asked (the fit asks it of an item
        as it costs it, as it takes it and as it adds up the answer)."""
        key = (item, opener)
        known = self._fits.get(key)
        if known is None:
            pattern = self.pattern(opener)
            known = self._fits[key] = (
                pattern is not None
                and item_ref(pattern, item.kind.value, item.event_ids) is not None
            )
        return known

    def _group(self, opener: Evidence, pattern: str | None) -> dict[str, Any]:
        """:func:`segment_group` of the run ``opener`` begins, writing ``pattern``, made once
        (its later items are written in it; it is read, never changed)."""
        key = (opener, pattern)
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = segment_group(self._dict(opener), pattern)
        return group

    def switch(self, opener: Evidence) -> tuple[_Cost, _Cost]:
        """What writing its pattern adds to a run that ``opener`` begins (the pattern in the
        group and the heading, the opener's reference for its id), in characters and in
        tokens: paid once, by the first later item that fits it."""
        known = self._switches.get(opener)
        if known is not None:
            return known
        plain_json, plain_markdown = self._opening(opener, None)
        short_json, short_markdown = self._opening(opener, self.pattern(opener))
        characters = _Cost(
            len(short_json) - len(plain_json), len(short_markdown) - len(plain_markdown)
        )
        estimator = self.estimator
        tokens = _Cost(
            estimator(short_json) - estimator(plain_json),
            estimator(short_markdown) - estimator(plain_markdown),
        )
        known = self._switches[opener] = (characters, tokens)
        return known

    def _opening(self, item: Evidence, pattern: str | None) -> tuple[str, str]:
        """The JSON group and the Markdown lines of a run that ``item`` begins and ends,
        writing ``pattern``; without one they are made once (its cost as its run's first
        item, and what writing its pattern adds to that)."""
        known = self._openings.get(item) if pattern is None else None
        if known is not None:
            return known
        data = self._dict(item)
        group = segment_group(data, pattern)
        group["evidence"] = [compact_item(data, group)]
        texts = (
            _json(written_group(group)),
            "\n".join(run_markdown([item], self.zone, pattern)),
        )
        if pattern is None:
            self._openings[item] = texts
        return texts

    def showing(self, result: NavigationResult, shape: _Shape) -> _Cost:
        """What ``result`` costs in each rendering showing ``shape``: this meter's frame (the
        result last given to :meth:`frame`, the budget as its count) with the path, evidence,
        reason and status of ``shape``.

        For an estimator that counts characters, the characters of its pieces add up to each
        rendering exactly (:meth:`shape_characters`), so it is not rendered: the JSON is the
        frame, the path and each item in its place, less the separator after the last
        segment; the Markdown is the frame (less its note that the path was left out, when a
        path is shown), the path, each item in its place and the closing lines of the
        evidence's kind (or the line that says nothing was found). Otherwise the result is
        rendered and measured.
        """
        characters = self.shape_characters(shape)
        if characters is None:
            return _costs(shape.shown(result, self._budget), self.estimator)
        return _tokens_of(characters)

    def shape_characters(self, shape: _Shape) -> _Cost | None:
        """The characters of each rendering of ``shape`` on this meter's frame (see
        :meth:`showing`); None when this meter does not count characters."""
        base = self._frame
        if not self._counts_characters or base is None:
            return None
        self.frame(base[0], self._budget, reason=shape.reason, partial=shape.partial)
        characters = self._characters
        total = characters["frame", shape.reason, shape.partial]
        steps = shape.steps
        if steps:
            self.path(steps)
            total += characters["path", id(steps)]
            if base[0].iterations:
                total -= _Cost(0, len(ELIDED_PATH_NOTE))
        evidence = shape.evidence
        if not evidence:
            return total + _Cost(0, len(EMPTY_EVIDENCE))
        # Each run of one segment's items is one group, under its first item's heading.
        run = evidence[0]
        shortened = any_shortened = False
        for index, item in enumerate(evidence):
            opener = run if index and run.segment_id == item.segment_id else None
            if opener is None:
                run, shortened = item, False
            self.item(item, opener=opener, first=index == 0, shortened=shortened)
            total += characters[item, opener, index == 0, shortened]
            if opener is not None and not shortened and self.fits(item, opener):
                shortened = any_shortened = True
        if any_shortened:
            closing = len(self._refs_closing)
        elif any(item.kind is EvidenceKind.EVENT for item in evidence):
            closing = len(self._events_closing)
        elif any(item.grip_ids for item in evidence):
            closing = len(_GRIPS_CLOSING)
        else:
            closing = 0
        return total + _Cost(-2, closing)

    def _dict(self, item: Evidence) -> dict[str, Any]:
        """:func:`evidence_dict` of ``item``, made once (it is read, never changed)."""
        data = self._dicts.get(item)
        if data is None:
            data = self._dicts[item] = evidence_dict(item)
        return data

    def lean(self, item: Evidence, opener: Evidence | None = None) -> Evidence:
        """:func:`_lean` of ``item``, made once; after ``opener`` in its run, with the title
        and conversation the run's heading says (:func:`_in_run`): left out of a later item,
        they would be written as its own."""
        lean = self._lean.get(item)
        if lean is None:
            lean = self._lean[item] = _lean(item)
        return lean if opener is None else _in_run(lean, opener)

    def least(
        self, item: Evidence, *, opener: Evidence | None, first: bool, shortened: bool
    ) -> tuple[_Cost, ...]:
        """What the smallest forms :func:`_taken` may return of ``item`` cost: whole and lean
        (a lean item may say more than a whole one after its segment's first item: that its
        title is empty), each clipped to the shortest clip when it is an event. No form fits
        where none of these does (for an estimator that does not shrink as text grows; the
        final measure checks)."""
        key = (item, opener, first, shortened)
        least = self._least.get(key)
        if least is None:
            forms = dict.fromkeys([item, self.lean(item, opener)])
            least = self._least[key] = tuple(
                self.item(_shortest(form), opener=opener, first=first, shortened=shortened)
                for form in forms
            )
        return least

    def slimmed(self, offered: Sequence[Evidence]) -> list[Evidence]:
        """:func:`_slimmed` of ``offered``, made once."""
        if self._slim is None or self._slim[0] is not offered:
            self._slim = (offered, _slimmed(offered))
        return self._slim[1]


def _fill(offered: Sequence[Evidence], room: _Cost, meter: _Meter) -> tuple[list[Evidence], _Cost]:
    """The items of ``offered`` that fit in ``room``, best first, and what they cost: every
    item up to the first that does not fit as it is, which is taken lean (without what its
    ids lead back to) or, an event, clipped when it fits so, and is the last. The first item
    of a segment also pays for its segment's heading.

    What is taken is a run of the best items that grows with ``room``: an item kept in some
    room is kept in any larger one. Passing over an item to take a shorter one after it
    would not be: more room would take the longer one and leave none for the shorter."""
    chosen: list[Evidence] = []
    openers: dict[str, Evidence] = {}
    # The segments whose runs write their event id pattern already.
    shortened: set[str] = set()
    used = _NOTHING
    for item in offered:
        left = room - used
        if min(left.json, left.markdown) < _SMALLEST_ITEM:
            break
        segment = item.segment_id
        opener = openers.get(segment)
        if opener is not None:
            item = _in_run(item, opener)
        first = not chosen
        taken = _taken(
            item, left, meter, opener=opener, first=first, shortened=segment in shortened
        )
        if taken is None:
            break
        chosen.append(taken[0])
        used += taken[1]
        if taken[0] is not item:
            # Lean or clipped: more room would take it whole, and cost more, before the next.
            break
        if opener is None:
            openers[segment] = item
        elif meter.fits(item, opener):
            shortened.add(segment)
    return chosen, used


def _in_run(item: Evidence, opener: Evidence) -> Evidence:
    """``item`` as it is taken into the run of its segment that ``opener`` begins: with the
    title and conversation the opener says (the segment's, or none when the opener left them
    to its ids), so that the run says them once, in its heading, in both renderings."""
    said = (opener.segment_title, opener.project, opener.session_id)
    if (item.segment_title, item.project, item.session_id) == said:
        return item
    return attrs.evolve(item, segment_title=said[0], project=said[1], session_id=said[2])


def _taken(
    item: Evidence,
    left: _Cost,
    meter: _Meter,
    *,
    opener: Evidence | None,
    first: bool,
    shortened: bool,
) -> tuple[Evidence, _Cost] | None:
    """The form of ``item`` that fits ``left`` and what it costs, None when none does: whole,
    then lean, then clipped whole, then clipped lean."""
    cost = meter.item(item, opener=opener, first=first, shortened=shortened)
    if cost.within(left):
        return item, cost
    place: dict[str, Any] = {"opener": opener, "first": first, "shortened": shortened}
    if not any(least.within(left) for least in meter.least(item, **place)):
        return None
    lean = meter.lean(item, opener)
    forms = [item]
    if lean != item:
        forms.append(lean)
        cost = meter.item(lean, **place)
        if cost.within(left):
            return lean, cost
    for form in forms:
        clipped = _clipped(form, left, meter, **place)
        if clipped is not None:
            return clipped, meter.item(clipped, **place)
    return None


def _shortest(item: Evidence) -> Evidence:
    """``item`` clipped to the shortest clip :func:`_fill` takes, when it is a longer event."""
    if item.kind is not EvidenceKind.EVENT or len(item.text) <= _SHORTEST_CLIP:
        return item
    return attrs.evolve(item, text=_prefix(item.text, _SHORTEST_CLIP), clipped=True)


def grouped(evidence: Sequence[Evidence]) -> tuple[Evidence, ...]:
    """``evidence`` with the items of each segment together, segments in the order of their
    best item and items in their order within it: how the result is shown, one heading per
    segment."""
    runs: dict[str, list[Evidence]] = {}
    for item in evidence:
        runs.setdefault(item.segment_id, []).append(item)
    return tuple(item for run in runs.values() for item in run)


def _slimmed(offered: Sequence[Evidence]) -> list[Evidence]:
    """``offered`` without what can be worked out again or looked up by id: every item's
    matched terms (the query's terms in its text), the grips of every event (those of its
    segment whose range holds it: expanding the event shows the conversation around it as
    well), and the title and conversation (project and session) of every segment.

    The best segment's title and conversation go too: said once in an answer they cost as
    much as an event of evidence (at 500 tokens, a tenth of the budget), and its segment's id
    leads back to them."""
    slim: list[Evidence] = []
    for item in offered:
        # An event's id leads to the conversation around it as its grips do.
        grips = () if item.kind is EvidenceKind.EVENT else item.grip_ids
        slim.append(
            attrs.evolve(
                item,
                grip_ids=grips,
                matched_terms=(),
                segment_title="",
                project="",
                session_id="",
            )
        )
    return slim


def _lean(item: Evidence) -> Evidence:
    """``item`` without what can be looked up again from its ids: its segment's title and
    conversation (project and session), its matched terms, an event's grips, and a statement's
    events when it has grips (they are the events of the grips' ranges)."""
    bare = attrs.evolve(item, segment_title="", project="", session_id="", matched_terms=())
    if item.kind is EvidenceKind.EVENT:
        return attrs.evolve(bare, grip_ids=())
    return attrs.evolve(bare, event_ids=() if item.grip_ids else item.event_ids)


def _clipped(
    item: Evidence,
    room: _Cost,
    meter: _Meter,
    shortest: int = _SHORTEST_CLIP,
    *,
    opener: Evidence | None = None,
    first: bool = True,
    shortened: bool = False,
) -> Evidence | None:
    """``item`` with its text clipped so that it costs at most ``room``, or None when fewer
    than ``shortest`` characters of it would be left (or it is a statement: those are not
    cut unless ``shortest`` is below :data:`_SHORTEST_CLIP`, for a last resort)."""
    if item.kind is not EvidenceKind.EVENT and shortest >= _SHORTEST_CLIP:
        return None

    def fits(length: int) -> bool:
        trial = attrs.evolve(item, text=_prefix(item.text, length), clipped=True)
        return meter.item(trial, opener=opener, first=first, shortened=shortened).within(room)

    shortest = min(shortest, len(item.text))
    if not fits(shortest):
        return None  # not even the shortest clip fits: no search
    low, high = shortest, len(item.text)
    # The largest prefix that fits: the estimator need not be linear, so search for it.
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return attrs.evolve(item, text=_prefix(item.text, low), clipped=True)


def fit(
    result: NavigationResult,
    offered: Sequence[Evidence],
    *,
    budget: int,
    estimator: TokenEstimator,
    full_path: bool,
    note: Callable[[int, int], str],
    bare: Sequence[Evidence] | None = None,
) -> NavigationResult:
    """``result`` with the path and as much of ``offered`` as fit ``budget``.

    ``note(returned, offered)`` gives the words added to the reason when candidates did not
    fit. ``result.steps`` is the full path; ``result.evidence`` is ignored. ``bare`` are the
    items of ``offered`` without what their slimmed and lean forms leave out (their grips and
    conversations; by default ``offered`` itself): those forms are made from them, and
    ``offered`` is read in order, as far as the items costed as they are, so that what only a
    whole item says can be read as it is asked for (:class:`~tocsearch.navigate._answer.Offered`).

    Raises:
        InvalidArgument: not even the frame of the result fits the budget.
    """
    # The reason in brief: only the limit that stopped the walk, if one did; the note that
    # says how many items fit follows it.
    halts = [part for part in result.reason.split("; ") if part.startswith("stopped after")]
    brief_reason = "; ".join(halts)
    meter = _Meter(estimator, result.zone)
    whole = meter.frame(result, budget, reason=result.reason, partial=result.partial)
    if whole.widest > budget:
        # The frame does not fit as it is: in brief, if at all.
        _check_frame(result, attrs.evolve(result, reason=brief_reason), budget, estimator)
    paths = _Paths(result.steps)
    counted = _counted(result.reason, len(offered), note)
    items = _Items(offered, offered if bare is None else bare)

    def cut() -> _Cost:
        # Not every item fits: the longer status and the reason with its note, at its widest.
        return meter.frame(result, budget, reason=counted(len(offered) - 1), partial=True)

    shaped = _settle(
        result,
        _shape(result, (whole, cut), items, budget, meter, paths, full_path, counted),
        budget,
        meter,
        counted,
    )
    if len(shaped.evidence) < len(offered):
        # Not every item fits beside the whole explanation: the reason in brief (the limit
        # that stopped the walk, how many items fit) and the path only in the room the
        # evidence leaves (unless the caller asked for it), when that returns more of them
        # (or as many, with more of their text).
        # The explanation shrinks with the budget; the evidence is what was asked for.
        told = _counted(brief_reason, len(offered), note)

        def brief_cut() -> _Cost:
            return meter.frame(result, budget, reason=told(len(offered) - 1), partial=True)

        bases = (
            meter.frame(result, budget, reason=brief_reason, partial=result.partial),
            brief_cut,
        )
        brief_shape = _shape(
            result, bases, items, budget, meter, paths, full_path, told, path_share=0.0
        )
        # The confirmation only trims: a shape that returns no more before it cannot after.
        if _returned(brief_shape.evidence) > _returned(shaped.evidence):
            brief_shaped = _settle(result, brief_shape, budget, meter, told)
            if _returned(brief_shaped.evidence) > _returned(shaped.evidence):
                shaped = brief_shaped
    return shaped


def _check_frame(
    result: NavigationResult, brief: NavigationResult, budget: int, estimator: TokenEstimator
) -> None:
    """Raise when neither ``result`` nor ``brief`` fits ``budget`` without path or evidence."""
    if frame_cost(attrs.evolve(result, tokens_used=budget), estimator) <= budget:
        return
    least = frame_cost(attrs.evolve(brief, tokens_used=budget), estimator)
    if least > budget:
        raise InvalidArgument(
            f"token_budget={budget} is too small for this query: its question, time "
            f"hints and terms alone take {least} tokens"
        )


def _returned(evidence: Sequence[Evidence]) -> tuple[int, int]:
    """How much ``evidence`` returns: its items, then the characters of their text."""
    return len(evidence), sum(len(item.text) for item in evidence)


def _shape(
    result: NavigationResult,
    bases: tuple[_Cost, Callable[[], _Cost]],
    items: _Items,
    budget: int,
    meter: _Meter,
    paths: _Paths,
    full_path: bool,
    told: Callable[[int], str],
    *,
    path_share: float = _PATH_SHARE,
) -> _Shape:
    """What ``result`` shows with a path and the evidence chosen by the sum of their pieces'
    costs on the frame's: ``bases`` are the frame's when every item fits and what gives it
    when not (its status and its reason with the note of how many did, ``told``). ``paths``
    are the full path and its two summaries."""
    limit = _Cost(budget, budget)
    whole, cut = bases
    offered = items.whole
    path, path_cost, chosen, used = _chosen(
        whole, items, limit, meter, paths, full_path, path_share
    )
    if len(chosen) < len(offered):
        path, path_cost, chosen, used = _chosen(
            cut(), items, limit, meter, paths, full_path, path_share
        )
    if not full_path:
        # What the evidence left may show more of the path.
        for candidate in paths:
            if candidate is path:
                break
            if meter.path_exceeds(candidate, limit - (used - path_cost)):
                continue
            extra = meter.path(candidate)
            if (used - path_cost + extra).within(limit):
                path, used = candidate, used - path_cost + extra
                break
    return _Shape(
        steps=path,
        evidence=grouped(chosen),
        reason=told(len(chosen)),
        partial=result.partial or len(chosen) < len(offered),
    )


@attrs.frozen
class _Items:
    """The items offered to a fit: ``whole``, as they are shown, read in order as far as
    they are costed; ``bare``, the same without what their slimmed and lean forms leave out."""

    whole: Sequence[Evidence]
    bare: Sequence[Evidence]


def _chosen(
    base: _Cost,
    items: _Items,
    limit: _Cost,
    meter: _Meter,
    paths: _Paths,
    full_path: bool,
    path_share: float,
) -> tuple[tuple[NavigationStep, ...], _Cost, list[Evidence], _Cost]:
    """The path and the items chosen on a frame that costs ``base``, what the path costs and
    what all of it costs."""
    offered = items.whole
    widest = base.widest
    budget = limit.json
    if full_path:
        # Every step first, but not at the cost of all the evidence: room for the best item
        # (up to half of what the frame leaves) is kept.
        best = meter.item(offered[0], opener=None, first=True) if offered else _NOTHING
        keep = min(best.widest, (budget - widest) // 2)
        allowance = budget - widest - keep
        candidates = iter(paths)
    else:
        allowance = int(budget * path_share)
        candidates = paths.summaries()
    path: tuple[NavigationStep, ...] = ()
    path_cost = _NOTHING
    for candidate in candidates:
        extra = meter.path(candidate)
        if extra.widest <= allowance and (base + extra).within(limit):
            path, path_cost = candidate, extra
            break
    used = base + path_cost
    chosen, used_by = _fill(offered, limit - used, meter)
    if len(chosen) < len(offered):
        # Not everything fits as it is: items without what can be worked out again (matched
        # terms, grips, titles and conversations) make room for more of them.
        slim, slim_used = _fill(meter.slimmed(items.bare), limit - used, meter)
        if len(slim) > len(chosen):
            chosen, used_by = slim, slim_used
    if offered and not chosen:
        # Not one item fits as it is: the best one, lean and clipped, rather than nothing.
        best_lean = meter.lean(items.bare[0])
        lean = _clipped(best_lean, limit - used, meter, _SHORTEST_LEAN_CLIP)
        if lean is None and path:
            path, path_cost = (), _NOTHING
            used = base
            lean = _clipped(best_lean, limit - used, meter, _SHORTEST_LEAN_CLIP)
        if lean is not None:
            chosen.append(lean)
            used_by = meter.item(lean, opener=None, first=True)
    if not chosen:
        # The Markdown says that nothing was found, in the path's room if need be.
        used_by = meter.nothing_found
        if path and not (used + used_by).within(limit):
            path, path_cost = (), _NOTHING
            used = base
    return path, path_cost, chosen, used + used_by


def _counted(reason: str, offered: int, note: Callable[[int, int], str]) -> Callable[[int], str]:
    """The reason of a result that returns ``returned`` of ``offered`` items: ``reason``, and
    the note of how many fit when not all of them did."""

    def told(returned: int) -> str:
        if returned >= offered:
            return reason
        said = note(returned, offered)
        return f"{reason}; {said}" if reason else said

    return told


def _settle(
    result: NavigationResult,
    shape: _Shape,
    budget: int,
    meter: _Meter,
    told: Callable[[int], str],
) -> NavigationResult:
    """``result`` as ``shape`` shows it, with ``tokens_used`` set to what it costs, trimmed
    until it fits: the sum of its pieces' costs that chose it may be off for an estimator
    that does not add up. A trimmed item is counted out of the reason (``told`` gives the
    reason for a number of items returned)."""
    while True:
        cost = meter.showing(result, shape).widest
        if cost <= budget:
            return shape.shown(result, cost)
        if shape.evidence:
            kept = shape.evidence[:-1]
            shape = _Shape(shape.steps, kept, told(len(kept)), partial=True)
        elif shape.steps:
            shape = _Shape((), shape.evidence, shape.reason, shape.partial)
        else:
            # Only the reason's note can have grown past the frame checked first.
            reason = shape.reason[: len(shape.reason) // 2]
            shape = _Shape(shape.steps, shape.evidence, reason, shape.partial)
