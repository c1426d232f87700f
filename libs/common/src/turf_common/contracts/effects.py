"""Card effects the claims service applies for the cards service's sagas (``claims.effect.*``, request/reply).

Every command carries a ``command_id`` (the saga's id): the claims service applies it at most once and answers a
repeat with the stored first answer, so a saga retried after a crash never applies an effect twice. A refusal is a
:class:`~turf_common.contracts.base.Refusal` with the rule code (R13: the card then goes back to the hand).
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import AwareDatetime, Field

from turf_common.contracts.base import Event, Message
from turf_common.rules.cards import ProtectionKind

JokerMode = Literal["random", "cluster_edge"]


class EffectCommand(Message):
    command_id: str = Field(min_length=1, max_length=64)
    player_id: str


class DoubleTroubleEffect(EffectCommand):
    """``claims.effect.double_trouble`` (R17): allowance 2 for today."""


class MulliganEffect(EffectCommand):
    """``claims.effect.mulligan`` (R19): undo the player's claim ``claim_id``."""

    claim_id: str


class WarEffect(EffectCommand):
    """``claims.effect.war`` (R14): ``player_id`` is the victim; ``territory_id`` the stolen territory."""

    territory_id: str


class JokerEffect(EffectCommand):
    """``claims.effect.joker`` (R20): ``entropy`` comes from the season's seeded generator (cards service)."""

    mode: JokerMode
    entropy: str = Field(pattern=r"^[0-9a-f]{64}$")


class ScheduleEffect(EffectCommand):
    """``claims.effect.schedule`` (R15, R16): a Freeze on ``territory_id`` or a Blockade against ``rival_id``, for
    the next game day. ``rival_known``: the rival is a player of the season (the cards service knows them)."""

    card_id: str
    kind: ProtectionKind
    territory_id: str | None = None
    rival_id: str | None = None
    rival_known: bool = False


class UnscheduleEffect(EffectCommand):
    """``claims.effect.unschedule``: cancel the scheduled Freeze/Blockade of ``card_id`` before it activates.
    ``correction``: asked by an organizer's ``adjust_hand`` (R28), which applies at any hour, not only while the
    game is open (R3 binds players' cancellations)."""

    card_id: str
    correction: bool = False


class TradeEffect(EffectCommand):
    """``claims.effect.trade`` (R18): swap ``offer_territory_id`` (the proposer's) and ``want_territory_id``
    (the partner's, ``player_id``), each with its fortification state."""

    trade_id: str
    proposer_id: str
    offer_territory_id: str
    want_territory_id: str


class TradeCheck(Message):
    """``claims.trade_check``: ownership and War disputes of the two territories of a trade (a read)."""

    offer_territory_id: str
    want_territory_id: str


class TradeFacts(Message):
    ok: Literal[True] = True
    offer_known: bool
    want_known: bool
    offer_owner: str | None
    want_owner: str | None
    offer_in_dispute: bool
    want_in_dispute: bool


class JokerPick(Message):
    """What a Joker play picked and from what (R20), so ``turfwar audit draws`` can replay it."""

    mode: JokerMode
    territory_id: str | None
    candidates: list[str]
    clusters: list[list[str]] = Field(default_factory=list)
    cluster_index: int | None = None


class EffectApplied(Message):
    """The effect took place. Only the fields of its kind are set."""

    ok: Literal[True] = True
    command_id: str
    kind: str
    territory_id: str | None = None
    owner_id: str | None = None
    claims_left_today: int | None = None
    active_on: date | None = None
    reclaim_until: AwareDatetime | None = None
    joker: JokerPick | None = None


class ProtectionResolved(Event):
    """``protection.activated`` / ``protection.lapsed``: at the day start of ``day`` a scheduled Freeze/Blockade
    took effect (its card is consumed) or lapsed (its card returns to the hand)."""

    type: Literal["protection.activated", "protection.lapsed"]

    card_id: str
    player_id: str
    kind: ProtectionKind
    day: date
    territory_id: str | None = None
    rival_id: str | None = None
    state: Literal["active", "lapsed"]
    reason: str | None = None
