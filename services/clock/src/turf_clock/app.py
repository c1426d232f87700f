"""Clock process: ``python -m turf_clock``. Keeps the game clock in NATS KV, emits its boundaries, answers
``clock.set``."""

from __future__ import annotations

from faststream import FastStream

from turf_clock import bootstrap
from turf_common.service import run_app, service_app
from turf_common.settings import Settings, get_settings

NAME = "clock"


def create_app(settings: Settings | None = None) -> FastStream:
    settings = settings or get_settings()
    return service_app(NAME, settings, bootstrap.wire(settings))


def main() -> None:
    run_app(create_app())
