"""Cards service process: ``python -m turf_cards``. Hands, seeded draws, card plays and trades as sagas.

Serves ``cards.hand``, ``cards.play``, ``cards.cancel``, ``cards.seed``, ``cards.adjust`` and ``trades.*``; one
durable consumer (``cards``) takes, in stream order, the clock's season and day starts, ``player.verified`` /
``player.disqualified``, the claims service's ``protection.*`` results and ``territory.changed``.
"""

from __future__ import annotations

from faststream import FastStream

from turf_cards import bootstrap
from turf_common.service import run_app, service_app
from turf_common.settings import Settings, get_settings

NAME = "cards"


def create_app(settings: Settings | None = None) -> FastStream:
    settings = settings or get_settings()
    return service_app(NAME, settings, bootstrap.wire(settings))


def main() -> None:
    run_app(create_app())
