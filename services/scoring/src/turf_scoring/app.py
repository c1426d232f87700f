"""Scoring process: ``python -m turf_scoring``. Consumes ``territory.changed`` (durable), serves the leaderboard."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from turf_common import redisconn
from turf_common.board import load_board
from turf_common.contracts import subjects
from turf_common.contracts.base import Message
from turf_common.contracts.claims import TerritoryChanged
from turf_common.contracts.clock import SeasonEnded
from turf_common.contracts.players import PlayerDisqualified
from turf_common.contracts.scoring import AdjustScore
from turf_common.legacy_bus import Bus, Delivery
from turf_common.rules.scoring import TerritoryStats
from turf_common.service import run
from turf_common.settings import get_settings
from turf_scoring.handlers import ScoringService


def main() -> None:
    settings = get_settings()

    async def start(bus: Bus) -> Callable[[], Awaitable[None]]:
        assert settings.redis_url, "TURF_REDIS_URL is not set"
        board = load_board(settings.board_dir)
        redis = redisconn.connect(settings.redis_url)
        svc = ScoringService(
            redis=redis, bus=bus, graph=board.graph, prefix=settings.redis_prefix,
            stats={tid: TerritoryStats(t.borders_water, t.land_area_m2, t.population)
                   for tid, t in board.territories.items()})

        async def on_event(d: Delivery) -> None:
            if d.subject == subjects.CLOCK_SEASON_ENDED:
                await svc.season_ended(SeasonEnded.model_validate_json(d.data))
            elif d.subject == subjects.PLAYER_DISQUALIFIED:
                await svc.disqualify(PlayerDisqualified.model_validate_json(d.data))
            else:
                await svc.apply(TerritoryChanged.model_validate_json(d.data))

        async def on_results(_: bytes) -> Message:
            return await svc.results()

        async def on_leaderboard(_: bytes) -> Message:
            return await svc.leaderboard()

        await bus.consume("scoring", [subjects.TERRITORY_CHANGED, subjects.CLOCK_SEASON_ENDED,
                                       subjects.PLAYER_DISQUALIFIED], on_event)
        await bus.serve(subjects.SCORING_RESULTS, "scoring", on_results)

        async def on_adjust(data: bytes) -> Message:
            return await svc.adjust(AdjustScore.model_validate_json(data))

        await bus.serve(subjects.SCORING_ADJUST, "scoring", on_adjust)
        await bus.serve(subjects.SCORING_LEADERBOARD, "scoring", on_leaderboard)

        async def cleanup() -> None:
            await redis.aclose()

        return cleanup

    run("scoring", settings, start)
