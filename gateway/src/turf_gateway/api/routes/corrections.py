"""Organizer corrections (R28): ``POST /admin/corrections``, ``GET /admin/corrections`` (the whole append-only log,
with before and after) and the public ``GET /corrections`` (no personal details). The use case is
:class:`turf_gateway.handlers.corrections.Corrections`."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header

from turf_gateway.api import schemas as S
from turf_gateway.api.deps import CorrectionsCase, Organizer, State
from turf_gateway.handlers.corrections import CorrectionIn

router = APIRouter(tags=["organizer"])


@router.post("/admin/corrections", status_code=201, response_model=S.CorrectionRecord)
async def apply_correction(body: CorrectionIn, org: Organizer, corrections: CorrectionsCase,
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
    the same answer again anyway."""
    return await corrections.apply(body, org.id, idempotency_key)


@router.get("/admin/corrections", response_model=S.AdminCorrections)
async def admin_corrections(org: Organizer, state: State) -> dict[str, Any]:
    """The append-only log (R28), oldest first, with who, when, what, before and after."""
    tz = state.season.tz
    return {"corrections": [
        {"id": r.id, "at": r.at.astimezone(tz).isoformat(), "action": r.action, "by": r.by, "reason": r.reason,
         "note": r.request.get("note"), "territory_id": r.territory_id, "player_id": r.player_id,
         "request": r.request, "before": r.before, "after": r.after, "post_season": r.post_season}
        for r in await state.correction_log.records()]}


@router.get("/corrections", response_model=S.PublicCorrections,
            response_model_exclude_unset=True)
async def public_corrections(state: State) -> dict[str, Any]:
    """The corrections as the public sees them: what, where, who (player id), why — no personal details."""
    tz = state.season.tz
    return {"corrections": [
        {k: v for k, v in {"id": r.id, "at": r.at.astimezone(tz).isoformat(), "action": r.action,
                           "territory_id": r.territory_id, "player_id": r.player_id, "reason": r.reason}.items()
         if v is not None or k in ("id", "at", "action", "reason")} for r in await state.correction_log.records()]}
