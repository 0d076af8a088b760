"""Summaries of segments and of parent periods: the Summarizer protocol and its implementations.

``ExtractiveSummarizer`` is the offline default; ``CallableSummarizer`` wraps a function of yours
(an LLM call, say) and falls back to the extractive one. Phrasing, term weights and stopwords are
private to this package.
"""

from tocsearch.summarize._extractive import ExtractiveSummarizer
from tocsearch.summarize._summarizer import CallableSummarizer, Summarizer, Summary, SummaryBullet

__all__ = ["CallableSummarizer", "ExtractiveSummarizer", "Summarizer", "Summary", "SummaryBullet"]
