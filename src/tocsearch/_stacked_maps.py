"""Stacked segment maps: the segment maps of many days asked at once.

A query whose words are each said somewhere in most days is looked for in every day's
segment map (:mod:`tocsearch._segment_map`): a few column reads a day, but thousands of days
in a long history. :class:`StackedMaps` joins the columns of many maps in one buffer, one
buffer per row shape (row width and column bytes), byte by byte: a column of every day is one
slice of that buffer, read into one integer for all the days at once.
Counting how many of the terms each segment may hold (:func:`~tocsearch._segment_map.at_least`)
is bitwise, so it is done for all the days with the same few whole-integer steps as for one.

The answers are exactly the days' own: :meth:`StackedMasks.of` is each map's
:meth:`~tocsearch._segment_map.SegmentMap.masks`, :meth:`StackedKept.of` its
:func:`~tocsearch._segment_map.at_least`.

>>> from tocsearch._segment_map import SegmentMap
>>> from tocsearch.digest import TermDigest
>>> days = [["postgres backup", "kubernetes"], ["kubernetes upgrade"], ["postgres kubernetes"]]
>>> def day_map(texts):
...     digests = [TermDigest.sized_for([text]) for text in texts]
...     return SegmentMap.of(digests, [str(index) for index in range(len(texts))])
>>> maps = [day_map(day) for day in days]
>>> stacked = StackedMaps(maps)
>>> masks = stacked.masks([TermDigest.probes("postgres"), TermDigest.probes("kubernetes")])
>>> [masks.of(index) == smap.masks(masks.probes) for index, smap in enumerate(maps)]
[True, True, True]
>>> both = masks.kept(2)
>>> [bin(both.of(index)) for index in range(len(maps))]
['0b0', '0b0', '0b1']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tocsearch._segment_map import SegmentMap, at_least, column_masks

__all__ = ["StackedKept", "StackedMaps", "StackedMasks"]

# Each byte as 1 when it is not 0: a shape's "holds some" bytes as bits 8 * place.
_ONE_IF_SET = bytes([0] + [1] * 255)


class StackedMaps:
    """The columns of many :class:`~tocsearch._segment_map.SegmentMap` joined, one buffer
    per row shape. Immutable once made; it takes as many bytes as the maps' columns.

    Runtime complexity: :meth:`masks` reads, for each probe and each row shape, one slice
    of the shape's buffer: O(p * s) slices for p probes and s shapes, of n * w bytes for n
    maps of columns of w bytes. Making it takes O(b * w) strided slices for each shape of
    rows of b bits.
    """

    __slots__ = ("_groups", "_places")

    def __init__(self, maps: Sequence[SegmentMap]) -> None:
        shapes: dict[tuple[int, int], list[int]] = {}
        for index, smap in enumerate(maps):
            shapes.setdefault((smap.bits, _width(smap)), []).append(index)
        self._groups = [_Shape([maps[index] for index in members]) for members in shapes.values()]
        # For each map, its shape's number and its place in that shape's buffer.
        places = [(0, 0)] * len(maps)
        for number, members in enumerate(shapes.values()):
            for place, index in enumerate(members):
                places[index] = (number, place)
        self._places = places

    def __len__(self) -> int:
        return len(self._places)

    def spread(self, indexes: Iterable[int]) -> list[int]:
        """The maps at ``indexes``, for :meth:`StackedKept.any_in`: for each row shape, a
        mask with bit 8 * place set for each of them of that shape."""
        spread = [0] * len(self._groups)
        places = self._places
        for index in indexes:
            number, place = places[index]
            spread[number] |= 1 << 8 * place
        return spread

    def masks(self, probes: Sequence[tuple[int, ...] | None]) -> StackedMasks:
        """For each term whose :meth:`~tocsearch.digest.TermDigest.probes` these are, the
        segments of every map whose row may hold it."""
        return StackedMasks(self, list(probes))


class StackedMasks:
    """The segments of every stacked map that may hold each term of one probe set."""

    __slots__ = ("_data", "_maps", "_terms", "probes")

    def __init__(self, maps: StackedMaps, probes: list[tuple[int, ...] | None]) -> None:
        self._maps = maps
        self.probes = probes
        self._terms = [group.terms(probes) for group in maps._groups]
        # Each shape's term masks as bytes, made when a map of the shape is first asked.
        self._data: dict[int, list[bytes]] = {}

    def of(self, index: int) -> list[int]:
        """The masks of map ``index``: its :meth:`SegmentMap.masks` of :attr:`probes`."""
        number, place = self._maps._places[index]
        group = self._maps._groups[number]
        data = self._data.get(number)
        if data is None:
            data = self._data[number] = [group.data(held) for held in self._terms[number]]
        return [group.member(held, place) for held in data]

    def kept(self, need: int) -> StackedKept:
        """The segments of every map that may hold at least ``need`` of the terms."""
        return StackedKept(self._maps, self._terms, need)


class StackedKept:
    """For every stacked map, the segments that may hold at least ``need`` of the terms.
    Whether any map of many holds some is one AND per row shape (:meth:`any_in`), so the
    maps of days none of whose segments is kept are ruled out without asking each."""

    __slots__ = ("_found", "_maps", "_occupied")

    def __init__(self, maps: StackedMaps, terms: list[list[int]], need: int) -> None:
        self._maps = maps
        self._found = [
            group.found(at_least(held, need, group.every))
            for group, held in zip(maps._groups, terms, strict=True)
        ]
        # For each shape, bit 8 * place set when the map at that place keeps a segment.
        self._occupied = [
            int.from_bytes(occupied.translate(_ONE_IF_SET), "little") for _, occupied in self._found
        ]

    def any_in(self, spread: Sequence[int]) -> bool:
        """Whether some map of those :meth:`StackedMaps.spread` gave ``spread`` for keeps a
        segment (:meth:`of` is not 0 for one of them).

        Runtime complexity: O(s) whole-integer ANDs for s row shapes."""
        occupied = self._occupied
        if len(occupied) == 1:  # one row shape, as in most years
            return bool(occupied[0] & spread[0])
        return any(held & mask for held, mask in zip(occupied, spread, strict=True))

    def holds(self, index: int) -> bool:
        """Whether some segment of map ``index`` may hold at least ``need`` of the terms
        (:meth:`of` is not 0).

        Runtime complexity: O(1)."""
        number, place = self._maps._places[index]
        return bool(self._found[number][1][place])

    def of(self, index: int) -> int:
        """The segments of map ``index`` (bit ``i`` for segment ``i``) that may hold at least
        ``need`` of the terms: :func:`at_least` of its :meth:`SegmentMap.masks`.

        Runtime complexity: O(1) for a map none of whose segments is kept; O(w) otherwise."""
        number, place = self._maps._places[index]
        found, occupied = self._found[number]
        if not occupied[place]:
            return 0
        return self._maps._groups[number].member(found, place)


def _width(smap: SegmentMap) -> int:
    """The bytes of each of ``smap``'s columns."""
    return (smap.count + 7) // 8


