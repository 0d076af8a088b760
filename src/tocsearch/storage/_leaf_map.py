"""LeafMap: a sorted map of string keys to marshal-able values, kept as compressed leaves.

A dict of half a million grips costs about 300 bytes a grip before its fields are stored: a key
string of about 76 bytes, a dict entry of about 30, a ``bytes`` header of 33. A LeafMap keeps
the entries in key order, a few dozen to a leaf, and each leaf as one zlib-compressed
:mod:`marshal` blob of its keys and values: neighbouring grip ids share their time prefix,
their events' ids and their segment's id, so a grip costs about 45 bytes in all.

A read opens one leaf (decompress and unmarshal: some tens of microseconds); the leaves opened
last are kept open, so the grips of one segment, or the segments of one day, which sit side by
side, are read for the price of one. A write rebuilds each leaf it touches.

Entries read one at a time, as a search reads segments (one of a day's few dozen), are
cheapest in leaves of one entry, but a record compressed alone loses what it shares with its
neighbours. A map made with ``dictionary_after=n`` keeps its leaves uncompressed until it
holds ``n`` entries, then learns a dictionary (a sample of them) and from then on compresses
every leaf against it, as raw deflate: a generated segment takes about 370 bytes alone
against a dictionary, 375 in a leaf of sixteen, 500 alone without one, and opens in about a
tenth of the time of the leaf of sixteen. The dictionary is learned once and kept: later
entries are compressed against what the first ones said, which holds their structure (ids,
field layout) whatever their words.

>>> table = LeafMap()
>>> table.update([("b", (2,)), ("a", (1, "one"))])
>>> table.get("a"), table.get("c"), list(table), len(table)
((1, 'one'), None, ['a', 'b'], 2)
"""

from __future__ import annotations

import marshal
import zlib
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from typing import Any, cast

from tocsearch.errors import InvalidArgument, StoreCorrupted

__all__ = ["LeafMap"]

Value = Any
_Opened = tuple[tuple[str, ...], tuple[Value, ...]]


# The most a deflate dictionary can use (its window).
_DICTIONARY_BYTES = 32 * 1024
# Raw deflate: no header or checksum, which for a dictionary stream would mean a checksum of
# the whole dictionary on every opening.
_RAW = -15


def _primed(dictionary: bytes) -> Any:
    """A raw deflater that has read ``dictionary`` (none when empty), to be copied for each
    leaf: reading 32 KiB of dictionary into a fresh deflater costs more than compressing a
    leaf of one entry, copying it a third of that."""
    level, method = zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED
    if dictionary:
        return zlib.compressobj(level, method, _RAW, zdict=dictionary)
    return zlib.compressobj(level, method, _RAW)


def _inflated(leaf: bytes, dictionary: bytes | None) -> bytes:
    """The payload of a leaf: zlib-framed when ``dictionary`` is None, raw deflate against it
    otherwise. Raises ``zlib.error`` or ``ValueError`` when the leaf is damaged."""
    if dictionary is None:
        return zlib.decompress(leaf)
    if not dictionary:
        return zlib.decompress(leaf, _RAW)
    payload, tail = _inflated_with_tail(leaf, dictionary)
    if tail:
        raise ValueError("the leaf's deflate stream is followed by other bytes")
    return payload


def _inflated_with_tail(leaf: bytes, dictionary: bytes | None) -> tuple[bytes, bytes]:
    """The payload of a leaf (as :func:`_inflated` reads it) and the bytes stored after its
    compressed stream. Raises ``zlib.error`` or ``ValueError`` when the leaf is damaged."""
    if dictionary is None:
        inflater = zlib.decompressobj()
    elif dictionary:
        inflater = zlib.decompressobj(_RAW, zdict=dictionary)
    else:
        inflater = zlib.decompressobj(_RAW)
    payload = inflater.decompress(leaf)
    if not inflater.eof:
        raise ValueError("the leaf's deflate stream is cut short")
    return payload, inflater.unused_data


def _split_tails(values: tuple[Value, ...]) -> tuple[tuple[Value, ...], tuple[int, ...], bytes]:
    """The values without their tails (the last item of a tuple that ends in ``bytes``), the
    length of each tail (-1: the value is kept whole) and the tails joined."""
    heads: list[Value] = []
    lengths: list[int] = []
    tails: list[bytes] = []
    for value in values:
        if type(value) is tuple and value and type(value[-1]) is bytes:
            heads.append(value[:-1])
            lengths.append(len(value[-1]))
            tails.append(value[-1])
        else:
            heads.append(value)
            lengths.append(-1)
    return tuple(heads), tuple(lengths), b"".join(tails)


