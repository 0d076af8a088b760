"""Segment maps: which segments of a day may hold a term, answered without reading them.

A day's term digest (:mod:`tocsearch.digest`) says whether *some* segment of the day may hold
a word; a busy day of a long history holds a hundred or more segments, and a query's words are
often each said somewhere in most days, rarely in one segment together. A :class:`SegmentMap`
keeps each segment's digest of the day, folded to one size, bit-sliced: for each bit of a
digest, one bit per segment. The segments that may hold a term are then the AND of three such
columns (the term's probes), a few dozen bytes for the whole day, instead of a digest decoded
per segment.

It answers like the segments' own digests: a segment's row holds every bit its digest holds
(a smaller digest repeated, a larger one folded by OR), so the map never rules out a segment
its digest keeps; it may keep one its digest rules out (when the digest was folded). A segment
without a digest gets a full row: unknown never rules anything out.

Stored behind the day digest's compressed bitmap in the same text (:func:`attach`): the day
digest reader stops at the end of its compressed stream, so a reader that knows nothing of
maps reads the day's digest as before. The map names how many segments it covers and a
checksum of their ids in order; a map that does not match the day's children is not used.

>>> from tocsearch.digest import TermDigest
>>> texts = ["Rotated the Postgres credentials", "Upgraded kubernetes", "postgres backup"]
>>> digests = [TermDigest.sized_for([text]) for text in texts]
>>> smap = SegmentMap.of(digests, ["a", "b", "c"])
>>> probes = [TermDigest.probes("postgres"), TermDigest.probes("kubernetes")]
>>> [bin(mask) for mask in smap.masks(probes)]
['0b101', '0b10']
>>> positions(at_least(smap.masks(probes), 1, smap.every))
[2, 1, 0]
>>> positions(at_least(smap.masks(probes), 2, smap.every))
[]
>>> SegmentMap.from_tail(smap.to_bytes()) == smap
True
"""

from __future__ import annotations

import base64
import binascii
import struct
import zlib
from collections.abc import Sequence

from tocsearch.digest import SMALLEST_BITS, TermDigest

__all__ = [
    "MAX_ROW_BITS",
    "SegmentMap",
    "at_least",
    "attach",
    "bit_column",
    "column_masks",
    "ids_checksum",
    "positions",
    "split",
    "without_map",
]

MAX_ROW_BITS = 4096
"""The widest row: a segment whose digest is wider is folded to this. Rows are the median
segment's width up to this, so a day of a few huge segments does not cost the others their
room."""

_MAGIC = b"TSM2"
# Stored after the columns, so a reader finds the map from the end of the text without
# decompressing the day's bitmap before it: log2 of the row width, segment count, checksum
# of the segment ids, magic.
_FOOTER = struct.Struct("<BII4s")
# For each bit of a byte, the table that turns a byte into that bit as an ASCII digit.
_DIGIT = tuple(b"01"[(value >> bit) & 1] for value in range(256) for bit in range(8))
_BIT_DIGITS = tuple(bytes(_DIGIT[value * 8 + bit] for value in range(256)) for bit in range(8))


def ids_checksum(ids: Sequence[str]) -> int:
    """The checksum a map keeps of the segment ids it covers, in order."""
    return zlib.crc32("\n".join(ids).encode("utf-8", "surrogatepass"))


def at_least(masks: Sequence[int], need: int, every: int) -> int:
    """The segments (bit ``i`` for segment ``i``) set in at least ``need`` of ``masks``;
    ``every`` is the mask of all segments.

    >>> bin(at_least([0b0110, 0b0011, 0b0101], 2, 0b1111))
    '0b111'

    Runtime complexity: O(t * need) whole-integer steps for t masks.
    """
    if need <= 0:
        return every
    if need > len(masks):
        return 0
    if need == 1:
        union = 0
        for mask in masks:
            union |= mask
        return union
    if need == len(masks):
        common = every
        for mask in masks:
            common &= mask
        return common
    # reached[j]: the segments set in at least j of the masks seen so far.
    reached = [every] + [0] * need
    for seen, mask in enumerate(masks):
        for j in range(min(need, seen + 1), 0, -1):
            reached[j] |= reached[j - 1] & mask
    return reached[need]


