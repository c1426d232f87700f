"""Organizer corrections (R28) as a use case. Each correction is applied by the service that owns the state (claims
for ownership, cards for hands, scoring for score adjustments), with the correction id as the command id, so a
retry never applies it twice (each service serialises a repeated command id on its side). The request is recorded
before the service is asked and the log record written once it answers (the :class:`CorrectionLog` port); no
database lock is held while the service is asked: a concurrent repeat asks too, gets the same answer, and whichever
settles second finds the first's record. After the season closes corrections still apply and are flagged
``post_season`` (R25)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from turf_common.board import Board
from turf_common.contracts import subjects
from turf_common.contracts.cards import AdjustHand, AdjustReply, CardOut, CardType
from turf_common.contracts.claims import CorrectOwnership, OwnershipCorrected
from turf_common.contracts.scoring import AdjustScore, ScoreAdjusted
from turf_common.outbox import OutboxFlush
from turf_common.rules import gametime
from turf_gateway.api import schemas as S
from turf_gateway.api.errors import ApiError
from turf_gateway.handlers.calendar import SeasonSource, config_at
from turf_gateway.ports import CorrectionLog, GameClock, PlayerStore, Record, Services

Id = Annotated[str, StringConstraints(min_length=1, max_length=64)]


class CorrectionIn(BaseModel):
    """``POST /admin/corrections``' body: the correction asked (API.md)."""

    model_config = ConfigDict(extra="forbid")
    action: Literal["reverse_claim", "set_owner", "adjust_hand", "adjust_score"]
    #: public: on GET /corrections and the feed's correction.applied
    reason: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]
    #: private: the organizer's own note, on GET /admin/corrections only
    note: Annotated[str, StringConstraints(strip_whitespace=True, max_length=2000)] | None = None
    claim_id: Id | None = None
    territory_id: Id | None = None
    player_id: Id | None = None
    add: list[CardType] = Field(default_factory=list, max_length=50)
    remove: list[CardType] = Field(default_factory=list, max_length=50)
    points: int | None = Field(default=None, ge=-10_000, le=10_000)

    @model_validator(mode="after")
    def _arguments(self) -> CorrectionIn:
        need = {"reverse_claim": ["claim_id"], "set_owner": ["territory_id"], "adjust_hand": ["player_id"],
                "adjust_score": ["player_id", "points"]}[self.action]
        missing = [f for f in need if getattr(self, f) is None]
        if missing:
            raise ValueError(f"{self.action} needs {', '.join(missing)}")
        if self.action == "adjust_hand" and not (self.add or self.remove):
            raise ValueError("adjust_hand needs cards to add or remove")
        return self


def canonical(request: dict[str, Any]) -> dict[str, Any]:
    """A correction's body as JSON values (card types as strings), for comparing a repeat with the first."""
    return CorrectionIn.model_validate(request).model_dump(mode="json", exclude_none=True)


@dataclass(frozen=True)
class Effect:
    """What a correction did: before and after (JSON values), and where."""

    before: Any
    after: Any
    territory_id: str | None
    player_id: str | None


def _cards(cards: list[CardOut]) -> list[dict[str, Any]]:
    return [{"id": c.id, "type": c.type, "state": c.state} for c in cards]


