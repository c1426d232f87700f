"""NATS subscribers of scoring: decode, call a handler, reply."""

from __future__ import annotations

from typing import Annotated

from faststream.nats import NatsRouter
from pydantic import Field

from turf_common.bus import Batch, durable, settle_batch
from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal
from turf_common.contracts.claims import TerritoryChanged
from turf_common.contracts.clock import SeasonEnded
from turf_common.contracts.players import PlayerApplied, PlayerDisqualified, PlayerVerified
from turf_common.contracts.scoring import (
    AdjustScore,
    FinalResults,
    Leaderboard,
    LeaderboardRequest,
    ResultsRequest,
    ScoreAdjusted,
    ScoreUpdated,
    SeasonFinalResults,
)
from turf_common.contracts.seasons import SeasonJoined
from turf_scoring.handlers import ScoringHandlers

QUEUE = "scoring"
DURABLE = "scoring"
ScoringEvent = Annotated[TerritoryChanged | SeasonEnded | PlayerDisqualified | PlayerVerified | SeasonJoined,
                         Field(discriminator="type")]
#: the subjects of the durable consumer (a consumer made for other subjects is recreated at start)
CONSUMED = [subjects.TERRITORY_CHANGED, subjects.CLOCK_SEASON_ENDED, subjects.PLAYER_DISQUALIFIED,
            subjects.PLAYER_VERIFIED, subjects.SEASON_JOINED]


def router(h: ScoringHandlers, stream: str) -> NatsRouter:
    r = NatsRouter()

    # one consumer for the five subjects, so a season's close, a verification or a join (R25, R31: the player
    # enters the standings at 0) and a disqualification are applied in stream order with the ownership changes
    # around them;
    # a batch at a time: consecutive ownership changes make one rescore and one score.updated
    @r.subscriber(**durable(stream, DURABLE, CONSUMED), title=DURABLE)
    async def on_events(events: list[ScoringEvent], batch: Batch) -> None:
        await settle_batch(batch, events, h.on_events, h.on_event, DURABLE)

    # one worker each: the handlers are a few Redis round trips and some CPU, and one adjustment at a time keeps
    # a repeated command_id from being applied twice
    @r.subscriber(subjects.SCORING_LEADERBOARD, queue=QUEUE, title=subjects.SCORING_LEADERBOARD)
    async def leaderboard(q: LeaderboardRequest) -> Leaderboard | Refusal:
        return await h.leaderboard_page(q)

    @r.subscriber(subjects.SCORING_RESULTS, queue=QUEUE, title=subjects.SCORING_RESULTS)
    async def results(q: ResultsRequest) -> FinalResults | Refusal:
        return await h.results_page(q)

    @r.subscriber(subjects.SCORING_ADJUST, queue=QUEUE, title=subjects.SCORING_ADJUST)
    async def adjust(cmd: AdjustScore) -> ScoreAdjusted:
        return await h.adjust(cmd)

    @r.subscriber(subjects.SCORING_DISQUALIFY, queue=QUEUE, title=subjects.SCORING_DISQUALIFY)
    async def disqualify(ev: PlayerDisqualified) -> PlayerApplied:
        # R28: the organizer's answer waits for this; the event's copy later changes nothing (the same event id
        # publishes the same score.updated, which the stream drops as a duplicate)
        await h.disqualify(ev)
        return PlayerApplied(player_id=ev.player_id)

    @r.subscriber(subjects.SCORING_VERIFY, queue=QUEUE, title=subjects.SCORING_VERIFY)
    async def verify(ev: PlayerVerified) -> PlayerApplied:
        # R25, R27: the organizer's answer waits for this; the event's copy later changes nothing
        await h.verified(ev)
        return PlayerApplied(player_id=ev.player_id)

    # published through the Publisher port (turf_common.bus.EventPublisher); declared for the AsyncAPI document
    r.publisher(subjects.SCORE_UPDATED, schema=ScoreUpdated, title=subjects.SCORE_UPDATED)
    r.publisher(subjects.SEASON_FINAL_RESULTS, schema=SeasonFinalResults, title=subjects.SEASON_FINAL_RESULTS)
    return r
