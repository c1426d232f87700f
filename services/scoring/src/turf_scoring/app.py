"""Scoring process: ``python -m turf_scoring``. Consumes ``territory.changed``, ``clock.season_ended``,
``player.verified`` and ``player.disqualified`` (one durable consumer); answers ``scoring.leaderboard``,
``scoring.results`` and ``scoring.adjust``; publishes ``score.updated`` and ``season.final_results``."""

from __future__ import annotations

from faststream import FastStream

from turf_common.service import run_app, service_app
from turf_common.settings import Settings, get_settings
from turf_scoring import bootstrap

NAME = "scoring"


def create_app(settings: Settings | None = None) -> FastStream:
    settings = settings or get_settings()
    return service_app(NAME, settings, bootstrap.wire(settings))


def main() -> None:
    run_app(create_app())
