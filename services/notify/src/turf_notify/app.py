"""Notify service process: ``python -m turf_notify``. Per-player notifications, Web Push, the Discord commentary
and announcements.

Serves ``notify.*`` for the gateway; one durable consumer (``notify``) takes, in stream order, claims, territory
changes, trades, protections, deals, corrections, players, scores, day closes and the final results.
"""

from __future__ import annotations

from faststream import FastStream

from turf_common.service import run_app, service_app
from turf_common.settings import Settings, get_settings
from turf_notify import bootstrap

NAME = "notify"


def create_app(settings: Settings | None = None) -> FastStream:
    settings = settings or get_settings()
    return service_app(NAME, settings, bootstrap.wire(settings))


def main() -> None:
    run_app(create_app())
