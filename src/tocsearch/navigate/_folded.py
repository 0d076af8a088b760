"""The searchable text of nodes, case-folded once and kept for the queries that follow.

Scoring a node means finding which query terms its title, summary, bullets and keywords hold.
Most nodes a scan reads hold none, and a navigator answers many questions over the same
nodes, so each node's text is joined and case-folded once into a haystack that one substring
test per term can reject. Fields are joined by a line break: a query term never holds
whitespace, so no match can span two fields, and a word boundary at a field's edge stays one.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from tocsearch._checks import whole_number
from tocsearch.models import TocNode

__all__ = ["DEFAULT_CAPACITY", "FoldedTexts", "searchable_text"]

DEFAULT_CAPACITY = 50_000
"""How many nodes' folded texts a :class:`FoldedTexts` keeps: about 25 MiB for segments of five
bullets and seven keywords, a few percent of what the nodes themselves take in memory."""


def searchable_text(node: TocNode) -> str:
    """A node's :attr:`~tocsearch.models.TocNode.searchable_texts`, case-folded, one per
    line."""
    return "\n".join(node.searchable_texts).casefold()


class FoldedTexts:
    """A bounded cache of :func:`searchable_text` by node.

    An entry is used only for the very node object it was made from, so a node replaced in the
    store (a new object) is folded afresh and results never depend on what the cache holds.
    When full, the least recently used entry makes room, so the newest segments that every
    scan starts with stay folded. Runtime complexity: O(1) per lookup.
    """

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self.capacity = whole_number("capacity", capacity, 0)
        self._entries: OrderedDict[str, tuple[TocNode, str]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def of(self, node: TocNode) -> str:
        """The folded searchable text of ``node``."""
        entries = self._entries
        entry = entries.get(node.node_id)
        # A navigator may answer from several threads at once: an entry can vanish between
        # two steps here, which costs a refold at most, never a wrong text.
        if entry is not None and entry[0] is node:
            # A bare try costs nothing here; contextlib.suppress would, on every hit.
            try:  # noqa: SIM105
                entries.move_to_end(node.node_id)
            except KeyError:
                pass
            return entry[1]
        text = searchable_text(node)
        if self.capacity:
            try:
                while len(entries) >= self.capacity and node.node_id not in entries:
                    entries.popitem(last=False)
                entries[node.node_id] = (node, text)
                entries.move_to_end(node.node_id)
            except KeyError:
                pass
        return text

    def of_each(self, nodes: Sequence[TocNode]) -> list[str]:
        """:meth:`of` each of ``nodes``, in order; the cached ones without a call apiece."""
        entries = self._entries
        get = entries.get
        touch = entries.move_to_end
        texts: list[str] = []
        for node in nodes:
            entry = get(node.node_id)
            if entry is not None and entry[0] is node:
                try:  # noqa: SIM105
                    touch(node.node_id)
                except KeyError:
                    pass
                texts.append(entry[1])
            else:
                texts.append(self.of(node))
        return texts
