"""Pure: what a town's history and a player's journal say, from the public feed messages of the stream
(the ``body`` of ``feed_log`` rows: ``{type, at, seq, …public fields}``). No SQL, no NATS, no clock.

A ``territory.changed`` names its cause; a claim's kind is not in it, but follows from the owners before and after
(R8-R9): nobody before → ``take``, another player before → ``steal``, the same player → ``reinforce`` (which a
fortification is: ``fortified`` turns true). Every other cause is the kind itself (``war``, ``war_reclaim``,
``mulligan``, ``joker``, ``trade``, ``correction``, ``disqualification``, ``withdrawal``: R30, a town freed because
its holder withdrew)."""

from __future__ import annotations

from collections import Counter
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from turf_common.contracts import subjects

#: the entries of a player's journal and of its daily totals
JOURNAL_TOTALS = ("claims", "steals", "stolen", "lost", "fortifications", "cards", "trades")
#: the claim kinds (what spends allowance or reclaims: R6, R14)
CLAIM_KINDS = ("take", "steal", "reinforce", "war_reclaim")


def change_kind(msg: dict[str, Any]) -> str:
    """The history kind of one ``territory.changed`` feed message (module docstring)."""
    cause = msg.get("cause") or "claim"
    if cause != "claim":
        return str(cause)
    before, after = msg.get("previous_owner_id"), msg.get("owner_id")
    if before is None:
        return "take"
    return "reinforce" if before == after else "steal"


def players_of(msg: dict[str, Any]) -> list[str]:
    """The players a feed message concerns (for a journal): a change's new and previous owner, a card's player,
    a trade's two parties. Score updates concern everybody and nobody's journal: none."""
    if msg["type"] == subjects.TERRITORY_CHANGED:
        keys: tuple[str, ...] = ("owner_id", "previous_owner_id")
    elif msg["type"].startswith("card."):
        keys = ("player_id",)
    elif msg["type"].startswith("trade."):
        keys = ("proposer_id", "partner_id")
    elif msg["type"] in (subjects.CORRECTION_APPLIED, subjects.MEDAL_EARNED):
        keys = ("player_id",)
    else:
        keys = ()
    return sorted({p for k in keys if isinstance(p := msg.get(k), str) and p})


def territory_entry(msg: dict[str, Any]) -> dict[str, Any]:
    """One line of ``GET /territories/{id}/history``: ``{at, kind, player_id, previous_owner_id, progress,
    fortified}``, ``player_id`` the owner after the change (null when it left the town unowned)."""
    return {"at": msg["at"], "kind": change_kind(msg), "player_id": msg.get("owner_id"),
            "previous_owner_id": msg.get("previous_owner_id"), "progress": msg.get("progress", 0),
            "fortified": bool(msg.get("fortified"))}


def journal_entry(player_id: str, msg: dict[str, Any]) -> dict[str, Any] | None:
    """One line of ``player_id``'s journal, or None for a message that is no part of it.

    * a change that gives or keeps the town: ``{at, kind, territory_id, previous_owner_id, progress, fortified}``
      (kind as :func:`change_kind`);
    * a change that takes it away: ``{at, kind: "lost", territory_id, by, cause}`` (``cause`` the change's kind:
      ``steal`` is a steal suffered);
    * a card played: ``{at, kind: "card", territory_id: null, card_type, state}`` (what the spectators saw: a
      scheduled card's target stays private; its ownership effect is its own change entry);
    * a trade accepted: ``{at, kind: "trade_accepted", territory_id: null, trade_id, partner_id}``."""
    t = msg["type"]
    if t == subjects.TERRITORY_CHANGED:
        kind = change_kind(msg)
        if msg.get("owner_id") == player_id:
            return {"at": msg["at"], "kind": kind, "territory_id": msg["territory_id"],
                    "previous_owner_id": msg.get("previous_owner_id"), "progress": msg.get("progress", 0),
                    "fortified": bool(msg.get("fortified"))}
        if msg.get("previous_owner_id") == player_id:
            return {"at": msg["at"], "kind": "lost", "territory_id": msg["territory_id"],
                    "by": msg.get("owner_id"), "cause": kind}
        return None
    if t == subjects.CARD_PLAYED and msg.get("player_id") == player_id:
        return {"at": msg["at"], "kind": "card", "territory_id": None, "card_type": msg.get("card_type"),
                "state": msg.get("state")}
    if t == subjects.TRADE_ACCEPTED and player_id in (msg.get("proposer_id"), msg.get("partner_id")):
        partner = msg.get("partner_id") if msg.get("proposer_id") == player_id else msg.get("proposer_id")
        return {"at": msg["at"], "kind": "trade_accepted", "territory_id": None, "trade_id": msg.get("trade_id"),
                "partner_id": partner}
    return None


def _counts(entry: dict[str, Any]) -> list[str]:
    """Which daily totals one journal entry adds to."""
    kind = entry["kind"]
    out = []
    if kind in CLAIM_KINDS:
        out.append("claims")
    if kind == "steal":
        out.append("steals")
    if kind == "reinforce" and entry.get("fortified"):
        out.append("fortifications")
    if kind == "lost":
        out.append("stolen" if entry.get("cause") == "steal" else "lost")
    if kind == "card":
        out.append("cards")
    if kind == "trade_accepted":
        out.append("trades")
    return out


def game_date(at: str, tz: ZoneInfo) -> date:
    """The calendar date of the instant ``at`` (ISO 8601 with offset) in the season's zone."""
    return datetime.fromisoformat(at).astimezone(tz).date()


def daily_totals(entries: list[dict[str, Any]], tz: ZoneInfo) -> list[dict[str, Any]]:
    """Per date of the season's zone with any entry, oldest first: ``{day, claims, steals, stolen, lost,
    fortifications, cards, trades}`` (``stolen``: steals suffered; ``lost``: towns lost otherwise)."""
    per: dict[date, Counter[str]] = {}
    for e in entries:
        per.setdefault(game_date(e["at"], tz), Counter()).update(_counts(e))
    return [{"day": d.isoformat()} | {k: c[k] for k in JOURNAL_TOTALS} for d, c in sorted(per.items())]
