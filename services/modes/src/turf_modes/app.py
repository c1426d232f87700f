"""Modes service process: ``python -m turf_modes``. Team Turf and King of the Hill: serves ``modes.*``
for the gateway, publishes ``mode.*`` through its outbox and resolves turns and rounds on the game clock."""

from __future__ import annotations

from faststream import FastStream

from turf_common.service import run_app, service_app
from turf_common.settings import Settings, get_settings
from turf_modes import bootstrap

NAME = "modes"


def create_app(settings: Settings | None = None) -> FastStream:
    settings = settings or get_settings()
    return service_app(NAME, settings, bootstrap.wire(settings))


def main() -> None:
    run_app(create_app())
