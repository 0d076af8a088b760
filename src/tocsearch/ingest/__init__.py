"""Turning raw events into the TOC tree: segmentation, grips, rollups, digests and the tree check.

The summaries themselves come from :mod:`tocsearch.summarize`; everything else here is private.

>>> from tocsearch import InMemoryStorage, TocBuilder
>>> TocBuilder(InMemoryStorage()).ingest([]).events_added
0
"""

from tocsearch.ingest._builder import IngestReport, TocBuilder
from tocsearch.ingest._check import check_tree
from tocsearch.ingest._config import BuildConfig

__all__ = ["BuildConfig", "IngestReport", "TocBuilder", "check_tree"]
