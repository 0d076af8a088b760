"""Building the TOC tree from raw events: segmentation, summaries, grips and rollups.

>>> from tocsearch.build import TocBuilder
>>> from tocsearch.storage import InMemoryStorage
>>> builder = TocBuilder(InMemoryStorage())
>>> builder.ingest([]).events_added
0
"""

from tocsearch.build.builder import IngestReport, TocBuilder
from tocsearch.build.check import check_tree
from tocsearch.build.config import BuildConfig
from tocsearch.build.extractive import ExtractiveSummarizer
from tocsearch.build.summarizer import CallableSummarizer, Summarizer, Summary, SummaryBullet

__all__ = [
    "BuildConfig",
    "CallableSummarizer",
    "ExtractiveSummarizer",
    "IngestReport",
    "Summarizer",
    "Summary",
    "SummaryBullet",
    "TocBuilder",
    "check_tree",
]
