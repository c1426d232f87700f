"""The performance benchmarks: each measures our figure and its anchor in the same run and prints the ratio.

Run all with ``.venv/bin/python -m bench`` (``--small`` for a CI-sized smoke run); the full run rewrites
``bench/results.md``. ``bench/setup.sh`` installs the anchors (PostGIS, pgbench) where it can.
"""
