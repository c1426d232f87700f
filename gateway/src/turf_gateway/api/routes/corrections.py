"""Organizer corrections (R28): ``POST /admin/corrections``, ``GET /admin/corrections`` (the whole append-only log,
with before and after) and the public ``GET /corrections`` (no personal details).

Each correction is applied by the service that owns the state (claims for ownership, cards for hands, scoring
for score adjustments), with the correction id as the command id, so a retry never applies it twice. The request is
recorded before the service is asked and the log record written once it answers (:mod:`turf_gateway.correction_log`);
the route answers once that record commits, without waiting for the read models (scores, board feed) to follow.
After the season closes corrections still apply and are flagged ``post_season`` (R25)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator
from sqlalchemy import select

from turf_common.contracts import subjects
from turf_common.contracts.cards import AdjustHand, CardType
from turf_common.contracts.claims import CorrectOwnership
from turf_common.contracts.scoring import AdjustScore
from turf_common.rules import gametime
from turf_gateway import tables as t
from turf_gateway.api import schemas as S
from turf_gateway.api.deps import Organizer, State
from turf_gateway.commands import ask
from turf_gateway.errors import ApiError

router = APIRouter(tags=["organizer"])

Id = Annotated[str, StringConstraints(min_length=1, max_length=64)]


class CorrectionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: Literal["reverse_claim", "set_owner", "adjust_hand", "adjust_score"]
    #: public: on GET /corrections and the feed's correction.applied
    reason: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]
    #: private (issue 15): the organizer's own note, on GET /admin/corrections only
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


async def _player_exists(state: Any, player_id: str) -> None:
    async with state.engine.connect() as conn:
        if (await conn.execute(select(t.players.c.id).where(t.players.c.id == player_id,
                                                              t.players.c.role == "player"))).first() is None:
            raise ApiError("not_found", "No such player.")


Effect = tuple[Any, Any, str | None, str | None]   # before, after, territory_id, player_id


async def _check_targets(state: Any, body: CorrectionIn) -> None:
    """404 for a territory off the board or an unknown player, before anything is recorded. (``set_owner``'s
    player is checked by :func:`_new_owner_held`, as the correction is applied: that answer depends on the
    player's status, so it is recorded and a repeated key replays it.)"""
    if body.action == "set_owner":
        if body.territory_id not in state.board.territories:
            raise ApiError("not_found", "No territory with that id.")
    elif body.action in ("adjust_hand", "adjust_score"):
        assert body.player_id is not None
        await _player_exists(state, body.player_id)


@asynccontextmanager
async def _new_owner_held(state: Any, body: CorrectionIn) -> AsyncIterator[None]:
    """R28 (amended): ``set_owner`` names only a verified player who is not disqualified, or nobody (null).
    Anyone else (unknown, pending, rejected, disqualified, the organizer: R27) is refused 409 ``invalid_target``.
    The player's row stays share-locked while the body runs (claims applying the correction), so a
    disqualification waits for it and its ``player.disqualified`` (which frees the player's territories) comes
    after the new ownership, never before it."""
    if body.action != "set_owner" or body.player_id is None:
        yield
        return
    async with state.engine.begin() as conn:
        row = (await conn.execute(select(t.players.c.status, t.players.c.role)
                                  .where(t.players.c.id == body.player_id).with_for_update(read=True))).first()
        if row is None or row.role != "player" or row.status != "verified":
            what = "no player" if row is None or row.role != "player" else f"a {row.status} player"
            raise ApiError("invalid_target", f"set_owner names a verified player or nobody (null); that is {what} "
                                             "(R28).")
        yield


async def _apply(state: Any, body: CorrectionIn, cid: str) -> Effect:
    """Ask the owning service to apply the correction once under command id ``cid``. Raises ApiError with the
    service's refusal (or ``invalid_target`` for a ``set_owner`` to anyone but a verified player), BusError when
    the service does not answer."""
    if body.action in ("reverse_claim", "set_owner"):
        async with _new_owner_held(state, body):
            out = await ask(state, subjects.CLAIMS_CORRECT, CorrectOwnership(
                command_id=cid, action=body.action, claim_id=body.claim_id, territory_id=body.territory_id,
                player_id=body.player_id))
        for side in (out["before"], out["after"]):
            side.pop("schema_version", None)
        return out["before"], out["after"], out["territory_id"], body.player_id
    assert body.player_id is not None
    if body.action == "adjust_hand":
        out = await ask(state, subjects.CARDS_ADJUST, AdjustHand(correction_id=cid, player_id=body.player_id,
                                                                  add=body.add, remove=body.remove))

        def strip(cards: list[dict[str, Any]]) -> list[dict[str, Any]]:
            return [{k: c[k] for k in ("id", "type", "state")} for c in cards]

        return ({"removed": strip(out["removed"])}, {"added": strip(out["added"]), "hand": strip(out["cards"])},
                body.territory_id, body.player_id)
    assert body.points is not None
    out = await ask(state, subjects.SCORING_ADJUST, AdjustScore(command_id=cid, player_id=body.player_id,
                                                                 points=body.points))
    return {"adjustment": out["before"]}, {"adjustment": out["after"]}, body.territory_id, body.player_id


@router.post("/admin/corrections", status_code=201, response_model=S.CorrectionRecord)
async def apply_correction(body: CorrectionIn, org: Organizer, state: State,
                           idempotency_key: Annotated[str | None, Header(max_length=200)] = None) -> dict[str, Any]:
    """Apply and log a correction: ``reverse_claim`` (claim_id), ``set_owner`` (territory_id, player_id or
    null), ``adjust_hand`` (player_id, add, remove — ready cards removed first), ``adjust_score`` (player_id,
    points). Answers the record ``{id, at, action, by, reason, before, after}`` once it is logged; a repeated
    ``Idempotency-Key`` answers the first record (or refusal), applied and logged once; with another body it is
    refused 422 ``invalid_input`` (issue 15). ``reason`` is public, ``note`` (optional) the organizer's own.

    A repeated key gets the first answer, whatever it was (R28, API.md): a correction applied is never applied
    again, and a refusal that depended on the game's state (claims' refusal, ``set_owner``'s ``invalid_target``)
    is replayed, not re-evaluated, so two requests with one key always get one answer. Bad input (422) and ids
    that name nothing on the board or no player (404) are answered before anything is recorded: they would get
    the same answer again anyway. Concurrent repeats wait for the first (the request row is locked while it is
    applied)."""
    await _check_targets(state, body)
    now = await state.clock.now()
    cid = await state.corrections.open_request(
        by=org.id, key=idempotency_key, at=now, action=body.action, request=body.model_dump(exclude_none=True),
        post_season=gametime.season_state(state.season, now) == "closed")
    refused: ApiError | None = None
    async with state.corrections.settling(cid) as req:
        # issue 15: a key answers only the request it was first used for; another body under it is a client bug
        # (or a replay), refused rather than answered with another correction's record
        if _canonical(req.asked.request) != _canonical(body.model_dump(exclude_none=True)):
            raise ApiError("invalid_input", "This Idempotency-Key was already used for another correction; use a "
                                            "new key for a new correction.", 422)
        if req.asked.state == "logged":
            return await req.record()
        if req.asked.state == "refused" and req.asked.refusal is not None:
            raise ApiError(req.asked.refusal["reason"], req.asked.refusal["message"])
        first = CorrectionIn.model_validate(req.asked.request)   # a repeat applies what was first asked
        try:
            before, after, territory_id, player_id = await _apply(state, first, cid)
        except ApiError as e:
            refused = e
            await req.refuse(e.reason, e.message)
        else:
            rec = await req.log(by=org.id, action=first.action, reason=first.reason, before=before, after=after,
                                territory_id=territory_id, player_id=player_id)
    if refused is not None:
        raise refused
    await state.relay.flush()
    return rec


def _canonical(request: dict[str, Any]) -> dict[str, Any]:
    """A correction's body as JSON values (card types as strings), for comparing a repeat with the first."""
    return CorrectionIn.model_validate(request).model_dump(mode="json", exclude_none=True)


@router.get("/admin/corrections", response_model=S.AdminCorrections)
async def admin_corrections(org: Organizer, state: State) -> dict[str, Any]:
    """The append-only log (R28), oldest first, with who, when, what, before and after."""
    async with state.engine.connect() as conn:
        rows = (await conn.execute(select(t.corrections).order_by(t.corrections.c.seq))).all()
    return {"corrections": [
        {"id": r.id, "at": r.at.astimezone(state.season.tz).isoformat(), "action": r.action, "by": r.by,
         "reason": r.reason, "note": (r.request or {}).get("note"), "territory_id": r.territory_id,
         "player_id": r.player_id, "request": r.request,
         "before": r.before, "after": r.after, "post_season": r.post_season} for r in rows]}


@router.get("/corrections", response_model=S.PublicCorrections,
            response_model_exclude_unset=True)
async def public_corrections(state: State) -> dict[str, Any]:
    """The corrections as the public sees them: what, where, who (player id), why — no personal details."""
    async with state.engine.connect() as conn:
        rows = (await conn.execute(select(t.corrections).order_by(t.corrections.c.seq))).all()
    return {"corrections": [
        {k: v for k, v in {"id": r.id, "at": r.at.astimezone(state.season.tz).isoformat(), "action": r.action,
                           "territory_id": r.territory_id, "player_id": r.player_id, "reason": r.reason}.items()
         if v is not None or k in ("id", "at", "action", "reason")} for r in rows]}
