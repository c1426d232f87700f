"""The gateway's side of the bus, as FastStream declares it: the spectator feed's subscribers (every public event,
relayed to ``WS /api/v1/ws/scores``) and the events the gateway publishes through its outbox (for AsyncAPI).

The feed is latency-critical (``territory.changed`` → websocket p99 goal 20 ms, fanned out to 1,000 clients), so
each event costs as little as FastStream allows: it arrives as received (:func:`as_received`, no JSON parsing nor
model validation before anyone is known to listen) and :func:`forward` decodes only what it sends."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import structlog
from faststream.message import StreamMessage
from faststream.middlewares import AckPolicy
from faststream.nats import JStream, NatsRouter
from pydantic import BaseModel, ValidationError

from turf_common.bus import RawMessage, ordered_config, stream_seq
from turf_common.contracts import cards as card_events
from turf_common.contracts import modes as mode_events
from turf_common.contracts import subjects
from turf_common.contracts.claims import TerritoryChanged
from turf_common.contracts.notify import AnnouncementPublished, MedalEarned
from turf_common.contracts.players import CorrectionApplied, PlayerDisqualified, PlayerRenamed, PlayerVerified
from turf_common.contracts.scoring import ScoreUpdated, SeasonFinalResults
from turf_common.contracts.seasons import SeasonCreated, SeasonJoined, SeasonUpdated
from turf_common.contracts.yard import YardMoved
from turf_gateway.feed import cards_view as cards
from turf_gateway.feed.state import FeedState

log = structlog.get_logger(__name__)

#: the display names of a ``score.updated`` delta's changes, as spectators see them
#: (:meth:`turf_gateway.handlers.public.Public.named_changes`)
Names = Callable[[list[dict[str, Any]]], Awaitable[list[dict[str, Any]]]]

#: the core feed (card and trade events, private fields left out, are ``cards.FEED``)
FEED = [subjects.SCORE_UPDATED, subjects.TERRITORY_CHANGED, subjects.CORRECTION_APPLIED,
        subjects.SEASON_FINAL_RESULTS, subjects.ANNOUNCEMENT_PUBLISHED, subjects.MEDAL_EARNED]
#: Team Turf and King of the Hill, every event public (orders and choices are never events; a round's
#: choices are revealed in its mode.round_resolved, the seed in mode.game_ended)
MODE_FEED = [subjects.MODE_GAME_CREATED, subjects.MODE_PLAYER_JOINED, subjects.MODE_PLAYER_LEFT,
             subjects.MODE_ROOM_STARTED, subjects.MODE_TROOPS_PLACED, subjects.MODE_TURN_RESOLVED,
             subjects.MODE_ROUND_RESOLVED, subjects.MODE_GAME_ENDED,
             subjects.MODE_YARD_MOVED]  # yard cards: a move and what it did, never a hidden card (Y27)
#: the contract of each relayed subject. A message that does not fit its subject's model (or names
#: another type) is not relayed, and of one that does, only the model's fields are: anything else that reached the
#: bus (a process with bus access, a bug) never reaches the spectators
MODELS: dict[str, type[BaseModel]] = {
    subjects.SCORE_UPDATED: ScoreUpdated, subjects.TERRITORY_CHANGED: TerritoryChanged,
    subjects.CORRECTION_APPLIED: CorrectionApplied, subjects.SEASON_FINAL_RESULTS: SeasonFinalResults,
    subjects.ANNOUNCEMENT_PUBLISHED: AnnouncementPublished, subjects.MEDAL_EARNED: MedalEarned,
    subjects.CARD_DRAWN: card_events.CardDrawn, subjects.CARD_PLAYED: card_events.CardPlayed,
    subjects.CARD_CONSUMED: card_events.CardConsumed, subjects.CARD_RETURNED: card_events.CardReturned,
    subjects.CARD_SEED_COMMITTED: card_events.SeedCommitted, subjects.CARD_SEED_REVEALED: card_events.SeedRevealed,
    subjects.TRADE_PROPOSED: card_events.TradeEvent, subjects.TRADE_ACCEPTED: card_events.TradeEvent,
    subjects.TRADE_DECLINED: card_events.TradeEvent, subjects.TRADE_CANCELLED: card_events.TradeEvent,
    subjects.MODE_GAME_CREATED: mode_events.GameCreated, subjects.MODE_PLAYER_JOINED: mode_events.PlayerJoined,
    subjects.MODE_PLAYER_LEFT: mode_events.PlayerLeft, subjects.MODE_ROOM_STARTED: mode_events.RoomStarted,
    subjects.MODE_TROOPS_PLACED: mode_events.TroopsPlaced, subjects.MODE_TURN_RESOLVED: mode_events.TurnResolved,
    subjects.MODE_ROUND_RESOLVED: mode_events.RoundResolved, subjects.MODE_GAME_ENDED: mode_events.GameEnded,
    subjects.MODE_YARD_MOVED: YardMoved,
}
#: what the gateway itself publishes (outbox → stream, ``Nats-Msg-Id`` = event id)
PUBLISHES = {subjects.PLAYER_VERIFIED: PlayerVerified, subjects.PLAYER_DISQUALIFIED: PlayerDisqualified,
             subjects.PLAYER_RENAMED: PlayerRenamed, subjects.CORRECTION_APPLIED: CorrectionApplied,
             subjects.SEASON_CREATED: SeasonCreated, subjects.SEASON_UPDATED: SeasonUpdated,
             subjects.SEASON_JOINED: SeasonJoined}


async def as_received(msg: StreamMessage[Any]) -> RawMessage:
    """The feed subscriber's decoder: the NATS message as it came (subject, bytes, JetStream metadata)."""
    return msg.raw_message  # type: ignore[no-any-return]


