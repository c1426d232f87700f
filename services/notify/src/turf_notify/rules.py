"""What each event tells whom, as pure functions: no I/O, no clock reads; the game time comes in.

* :func:`notifications` — the per-player notifications an event makes (API.md kinds), texts naming towns and
  players by their public display names only (never e-mail, address or anyone's hand).
* :func:`commentary` — the public line for the league's Discord channel, or None (steals, wars, fortifications,
  announcements, the day's standings at each close, the final results and prizes).
* :func:`reminder_due` — when "your reclaim window ends in an hour" is due (R4/R14: in game hours).
* :func:`push_not_before` — quiet hours: the game instant from which a push may be sent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from turf_common.contracts.cards import HandsDealt, TradeEvent
from turf_common.contracts.claims import ClaimAccepted, TerritoryChanged
from turf_common.contracts.clock import DayClosed
from turf_common.contracts.effects import ProtectionResolved
from turf_common.contracts.notify import AnnouncementPublished, MedalEarned, NotificationKind
from turf_common.contracts.players import CorrectionApplied, PlayerVerified
from turf_common.contracts.scoring import SeasonFinalResults
from turf_common.rules import gametime
from turf_common.rules.cards import WAR_RECLAIM_HOURS, war_play_deadline

#: R14: "your reclaim window ends in an hour" comes this many game hours before its end
REMINDER_BEFORE_HOURS = 1.0
#: kinds that may be pushed while the game is closed (they may matter before the next opening); the rest wait
URGENT_WHEN_CLOSED: frozenset[str] = frozenset({"announcement", "correction"})
#: lines of the day's standings posted to Discord at each close
STANDINGS_SHOWN = 5


class Names(Protocol):
    """Public names: a player's display name (their Discord username), a territory's municipality name."""

    def player(self, player_id: str | None) -> str: ...

    def town(self, territory_id: str | None) -> str: ...


@dataclass(frozen=True)
class Draft:
    """A notification to store: for ``player_id``, at the game instant ``at``."""

    player_id: str
    kind: NotificationKind
    at: datetime
    message: str
    data: dict[str, Any] = field(default_factory=dict)


def _iso(at: datetime) -> str:
    return at.isoformat()


def notifications(ev: object, names: Names, cfg: gametime.SeasonConfig) -> list[Draft]:
    """The notifications ``ev`` makes, in a stable order. Events that tell nobody anything answer ``[]``.

    * ``claim.accepted`` steal → the victim: ``territory_stolen`` ``{territory_id, by, war_until}``, ``war_until``
      the steal + 5 game hours (R4, R14); a reinforce reaching fortification → the owner: ``fortified``
      ``{territory_id}`` (R9, R11).
    * ``territory.changed`` cause ``war`` → the attacker (its previous owner): ``war_declared``
      ``{territory_id, by, reclaim_until}``, the War + 16 game hours (R14).
    * ``trade.*`` → the other party: proposed → partner; accepted / declined → proposer; cancelled → the partner
      when the proposer withdrew, else both.
    * ``protection.activated`` / ``lapsed`` → the card's player (R15, R16).
    * ``card.dealt`` → every player dealt at least one card (R12).
    * ``player.verified`` → that player: ``verified`` ``{}`` (R27: they may play now).
    * ``correction.applied`` naming a player → that player (R28); ``territory.changed`` cause ``correction`` → the
      previous owner it took the territory from (``correction_id`` null: the change does not carry it).
    """
    if isinstance(ev, ClaimAccepted):
        town = names.town(ev.territory_id)
        if ev.kind == "steal" and ev.previous_owner_id:
            until = war_play_deadline(cfg, ev.occurred_at)
            return [Draft(ev.previous_owner_id, "territory_stolen", ev.occurred_at,
                          # notify does not know the hand, so it says what a War card would allow
                          # rather than advising one the player may not hold
                          f"{names.player(ev.player_id)} stole {town} from you. A War card would let you take it "
                          f"back until {_clock_text(until, cfg)} (5 game hours).",
                          {"territory_id": ev.territory_id, "by": ev.player_id, "war_until": _iso(until)})]
        if ev.kind == "reinforce" and ev.fortified and ev.progress == 3:
            return [Draft(ev.player_id, "fortified", ev.occurred_at,
                          f"{town} is fortified: nobody can take it from you this season.",
                          {"territory_id": ev.territory_id})]
        return []
    if isinstance(ev, TerritoryChanged):
        if ev.cause == "war" and ev.previous_owner_id and ev.owner_id:
            until = reclaim_until(cfg, ev.occurred_at)
            return [Draft(ev.previous_owner_id, "war_declared", ev.occurred_at,
                          f"{names.player(ev.owner_id)} played War on you: {names.town(ev.territory_id)} went back "
                          f"to them. You alone may reclaim it by GPS until {_clock_text(until, cfg)}.",
                          {"territory_id": ev.territory_id, "by": ev.owner_id, "reclaim_until": _iso(until)})]
        if ev.cause == "correction" and ev.previous_owner_id and ev.previous_owner_id != ev.owner_id:
            # R28: correction.applied names set_owner's new owner only (nobody for reverse_claim); the player the
            # correction took the territory from learns it from the change itself (it carries no correction id)
            now = f"now {names.player(ev.owner_id)}'s" if ev.owner_id else "open land again"
            return [Draft(ev.previous_owner_id, "correction", ev.occurred_at,
                          f"The organizer made a correction that concerns you: {names.town(ev.territory_id)} is no "
                          f"longer yours ({now}).",
                          {"correction_id": None, "action": "reverse_claim" if ev.claim_id else "set_owner",
                           "territory_id": ev.territory_id})]
        return []
    if isinstance(ev, TradeEvent):
        return _trade(ev, names)
    if isinstance(ev, ProtectionResolved):
        what = (f"Freeze on {names.town(ev.territory_id)}" if ev.kind == "freeze"
                else f"Blockade against {names.player(ev.rival_id)}")
        if ev.state == "active":
            return [Draft(ev.player_id, "protection_active", ev.occurred_at, f"Your {what} is active today.",
                          {"card_id": ev.card_id, "card_type": ev.kind, "day": ev.day.isoformat(),
                           "territory_id": ev.territory_id, "rival_id": ev.rival_id})]
        return [Draft(ev.player_id, "protection_lapsed", ev.occurred_at,
                      f"Your {what} lapsed{_reason(ev.reason)}; the card is back in your hand.",
                      {"card_id": ev.card_id, "card_type": ev.kind, "day": ev.day.isoformat(),
                       "territory_id": ev.territory_id, "rival_id": ev.rival_id, "reason": ev.reason})]
    if isinstance(ev, HandsDealt):
        return [Draft(pid, "cards_dealt", ev.occurred_at,
                      f"You were dealt {n} card{'s' if n != 1 else ''} this morning.",
                      {"count": n, "game_day": ev.game_day.isoformat()})
                for pid, n in sorted(ev.draws.items()) if n > 0]
    if isinstance(ev, PlayerVerified):   # R27: the player may play from now on (the page waits for this)
        return [Draft(ev.player_id, "verified", ev.occurred_at,
                      "You are verified: you can claim towns and play cards now.", {})]
    if isinstance(ev, CorrectionApplied) and ev.player_id:
        town = f" ({names.town(ev.territory_id)})" if ev.territory_id else ""
        return [Draft(ev.player_id, "correction", ev.at,
                      f"The organizer made a correction that concerns you{town}: {ev.reason}",
                      {"correction_id": ev.correction_id, "action": ev.action, "territory_id": ev.territory_id})]
    return []


def _trade(ev: TradeEvent, names: Names) -> list[Draft]:
    offer, want = names.town(ev.offer_territory_id), names.town(ev.want_territory_id)
    data = {"trade_id": ev.trade_id, "offer_territory_id": ev.offer_territory_id,
            "want_territory_id": ev.want_territory_id}
    proposer, partner = names.player(ev.proposer_id), names.player(ev.partner_id)
    if ev.type == "trade.proposed":
        return [Draft(ev.partner_id, "trade_proposed", ev.at,
                      f"{proposer} offers you {offer} for your {want}.", data | {"by": ev.proposer_id})]
    if ev.type == "trade.accepted":
        return [Draft(ev.proposer_id, "trade_accepted", ev.at,
                      f"{partner} accepted your trade: {want} is yours, {offer} is theirs.",
                      data | {"by": ev.partner_id})]
    if ev.type == "trade.declined":
        return [Draft(ev.proposer_id, "trade_declined", ev.at,
                      f"{partner} declined your offer of {offer} for {want}.", data | {"by": ev.partner_id})]
    why = _reason(ev.reason)
    if ev.reason == "withdrawn":
        return [Draft(ev.partner_id, "trade_cancelled", ev.at,
                      f"{proposer} withdrew the offer of {offer} for your {want}.",
                      data | {"reason": ev.reason})]
    return [Draft(pid, "trade_cancelled", ev.at, f"The trade of {offer} for {want} was cancelled{why}.",
                  data | {"reason": ev.reason}) for pid in (ev.proposer_id, ev.partner_id)]


REASONS = {"territory_lost": "a territory changed hands", "no_trade_card": "a party has no Trade card left",
           "trade_no_longer_valid": "it can no longer succeed", "season_ended": "the season ended",
           "disqualified": "a party was disqualified", "cancelled": "the card's play was cancelled",
           # R15/R16 lapses (claims' day start): the Freeze's territory changed owner before its day; a schedule
           # whose day passed unresolved
           "not_owner": "the territory was no longer yours", "missed": "its day passed"}


def _reason(reason: str | None) -> str:
    return f" ({REASONS.get(reason, reason.replace('_', ' '))})" if reason else ""


def _clock_text(at: datetime, cfg: gametime.SeasonConfig) -> str:
    """``Mon 10:00`` in the season's time zone."""
    return at.astimezone(cfg.tz).strftime("%a %H:%M")


