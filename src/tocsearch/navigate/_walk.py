"""The search behind :meth:`Navigator.navigate`: a best-first walk down the tree, with direct
scans of the segments as the safety net for what lossy summaries above them no longer say.

One :class:`Walk` serves one query. Every search of a set of nodes is one iteration and one
:class:`NavigationStep`. What a step reports (its best matches) and what the walk returns (its
evidence) are charged to a :class:`TokenMeter`; when a limit is reached the walk stops where it
is and keeps what it found. Termination does not depend on the tree being well formed: a node
is opened at most once, children must be deeper than their parent, and every loop is bounded by
the iteration limit.
"""

from __future__ import annotations

import heapq
import itertools
import operator
from collections.abc import Iterable, Iterator, Sequence

import attrs

from tocsearch.digest import TermDigest
from tocsearch.errors import NotFound
from tocsearch.levels import TocLevel
from tocsearch.models import TocNode, time_order
from tocsearch.navigate._digests import DigestCache
from tocsearch.navigate._events import EventHit
from tocsearch.navigate._folded import FoldedTexts
from tocsearch.navigate._meter import TokenMeter
from tocsearch.navigate._pages import newest_first
from tocsearch.navigate._weights import TermMatcher, TermWeights, clip
from tocsearch.navigate.result import (
    Evidence,
    EvidenceKind,
    NavigationStep,
    StepMatch,
    StepPhase,
    node_label,
)
from tocsearch.navigate.timehints import TimeRange
from tocsearch.search import SearchField
from tocsearch.storage.protocol import Storage

__all__ = ["Walk", "WalkLimits"]

# Once this many segments contain every term, weaker branches are not worth their tokens.
_ENOUGH_FULL_SEGMENTS = 3
_BULLETS_PER_SEGMENT = 3
_LISTED_BULLETS_PER_SEGMENT = 2
_MAX_GRIPS_FOR_SUMMARY = 5
_FULL = 1.0 - 1e-9
_DISPLAY_ORDER = (SearchField.BULLETS, SearchField.TITLE, SearchField.SUMMARY, SearchField.KEYWORDS)
_digest_of = operator.attrgetter("digest")
# The levels below each level, for a membership test that needs no depth lookups.
_DEEPER: dict[TocLevel, tuple[TocLevel, ...]] = {
    level: tuple(other for other in TocLevel if other.depth > level.depth) for level in TocLevel
}


@attrs.frozen
class WalkLimits:
    """The knobs of a walk; :class:`Navigator` validates them."""

    max_iterations: int
    threshold: float
    width: int
    max_evidence: int
    scan_page: int


@attrs.frozen
class _Scored:
    """A node that matched: the share of terms it holds anywhere, and its best match."""

    node: TocNode
    coverage: float
    relevance: float
    field: SearchField
    text: str


@attrs.frozen
class _Ranked:
    """A node holding some term, ranked but not yet shown: its best text is picked only if a
    step reports it."""

    node: TocNode
    present: frozenset[str]
    coverage: float
    relevance: float


@attrs.frozen
class _Waiting:
    """A node on the frontier, and the step that found it."""

    scored: _Scored
    step: int