def bit_column(data: bytes, bit: int) -> int:
    """Bit ``bit`` of each byte of ``data`` as one integer: bit ``j`` of it is that bit of
    byte ``j`` (a column of bit-sliced rows, read through a table of ASCII digits).

    >>> bin(bit_column(bytes([0b01, 0b10, 0b11]), 1))
    '0b110'
    """
    return int(data.translate(_BIT_DIGITS[bit])[::-1] or b"0", 2)


def column_masks(
    columns: bytes,
    bits: int,
    size: int,
    every: int,
    probes: Sequence[tuple[int, ...] | None],
) -> list[int]:
    """For each term whose :meth:`TermDigest.probes` these are, the AND of its probes'
    columns (``bits`` columns of ``size`` bytes each, side by side, little-endian; a probe
    ``p`` reads column ``p & (bits - 1)``), within ``every``; ``every`` for a term never
    ruled out.

    >>> column_masks(bytes([0b011, 0b110]), 2, 1, 0b111, [(0, 1), (1,), None])
    [2, 6, 7]
    """
    mask = bits - 1
    found: list[int] = []
    for term in probes:
        held = every
        if term is not None:
            for at in term:
                start = (at & mask) * size
                held &= int.from_bytes(columns[start : start + size], "little")
        found.append(held)
    return found


def positions(mask: int) -> list[int]:
    """The bits set in ``mask``, highest first (the newest segments first).

    >>> positions(0b10110)
    [4, 2, 1]
    """
    found: list[int] = []
    while mask:
        top = mask.bit_length() - 1
        found.append(top)
        mask ^= 1 << top
    return found