def reclaim_until(cfg: gametime.SeasonConfig, war_at: datetime) -> datetime:
    """R14: the attacker's exclusive reclaim window ends 16 game hours after the War (the season's close at the
    latest: a War whose window would not fit was refused, R14)."""
    return gametime.add_game_hours(cfg, war_at, WAR_RECLAIM_HOURS) or gametime.season_closes_at(cfg)


def reminder_due(cfg: gametime.SeasonConfig, war_at: datetime) -> datetime:
    """R4/R14: the game instant one game hour before the reclaim window of a War at ``war_at`` ends."""
    return (gametime.add_game_hours(cfg, war_at, WAR_RECLAIM_HOURS - REMINDER_BEFORE_HOURS)
            or gametime.season_closes_at(cfg))


def reminder(player_id: str, territory_id: str, until: datetime, names: Names, at: datetime) -> Draft:
    """The ``reclaim_ending`` notification ``{territory_id, reclaim_until}`` made at game instant ``at``."""
    return Draft(player_id, "reclaim_ending", at,
                 f"Your reclaim window for {names.town(territory_id)} ends in an hour: claim it by GPS before "
                 f"{until.strftime('%H:%M')}.",
                 {"territory_id": territory_id, "reclaim_until": _iso(until)})


def announcement(player_id: str, ev: AnnouncementPublished) -> Draft:
    """Rulebook: every player is told of an announcement ``{announcement_id}``."""
    return Draft(player_id, "announcement", ev.at, f"Announcement: {ev.title}", {"announcement_id": ev.announcement_id})


