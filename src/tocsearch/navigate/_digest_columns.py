"""The term digests of a list of nodes bit-sliced, so that which of them may hold a term is
read for all of them at once.

A question without a time hint asks every month and week of every year its digests keep
whether they may hold its terms (:mod:`tocsearch.navigate._year_plan`): three bytes of each
node's 32 KiB bitmap a term, a few hundred bitmaps a question, each read a byte at a time
from its own place in memory. :class:`DigestColumns` keeps byte ``k`` of every bitmap of the
list side by side (as :mod:`tocsearch._stacked_maps` keeps day maps), so a probe of a term is
one short slice for the whole list, and the nodes that may hold ``need`` terms are a few
whole-integer steps (:func:`~tocsearch._segment_map.at_least`).

The answers are exactly :meth:`~tocsearch.navigate._lens.Lens.prune`'s: a node whose digest is
unknown or cannot be read is always kept, and every node with a digest counts as consulted.
"""

from __future__ import annotations

from collections.abc import Sequence

from tocsearch._segment_map import at_least, bit_column, positions
from tocsearch.models import TocNode

__all__ = ["DigestColumns"]

Probes = Sequence[tuple[int, ...] | None]


class _Sized:
    """The bitmaps of one size, interleaved: byte ``k`` of bitmap ``j`` at ``k * count + j``."""

    __slots__ = ("count", "every", "interleaved", "mask", "members", "size")

    def __init__(self, members: list[int], bitmaps: list[bytes]) -> None:
        self.members = members
        self.count = count = len(bitmaps)
        self.size = size = len(bitmaps[0])
        self.mask = size * 8 - 1
        self.every = (1 << count) - 1
        # One strided copy a bitmap: its byte ``k`` goes to ``k * count + j``.
        interleaved = bytearray(size * count)
        for place, bitmap in enumerate(bitmaps):
            interleaved[place::count] = bitmap
        self.interleaved = bytes(interleaved)

    def holders(self, probes: tuple[int, ...]) -> int:
        """Bit ``j`` set for each bitmap ``j`` (of this size) that holds every probe."""
        held = self.every
        count, data = self.count, self.interleaved
        for position in probes:
            at = (position & self.mask) >> 3
            held &= bit_column(data[at * count : at * count + count], position & 7)
            if not held:
                break
        return held


class DigestColumns:
    """The decoded digest bitmaps of ``nodes`` (None where a node's digest is unknown or
    cannot be read), bit-sliced by size. Immutable once made; it takes as many bytes as the
    bitmaps.

    Runtime complexity: O(b) slices to make for bitmaps of b bytes; :meth:`kept` reads
    O(p) slices of n bytes for p probes of n nodes of one size, once a probe set.
    """

    __slots__ = ("_always", "_groups", "consulted", "nodes")

    def __init__(self, nodes: Sequence[TocNode], bitmaps: Sequence[bytes | None]) -> None:
        self.nodes = list(nodes)
        # Nodes no digest can rule out: without one, or with one that cannot be read.
        always = 0
        by_size: dict[int, tuple[list[int], list[bytes]]] = {}
        for index, (node, bitmap) in enumerate(zip(self.nodes, bitmaps, strict=True)):
            if not node.digest or bitmap is None:
                always |= 1 << index
                continue
            members, rows = by_size.setdefault(len(bitmap), ([], []))
            members.append(index)
            rows.append(bitmap)
        self._always = always
        self._groups = [_Sized(members, rows) for members, rows in by_size.values()]
        # Every node whose digest a look at the list consults (as Lens.prune counts them).
        self.consulted = tuple(node.node_id for node in self.nodes if node.digest)

    def holders(self, probes: Probes) -> list[list[int]]:
        """For each size, for each term whose probes these are (None: never ruled out), the
        bitmaps of that size that may hold it; what :meth:`kept` counts from."""
        return [
            [group.every if term is None else group.holders(term) for term in probes]
            for group in self._groups
        ]

    def kept(self, holders: list[list[int]], need: int) -> int:
        """Bit ``i`` set for each node ``i`` that may hold ``need`` of the terms whose
        :meth:`holders` these are, or that no digest rules out."""
        kept = self._always
        for group, held in zip(self._groups, holders, strict=True):
            found = at_least(held, need, group.every)
            if group.count == len(self.nodes):
                kept |= found
                continue
            members = group.members
            for local in positions(found):
                kept |= 1 << members[local]
        return kept
