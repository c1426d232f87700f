"""Dropping cached sessions in every gateway: :meth:`NatsRevocations.revoke` after the change has
committed (the :class:`~turf_gateway.ports.Revocations` port), and the subscriber each gateway runs for the others'
revocations (core NATS, no queue group: every replica hears it); R30: the same for a rename, ``player.renamed``
from the outbox (the player's cached profile dropped, the replica's display name replaced)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import structlog
from faststream.nats import NatsRouter

from turf_common.contracts import subjects
from turf_common.contracts.players import PlayerRenamed, SessionsRevoked
from turf_gateway.adapters.session_cache import SessionCache

log = structlog.get_logger(__name__)


def _apply(cache: SessionCache[Any], msg: SessionsRevoked) -> None:
    if msg.token_hash:
        cache.evict_token(msg.token_hash)
    if msg.player_id:
        cache.evict_player(msg.player_id)


class NatsRevocations:
    def __init__(self, broker: Any, cache: SessionCache[Any]) -> None:
        self.broker, self.cache = broker, cache

    async def revoke(self, *, player_id: str | None = None, token_hash: str | None = None) -> None:
        """Forget the token's (sign-out) or the player's (status or role change) cached sessions here, then tell
        the other gateways. A failed publish is logged, not raised: the change is made, and the other replicas'
        entries end by themselves within the cache's few seconds."""
        msg = SessionsRevoked(player_id=player_id, token_hash=token_hash)
        _apply(self.cache, msg)
        try:
            await self.broker.publish(msg.model_dump_json().encode(), subjects.GATEWAY_SESSIONS_REVOKED)
        except Exception as e:
            log.warning("sessions_revoked_not_told", error=f"{type(e).__name__}: {e}")


def revocations_router(cache: SessionCache[Any],
                       renamed: Callable[[str, str], None] | None = None) -> NatsRouter:
    """``renamed(player_id, display_name)``: where this replica keeps display names (None: nowhere)."""
    r = NatsRouter()

    # no_reply: the event also goes to the stream, whose ack travels on the publisher's inbox; FastStream's empty
    # reply from here would race it (the outbox's publish read "" as the ack: a 500 on PATCH /me)
    @r.subscriber(subjects.PLAYER_RENAMED, no_reply=True, title=subjects.PLAYER_RENAMED + " (every gateway)")
    async def on_renamed(ev: PlayerRenamed) -> None:
        with contextlib.suppress(Exception):
            cache.evict_player(ev.player_id)
            if renamed is not None:
                renamed(ev.player_id, ev.display_name)

    @r.subscriber(subjects.GATEWAY_SESSIONS_REVOKED, title=subjects.GATEWAY_SESSIONS_REVOKED)
    async def on_revoked(msg: SessionsRevoked) -> None:
        with contextlib.suppress(Exception):
            _apply(cache, msg)

    return r
