"""geo-verify process: ``python -m turf_geo``. Holds the board in memory; answers ``geo.locate`` and ``geo.verify``."""

from __future__ import annotations

from faststream import FastStream

from turf_common.service import run_app, service_app
from turf_common.settings import Settings, get_settings
from turf_geo import bootstrap

NAME = "geo-verify"


def create_app(settings: Settings | None = None) -> FastStream:
    settings = settings or get_settings()
    return service_app(NAME, settings, bootstrap.wire(settings))


def main() -> None:
    run_app(create_app())
