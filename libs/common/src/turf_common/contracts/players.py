"""Player lifecycle events the gateway (which owns players) publishes for the other services."""

from __future__ import annotations

from typing import Literal

from pydantic import AwareDatetime, Field

from turf_common.contracts.base import Event, Message


class PlayerVerified(Event):
    """``player.verified``: the player may play from now on. ``at`` is the game instant of the verification (R12: a
    player verified while the season runs gets the Monday top-up then). Consumers treat a repeat as a no-op."""

    type: Literal["player.verified"] = "player.verified"
    player_id: str
    at: AwareDatetime
    display_name: str | None = None   # the public name (Discord username); never e-mail or address


class PlayerDisqualified(Event):
    """``player.disqualified`` (R28): the player leaves the game (R16: their Blockades, and Blockades against
    them, lapse)."""

    type: Literal["player.disqualified"] = "player.disqualified"
    player_id: str
    at: AwareDatetime
    # R30: the player withdrew: it takes effect as a disqualification, and every service erases the personal data
    # it holds of them (claims their location fixes; notify their notifications, push subscriptions, name)
    withdrawn: bool = False


class PlayerRenamed(Event):
    """``player.renamed`` (R30): the player changed their public name (the Discord username, ``PATCH /me``), from
    the gateway's outbox once the change committed. Notify's texts and Discord lines, and every gateway replica's
    names and cached profiles, use it from then on. ``at`` the game instant of the change; a repeat is a no-op
    (the name is set, not added)."""

    type: Literal["player.renamed"] = "player.renamed"
    player_id: str
    at: AwareDatetime
    display_name: str = Field(min_length=1, max_length=32)   # the public name; never e-mail or address


class CorrectionApplied(Event):
    """``correction.applied`` (R28): what the public may know of an organizer correction — no personal details."""

    type: Literal["correction.applied"] = "correction.applied"
    correction_id: str
    at: AwareDatetime
    action: str
    territory_id: str | None = None
    player_id: str | None = None
    reason: str
    post_season: bool = False


class SessionsRevoked(Message):
    """``gateway.sessions.revoked`` (core NATS, to every gateway; not an event of the stream): forget the cached
    session of ``token_hash`` (a sign-out), or every cached session of ``player_id`` (a status or role change).
    Cached sessions end after a few seconds anyway; this makes the change true at once on every replica."""

    player_id: str | None = None
    token_hash: str | None = None


class PlayerApplied(Message):
    """The reply to ``claims.disqualify``, ``scoring.disqualify`` (R28) and ``scoring.verify`` (R25, R27): the
    service has applied the status change (its ``player.*`` event sent as a request, same event id: applied once,
    whichever comes first). ``freed``: the territories a disqualification freed (claims; empty when already
    applied)."""

    ok: Literal[True] = True
    player_id: str
    freed: list[str] = Field(default_factory=list)


class EraseTrails(Message):
    """``claims.erase_trails`` and ``geo.erase_trails`` (R30): one player's location fixes go (``player_id``: they
    withdrew), or every player's (None: the season closed long enough ago)."""

    player_id: str | None = None


class TrailsErased(Message):
    ok: Literal[True] = True
    erased: int   # fixes deleted now, with claims' positions erased (0 when an earlier request did it)


class PlayerFixesRequest(Message):
    """``geo.player_fixes`` and ``claims.player_fixes`` (R30, ``GET /me/export``): the location fixes kept of
    ``player_id`` (geo-verify: the R7.1 trail; claims: the fixes it stored)."""

    player_id: str


class FixOut(Message):
    """One location fix as the player sent it (WGS84 degrees, metres) and when the server received it."""

    lat: float
    lon: float
    accuracy_m: float
    fix_time: AwareDatetime
    received_at: AwareDatetime


class PlayerFixes(Message):
    ok: Literal[True] = True
    fixes: list[FixOut]   # oldest first
