"""Benchmarks of hearts-dd (pytest-benchmark), with DDS in the same run; see README.md here."""