class SegmentMap:
    """Each segment's digest of one day, folded to one row width, stored bit-sliced: for
    each bit of a row, one bit per segment. Immutable once made.

    Runtime complexity: :meth:`masks` reads three columns of n/8 bytes a term for n
    segments: whole-integer steps, no loop over the segments.
    """

    __slots__ = ("_bits", "_checksum", "_columns", "_count", "_width")

    def __init__(self, columns: bytes, bits: int, count: int, checksum: int) -> None:
        width = (count + 7) // 8
        if bits < 8 or bits & (bits - 1) or len(columns) != bits * width:
            raise ValueError(
                f"a segment map of {count} segments and {bits} bits has {len(columns)} bytes"
            )
        self._columns = columns
        self._bits = bits
        self._count = count
        self._checksum = checksum
        self._width = width

    @classmethod
    def of(cls, digests: Sequence[TermDigest | None], ids: Sequence[str]) -> SegmentMap:
        """The map of segments with ``digests`` (None: unknown) and ``ids``, in day order.

        Runtime complexity: O(b) steps of O(n) bytes for rows of b bits and n segments.
        """
        if len(digests) != len(ids):
            raise ValueError(f"{len(digests)} digests for {len(ids)} segments")
        widths = sorted(digest.bits for digest in digests if digest is not None)
        bits = min(MAX_ROW_BITS, widths[len(widths) // 2]) if widths else SMALLEST_BITS
        row = bits // 8
        full = b"\xff" * row
        rows = b"".join(full if digest is None else _row(digest, bits) for digest in digests)
        count = len(ids)
        width = (count + 7) // 8
        columns: list[bytes] = []
        for bit in range(bits):
            # Bit ``bit`` of every row as ASCII digits, the last segment first: read in base
            # 2, segment ``i`` is bit ``i``.
            column = bit_column(rows[bit >> 3 :: row], bit & 7)
            columns.append(column.to_bytes(width, "little"))
        return cls(b"".join(columns), bits, count, ids_checksum(ids))

    @property
    def stored_size(self) -> int:
        """The bytes :meth:`to_bytes` takes."""
        return len(self._columns) + _FOOTER.size

    @property
    def count(self) -> int:
        """How many segments the map covers."""
        return self._count

    @property
    def bits(self) -> int:
        """The width of a row: how many columns the map has."""
        return self._bits

    @property
    def columns(self) -> bytes:
        """The columns side by side, each :attr:`count` bits rounded up to whole bytes, bit
        ``i`` of a column for segment ``i`` (little-endian)."""
        return self._columns

    @property
    def every(self) -> int:
        """The mask of every segment."""
        return (1 << self._count) - 1

    def covers(self, ids: Sequence[str]) -> bool:
        """Whether the map was made for exactly these segment ids, in this order."""
        return len(ids) == self._count and ids_checksum(ids) == self._checksum

    def masks(self, probes: Sequence[tuple[int, ...] | None]) -> list[int]:
        """For each term whose :meth:`TermDigest.probes` these are, the segments (bit ``i``
        for segment ``i``) whose row may hold it; every segment for a term never ruled out."""
        return column_masks(self._columns, self._bits, self._width, self.every, probes)

    def to_bytes(self) -> bytes:
        """The map as stored behind a day digest's bitmap: the columns, then a footer."""
        footer = _FOOTER.pack(self._bits.bit_length() - 1, self._count, self._checksum, _MAGIC)
        return self._columns + footer

    @classmethod
    def from_tail(cls, data: bytes) -> SegmentMap | None:
        """The map stored at the end of ``data`` by :meth:`to_bytes`, or None when there is
        none (another format, or too short to hold the columns its footer names)."""
        if len(data) < _FOOTER.size:
            return None
        shift, count, checksum, magic = _FOOTER.unpack_from(data, len(data) - _FOOTER.size)
        if magic != _MAGIC or not 3 <= shift <= 24:
            return None
        size = (1 << shift) * ((count + 7) // 8)
        end = len(data) - _FOOTER.size
        if size > end:
            return None
        return cls(data[end - size : end], 1 << shift, count, checksum)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, SegmentMap)
            and other._columns == self._columns
            and other._bits == self._bits
            and other._count == self._count
            and other._checksum == self._checksum
        )

    def __hash__(self) -> int:
        return hash((self._columns, self._bits, self._checksum))

    def __repr__(self) -> str:
        return f"SegmentMap(count={self._count}, bits={self._bits})"


def _row(digest: TermDigest, bits: int) -> bytes:
    """``digest``'s bitmap as a row of ``bits`` bits: repeated when narrower, folded by OR
    when wider, so bit ``p & (bits - 1)`` is set wherever the digest's ``p`` is."""
    bitmap = digest.bitmap
    width = bits // 8
    if len(bitmap) <= width:
        return bitmap * (width // len(bitmap))
    return digest.folded(bits).bitmap


def attach(digest_text: str, segment_map: SegmentMap) -> str:
    """``digest_text`` (a day's :meth:`TermDigest.to_text`) with ``segment_map`` behind its
    compressed bitmap."""
    packed = base64.b64decode(digest_text.encode("ascii"), validate=True)
    return base64.b64encode(packed + segment_map.to_bytes()).decode("ascii")


def split(text: str) -> tuple[bytes, SegmentMap | None] | None:
    """The stored bytes of a digest ``text`` without the segment map at their end, and the
    map (None when there is none), or None when ``text`` is not base64. The map is read
    without decompressing the digest's bitmap (:meth:`TermDigest.from_packed` does that)."""
    try:
        packed = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        return None
    found = SegmentMap.from_tail(packed)
    if found is None:
        return packed, None
    return packed[: len(packed) - found.stored_size], found


def without_map(text: str) -> str:
    """A digest ``text`` without the segment map behind its bitmap (``text`` itself when it
    has none): the text of the same digest, as :meth:`TermDigest.to_text` writes it."""
    parts = split(text)
    if parts is None or parts[1] is None:
        return text
    return base64.b64encode(parts[0]).decode("ascii")
