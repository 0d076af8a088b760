"""tocsearch: find things in long conversation histories through a time table of contents.

Events are organised into Year > Month > Week > Day > Segment nodes; every node has a title,
a summary, bullets and keywords, and each bullet points through grips at the raw events behind it.
"""

from tocsearch.converter import from_dict, from_json, to_dict, to_json
from tocsearch.errors import (
    EventNotFound,
    GripNotFound,
    ImportFailed,
    InvalidArgument,
    InvalidId,
    NodeNotFound,
    NotFound,
    StorageError,
    StoreClosed,
    StoreCorrupted,
    StoreLocked,
    TocsearchError,
)
from tocsearch.levels import TocLevel
from tocsearch.models import Event, EventRole, EventType, Grip, TocBullet, TocNode
from tocsearch.search import (
    SearchChildrenResult,
    SearchField,
    SearchMatch,
    SearchNodeResult,
    rank_nodes,
    search_children,
    search_node,
    term_overlap_score,
)
from tocsearch.service import (
    BrowseTocRequest,
    BrowseTocResponse,
    ExpandGripRequest,
    ExpandGripResponse,
    MemoryService,
    SearchChildrenRequest,
    SearchChildrenResponse,
    SearchNodeRequest,
    SearchNodeResponse,
)
from tocsearch.storage import InMemoryStorage, Storage
from tocsearch.text import TokenEstimator, estimate_tokens, query_terms

__version__ = "0.1.0"

__all__ = [
    "BrowseTocRequest",
    "BrowseTocResponse",
    "Event",
    "EventNotFound",
    "EventRole",
    "EventType",
    "ExpandGripRequest",
    "ExpandGripResponse",
    "Grip",
    "GripNotFound",
    "ImportFailed",
    "InMemoryStorage",
    "InvalidArgument",
    "InvalidId",
    "MemoryService",
    "NodeNotFound",
    "NotFound",
    "SearchChildrenRequest",
    "SearchChildrenResponse",
    "SearchChildrenResult",
    "SearchField",
    "SearchMatch",
    "SearchNodeRequest",
    "SearchNodeResponse",
    "SearchNodeResult",
    "Storage",
    "StorageError",
    "StoreClosed",
    "StoreCorrupted",
    "StoreLocked",
    "TocBullet",
    "TocLevel",
    "TocNode",
    "TocsearchError",
    "TokenEstimator",
    "estimate_tokens",
    "from_dict",
    "from_json",
    "query_terms",
    "rank_nodes",
    "search_children",
    "search_node",
    "term_overlap_score",
    "to_dict",
    "to_json",
]
