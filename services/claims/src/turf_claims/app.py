"""Claims service process: ``python -m turf_claims``. Decides and records claims (R3–R11), applies card effects
and corrections, and publishes ownership changes through its outbox."""

from __future__ import annotations

from faststream import FastStream

from turf_claims import bootstrap
from turf_common.service import run_app, service_app
from turf_common.settings import Settings, get_settings

NAME = "claims"


def create_app(settings: Settings | None = None) -> FastStream:
    settings = settings or get_settings()
    return service_app(NAME, settings, bootstrap.wire(settings))


def main() -> None:
    run_app(create_app())
