"""How one navigation sees a node: which query terms it holds, how well it matches, what text
shows the match best, and which terms its digest may hold.

A :class:`Lens` is shared read-only by every part of a walk; its only state is what it has
worked out (folded texts, decoded digests), which never changes an answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import attrs

from tocsearch._segment_map import at_least, positions
from tocsearch._stacked_maps import StackedKept, StackedMasks
from tocsearch.digest import TermDigest
from tocsearch.levels import TocLevel
from tocsearch.models import TocNode
from tocsearch.navigate._day_stacks import DayStack, DayStacks, Whole
from tocsearch.navigate._digest_columns import DigestColumns
from tocsearch.navigate._digests import DigestCache
from tocsearch.navigate._folded import FoldedTexts
from tocsearch.navigate._weights import TermMatcher, TermWeights, clip
from tocsearch.search import SearchField

__all__ = ["Lens", "Ranked", "Scored"]


@attrs.frozen
class Scored:
    """A node that matched: the share of terms it holds anywhere, and its best match."""

    node: TocNode
    coverage: float
    relevance: float
    field: SearchField
    text: str


@attrs.frozen
class Ranked:
    """A node holding some term, ranked but not yet shown: its best text is picked only if a
    step reports it."""

    node: TocNode
    present: frozenset[str]
    coverage: float
    relevance: float


class Lens:
    """Term matching and digest lookups for one query's ``terms``."""

    def __init__(
        self,
        terms: tuple[str, ...],
        *,
        folded: FoldedTexts | None = None,
        digests: DigestCache | None = None,
        stacks: DayStacks | None = None,
    ) -> None:
        self.terms = terms
        self.matcher = TermMatcher(terms)
        # Shared by the walks of one navigator, so each node is folded once across questions.
        self.folded = folded if folded is not None else FoldedTexts(capacity=0)
        self.digests = digests if digests is not None else DigestCache(capacity=0)
        self.stacks = stacks if stacks is not None else DayStacks(capacity=0)
        self._held: dict[str, frozenset[str] | None] = {}
        self._masks: dict[str, tuple[int, list[int]] | None] = {}
        # The stack of each parent asked, the terms' masks over each stack read, what each
        # number of terms keeps there, and how many parents were read before a stack was.
        self._stack_of: dict[str, DayStack | None] = {}
        self._stacked: dict[DayStack, StackedMasks] = {}
        self._stacked_kept: dict[tuple[DayStack, int], StackedKept] = {}
        self._direct: dict[DayStack, int] = {}
        # The digest bits each term is looked up by, worked out once for every digest read
        # (when one is: a question the index answers reads none).
        self._term_probes: list[tuple[str, tuple[int, ...] | None]] | None = None
        # The same as bytes and bits, by the size of the digest read (see _spots).
        self._term_spots: dict[int, list[tuple[str, tuple[int, ...] | None]]] = {}
        # What the terms' probes read in each list of bit-sliced digests, and what each
        # number of terms keeps there (see columns_kept).
        self._holders: dict[DigestColumns, list[list[int]]] = {}
        self._columns_kept: dict[tuple[DigestColumns, int], int] = {}
        # Nodes whose digest was consulted: they count as visited.
        self.digest_checked: set[str] = set()

    # -- scoring -------------------------------------------------------------------------------
    def rank(self, nodes: Sequence[TocNode]) -> tuple[list[Ranked], TermWeights]:
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
        ranked = [
            Ranked(node, present, len(present) / count, share(present))
            for node, present in zip(nodes, held, strict=True)
            if present
        ]
        ranked.sort(
            key=lambda item: (
                -item.relevance,
                -item.coverage,
                -item.node.start_time.timestamp(),
                item.node.node_id,
            )
        )
        return ranked, weights

    def fields(self, node: TocNode) -> list[tuple[SearchField, str, frozenset[str]]]:
        """Each searchable text of a node with the terms it holds, most specific first: the
        bullets, the title, the summary, the keywords."""
        texts = [(SearchField.BULLETS, bullet.text) for bullet in node.bullets]
        texts.append((SearchField.TITLE, node.title))
        if node.summary:
            texts.append((SearchField.SUMMARY, node.summary))
        texts += [(SearchField.KEYWORDS, keyword) for keyword in node.keywords]
        return [(field, text, self.matcher.present(text)) for field, text in texts]

    def scored(self, ranked: Ranked, weights: TermWeights) -> Scored:
        """``ranked`` with the text that shows its match best: the one holding the most
        weight; among equals the most specific (the fields come bullets first)."""
        fields = self.fields(ranked.node)
        field, text, _ = max(fields, key=lambda entry: weights.share(entry[2]))
        shown = text if field is not SearchField.KEYWORDS else f"keyword: {text}"
        return Scored(ranked.node, ranked.coverage, ranked.relevance, field, clip(shown))

    def ordered(self, held: Iterable[str]) -> tuple[str, ...]:
        """``held`` in query order."""
        found = set(held)
        return tuple(term for term in self.terms if term in found)

    # -- term digests --------------------------------------------------------------------------
    @property
    def _probes(self) -> list[tuple[str, tuple[int, ...] | None]]:
        """Each term with its :meth:`~tocsearch.digest.TermDigest.probes`, worked out once."""
        probes = self._term_probes
        if probes is None:
            probes = self._term_probes = [(term, TermDigest.probes(term)) for term in self.terms]
        return probes

    def may_hold(self, node: TocNode) -> frozenset[str] | None:
        """The query terms ``node``'s digest may hold, or None when the digest is unknown.

        Runtime complexity: O(t) for t terms once the digest is decoded (cached)."""
        if not node.digest or not self.terms:
            return None
        key = node.node_id
        known = self._held
        if key in known:
            return known[key]
        self.digest_checked.add(key)
        digest = self.digests.of(node)
        held: frozenset[str] | None = None
        if digest is not None:
            bitmap = digest.bitmap
            found: list[str] = []
            size = len(bitmap)
            for term, spots in self._term_spots.get(size) or self._spots(size):
                # TermDigest.holds, with each probe's byte and bit worked out once.
                if spots is None:
                    found.append(term)
                elif len(spots) == 6:  # three probes, as every digest has
                    if (
                        bitmap[spots[0]] & spots[1]
                        and bitmap[spots[2]] & spots[3]
                        and bitmap[spots[4]] & spots[5]
                    ):
                        found.append(term)
                elif all(bitmap[spots[at]] & spots[at + 1] for at in range(0, len(spots), 2)):
                    found.append(term)
            held = frozenset(found)
        known[key] = held
        return held

    def columns_kept(self, columns: DigestColumns, need: int) -> int:
        """:meth:`prune` of the nodes of ``columns`` as bits (bit ``i`` for node ``i``): the
        same nodes kept, from their decoded bitmaps read for all of them at once
        (:meth:`DigestColumns.kept`); worked out once a question for each ``need``. The
        caller counts ``columns.consulted`` as consulted, as :meth:`prune` would.

        Runtime complexity: O(p) slices of the columns for p probes of the terms, once."""
        key = (columns, need)
        kept = self._columns_kept.get(key)
        if kept is None:
            holders = self._holders.get(columns)
            if holders is None:
                # Each distinct term once, as a node's digest counts the terms it may hold.
                distinct = dict(self._probes)
                holders = self._holders[columns] = columns.holders(list(distinct.values()))
            kept = self._columns_kept[key] = columns.kept(holders, need)
        return kept

    def _spots(self, size: int) -> list[tuple[str, tuple[int, ...] | None]]:
        """Each term with the byte and bit of each of its probes in a digest of ``size``
        bytes, side by side (None for a term never ruled out), as
        :meth:`~tocsearch.digest.TermDigest.holds` reads them; worked out once a size."""
        spots = self._term_spots.get(size)
        if spots is None:
            mask = size * 8 - 1
            spots = self._term_spots[size] = [
                (
                    term,
                    None
                    if probes is None
                    else tuple(part for at in probes for part in ((at & mask) >> 3, 1 << (at & 7))),
                )
                for term, probes in self._probes
            ]
        return spots

    def segment_masks(self, day: TocNode) -> tuple[int, list[int]] | None:
        """The mask of every child of ``day`` (bit ``i`` for its ``i``-th child) and, for
        each query term, the children the day's segment map says may hold it
        (:meth:`~tocsearch._segment_map.SegmentMap.masks`); None when the day has no map made
        for exactly its children.

        Runtime complexity: O(t) column reads of the day's map for t terms, once per day."""
        key = day.node_id
        if key in self._masks:
            return self._masks[key]
        found = None
        if day.digest and self.terms:
            segment_map = self.digests.segment_map(day)
            if segment_map is not None:
                self.digest_checked.add(key)
                found = (
                    segment_map.every,
                    segment_map.masks([probes for _, probes in self._probes]),
                )
        self._masks[key] = found
        return found

    def map_kept(self, day: TocNode, need: int, stack: DayStack | None = None) -> int | None:
        """The children of ``day`` (bit ``i`` for its ``i``-th child) that its segment map says
        may hold ``need`` of the terms; None when the day has no map made for exactly its
        children (:meth:`segment_masks`).

        ``stack`` (:meth:`stack`), when it was made from ``day`` as it is now and this
        question reads it (:meth:`maps_kept`), answers for all its days at once: the same
        answer, with no per-day column reads."""
        if stack is not None and stack in self._stacked:
            place = stack.place(day)
            if place is not None:
                self.digest_checked.add(day.node_id)
                return self._kept_in(stack, need).of(place)
        found = self.segment_masks(day)
        return None if found is None else at_least(found[1], need, found[0])

    def maps_kept(
        self, nodes: Sequence[TocNode], need: int, stack: DayStack | None = None
    ) -> list[int | None]:
        """:meth:`map_kept` of each of ``nodes`` (None for a node that is not a day), the
        days ``stack`` was made from read from it in one pass, once this question has read
        ``direct`` lists of its days day by day
        (:class:`~tocsearch.navigate._day_stacks.DayStacks`: a question that reaches few
        days of a year spends less on their own maps than on the stack's columns)."""
        day = TocLevel.DAY
        stack = self.read_through(stack)
        if stack is None or not self.terms:
            return [self.map_kept(node, need) if node.level is day else None for node in nodes]
        masks = self.stacked_kept(nodes, need, stack)
        if masks is not None:
            return list(masks)
        kept = self._kept_in(stack, need)
        checked = self.digest_checked
        places = stack.places(nodes)
        found: list[int | None] = []
        for node, place in zip(nodes, places, strict=True):
            if place is not None:
                checked.add(node.node_id)
                found.append(kept.of(place))
            else:
                found.append(self.map_kept(node, need) if node.level is day else None)
        return found

    def read_through(self, stack: DayStack | None) -> DayStack | None:
        """``stack`` when this question reads it (:meth:`maps_kept`), else None; each call
        before the question reads it counts as one of the ``direct`` lists read day by day,
        so it is made once for each list :meth:`maps_kept` is asked about."""
        if stack is not None and stack not in self._stacked:
            direct = self._direct.get(stack, 0)
            if direct < self.stacks.direct:
                self._direct[stack] = direct + 1
                return None
        return stack

    def stacked_kept(
        self, days: Sequence[TocNode], need: int, stack: DayStack | None
    ) -> list[int] | None:
        """:meth:`maps_kept` of ``days`` when each is a day ``stack`` holds as it is now and
        this question reads the stack already (it counts no ``direct`` list); None
        otherwise, having done nothing.

        Runtime complexity: O(d) for d days, one slice of the stack's kept bits a day
        whose map keeps a segment."""
        read = self._stacked_whole(days, stack)
        if read is None:
            return None
        stacked, (places, _, _) = read
        of = self._kept_in(stacked, need).of
        return [of(place) for place in places]

    def stacked_found(
        self, days: Sequence[TocNode], need: int, stack: DayStack | None
    ) -> list[tuple[int, int]] | None:
        """The nonzero :meth:`stacked_kept` of ``days``, each with its day's index in
        ``days``; None when :meth:`stacked_kept` is.

        Runtime complexity: O(1) when no map of ``days`` keeps a segment (one AND a row
        shape, :meth:`~tocsearch._stacked_maps.StackedKept.any_in`), else O(d)."""
        if stack is None or not self.terms:
            return None
        # Asked for every week a route reads: the stack's kept segments are looked up once.
        kept = self._stacked_kept.get((stack, need))
        if kept is None:
            if stack not in self._stacked:
                return None
            kept = self._kept_in(stack, need)
        whole = stack.whole(days)
        if whole is None:
            return None
        places, ids, spread = whole
        self.digest_checked.update(ids)
        if not kept.any_in(spread):
            return []
        of = kept.of
        found: list[tuple[int, int]] = []
        for index, place in enumerate(places):
            mapped = of(place)
            if mapped:
                found.append((index, mapped))
        return found

    def stacked_kept_by(self, stack: DayStack, need: int) -> StackedKept | None:
        """What ``need`` of the terms keep in every day of ``stack``, when this question
        reads the stack already (:meth:`read_through`); None otherwise, having done
        nothing."""
        kept = self._stacked_kept.get((stack, need))
        if kept is None and stack in self._stacked and self.terms:
            kept = self._kept_in(stack, need)
        return kept

    def _stacked_whole(
        self, days: Sequence[TocNode], stack: DayStack | None
    ) -> tuple[DayStack, Whole] | None:
        """``stack`` and its :meth:`~DayStack.whole` of ``days``, the days counted as
        consulted, when :meth:`stacked_kept` answers for them; None otherwise."""
        if stack is None or stack not in self._stacked or not self.terms:
            return None
        whole = stack.whole(days)
        if whole is None:
            return None
        self.digest_checked.update(whole[1])  # the days' ids
        return stack, whole

    def stack(self, parent: TocNode, days: Callable[[], Sequence[TocNode]]) -> DayStack | None:
        """The segment maps of the days below ``parent`` (listed by ``days()`` when they are
        not stacked yet), for :meth:`map_kept` and :meth:`maps_kept`; None when the
        navigator keeps no stacks or has not stacked the parent yet. Asked once a question."""
        key = parent.node_id
        if key not in self._stack_of:
            self._stack_of[key] = self.stacks.of(parent, days, self.digests)
        return self._stack_of[key]

    def _kept_in(self, stack: DayStack, need: int) -> StackedKept:
        """What ``need`` of the terms keep in every day of ``stack``, worked out once."""
        key = (stack, need)
        kept = self._stacked_kept.get(key)
        if kept is None:
            masks = self._stacked.get(stack)
            if masks is None:
                masks = self._stacked[stack] = stack.maps.masks(
                    [probes for _, probes in self._probes]
                )
            kept = self._stacked_kept[key] = masks.kept(need)
        return kept

    def prune_children(
        self, parent: TocNode, children: Sequence[TocNode], need: int = 1
    ) -> list[TocNode]:
        """:meth:`prune` of ``parent``'s ``children``, by the parent's segment map where it
        has one made for its children: one look for the whole day, no segment's digest
        decoded. A child the map does not list is pruned by its own digest.

        The map keeps every segment its own digest keeps (a folded row may keep a few more,
        never fewer), so this never drops a child :meth:`prune` would keep."""
        mapped = self.map_kept(parent, need) if parent.level is TocLevel.DAY else None
        if mapped is None:
            return self.prune(children, need)
        ids = parent.child_node_ids
        kept_ids = {ids[index] for index in positions(mapped)}
        listed = set(ids)
        kept: list[TocNode] = []
        for child in children:
            if child.node_id in kept_ids:
                kept.append(child)
            elif child.node_id not in listed:
                kept.extend(self.prune((child,), need))
        return kept

    def prune(self, nodes: Iterable[TocNode], need: int = 1) -> list[TocNode]:
        """``nodes`` without those whose digest rules out holding ``need`` of the terms."""
        kept: list[TocNode] = []
        known = self._held
        may_hold = self.may_hold
        for node in nodes:
            if not node.digest:
                kept.append(node)
                continue
            key = node.node_id
            held = known[key] if key in known else may_hold(node)
            if held is None or len(held) >= need:
                kept.append(node)
        return kept