class Walk:
    """The state of one navigation: steps, evidence, visited nodes, iterations and tokens."""

    def __init__(
        self,
        storage: Storage,
        terms: tuple[str, ...],
        limits: WalkLimits,
        meter: TokenMeter,
        *,
        greps: bool = False,
        folded: FoldedTexts | None = None,
        digests: DigestCache | None = None,
    ) -> None:
        self.storage = storage
        self.terms = terms
        self.matcher = TermMatcher(terms)
        # Shared by the walks of one navigator, so each node is folded once across questions.
        self.folded = folded if folded is not None else FoldedTexts(capacity=0)
        self.digests = digests if digests is not None else DigestCache(capacity=0)
        self._held: dict[str, frozenset[str] | None] = {}
        # The digest bits each term is looked up by, worked out once for every digest read.
        self._probes = [(term, TermDigest.probes(term)) for term in terms]
        # Nodes whose digest was consulted: they count as visited.
        self.digest_checked: set[str] = set()
        self.last_pruned = (0, 0)
        # Per level, how many nodes a digest-guided scan considered and how many it skipped.
        self._scan_pruning: dict[TocLevel, list[int]] = {}
        self.limits = limits
        self.meter = meter
        self.steps: list[NavigationStep] = []
        self.evidence: dict[tuple[str, str], Evidence] = {}
        self.segment_coverage: dict[str, float] = {}
        self.segments: dict[str, TocNode] = {}
        self.hits: list[EventHit] = []
        self.seen: set[str] = set()
        self.opened: set[str] = set()
        self.iterations = 0
        self.halted: str | None = None
        self._order = itertools.count()
        # With events to grep, the last search of a topical walk is kept for them, and matched
        # segments are not the answer yet: only the grep may draw on the reserve. Without
        # events, matched segments are the answer and their matches may.
        self.greps = greps and bool(terms)
        self.walk_iterations = limits.max_iterations - (
            1 if self.greps and limits.max_iterations > 1 else 0
        )

    # -- outcome -------------------------------------------------------------------------------
    def bullet_ranking(self) -> list[Evidence]:
        """The statements collected from segments, best first (score, then the segment's
        coverage, then the newest)."""
        return sorted(
            self.evidence.values(),
            key=lambda item: (
                -item.score,
                -self.segment_coverage.get(item.segment_id, 0.0),
                -item.start_time.timestamp(),
                item.segment_id,
            ),
        )

    def full_segments(self) -> int:
        """How many segments hold every term."""
        return sum(1 for value in self.segment_coverage.values() if value >= _FULL)

    def best_score(self) -> float:
        """The best share of the terms a collected segment holds, 0.0 before any."""
        return max(self.segment_coverage.values(), default=0.0)

    def enough(self) -> bool:
        """Whether the evidence is complete: the item limit is reached."""
        return len(self.evidence) >= self.limits.max_evidence

    # -- bookkeeping ---------------------------------------------------------------------------
    def halt(self, reason: str) -> None:
        """Stop the walk for ``reason``; the first reason given is kept."""
        if self.halted is None:
            self.halted = reason

    def _annotate(self, reason: str, chosen: str | None = None) -> None:
        """Say what the last step led to."""
        if self.steps:
            self.steps[-1] = attrs.evolve(self.steps[-1], chosen=chosen, reason=reason)

    def note(self, *, phase: StepPhase, level: TocLevel, scope: str, reason: str) -> None:
        """Record a phase that found nothing new to search, so the path shows it was tried."""
        if self.halted is not None:
            return
        cost = self.meter.cost(f"{scope}: {reason}")
        if not self.meter.can_read(cost):
            self.halt(f"token budget of {self.meter.budget} exhausted")
            return
        self.meter.spend(cost)
        self.steps.append(
            NavigationStep(
                number=len(self.steps) + 1,
                phase=phase,
                level=level,
                scope=scope,
                parent_ids=(),
                searched=0,
                matched=0,
                matches=(),
                chosen=None,
                reason=reason,
            )
        )

    def _search(
        self,
        nodes: Sequence[TocNode],
        *,
        phase: StepPhase,
        level: TocLevel,
        scope: str,
        parent_ids: tuple[str, ...] = (),
        floor: float = 0.0,
    ) -> list[_Scored] | None:
        """Score ``nodes`` as one step and report the best ``width`` with a score of at least
        ``floor``. Returns the reported nodes best first, or None when a limit stopped the walk
        before the search."""
        if self.halted is not None:
            return None
        if self.iterations >= self.walk_iterations:
            self.halt(f"stopped after max_iterations={self.limits.max_iterations} searches")
            return None
        header = f"{scope}: searched {len(nodes)} {level.value} nodes"
        cost = self.meter.cost(header)
        if not self.meter.can_read(cost):
            self.halt(f"token budget of {self.meter.budget} exhausted")
            return None
        self.iterations += 1
        self.seen.update(node.node_id for node in nodes)
        ranked, weights = self._score(nodes)
        reported: list[_Scored] = []
        # One step may spend at most half of what is left for reading, so a small budget still
        # lasts the few steps down to the segments.
        share = (self.meter.budget - self.meter.reserve - self.meter.used - cost) // 2
        for candidate in ranked:
            if len(reported) >= self.limits.width or candidate.coverage < floor:
                break
            item = self._scored(candidate, weights)
            line = self.meter.cost(f'{item.node.node_id} {item.node.title}: "{item.text}" 0.00')
            answer = level is TocLevel.SEGMENT and not self.greps
            fits = self.meter.can_return if answer else self.meter.can_read
            if not fits(cost + line):
                self.halt(f"token budget of {self.meter.budget} exhausted")
                break
            if reported and cost + line - self.meter.cost(header) > share:
                break
            cost += line
            reported.append(item)
        self.meter.spend(cost)
        self.steps.append(
            NavigationStep(
                number=len(self.steps) + 1,
                phase=phase,
                level=level,
                scope=scope,
                parent_ids=parent_ids,
                searched=len(nodes),
                matched=len(ranked),
                matches=tuple(
                    StepMatch(
                        item.node.node_id, item.node.title, item.coverage, item.field, item.text
                    )
                    for item in reported
                ),
                chosen=None,
                reason="",
            )
        )
        return reported

    def _score(self, nodes: Sequence[TocNode]) -> tuple[list[_Ranked], TermWeights]:
        """The nodes holding any term, best first: by the weighted share of the terms they
        hold (terms weigh by how rare they are among ``nodes``), then the plain share, then
        the newest; and the weights."""
        if not nodes or not self.terms:
            return [], TermWeights(self.terms, ())
        # The terms a node holds anywhere are found in its folded text at once (most nodes hold
        # none and are rejected by substring tests); fields are matched one by one only for
        # the nodes a step reports, to show the best one.
        held = self.matcher.present_in_each(self.folded.of_each(nodes))
        weights = TermWeights(self.terms, held)
        share, count = weights.share, len(self.terms)
        scored = [
            _Ranked(node, present, len(present) / count, share(present))
            for node, present in zip(nodes, held, strict=True)
            if present
        ]
        scored.sort(
            key=lambda item: (
                -item.relevance,
                -item.coverage,
                -item.node.start_time.timestamp(),
                item.node.node_id,
            )
        )
        return scored, weights

    def _fields(self, node: TocNode) -> list[tuple[SearchField, str, frozenset[str]]]:
        """Each searchable text of a node with the terms it holds, most specific first: the
        bullets, the title, the summary, the keywords."""
        texts = [(SearchField.BULLETS, bullet.text) for bullet in node.bullets]
        texts.append((SearchField.TITLE, node.title))
        if node.summary:
            texts.append((SearchField.SUMMARY, node.summary))
        texts += [(SearchField.KEYWORDS, keyword) for keyword in node.keywords]
        return [(field, text, self.matcher.present(text)) for field, text in texts]

    def _scored(self, ranked: _Ranked, weights: TermWeights) -> _Scored:
        # Show the text holding the most weight; among equals the most specific one (the
        # fields come bullets first).
        fields = self._fields(ranked.node)
        field, text, _ = max(fields, key=lambda entry: weights.share(entry[2]))
        shown = text if field is not SearchField.KEYWORDS else f"keyword: {text}"
        return _Scored(ranked.node, ranked.coverage, ranked.relevance, field, clip(shown))

    # -- evidence ------------------------------------------------------------------------------
    def collect(self, segment: TocNode, coverage: float) -> None:
        """Keep a matched segment and its best bullets (or its summary) as candidate evidence;
        the budget is charged only for what is returned in the end."""
        items = self._items(segment)
        if not items:
            return
        self.segments.setdefault(segment.node_id, segment)
        self.segment_coverage[segment.node_id] = max(
            coverage, self.segment_coverage.get(segment.node_id, 0.0)
        )
        self._add(items)

    def list_segment(self, segment: TocNode) -> None:
        """Keep a segment's first bullets as evidence of what happened."""
        bullets = segment.bullets[:_LISTED_BULLETS_PER_SEGMENT]
        items = [
            _statement(segment, bullet.text, SearchField.BULLETS, bullet.grip_ids, 1.0, ())
            for bullet in bullets
        ]
        if not items:
            text = segment.summary_text or segment.title
            items = [_statement(segment, text, SearchField.SUMMARY, (), 1.0, ())]
        self.segments.setdefault(segment.node_id, segment)
        self.segment_coverage[segment.node_id] = 1.0
        self._add(items)

    def _add(self, items: Iterable[Evidence]) -> None:
        for item in items:
            self.evidence.setdefault((item.segment_id, item.text), item)

    def _items(self, segment: TocNode) -> list[Evidence]:
        """The segment's bullets that hold a term, best first by the weighted share of the
        terms (weighed among the segment's bullets); else its summary, title or keywords."""
        present = [self.matcher.present(bullet.text) for bullet in segment.bullets]
        weights = TermWeights(self.terms, present)
        scored: list[tuple[float, int, Evidence]] = []
        for position, (bullet, held) in enumerate(zip(segment.bullets, present, strict=True)):
            if held:
                score = weights.share(held)
                item = _statement(
                    segment,
                    bullet.text,
                    SearchField.BULLETS,
                    bullet.grip_ids,
                    score,
                    self._ordered(held),
                )
                scored.append((-score, position, item))
        if scored:
            scored.sort(key=lambda entry: (entry[0], entry[1]))
            return [entry[2] for entry in scored[:_BULLETS_PER_SEGMENT]]
        # No single bullet matched: the summary or title did, and it rests on all the bullets.
        for field, text in (
            (SearchField.SUMMARY, segment.summary_text),
            (SearchField.TITLE, segment.title),
            (SearchField.KEYWORDS, f"{segment.title} (keywords: {', '.join(segment.keywords)})"),
        ):
            held = self.matcher.present(text) if text else frozenset()
            if held:
                grips = tuple(
                    dict.fromkeys(grip for bullet in segment.bullets for grip in bullet.grip_ids)
                )[:_MAX_GRIPS_FOR_SUMMARY]
                weights = TermWeights(self.terms, [held])
                return [
                    _statement(
                        segment, text, field, grips, weights.share(held), self._ordered(held)
                    )
                ]
        return []

    def _ordered(self, held: Iterable[str]) -> tuple[str, ...]:
        """``held`` in query order."""
        found = set(held)
        return tuple(term for term in self.terms if term in found)

    # -- tree access ---------------------------------------------------------------------------
    def children(self, parents: Sequence[TocNode], ranges: Sequence[TimeRange]) -> list[TocNode]:
        """The unseen children of ``parents`` that lie deeper than their parent and inside
        ``ranges`` (when any), in time order. Dangling ids and vanished parents give nothing."""
        found: dict[str, TocNode] = {}
        self.last_pruned = (0, 0)
        for parent in parents:
            self.opened.add(parent.node_id)
            self.seen.add(parent.node_id)
            try:
                children = self.storage.get_child_nodes(parent.node_id)
            except NotFound:
                continue
            for child in children:
                if (
                    child.level.depth > parent.level.depth
                    and child.node_id not in self.seen
                    and _inside(child, ranges)
                ):
                    found.setdefault(child.node_id, child)
        kept = self.prune(found.values())
        self.last_pruned = (len(found) - len(kept), len(found))
        return sorted(kept, key=time_order)

    # -- term digests --------------------------------------------------------------------------
    def may_hold(self, node: TocNode) -> frozenset[str] | None:
        """The query terms ``node``'s digest may hold, or None when the digest is unknown.

        Runtime complexity: O(t) for t terms once the digest is decoded (cached)."""
        if not node.digest or not self.terms:
            return None
        key = node.node_id
        if key in self._held:
            return self._held[key]
        self.digest_checked.add(key)
        digest = self.digests.of(node)
        held = (
            None
            if digest is None
            else frozenset(term for term, probes in self._probes if digest.holds(probes))
        )
        self._held[key] = held
        return held

    def prune(self, nodes: Iterable[TocNode], need: int = 1) -> list[TocNode]:
        """``nodes`` without those whose digest rules out holding ``need`` of the terms."""
        kept: list[TocNode] = []
        for node in nodes:
            if not node.digest:
                kept.append(node)
                continue
            held = self.may_hold(node)
            if held is None or len(held) >= need:
                kept.append(node)
        return kept

    # -- the walk ------------------------------------------------------------------------------
    def walk(
        self,
        roots: Sequence[TocNode],
        ranges: Sequence[TimeRange],
        *,
        phase: StepPhase,
        scope: str,
        open_roots: bool,
    ) -> None:
        """Best-first descent from ``roots``: drill into the best match at or above the
        threshold, collect matched segments, backtrack to the next best when a branch gives out.

        With ``open_roots`` the roots are opened without being scored (they cover the period the
        query asked about); otherwise the roots themselves are scored first.
        """
        if open_roots:
            nodes = self.children(roots, ranges)
            parent_ids = tuple(root.node_id for root in roots)
        else:
            unseen = [node for node in roots if node.node_id not in self.seen]
            nodes = self.prune(unseen)
            self.last_pruned = (len(unseen) - len(nodes), len(unseen))
            parent_ids = ()
        scope += self._pruned_note(_level_of(nodes or roots))
        if not nodes:
            return
        reported = self._search(
            nodes, phase=phase, level=_level_of(nodes), scope=scope, parent_ids=parent_ids
        )
        if reported is None:
            return
        frontier: list[tuple[float, int, float, int, _Waiting]] = []
        self._absorb(reported, frontier)
        while True:
            if self.halted is not None:
                self._annotate(f"Stopping: {self.halted}")
                return
            if self.enough():
                self._annotate(f"Stopping: {len(self.evidence)} evidence items collected")
                return
            if self.full_segments() >= _ENOUGH_FULL_SEGMENTS and (
                not frontier or -frontier[0][0] < _FULL
            ):
                self._annotate(
                    f"Stopping: {self.full_segments()} segments contain every term and no "
                    "waiting branch matches better"
                )
                return
            waiting = self._pop(frontier)
            if waiting is None:
                self._annotate(self._dead_end_reason())
                return
            node = waiting.scored.node
            drill = waiting.step == len(self.steps)
            label = node_label(node.node_id)
            if drill:
                reason = f"Drilling into {label} (best match, score {waiting.scored.coverage:.2f})"
            else:
                reason = (
                    f"Backtracking to {label} (next best, score {waiting.scored.coverage:.2f}, "
                    f"from step {waiting.step})"
                )
            self._annotate(reason, chosen=node.node_id)
            children = self.children([node], ranges)
            level = _level_of(children, node.level.child())
            reported = self._search(
                children,
                phase=StepPhase.DRILL if drill else StepPhase.BACKTRACK,
                level=level,
                scope=label + self._pruned_note(level),
                parent_ids=(node.node_id,),
            )
            if reported is None:
                self._annotate(f"Stopping: {self.halted}")
                return
            self._absorb(reported, frontier)

    def _pruned_note(self, level: TocLevel) -> str:
        """ "; skipped 11 of 12 month nodes: no term in their digest" after the last
        :meth:`children` or root pruning, or "" when nothing was skipped."""
        skipped, total = self.last_pruned
        if not skipped:
            return ""
        return f"; skipped {skipped} of {total} {level.value} nodes: no term in their digest"

    def _dead_end_reason(self) -> str:
        last = self.steps[-1] if self.steps else None
        if last is not None and last.level is TocLevel.SEGMENT and last.matches:
            count = len(last.matches)
            return f"Collected evidence from {count} matching segment{'s' if count != 1 else ''}"
        if last is not None and not last.matches:
            return (
                f"No node matched; no branch is left with a score of at least "
                f"{self.limits.threshold:.2f}"
            )
        return f"No branch is left with a score of at least {self.limits.threshold:.2f}"

    def _absorb(
        self, reported: list[_Scored], frontier: list[tuple[float, int, float, int, _Waiting]]
    ) -> None:
        step = len(self.steps)
        for item in reported:
            node = item.node
            if node.level is TocLevel.SEGMENT:
                self.collect(node, item.coverage)
            elif item.coverage >= self.limits.threshold and node.node_id not in self.opened:
                # Best coverage first; among equals the deeper node (closer to evidence), then
                # the most recent.
                entry = (
                    -item.coverage,
                    -node.level.depth,
                    -node.start_time.timestamp(),
                    next(self._order),
                    _Waiting(item, step),
                )
                heapq.heappush(frontier, entry)

    def _pop(self, frontier: list[tuple[float, int, float, int, _Waiting]]) -> _Waiting | None:
        while frontier:
            waiting = heapq.heappop(frontier)[4]
            if waiting.scored.node.node_id not in self.opened:
                return waiting
        return None

    # -- scans ---------------------------------------------------------------------------------
    def scan(self, ranges: Sequence[TimeRange], *, phase: StepPhase, where: str) -> None:
        """Read the unseen segments of ``ranges`` (all segments when empty) directly, newest
        first, a page per step, until a segment holding every term turns up or they run out.

        A page reports only matches at least as good as the evidence already in hand, so a
        long scan costs tokens only for what could improve the answer. Segments are read from
        the store a page at a time (:func:`~tocsearch.navigate._pages.newest_first`): a scan
        that stops early has not read the older ones.
        """
        guided = self._digest_order(ranges)
        page = self.limits.scan_page
        pages: Iterator[list[TocNode]]
        if guided is not None:
            pages = _paged(guided, page)
        else:
            pending = self._unseen(newest_first(self.storage, ranges))
            pages = iter(lambda: list(itertools.islice(pending, page)), [])
        chunk = next(pages, [])
        first = 0
        order = "by how many terms their digest may hold, then newest first"
        if guided is None:
            order = "newest first"
        if not chunk and guided is not None and self._scan_pruning:
            self.note(
                phase=phase,
                level=TocLevel.SEGMENT,
                scope=f"Segments {where}",
                reason="Nothing to read" + self._scan_note(),
            )
        while chunk:
            floor = max(self.limits.threshold, self.best_score())
            reported = self._search(
                chunk,
                phase=phase,
                level=TocLevel.SEGMENT,
                scope=f"Segments {where}, {order} ({first + 1}-{first + len(chunk)})"
                + (self._scan_note() if first == 0 else ""),
                floor=floor,
            )
            if reported is None:
                self._annotate(f"Stopping: {self.halted}")
                return
            for item in reported:
                self.collect(item.node, item.coverage)
            if self.halted is not None:
                self._annotate(f"Stopping: {self.halted}")
                return
            if self.full_segments() > 0:
                self._annotate("Found a segment that contains every term; the scan stops here")
                return
            first += len(chunk)
            chunk = next(pages, [])
            if chunk:
                self._annotate("Reading the next, older page of segments")
            else:
                self._annotate(f"Read every segment {where} ({first} in this scan)")

    def _digest_order(self, ranges: Sequence[TimeRange]) -> Iterator[list[TocNode]] | None:
        """The segments of ``ranges`` in the order a digest-guided scan reads them, or None
        when the years there do not all carry a digest (then the scan reads every segment,
        newest first).

        Pass ``k`` (from all terms down) descends from the years, newest first, into the
        children whose digest may hold at least ``k`` of the terms (or is unknown), and yields
        the segments of the days it reaches, a batch at a time (those unseen when the batch
        is pulled: a page searched meanwhile holds only segments already yielded); a day is
        read in one pass only. A segment holds
        no more terms than its day's digest, so a pass whose ``k`` is below the share the scan
        still reports (the threshold, or the best evidence so far) is not started: nothing it
        could find would be reported.
        """
        if not self.terms:
            return None
        years = [
            node for node in self.storage.get_nodes_by_level(TocLevel.YEAR) if _inside(node, ranges)
        ]
        if not years or any(self.may_hold(year) is None for year in years):
            return None
        years.sort(key=time_order, reverse=True)
        return self._guided(years, ranges)

    def _guided(self, years: list[TocNode], ranges: Sequence[TimeRange]) -> Iterator[list[TocNode]]:
        count = len(self.terms)
        self._children_of: dict[str, tuple[list[TocNode], bool]] = {}
        read: set[str] = set()
        yielded: set[str] = set()
        seen = self.seen
        for need in range(count, 0, -1):
            bound = need / count
            if bound < max(self.limits.threshold, self.best_score()) - 1e-9:
                return
            if bound <= self.best_score() + 1e-9 and len(self.segments) >= _ENOUGH_FULL_SEGMENTS:
                return  # enough segments as good as anything this pass could find
            kept = self._kept(years, need)
            for batch in self._descend(kept, ranges, need, read):
                ids = [segment.node_id for segment in batch]
                if yielded.isdisjoint(ids) and seen.isdisjoint(ids) and len(set(ids)) == len(ids):
                    # The common case, a day read for the first time: checked as one set.
                    yielded.update(ids)
                    yield batch
                    continue
                fresh: list[TocNode] = []
                for segment in batch:
                    node_id = segment.node_id
                    if node_id not in yielded:
                        yielded.add(node_id)
                        if node_id not in seen:
                            fresh.append(segment)
                if fresh:
                    yield fresh

    def _kept(self, nodes: list[TocNode], need: int, *, ascending: bool = False) -> list[TocNode]:
        """:meth:`prune` for a scan pass, newest first, tallying the first pass's skips.
        ``ascending`` says ``nodes`` are already in time order (as a store returns children),
        so reversing them puts them newest first without sorting again."""
        kept = self.prune(nodes, need)
        if nodes:
            self._tally(need, _level_of(nodes), len(nodes), len(nodes) - len(kept))
        if ascending:
            kept.reverse()
        else:
            kept.sort(key=time_order, reverse=True)
        return kept

    def _tally(self, need: int, level: TocLevel, considered: int, skipped: int) -> None:
        """Count the nodes of ``level`` a scan's first pass (every term needed) considered and
        skipped, for the step's note; later passes reconsider the same nodes."""
        if need == len(self.terms):
            tally = self._scan_pruning.setdefault(level, [0, 0])
            tally[0] += considered
            tally[1] += skipped

    def _descend(
        self, nodes: list[TocNode], ranges: Sequence[TimeRange], need: int, read: set[str]
    ) -> Iterator[list[TocNode]]:
        """The segments below ``nodes`` (newest first) whose ancestors' digests all may hold
        ``need`` terms, skipping days already ``read``; in batches (a node's segment children
        at once), so a long scan does not resume a chain of generators per segment."""
        leaves = [node for node in nodes if node.level is TocLevel.SEGMENT]
        if leaves:
            yield leaves
        for node in nodes:
            if node.level is TocLevel.SEGMENT or node.node_id in read:
                continue
            cached = self._children_of.get(node.node_id)
            if cached is None:
                try:
                    stored = self.storage.get_child_nodes(node.node_id)
                except NotFound:
                    stored = []
                # The store returns children in time order; filtering keeps it.
                deeper = _DEEPER[node.level]
                children = [
                    child
                    for child in stored
                    if child.level in deeper and (not ranges or _inside(child, ranges))
                ]
                # A day's children lie deeper, so they are segments; do any carry a digest?
                plain = node.level is TocLevel.DAY and not any(map(_digest_of, children))
                cached = self._children_of[node.node_id] = (children, plain)
            children, plain = cached
            if node.level is TocLevel.DAY:
                read.add(node.node_id)
            if plain:
                # Segments without digests (a day's, as the builder makes them): no digest can
                # rule one out, so they are all read, newest first.
                if children:
                    self._tally(need, TocLevel.SEGMENT, len(children), 0)
                    yield children[::-1]
                continue
            yield from self._descend(self._kept(children, need, ascending=True), ranges, need, read)

    def _scan_note(self) -> str:
        """ "; skipped 11 of 12 month nodes: not every term in their digest" for the levels
        where the first pass of a digest-guided scan skipped nodes."""
        parts = [
            f"{skipped} of {total} {level.value} nodes"
            for level, (total, skipped) in sorted(
                self._scan_pruning.items(), key=lambda entry: entry[0].depth
            )
            if skipped
        ]
        if not parts:
            return ""
        return "; skipped " + ", ".join(parts) + ": not every term in their digest"

    def _unseen(self, nodes: Iterable[TocNode]) -> Iterator[TocNode]:
        """``nodes`` not seen by the time each is pulled."""
        return (node for node in nodes if node.node_id not in self.seen)

    def listing(self, segments: Sequence[TocNode], *, phase: StepPhase, scope: str) -> None:
        """Report ``segments`` for a time-only query: the best summarised first (most bullets,
        then a summary, then the newest), each with its first bullets, within the budget."""
        ordered = sorted(
            segments,
            key=lambda node: (
                -len(node.bullets),
                node.summary is None,
                -node.start_time.timestamp(),
                node.node_id,
            ),
        )
        if self.halted is not None:
            return
        if self.iterations >= self.limits.max_iterations:
            self.halt(f"stopped after max_iterations={self.limits.max_iterations} searches")
            return
        header = self.meter.cost(f"{scope}: {len(segments)} segments")
        if not self.meter.can_read(header):
            self.halt(f"token budget of {self.meter.budget} exhausted")
            return
        self.meter.spend(header)
        self.iterations += 1
        self.seen.update(node.node_id for node in segments)
        shown = ordered[: self.limits.width]
        self.steps.append(
            NavigationStep(
                number=len(self.steps) + 1,
                phase=phase,
                level=TocLevel.SEGMENT,
                scope=scope,
                parent_ids=(),
                searched=len(segments),
                matched=len(segments),
                matches=tuple(
                    StepMatch(node.node_id, node.title, 1.0, SearchField.TITLE, node.title)
                    for node in shown
                ),
                chosen=None,
                reason="",
            )
        )
        listed = 0
        for node in ordered:
            if self.enough():
                break
            self.list_segment(node)
            listed += 1
        self._annotate(
            f"Listing {listed} of {len(segments)} segments, best summarised first"
            + (f"; stopping: {self.halted}" if self.halted else "")
        )