def _joined_tails(
    heads: tuple[Value, ...], lengths: tuple[int, ...], tail: bytes
) -> tuple[Value, ...]:
    """The values :func:`_split_tails` split. Raises ``ValueError`` when the tails do not
    add up to ``tail``, and ``TypeError`` when a head that had a tail is not a tuple."""
    if len(lengths) == 1 and lengths[0] == len(tail):
        # One entry to a leaf (segments): its tail is all there is, with no copy to cut.
        return (heads[0] + (tail,),)
    values: list[Value] = []
    at = 0
    for head, length in zip(heads, lengths, strict=True):
        if length < 0:
            values.append(head)
        else:
            # Concatenation, not unpacking: a head that is not a tuple (a damaged leaf)
            # raises TypeError instead of being read as an iterable.
            values.append(head + (tail[at : at + length],))  # noqa: RUF005
            at += length
    if at != len(tail):
        raise ValueError(f"the leaf's tails take {at} bytes of the {len(tail)} stored")
    return tuple(values)


class LeafMap:
    """Entries in key order, in leaves of at most ``leaf_size``; see the module docstring.

    Keys are ``str`` and values what :mod:`marshal` writes exactly (no ``str`` or ``int``
    subclasses); :meth:`update` raises ``ValueError`` on any other and changes nothing.

    Args:
        leaf_size: entries in a full leaf: more compress better (compression finds the
            repeats between neighbours), fewer open faster.
        kept_open: leaves kept open (decompressed), the least recently read dropped first.
        dictionary_after: entries after which a dictionary is learned from them and every
            leaf compressed against it (see the module docstring); None, the default, never
            learns one and keeps leaves zlib-framed.
        raw_tails: keep the last item of every value that is a tuple ending in ``bytes``
            out of the compression, stored as it is after the leaf's compressed stream.
            For bytes already compressed (a segment's digest): deflate searches them for
            repeats in vain (about 40% of the time a segment took to pack), and a dictionary
            sampled from them holds less of the text that does repeat (segments took 3-5%
            more room so).

    Runtime complexity: O(log n) to find a key's leaf, O(leaf_size) to open or rebuild it;
    learning the dictionary recompresses every leaf once, O(dictionary_after).
    """

    def __init__(
        self,
        *,
        leaf_size: int = 64,
        kept_open: int = 1,
        dictionary_after: int | None = None,
        raw_tails: bool = False,
    ) -> None:
        if min(leaf_size, kept_open, 1 if dictionary_after is None else dictionary_after) < 1:
            raise InvalidArgument(
                "leaf_size, kept_open and dictionary_after must be at least 1, got "
                f"{leaf_size}, {kept_open} and {dictionary_after}"
            )
        self.leaf_size = leaf_size
        self.kept_open = kept_open
        self.dictionary_after = dictionary_after
        self.raw_tails = raw_tails
        # None: leaves are zlib-framed, as before dictionaries (and in a map that learns none);
        # bytes: raw deflate against them, b"" until the dictionary is learned.
        self._dictionary: bytes | None = None if dictionary_after is None else b""
        # Until the dictionary is learned, leaves are kept marshalled but not compressed:
        # learning compresses every leaf against it, so compressing them before would compress
        # most of a small map's entries twice (a map pickled before this compressed them).
        self._plain = dictionary_after is not None
        # The deflater primed with the dictionary, made on the first write (not pickled).
        self._deflater: Any = None
        # bounds[i] is at most the first key of leaf i and above every key of leaf i - 1.
        self._bounds: list[str] = []
        self._leaves: list[bytes] = []
        self._count = 0
        # Open leaves by the id of their compressed blob, with the blob itself: holding it
        # keeps the id from being reused, and a rebuilt leaf is a new blob.
        self._opened: dict[int, tuple[bytes, _Opened]] = {}

    def __len__(self) -> int:
        return self._count

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __iter__(self) -> Iterator[str]:
        for index in range(len(self._leaves)):
            yield from self._open(index)[0]

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        del state["_opened"], state["_deflater"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        # A map pickled before these settings has the defaults of its time: zlib-framed leaves.
        defaults = {
            "leaf_size": 64,
            "kept_open": 1,
            "dictionary_after": None,
            "raw_tails": False,
            "_dictionary": None,
            "_plain": False,
        }
        self.__dict__.update({**defaults, **state, "_opened": {}, "_deflater": None})

    def _seal(self, keys: tuple[str, ...], values: tuple[Value, ...]) -> bytes:
        payload, tail = self._payload(keys, values)
        if self._plain:
            # The very bytes the learning compresses: marshal may write what it read back
            # otherwise (shared strings flagged differently), which the dictionary would hold.
            return payload + tail
        return self._compressed(payload) + tail

    def _payload(self, keys: tuple[str, ...], values: tuple[Value, ...]) -> tuple[bytes, bytes]:
        """What a leaf of these entries compresses, and the tail stored after it."""
        if self.raw_tails:
            heads, lengths, tail = _split_tails(values)
            if tail:
                return marshal.dumps((keys, heads, lengths)), tail
        # No tail: the leaf is written as a map without raw tails writes it.
        return marshal.dumps((keys, values)), b""

    def _compressed(self, payload: bytes) -> bytes:
        dictionary = self._dictionary
        if dictionary is None:
            return zlib.compress(payload)
        if self._deflater is None:
            self._deflater = _primed(dictionary)
        deflater = self._deflater.copy()
        return cast(bytes, deflater.compress(payload) + deflater.flush())

    def _unsealed(self, leaf: bytes) -> tuple[bytes, bytes]:
        """The payload and tail of a stored leaf; see :meth:`_seal`. Raises ``zlib.error``,
        ``ValueError``, ``EOFError`` or ``TypeError`` when the leaf is damaged."""
        if self._plain:
            if not self.raw_tails:
                return leaf, b""
            # marshal reads the payload and leaves the tail behind it, whose length it names.
            loaded = marshal.loads(leaf)
            size = sum(length for length in loaded[2] if length > 0) if len(loaded) == 3 else 0
            return leaf[: len(leaf) - size], leaf[len(leaf) - size :]
        if self.raw_tails:
            return _inflated_with_tail(leaf, self._dictionary)
        return _inflated(leaf, self._dictionary), b""

    def _open(self, index: int) -> _Opened:
        leaf = self._leaves[index]
        opened = self._opened
        found = opened.pop(id(leaf), None)
        if found is None or found[0] is not leaf:
            try:
                payload, tail = self._unsealed(leaf)
                loaded = marshal.loads(payload)
                if self.raw_tails and len(loaded) == 3:
                    keys, heads, lengths = loaded
                    values = _joined_tails(heads, lengths, tail)
                elif tail:
                    raise ValueError("a leaf without tails is followed by other bytes")
                else:
                    keys, values = loaded
            except (zlib.error, ValueError, EOFError, TypeError) as error:
                # Only a damaged pickle of a store holds such a leaf.
                raise StoreCorrupted(
                    f"leaf {index} of a leaf map cannot be read: {error}"
                ) from None
            found = (leaf, (keys, values))
            while len(opened) >= self.kept_open:
                # The least recently read: reads put their leaf back last.
                try:
                    opened.pop(next(iter(opened)), None)
                except (StopIteration, RuntimeError):  # another reader changed it meanwhile
                    break
        opened[id(leaf)] = found
        return found[1]

    def _leaf_of(self, key: str) -> int:
        """The leaf that holds ``key`` if any does (-1 when it sorts before every leaf)."""
        return bisect_right(self._bounds, key) - 1

    def get(self, key: str) -> Value | None:
        """The value stored under ``key``, or None."""
        index = self._leaf_of(key)
        if index < 0:
            return None
        keys, values = self._open(index)
        position = bisect_left(keys, key)
        if position < len(keys) and keys[position] == key:
            return values[position]
        return None

    def update(self, entries: Iterable[tuple[str, Value]]) -> None:
        """Store every ``(key, value)``, each replacing any value of its key (a repeated key
        keeps its last value).

        Raises:
            ValueError: a value marshal cannot write exactly; nothing is stored then.
        """
        pending = dict(entries)
        if not pending:
            return
        marshal.dumps(tuple(pending.values()))  # refuse the batch before touching a leaf
        after = self.dictionary_after
        if self._dictionary == b"" and after is not None and 0 < after - self._count < len(pending):
            # A batch that reaches the learning: its first entries teach the dictionary, and
            # the rest are compressed once, against it.
            ordered = sorted(pending)
            first = after - self._count
            self._store({key: pending[key] for key in ordered[:first]})
            pending = {key: pending[key] for key in ordered[first:]}
        self._store(pending)

    def _store(self, pending: dict[str, Value]) -> None:
        """Store the entries (checked already), then learn the dictionary if it is time."""
        by_leaf: dict[int, dict[str, Value]] = {}
        for key in sorted(pending):
            by_leaf.setdefault(max(self._leaf_of(key), 0), {})[key] = pending[key]
        # From the last leaf back, so splitting a leaf leaves the indexes before it as they were.
        for index in sorted(by_leaf, reverse=True):
            merged: dict[str, Value] = {}
            if index < len(self._leaves):
                merged.update(zip(*self._open(index), strict=True))
            before = len(merged)
            merged.update(by_leaf[index])
            self._count += len(merged) - before
            self._replace(index, merged)
        if (
            self._dictionary == b""
            and self.dictionary_after is not None
            and self._count >= self.dictionary_after
        ):
            self._learn_dictionary()

    def _learn_dictionary(self) -> None:
        """Learn the dictionary from leaves spread evenly over the map (as many as fit its
        32 KiB), then compress every leaf against it."""
        unsealed = [self._unsealed(leaf) for leaf in self._leaves]
        payloads = [payload for payload, _ in unsealed]
        per_leaf = max(1, sum(map(len, payloads)) // len(payloads))
        step = max(1, len(payloads) * per_leaf // _DICTIONARY_BYTES)
        dictionary = b"".join(payloads[::step])[-_DICTIONARY_BYTES:]
        primed = _primed(dictionary)
        leaves = []
        for payload, tail in unsealed:
            deflater = primed.copy()
            leaves.append(deflater.compress(payload) + deflater.flush() + tail)
        self._leaves = leaves
        self._dictionary = dictionary
        self._deflater = primed
        self._plain = False
        self._opened.clear()

    def discard(self, key: str) -> None:
        """Remove ``key`` if it is stored."""
        index = self._leaf_of(key)
        if index < 0:
            return
        keys, values = self._open(index)
        position = bisect_left(keys, key)
        if position == len(keys) or keys[position] != key:
            return
        merged = dict(zip(keys, values, strict=True))
        del merged[key]
        self._count -= 1
        self._replace(index, merged)

    def _replace(self, index: int, merged: dict[str, Value]) -> None:
        """Put the entries of leaf ``index`` (none yet when it is past the end) back as leaves
        of at most ``leaf_size``, full from the left, as appends in key order leave them."""
        keys = sorted(merged)
        leaves: list[bytes] = []
        bounds: list[str] = []
        for first in range(0, len(keys), self.leaf_size):
            chunk = tuple(keys[first : first + self.leaf_size])
            leaves.append(self._seal(chunk, tuple(merged[key] for key in chunk)))
            bounds.append(chunk[0])
        if index < len(self._bounds):
            # The replaced leaf is read no more: its open copy goes, not a leaf still read.
            self._opened.pop(id(self._leaves[index]), None)
            if bounds:
                # The leaf keeps its lower bound: a key below every leaf is filed in leaf 0.
                bounds[0] = min(bounds[0], self._bounds[index])
        self._leaves[index : index + 1] = leaves
        self._bounds[index : index + 1] = bounds

    def clear(self) -> None:
        """Remove every entry (a map that learns a dictionary learns it anew)."""
        self._bounds.clear()
        self._leaves.clear()
        self._count = 0
        self._opened.clear()
        if self._dictionary is not None:
            self._dictionary = b""
            self._deflater = None
            self._plain = True

    def check(self) -> None:
        """Raise StoreCorrupted unless every leaf opens, holds sorted keys within its bounds,
        and the leaves hold as many entries as the map counts."""
        if len(self._bounds) != len(self._leaves):
            raise StoreCorrupted(
                f"leaf map has {len(self._bounds)} bounds for {len(self._leaves)} leaves"
            )
        held = 0
        for index, bound in enumerate(self._bounds):
            keys, values = self._open(index)
            upper = self._bounds[index + 1] if index + 1 < len(self._bounds) else None
            if not keys or len(keys) != len(values) or len(keys) > self.leaf_size:
                raise StoreCorrupted(f"leaf {index} holds {len(keys)} keys, {len(values)} values")
            if list(keys) != sorted(set(keys)) or keys[0] < bound:
                raise StoreCorrupted(f"leaf {index} keys are out of order or below its bound")
            if upper is not None and keys[-1] >= upper:
                raise StoreCorrupted(f"leaf {index} holds {keys[-1]!r}, past the next leaf")
            held += len(keys)
        if held != self._count:
            raise StoreCorrupted(f"leaf map counts {self._count} entries but holds {held}")
