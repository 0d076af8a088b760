"""The test suite, a package so helpers import as ``tests._support``, never as top-level names."""