def _paged(batches: Iterable[list[TocNode]], size: int) -> Iterator[list[TocNode]]:
    """``batches`` regrouped into pages of ``size`` (the last may be shorter). A batch is
    pulled only when the page needs it, so a scan that stops early pulls no further."""
    page: list[TocNode] = []
    for batch in batches:
        page.extend(batch)
        while len(page) >= size:
            yield page[:size]
            page = page[size:]
    if page:
        yield page


def _statement(
    segment: TocNode,
    text: str,
    field: SearchField,
    grip_ids: tuple[str, ...],
    score: float,
    matched: tuple[str, ...],
) -> Evidence:
    """A statement of a segment's summary as evidence; its events are resolved on return."""
    return Evidence(
        segment_id=segment.node_id,
        segment_title=segment.title,
        kind=EvidenceKind.BULLET,
        text=text,
        field=field,
        grip_ids=grip_ids,
        event_ids=(),
        score=score,
        matched_terms=matched,
        start_time=segment.start_time,
        end_time=segment.end_time,
    )


def _inside(node: TocNode, ranges: Sequence[TimeRange]) -> bool:
    return not ranges or any(span.overlaps(node.start_time, node.end_time) for span in ranges)


def _level_of(nodes: Sequence[TocNode], default: TocLevel | None = None) -> TocLevel:
    """The shallowest level among ``nodes`` (they share one in a well-formed tree)."""
    if nodes:
        first = nodes[0].level
        if all(node.level is first for node in nodes):
            return first
        return min((node.level for node in nodes), key=lambda level: level.depth)
    return default if default is not None else TocLevel.SEGMENT
