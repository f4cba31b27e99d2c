"""Benchmarks that print ratios against the seeds' reference programs (not part of the test run).

`python -m bench.run [--quick] [--only NAME]`; see bench/README.md.
"""