def medal(ev: MedalEarned, counts: str) -> Draft:
    """A tier of a medal earned (docs/medals.md): ``{medal, tier, value}``; ``counts`` says what the medal counts."""
    return Draft(ev.player_id, "medal_earned", ev.at, f"Medal earned: {ev.name}, {ev.tier} ({counts}: {ev.value}).",
                 {"medal": ev.medal, "tier": ev.tier, "value": ev.value})


def push_not_before(cfg: gametime.SeasonConfig, kind: str, at: datetime) -> datetime:
    """Quiet hours follow the game: a notification made while the game is open is pushed at once (``at``); one made
    while it is closed waits for the next opening (R2/R3), unless its kind may matter before then
    (:data:`URGENT_WHEN_CLOSED`: an announcement, a correction). After the season: at once."""
    if kind in URGENT_WHEN_CLOSED or gametime.is_open(cfg, at):
        return at
    nxt = gametime.add_game_hours(cfg, at, 0)   # 0 game hours from closed time = the next opening (R4)
    return nxt or at


def push_text(kinds_messages: Iterable[tuple[str, str]]) -> tuple[str, str]:
    """(title, body) of one push for the notifications pending for a player: several steals together say so in
    one line ("3 of your towns were stolen"), everything else one line each."""
    items = list(kinds_messages)
    steals = [m for k, m in items if k == "territory_stolen"]
    rest = [m for k, m in items if k != "territory_stolen"]
    lines = ([f"{len(steals)} of your towns were stolen. A War card would let you take one back within 5 game "
              "hours."] if len(steals) > 1
             else steals) + rest
    title = "Turf War" if len(items) != 1 else {
        "territory_stolen": "Territory stolen", "war_declared": "War!", "reclaim_ending": "Reclaim window ending",
        "announcement": "Announcement", "medal_earned": "Medal earned"}.get(items[0][0], "Turf War")
    return title, "\n".join(lines)


