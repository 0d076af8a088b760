"""Tests of tocsearch.build: segmentation, summaries, grips, rollups and the builder."""
