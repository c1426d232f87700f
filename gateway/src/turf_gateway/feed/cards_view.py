"""The live feed's view of card and trade events: public fields only, never a drawn card's type (a hand is
private, R12) or a scheduled card's target (R15, R16)."""

from __future__ import annotations

from typing import Any

from turf_common.contracts import subjects

#: what of each card/trade event the websocket feed shows: never a drawn card's type (a hand is private), never
#: a scheduled card's target; a trade partner sees a proposal addressed to them and refetches GET /trades.
PUBLIC_FIELDS: dict[str, tuple[str, ...]] = {
    subjects.CARD_DRAWN: ("player_id",),
    subjects.CARD_PLAYED: ("player_id", "card_type", "state"),
    subjects.CARD_CONSUMED: ("player_id", "card_type"),
    subjects.CARD_RETURNED: ("player_id", "card_type", "reason"),
    subjects.CARD_SEED_COMMITTED: ("season_id", "commitment"),
    subjects.CARD_SEED_REVEALED: ("season_id", "commitment", "seed"),
    subjects.TRADE_PROPOSED: ("trade_id", "proposer_id", "partner_id", "state"),
    subjects.TRADE_ACCEPTED: ("trade_id", "proposer_id", "partner_id", "state"),
    subjects.TRADE_DECLINED: ("trade_id", "proposer_id", "partner_id", "state"),
    subjects.TRADE_CANCELLED: ("trade_id", "proposer_id", "partner_id", "state", "reason"),
}
FEED = list(PUBLIC_FIELDS)


def public_view(subject: str, data: dict[str, Any]) -> dict[str, Any]:
    """The feed message of a card/trade event (``type`` and ``at`` are added by the caller)."""
    return {k: data.get(k) for k in PUBLIC_FIELDS[subject]} | {"occurred_at": data.get("occurred_at")}