@dataclass
class Corrections:
    services: Services
    log: CorrectionLog
    players: PlayerStore
    board: Board
    clock: GameClock
    season: SeasonSource   # R31: a correction after a season's close is post-season (R28)
    relay: OutboxFlush

    async def apply(self, body: CorrectionIn, by: str, key: str | None) -> dict[str, Any]:
        """Apply and log a correction; the record ``{id, at, action, by, reason, before, after, post_season}``. A
        repeated ``key`` answers the first record (or refusal), applied and logged once; with another body it is
        refused 422 ``invalid_input``. Raises ApiError 404 for a target that does not exist (before
        anything is recorded), the service's refusal, BusError when it does not answer (asked again on a repeat)."""
        await self._check_targets(body)
        now = await self.clock.now()
        asked = body.model_dump(exclude_none=True)
        closed = gametime.season_state(config_at(self.season, now), now) == "closed"
        cid = await self.log.open_request(by=by, key=key, at=now, action=body.action, request=asked,
                                          post_season=closed)
        first = await self.log.asked(cid)
        effect: Effect | ApiError | None = None
        # A key answers only the request it was first used for; another body under it is a client bug
        if canonical(first.request) != canonical(asked):
            raise ApiError("invalid_input", "This Idempotency-Key was already used for another correction; use a "
                                            "new key for a new correction.", 422)
        if first.state == "asked":   # not settled yet: ask (again) with no lock held, the service applies it once
            want = CorrectionIn.model_validate(first.request)   # a repeat applies what was first asked
            try:
                effect = await self._apply(want, cid)
            except ApiError as e:
                effect = e
        async with self.log.settling(cid) as req:
            if req.asked.state == "logged":
                return await req.record()
            if req.asked.state == "refused" and req.asked.refusal is not None:
                raise ApiError(req.asked.refusal["reason"], req.asked.refusal["message"])
            assert effect is not None, "an unsettled request was asked above"
            if isinstance(effect, ApiError):
                await req.refuse(effect.reason, effect.message)
            else:
                rec = await req.log(by=by, action=want.action, reason=want.reason, before=effect.before,
                                    after=effect.after, territory_id=effect.territory_id, player_id=effect.player_id)
        if isinstance(effect, ApiError):
            raise effect
        await self.relay.flush()
        return rec

    def _local(self, at: datetime) -> str:
        """A record's time in the zone of the season it fell in (R31)."""
        return at.astimezone(config_at(self.season, at).tz).isoformat()

    async def organizer_log(self) -> S.AdminCorrections:
        """The append-only log (R28), oldest first: who, when, what, the request (with the organizer's private
        note), before and after; times in the season's zone."""
        return S.AdminCorrections(corrections=[S.AdminCorrection(
            id=r.id, at=self._local(r.at), action=r.action, by=r.by, reason=r.reason,
            note=r.request.get("note"), territory_id=r.territory_id, player_id=r.player_id, request=r.request,
            before=r.before, after=r.after, post_season=r.post_season) for r in await self.log.records()])

    async def public_log(self) -> S.PublicCorrections:
        """The log as the public sees it (R28): what, where, who (player id), why; no note, no before/after and
        no organizer. A territory or player the correction did not name is left out (unset), not null."""
        return S.PublicCorrections(corrections=[S.PublicCorrection(
            id=r.id, at=self._local(r.at), action=_public_action(r), reason=r.reason,
            **{k: v for k, v in (("territory_id", r.territory_id), ("player_id", r.player_id)) if v is not None})
            for r in await self.log.records()])

    async def _check_targets(self, body: CorrectionIn) -> None:
        """404 for a territory off the board or an unknown player, before anything is recorded."""
        if body.action == "set_owner":
            if body.territory_id not in self.board.territories:
                raise ApiError("not_found", "No territory with that id.")
        elif body.action in ("adjust_hand", "adjust_score"):
            assert body.player_id is not None
            found = await self.players.standing(body.player_id)
            if found is None or found[0] != "player":
                raise ApiError("not_found", "No such player.")

    async def _new_owner_verified(self, body: CorrectionIn) -> None:
        """R28 (amended): ``set_owner`` names only a verified player who is not disqualified, or nobody (null);
        anyone else (unknown, pending, rejected, disqualified, the organizer: R27) is refused 409
        ``invalid_target``. A disqualification racing this one is settled by claims, which serialises both on the
        player (a disqualified player is refused there too)."""
        if body.action != "set_owner" or body.player_id is None:
            return
        found = await self.players.standing(body.player_id)
        if found is None or found != ("player", "verified"):
            what = "no player" if found is None or found[0] != "player" else f"a {found[1]} player"
            raise ApiError("invalid_target", f"set_owner names a verified player or nobody (null); that is {what} "
                                             "(R28).")

    async def _apply(self, body: CorrectionIn, cid: str) -> Effect:
        """Ask the owning service to apply the correction once under command id ``cid``."""
        if body.action in ("reverse_claim", "set_owner"):
            await self._new_owner_verified(body)
            own = await self.services.ask(subjects.CLAIMS_CORRECT, CorrectOwnership(
                command_id=cid, action=body.action, claim_id=body.claim_id, territory_id=body.territory_id,
                player_id=body.player_id), OwnershipCorrected, 15)
            return Effect(own.before.model_dump(mode="json", exclude={"schema_version"}),
                          own.after.model_dump(mode="json", exclude={"schema_version"}), own.territory_id,
                          body.player_id)
        assert body.player_id is not None
        if body.action == "adjust_hand":
            hand = await self.services.ask(subjects.CARDS_ADJUST, AdjustHand(
                correction_id=cid, player_id=body.player_id, add=body.add, remove=body.remove), AdjustReply, 15)
            return Effect({"removed": _cards(hand.removed)}, {"added": _cards(hand.added), "hand": _cards(hand.cards)},
                          body.territory_id, body.player_id)
        assert body.points is not None
        score = await self.services.ask(subjects.SCORING_ADJUST, AdjustScore(
            command_id=cid, player_id=body.player_id, points=body.points), ScoreAdjusted, 15)
        return Effect({"adjustment": score.before}, {"adjustment": score.after}, body.territory_id, body.player_id)


def _public_action(r: Record) -> str:
    """R30: a withdrawal logged before it had an action of its own (as ``disqualify``, after ``withdrawn``) is
    never shown to the public as a disqualification."""
    if r.action == "disqualify" and isinstance(r.after, dict) and r.after.get("status") == "withdrawn":
        return "withdrawal"
    return r.action
