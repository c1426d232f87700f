"""Organizer corrections (R28): ``POST /admin/corrections``, ``GET /admin/corrections`` (the whole append-only log,
with before and after) and the public ``GET /corrections`` (no personal details).

Each correction is applied by the service that owns the state (claims for ownership, cards for hands, scoring
for score adjustments), with the correction id as the command id, so a retry never applies it twice. After the
season closes corrections still apply and are flagged ``post_season`` (R25)."""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator
from sqlalchemy import insert, select

from turf_common.bus import wait_idle
from turf_common.contracts import subjects
from turf_common.contracts.cards import AdjustHand, CardType
from turf_common.contracts.claims import CorrectOwnership
from turf_common.contracts.players import CorrectionApplied
from turf_common.contracts.scoring import AdjustScore
from turf_common.outbox import stage
from turf_common.rules import gametime
from turf_gateway import tables as t
from turf_gateway.api.deps import Organizer, State
from turf_gateway.commands import ask
from turf_gateway.errors import ApiError

router = APIRouter(tags=["organizer"])

Id = Annotated[str, StringConstraints(min_length=1, max_length=64)]


class CorrectionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: Literal["reverse_claim", "set_owner", "adjust_hand", "adjust_score"]
    reason: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]
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


async def _player_exists(state: Any, player_id: str) -> None:
    async with state.engine.connect() as conn:
        if (await conn.execute(select(t.players.c.id).where(t.players.c.id == player_id,
                                                              t.players.c.role == "player"))).first() is None:
            raise ApiError("not_found", "No such player.")


async def record(state: Any, *, cid: str, by: str, action: str, reason: str, request: dict[str, Any],
                 before: Any, after: Any, territory_id: str | None = None, player_id: str | None = None) -> dict:
    """Append one correction to the log and publish its public view, in one transaction."""
    now = await state.clock.now()
    post = gametime.season_state(state.season, now) == "closed"
    async with state.engine.begin() as conn:
        await conn.execute(insert(t.corrections).values(
            id=cid, at=now, by=by, action=action, reason=reason, territory_id=territory_id, player_id=player_id,
            request=request, before=before, after=after, post_season=post))
        await stage(conn, t.outbox, subjects.CORRECTION_APPLIED, CorrectionApplied(
            occurred_at=now, correction_id=cid, at=now, action=action, territory_id=territory_id,
            player_id=player_id, reason=reason, post_season=post))
    await state.relay.flush()
    return {"id": cid, "at": now.isoformat(), "action": action, "by": by, "reason": reason, "before": before,
            "after": after, "post_season": post}


@router.post("/admin/corrections", status_code=201)
async def apply_correction(body: CorrectionIn, org: Organizer, state: State) -> dict[str, Any]:
    """Apply and log a correction: ``reverse_claim`` (claim_id), ``set_owner`` (territory_id, player_id or
    null), ``adjust_hand`` (player_id, add, remove — ready cards removed first), ``adjust_score`` (player_id,
    points). Answers the record ``{id, at, action, by, reason, before, after}``."""
    cid = uuid.uuid4().hex
    req = body.model_dump(exclude_none=True)
    territory_id, player_id = body.territory_id, body.player_id
    if body.action in ("reverse_claim", "set_owner"):
        if body.action == "set_owner":
            if body.territory_id not in state.board.territories:
                raise ApiError("not_found", "No territory with that id.")
            if body.player_id is not None:
                await _player_exists(state, body.player_id)
        out = await ask(state, subjects.CLAIMS_CORRECT, CorrectOwnership(
            command_id=cid, action=body.action, claim_id=body.claim_id, territory_id=body.territory_id,
            player_id=body.player_id))
        before, after, territory_id = out["before"], out["after"], out["territory_id"]
        for side in (before, after):
            side.pop("schema_version", None)
    elif body.action == "adjust_hand":
        assert body.player_id is not None
        await _player_exists(state, body.player_id)
        out = await ask(state, subjects.CARDS_ADJUST, AdjustHand(correction_id=cid, player_id=body.player_id,
                                                                  add=body.add, remove=body.remove))
        strip = [{k: c[k] for k in ("id", "type", "state")} for c in out["cards"]]
        before = {"removed": [{k: c[k] for k in ("id", "type", "state")} for c in out["removed"]]}
        after = {"added": [{k: c[k] for k in ("id", "type", "state")} for c in out["added"]], "hand": strip}
    else:
        assert body.player_id is not None and body.points is not None
        await _player_exists(state, body.player_id)
        out = await ask(state, subjects.SCORING_ADJUST, AdjustScore(command_id=cid, player_id=body.player_id,
                                                                     points=body.points))
        before, after = {"adjustment": out["before"]}, {"adjustment": out["after"]}
    if body.action == "reverse_claim" or (body.action == "set_owner"):
        await wait_idle(state.broker, state.settings.stream, timeout=30)  # scores recomputed before we answer
    return await record(state, cid=cid, by=org.id, action=body.action, reason=body.reason, request=req,
                        before=before, after=after, territory_id=territory_id, player_id=player_id)


@router.get("/admin/corrections")
async def admin_corrections(org: Organizer, state: State) -> dict[str, Any]:
    """The append-only log (R28), oldest first, with who, when, what, before and after."""
    async with state.engine.connect() as conn:
        rows = (await conn.execute(select(t.corrections).order_by(t.corrections.c.seq))).all()
    return {"corrections": [
        {"id": r.id, "at": r.at.astimezone(state.season.tz).isoformat(), "action": r.action, "by": r.by,
         "reason": r.reason, "territory_id": r.territory_id, "player_id": r.player_id, "request": r.request,
         "before": r.before, "after": r.after, "post_season": r.post_season} for r in rows]}


@router.get("/corrections")
async def public_corrections(state: State) -> dict[str, Any]:
    """The corrections as the public sees them: what, where, who (player id), why — no personal details."""
    async with state.engine.connect() as conn:
        rows = (await conn.execute(select(t.corrections).order_by(t.corrections.c.seq))).all()
    return {"corrections": [
        {k: v for k, v in {"id": r.id, "at": r.at.astimezone(state.season.tz).isoformat(), "action": r.action,
                           "territory_id": r.territory_id, "player_id": r.player_id, "reason": r.reason}.items()
         if v is not None or k in ("id", "at", "action", "reason")} for r in rows]}
