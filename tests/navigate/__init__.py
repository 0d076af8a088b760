"""Tests of tocsearch.navigate: time hints, the Navigator and its results."""
