"""Fault points for crash tests: a process started with ``TURF_FAULT=<point>`` dies (``os._exit``) when it
reaches that point, the way ``kill -9`` would leave it. Unset in every real deployment."""

from __future__ import annotations

import os


def crash_point(point: str) -> None:
    if os.environ.get("TURF_FAULT") == point:
        os._exit(70)
