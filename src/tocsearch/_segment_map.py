"""Segment maps: which segments of a day may hold a term, answered without reading them.

A day's term digest (:mod:`tocsearch.digest`) says whether *some* segment of the day may hold
a word; a busy day of a long history holds a hundred or more segments, and a query's words are
often each said somewhere in most days, rarely in one segment together. A :class:`SegmentMap`
keeps each segment's digest of the day, folded to one size, side by side, so the segments that
may hold a term are found with a few slices of bytes for the whole day instead of a digest
decoded per segment.

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
>>> smap.counts([TermDigest.probes("postgres"), TermDigest.probes("kubernetes")])
b'\\x01\\x01\\x01'
>>> smap.matching([TermDigest.probes("postgres")], 1)
[0, 2]
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
    "ids_checksum",
    "split",
    "without_map",
]

MAX_ROW_BITS = 4096
"""The widest row: a segment whose digest is wider is folded to this. Rows are the median
segment's width up to this, so a day of a few huge segments does not cost the others their
room."""

_MAGIC = b"TSM1"
# Stored after the rows, so a reader finds the map from the end of the text without
# decompressing the day's bitmap before it: log2 of the row width, segment count, checksum
# of the segment ids, magic.
_FOOTER = struct.Struct("<BII4s")
# For each bit of a byte, the table that turns a byte into that bit (0 or 1).
_BIT = tuple(bytes((value >> bit) & 1 for value in range(256)) for bit in range(8))
# For each count needed, the table that turns a count into whether it is reached (0 or 1).
_AT_LEAST = tuple(bytes(int(value >= need) for value in range(256)) for need in range(257))


def at_least(counts: bytes, need: int) -> list[int]:
    """The positions in ``counts`` (as from :meth:`SegmentMap.counts`) of at least ``need``,
    in order.

    >>> at_least(bytes([0, 2, 1, 3]), 2)
    [1, 3]

    Runtime complexity: O(n) in C, then O(1) per position found.
    """
    flags = counts.translate(_AT_LEAST[min(max(need, 0), 256)])
    found: list[int] = []
    at = flags.find(1)
    while at >= 0:
        found.append(at)
        at = flags.find(1, at + 1)
    return found


def ids_checksum(ids: Sequence[str]) -> int:
    """The checksum a map keeps of the segment ids it covers, in order."""
    return zlib.crc32("\n".join(ids).encode("utf-8", "surrogatepass"))


class SegmentMap:
    """Each segment's digest of one day, folded to one row width; immutable once made.

    Runtime complexity: :meth:`counts` is O(t * n) byte work in C for t terms and n segments,
    a few slices per term; no Python loop over the segments.
    """

    __slots__ = ("_bits", "_checksum", "_count", "_rows")

    def __init__(self, rows: bytes, bits: int, count: int, checksum: int) -> None:
        if bits < 8 or bits & (bits - 1) or len(rows) != count * (bits // 8):
            raise ValueError(f"a segment map of {count} rows of {bits} bits has {len(rows)} bytes")
        self._rows = rows
        self._bits = bits
        self._count = count
        self._checksum = checksum

    @classmethod
    def of(cls, digests: Sequence[TermDigest | None], ids: Sequence[str]) -> SegmentMap:
        """The map of segments with ``digests`` (None: unknown) and ``ids``, in day order."""
        if len(digests) != len(ids):
            raise ValueError(f"{len(digests)} digests for {len(ids)} segments")
        widths = sorted(digest.bits for digest in digests if digest is not None)
        bits = min(MAX_ROW_BITS, widths[len(widths) // 2]) if widths else SMALLEST_BITS
        width = bits // 8
        full = b"\xff" * width
        rows = b"".join(full if digest is None else _row(digest, bits) for digest in digests)
        return cls(rows, bits, len(ids), ids_checksum(ids))

    @property
    def stored_size(self) -> int:
        """The bytes :meth:`to_bytes` takes."""
        return len(self._rows) + _FOOTER.size

    @property
    def count(self) -> int:
        """How many segments the map covers."""
        return self._count

    def covers(self, ids: Sequence[str]) -> bool:
        """Whether the map was made for exactly these segment ids, in this order."""
        return len(ids) == self._count and ids_checksum(ids) == self._checksum

    def counts(self, probes: Sequence[tuple[int, ...] | None]) -> bytes:
        """For each segment, how many of the terms whose :meth:`TermDigest.probes` these are
        its row may hold (one byte each; at most 255 terms)."""
        if len(probes) > 255:
            raise ValueError(f"at most 255 terms are counted at once, got {len(probes)}")
        count, rows, mask, width = self._count, self._rows, self._bits - 1, self._bits // 8
        total = 0
        for term in probes:
            if term is None:
                total += int.from_bytes(b"\x01" * count, "little")
                continue
            held = -1
            for at in term:
                at &= mask
                # The byte holding bit ``at`` of every row, turned into that bit.
                held &= int.from_bytes(rows[at >> 3 :: width].translate(_BIT[at & 7]), "little")
            # Bytes are 0 or 1, so adding never carries from one segment into the next.
            total += held
        return total.to_bytes(count, "little")

    def matching(self, probes: Sequence[tuple[int, ...] | None], need: int) -> list[int]:
        """The positions of the segments that may hold at least ``need`` of the terms, in day
        order."""
        return at_least(self.counts(probes), need)

    def to_bytes(self) -> bytes:
        """The map as stored behind a day digest's bitmap: the rows, then a footer."""
        footer = _FOOTER.pack(self._bits.bit_length() - 1, self._count, self._checksum, _MAGIC)
        return self._rows + footer

    @classmethod
    def from_tail(cls, data: bytes) -> SegmentMap | None:
        """The map stored at the end of ``data`` by :meth:`to_bytes`, or None when there is
        none (another format, or too short to hold the rows its footer names)."""
        if len(data) < _FOOTER.size:
            return None
        shift, count, checksum, magic = _FOOTER.unpack_from(data, len(data) - _FOOTER.size)
        if magic != _MAGIC or not 3 <= shift <= 24:
            return None
        size = count * ((1 << shift) // 8)
        end = len(data) - _FOOTER.size
        if size > end:
            return None
        return cls(data[end - size : end], 1 << shift, count, checksum)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, SegmentMap)
            and other._rows == self._rows
            and other._bits == self._bits
            and other._checksum == self._checksum
        )

    def __hash__(self) -> int:
        return hash((self._rows, self._bits, self._checksum))

    def __repr__(self) -> str:
        return f"SegmentMap(count={self._count}, bits={self._bits})"


def _row(digest: TermDigest, bits: int) -> bytes:
    """``digest``'s bitmap as a row of ``bits`` bits: repeated when narrower, folded by OR
    when wider, so bit ``p & (bits - 1)`` is set wherever the digest's ``p`` is."""
    bitmap = digest.bitmap
    width = bits // 8
    if len(bitmap) <= width:
        return bitmap * (width // len(bitmap))
    folded = 0
    for start in range(0, len(bitmap), width):
        folded |= int.from_bytes(bitmap[start : start + width], "little")
    return folded.to_bytes(width, "little")


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