def matters(ev: object) -> bool:
    """Whether ``ev`` can change anything here: a notification (:func:`notifications`), a Discord line
    (:func:`commentary`), a reminder made or dropped, a player or the standings stored. Most events of a
    busy day are plain takes and reinforcements (a ``claim.accepted`` and a ``territory.changed`` each) that tell
    nobody anything; they are passed over without a transaction. Types not named here all matter."""
    if isinstance(ev, ClaimAccepted):
        return ev.kind in ("steal", "war_reclaim") or (ev.kind == "reinforce" and ev.fortified and ev.progress == 3)
    if isinstance(ev, TerritoryChanged):
        return ev.cause in ("war", "correction")
    return True


def commentary(ev: object, names: Names, standings: Mapping[str, int] | None = None) -> str | None:
    """The public Discord line of ``ev``, or None. Names only towns and display names, never private data.
    ``standings`` (player id → total points) is the leaderboard at a ``clock.day_closed``."""
    if isinstance(ev, ClaimAccepted):
        town, who = names.town(ev.territory_id), names.player(ev.player_id)
        if ev.kind == "steal":
            return f"⚔️ {who} stole **{town}** from {names.player(ev.previous_owner_id)}."
        if ev.kind == "war_reclaim":
            return f"🏴 {who} reclaimed **{town}** after the War."
        if ev.kind == "reinforce" and ev.fortified and ev.progress == 3:
            return f"🏰 {who} fortified **{town}**."
        return None
    if isinstance(ev, TerritoryChanged) and ev.cause == "war":
        return (f"💥 {names.player(ev.owner_id)} played War: **{names.town(ev.territory_id)}** goes back to them; "
                f"{names.player(ev.previous_owner_id)} has 16 game hours to reclaim it.")
    if isinstance(ev, AnnouncementPublished):
        return f"📣 **{ev.title}**\n{ev.body}"
    if isinstance(ev, DayClosed):
        ranked = sorted((standings or {}).items(), key=lambda kv: (-kv[1], names.player(kv[0])))
        if not ranked:
            return f"🌙 Day {ev.game_day_number} is closed."
        lines = [f"{i}. {names.player(pid)} — {pts} pts" for i, (pid, pts) in enumerate(ranked[:STANDINGS_SHOWN], 1)]
        return f"🌙 Day {ev.game_day_number} is closed. Standings:\n" + "\n".join(lines)
    if isinstance(ev, SeasonFinalResults):
        lines = [f"{s.place}. {names.player(s.player_id)} — {s.total} pts, ${s.prize}"
                 for s in ev.results.standings]
        return "🏆 The season is over. Final results:\n" + "\n".join(lines)
    return None
