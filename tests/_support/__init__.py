"""Helpers shared by the tests: synthetic histories, generated trees, store factories."""