def feed_subjects() -> list[str]:
    """Every subject the spectators see, in one list (one consumer reads them all, in stream order)."""
    return FEED + cards.FEED + MODE_FEED


def feed_router(feed: FeedState, names: Names, stream: str, after_seq: int | None = None) -> NatsRouter:
    """One JetStream ordered consumer of every feed subject (:func:`feed_subjects`) of ``stream``, the feed stream
    (those subjects alone, sourced from the event stream in its order, so the gateway's NATS user, which
    may create consumers there only, reads no private subject whatever filter it asks), ephemeral and unacked, so
    each event comes with its stream sequence and all of them in stream order: the ``seq`` of every feed message
    (API.md), which a client resumes from (``WS /ws/scores?since=``). It starts right after ``after_seq`` (the
    stream's last sequence when the gateway starts, which the hub also starts from), or with the next new event.
    nats-py's ordered consumer re-creates itself from the last sequence it delivered when it misses a message or
    a heartbeat (a NATS node gone), so the feed has neither gaps nor duplicates. Every gateway replica has its
    own consumer and relays every event to its own spectators (``feed``: this process's hub and board version;
    ``names``: :data:`Names`).

    The handler's argument is the body that :func:`as_received` makes the raw message, not a ``NatsMessage``
    context parameter: FastStream resolves context parameters in a worker thread, which doubled the CPU per event
    (0.36 against 0.15 ms, measured). ``no_reply``: the feed never answers an event."""
    r = NatsRouter()
    config = ordered_config(feed_subjects(), after_seq)

    async def relay(m: Any) -> None:
        await forward(feed, names, m)

    # an ordered consumer takes no acks (AckPolicy.MANUAL: FastStream sends none)
    r.subscriber("", stream=JStream(stream, declare=False), config=config, ordered_consumer=True,
                 ack_policy=AckPolicy.MANUAL, decoder=as_received, no_reply=True, title="gateway feed",
                 description="Relayed in stream order, with its stream sequence (seq), to the spectators of "
                             "WS /api/v1/ws/scores (one ordered consumer of every feed subject).")(relay)
    for subject, model in PUBLISHES.items():
        r.publisher(subject, schema=model, title=subject,
                    description="Published by the gateway through its outbox (Nats-Msg-Id = event_id).")
    return r


def validated(subject: str, raw: bytes) -> dict[str, Any] | None:
    """The event ``raw`` as its subject's contract (:data:`MODELS`) reads it: the model's fields that the message
    carries (so a well-formed event is relayed as published), or None when it is no such event (not JSON, fails
    the model, or another ``type``)."""
    model = MODELS.get(subject)
    if model is None:
        return None
    try:
        sent = json.loads(raw)
        ev = model.model_validate(sent)
    except (ValueError, ValidationError):
        return None
    if not isinstance(sent, dict) or getattr(ev, "type", subject) != subject:
        return None
    return {k: v for k, v in ev.model_dump(mode="json").items() if k in sent}


async def feed_message(names: Names, subject: str, raw: bytes, seq: int) -> dict[str, Any] | None:
    """The spectators' message of one bus event (``seq`` its stream sequence): only what fits the subject's
    contract, only its fields (:func:`validated`), card and trade events without private fields,
    display names added to score changes; None for a message that is no such event. The live feed and the
    resend of missed messages (:mod:`turf_gateway.feed.resend`) both make theirs here, so a resent message is the one
    the client would have got live."""
    data = validated(subject, raw)
    if data is None:
        log.warning("feed_message_dropped", subject=subject, size=len(raw))
        return None
    if subject in cards.PUBLIC_FIELDS:  # card and trade events, private data left out
        data = cards.public_view(subject, data)
    msg = {"type": subject, "at": data.get("occurred_at"), "seq": seq} | data
    if subject == subjects.SCORE_UPDATED:
        msg["changes"] = await names(data.get("changes") or [])
    return msg


async def forward(feed: FeedState, names: Names, m: RawMessage) -> None:
    """Relay one bus event to the spectators (:func:`feed_message`) and move the hub's ``last_seq`` on. Events
    come one at a time, in stream order (one subscription, handled in order), and the hub's sequence moves in the
    same step as the broadcast, so a client joining between two events knows exactly which come to it."""
    seq = stream_seq(m)
    if seq is None:
        seq = feed.hub.last_seq + 1   # FastStream's TestNatsBroker delivers plain messages: count them
    if m.subject == subjects.SCORE_UPDATED:
        feed.score_updates += 1   # snapshot requests sent before this one are no longer shared
    elif m.subject == subjects.TERRITORY_CHANGED:
        feed.board_version += 1   # GET /board's cached body is out of date
    story = m.subject not in (subjects.SCORE_UPDATED, subjects.SEASON_FINAL_RESULTS)
    msg = None
    if feed.hub.clients or story:   # nobody listening and nothing to keep: skip decoding and serialising
        msg = await feed_message(names, m.subject, m.data, seq)
    feed.hub.last_seq = max(feed.hub.last_seq, seq)
    if msg is None:
        return
    if story:
        feed.hub.remember(msg)
    feed.hub.broadcast(seq, msg)
