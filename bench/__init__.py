"""Benchmark scripts: they print figures and assert nothing (see bench/README.md)."""
