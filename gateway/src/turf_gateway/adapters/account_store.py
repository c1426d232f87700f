"""Player status changes (R27, R28) as use cases: each writes the new status, the organizer's log entry and the
event other services need (``player.verified``, ``player.rejected``, ``player.disqualified``) in one transaction,
through the gateway's outbox."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from turf_common.outbox import stage
from turf_gateway.adapters import tables as t
from turf_gateway.api.errors import ApiError
from turf_gateway.handlers.events import disqualification, verification

SUBJECT = {"verified": "player.verified", "rejected": "player.rejected", "disqualified": "player.disqualified"}
# which status may become which (a disqualification is final). R27 (amended): a reject applies only to a pending
# player; a verified one is disqualified instead (R28), so a rejection never silently removes a player who has played
ALLOWED = {
    "verified": {"pending", "rejected"},
    "rejected": {"pending"},
    "disqualified": {"pending", "verified", "rejected"},
}


#: the role of an organizer account whose email ``TURF_ORGANIZER_EMAIL`` no longer names: it signs in no more
#: (no usable password, no session) and is no player either; kept because the logs name its id
FORMER_ORGANIZER = "former_organizer"


def former_discord(player_id: str) -> str:
    """A former organizer's Discord name, freeing ``organizer`` for the new account (unique per id)."""
    return f"former-organizer-{player_id[:8]}"


def changes(standing: tuple[str, str] | None, new: str) -> bool:
    """Whether a player of ``standing`` (role, status; None: unknown) moves to ``new``: False when already there
    (nothing to do). Raises ApiError ``not_found`` (unknown, or the organizer: R27) or ``conflict`` (a transition
    :data:`ALLOWED` does not hold). Shared with the memory fake (:mod:`turf_gateway.testing`), so both refuse alike."""
    if standing is None or standing[0] != "player":   # the organizer, or a former one (FORMER_ORGANIZER)
        raise ApiError("not_found", "No such player.")
    status = standing[1]
    if status == new:
        return False
    if status not in ALLOWED[new]:
        hint = " Disqualify a verified player instead (R27)." if new == "rejected" and status == "verified" else ""
        raise ApiError("conflict", f"A {status} player cannot become {new}.{hint}")
    return True


async def log_action(conn: AsyncConnection, by: str, action: str, target: str | None, reason: str | None,
                     detail: dict[str, Any]) -> None:
    await conn.execute(insert(t.admin_log).values(id=uuid.uuid4().hex, at=datetime.now(UTC), by=by, action=action,
                                                  target=target, reason=reason, detail=detail))


WITHDRAWN_NAME = "a withdrawn player"   # R30: how public history names a player who left

#: R30 (amended 2026-12-07): the address an email change replaces, kept as an ``account_tokens`` row of this purpose
#: (no link's token: its key is no hash) until the new address is confirmed; it signs in and may ask for a reset
PREVIOUS_EMAIL = "previous_email"
NEVER = datetime(9999, 12, 31, tzinfo=UTC)   # such a row ends with the confirmation, not with time


def previous_key(player_id: str) -> str:
    """The ``token_hash`` key of a player's previous-address row: one a player, never a token's SHA-256 (hex)."""
    return f"previous:{player_id}"


def erased(player_id: str) -> dict[str, Any]:
    """R30: a withdrawn player's row: the personal data replaced (unique columns by values no one can register)."""
    return {"status": "withdrawn", "status_reason": None, "name": WITHDRAWN_NAME, "discord": WITHDRAWN_NAME,
            "discord_norm": f"withdrawn:{player_id}", "email": f"withdrawn:{player_id}",
            "email_norm": f"withdrawn:{player_id}", "email_confirmed": False, "announcements_by_mail": False,
            "home_address": "", "address_norm": None, "home_lat": None, "home_lon": None,
            "password_hash": "!withdrawn"}   # no password verifies against it


async def change_status(conn: AsyncConnection, player_id: str, new: str, *, by: str, reason: str | None,
                        game_now: datetime, status_reason: str | None = None, note: str | None = None) -> str:
    """Move a player to ``new`` (verified | rejected | disqualified). Returns the previous status.
    Raises ApiError ``not_found`` or ``conflict`` (a transition the table does not allow)."""
    row = (await conn.execute(select(t.players.c.status, t.players.c.role, t.players.c.discord)
                              .where(t.players.c.id == player_id).with_for_update())).first()
    if not changes(None if row is None else (row.role, row.status), new):
        return new  # idempotent: nothing to do, nothing to publish
    assert row is not None   # changes() refused an unknown player
    await conn.execute(update(t.players).where(t.players.c.id == player_id)
                       .values(status=new, status_reason=status_reason))
    if new == "disqualified":
        # A disqualified player's sessions end with the status change (their tokens answer 401)
        await conn.execute(delete(t.sessions).where(t.sessions.c.player_id == player_id))
    await log_action(conn, by, f"player_{new}", player_id, reason,
                     {"before": row.status, "after": new} | ({"note": note} if note else {}))
    ev: Any
    if new == "disqualified":
        ev = disqualification(player_id, game_now)
    else:
        # The public display name travels with it (the notify service names players in its texts)
        ev = verification(player_id, game_now, row.discord)
    if new != "rejected":
        await stage(conn, t.outbox, SUBJECT[new], ev)
    return str(row.status)
