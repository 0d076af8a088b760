"""Tests of the storage backends."""