class _Shape:
    """The maps of one row width and column size, their columns interleaved: column ``c`` of
    every map is one run of ``width * count`` bytes, byte ``k * count + d`` of it byte ``k``
    of map ``d``'s column (byte by byte, every map's byte side by side)."""

    __slots__ = ("bits", "columns", "count", "everies", "every", "width")

    def __init__(self, maps: Sequence[SegmentMap]) -> None:
        self.bits = maps[0].bits
        self.width = _width(maps[0])
        self.count = len(maps)
        rows = b"".join(smap.columns for smap in maps)
        # Byte ``at`` of every map's columns is the strided slice ``rows[at::block]``: one
        # slice per byte of a map, made once, so a question reads a column in one slice.
        block = self.bits * self.width
        self.columns = (
            rows if self.count == 1 else b"".join([rows[at::block] for at in range(block)])
        )
        self.everies = [smap.every for smap in maps]
        # Every segment of every map, laid out as a column (no bit past a map's last
        # segment: a term never ruled out keeps only real segments).
        everies = b"".join(every.to_bytes(self.width, "little") for every in self.everies)
        if self.count > 1:
            everies = b"".join([everies[at :: self.width] for at in range(self.width)])
        self.every = int.from_bytes(everies, "little")

    def terms(self, probes: Sequence[tuple[int, ...] | None]) -> list[int]:
        """For each term, the segments of every map whose row may hold it (all for a term
        never ruled out)."""
        return column_masks(self.columns, self.bits, self.width * self.count, self.every, probes)

    def data(self, held: int) -> bytes:
        """``held`` (an integer from :meth:`terms`) as the bytes :meth:`member` reads."""
        return held.to_bytes(self.width * self.count, "little")

    def found(self, held: int) -> tuple[bytes, bytes]:
        """:meth:`data` of ``held``, and for each map whether any of its bits is set (byte
        ``d`` nonzero for map ``d``)."""
        count = self.count
        data = self.data(held)
        occupied = 0
        for start in range(0, len(data), count):
            occupied |= int.from_bytes(data[start : start + count], "little")
        return data, occupied.to_bytes(count, "little")

    def member(self, data: bytes, place: int) -> int:
        """The mask of the map at ``place`` in ``data`` (from :meth:`data`)."""
        return int.from_bytes(data[place :: self.count], "little") & self.everies[place]
