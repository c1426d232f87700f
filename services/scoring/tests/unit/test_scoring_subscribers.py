"""Scoring's subscribers on FastStream's TestNatsBroker (no server): each command subject decodes its contract,
calls the handler and replies; the handlers run on the in-memory store."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import networkx as nx
from faststream.nats import TestNatsBroker
from pydantic import TypeAdapter

from turf_common.bus import make_broker
from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal, decode_reply
from turf_common.contracts.claims import TerritoryChanged
from turf_common.contracts.players import PlayerDisqualified
from turf_common.contracts.scoring import (
    AdjustScore,
    FinalResults,
    Leaderboard,
    LeaderboardRequest,
    QuestStanding,
    ResultsRequest,
    ScoreAdjusted,
    Standing,
)
from turf_common.contracts.seasons import SeasonJoined
from turf_common.rules.scoring import TerritoryStats
from turf_common.testing import RecordingPublisher
from turf_scoring import bootstrap, entrypoints
from turf_scoring.handlers import ScoringHandlers
from turf_scoring.testing import MemoryScoreStore

AT = datetime(2026, 10, 5, 14, 0, tzinfo=UTC)
GRAPH = nx.Graph([("a", "b")])
STATS = {"a": TerritoryStats(True, 10, 100), "b": TerritoryStats(False, 20, 50)}


def handlers() -> ScoringHandlers:
    return bootstrap.handlers(MemoryScoreStore(), RecordingPublisher(), GRAPH, STATS)


async def ask(h: ScoringHandlers, subject: str, body: Any, reply: type[Any]) -> Any:
    broker = make_broker("nats://test", "scoring")
    broker.include_router(entrypoints.router(h, "TEST"))
    async with TestNatsBroker(broker) as br:
        resp = await br.request(body, subject)
        return decode_reply(resp.body, reply)


async def test_the_leaderboard_is_answered_ranked_with_the_side_quests() -> None:
    h = handlers()
    await h.apply(TerritoryChanged(occurred_at=AT, territory_id="a", owner_id="ann", previous_owner_id=None,
                                   progress=1, fortified=False, version=1, cause="claim"))
    lb = await ask(h, subjects.SCORING_LEADERBOARD, LeaderboardRequest(), Leaderboard)
    assert lb == Leaderboard(
        standings=[Standing(rank=1, player_id="ann", base=1, outposts=0, bonuses=9, total=10, territories=1)],
        side_quests={"lord_of_the_seas": QuestStanding(leaders=["ann"], value=1),
                     "hungry_hungry_hippo": QuestStanding(leaders=["ann"], value=10),
                     "social_butterfly": QuestStanding(leaders=["ann"], value=100)})


async def test_an_adjustment_is_answered_with_its_before_and_after() -> None:
    reply = await ask(handlers(), subjects.SCORING_ADJUST, AdjustScore(command_id="c1", player_id="ann", points=4),
                      ScoreAdjusted)
    assert reply == ScoreAdjusted(command_id="c1", player_id="ann", before=0, after=4)


async def test_an_adjustment_that_does_not_fit_its_contract_is_refused_as_invalid_input() -> None:
    reply = await ask(handlers(), subjects.SCORING_ADJUST, {"command_id": "c1", "player_id": "ann", "points": "many"},
                      ScoreAdjusted)
    assert reply == Refusal(reason="invalid_input", message="The command does not fit its contract.")


async def test_results_before_the_close_are_refused_as_season_not_closed() -> None:
    reply = await ask(handlers(), subjects.SCORING_RESULTS, ResultsRequest(), FinalResults)
    assert reply == Refusal(reason="season_not_closed", message="The season has not closed yet; no final results.")


def test_the_consumer_decodes_a_mixed_batch_by_each_events_type() -> None:
    """The durable consumer's argument: a batch of the three subjects, each event decoded by its ``type``.
    (Its settling needs JetStream metadata, which TestNatsBroker's messages lack: the e2e tests drive it.)"""
    changed = TerritoryChanged(occurred_at=AT, territory_id="a", owner_id="ann", previous_owner_id=None,
                               progress=1, fortified=False, version=1, cause="claim")
    dq = PlayerDisqualified(occurred_at=AT, player_id="ann", at=AT)
    raw = "[" + ",".join(e.model_dump_json() for e in (changed, dq)) + "]"
    assert TypeAdapter(list[entrypoints.ScoringEvent]).validate_json(raw) == [changed, dq]


def test_r31_the_consumer_takes_season_joined_so_a_season_ranks_its_joined_players() -> None:
    """R31: ``season.joined`` is among the durable consumer's subjects and decodes by its ``type``."""
    joined = SeasonJoined(event_id="joined:2027:ann", occurred_at=AT, season_id="2027", player_id="ann")
    assert subjects.SEASON_JOINED in entrypoints.CONSUMED
    assert TypeAdapter(list[entrypoints.ScoringEvent]).validate_json(f"[{joined.model_dump_json()}]") == [joined]
