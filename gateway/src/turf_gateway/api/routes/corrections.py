"""Organizer corrections (R28): ``POST /admin/corrections``, ``GET /admin/corrections`` (the whole append-only log,
with before and after) and the public ``GET /corrections`` (no personal details). The use case is
:class:`turf_gateway.handlers.corrections.Corrections`."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header

from turf_gateway.api import schemas as S
from turf_gateway.api.deps import CorrectionsCase, Organizer
from turf_gateway.handlers.corrections import CorrectionIn

router = APIRouter(tags=["organizer"])


@router.post("/admin/corrections", status_code=201, response_model=S.CorrectionRecord)
async def apply_correction(body: CorrectionIn, org: Organizer, corrections: CorrectionsCase,
                           idempotency_key: Annotated[str | None, Header(max_length=200)] = None) -> dict[str, Any]:
    """Apply and log a correction: ``reverse_claim`` (claim_id), ``set_owner`` (territory_id, player_id or
    null), ``adjust_hand`` (player_id, add, remove — ready cards removed first), ``adjust_score`` (player_id,
    points). Answers the record ``{id, at, action, by, reason, before, after}`` once it is logged; a repeated
    ``Idempotency-Key`` answers the first record (or refusal), applied and logged once; with another body it is
    refused 422 ``invalid_input``. ``reason`` is public, ``note`` (optional) the organizer's own.

    A repeated key gets the first answer, whatever it was (R28, API.md): a correction applied is never applied
    again, and a refusal that depended on the game's state (claims' refusal, ``set_owner``'s ``invalid_target``)
    is replayed, not re-evaluated, so two requests with one key always get one answer. Bad input (422) and ids
    that name nothing on the board or no player (404) are answered before anything is recorded: they would get
    the same answer again anyway."""
    return await corrections.apply(body, org.id, idempotency_key)


@router.get("/admin/corrections", response_model=S.AdminCorrections)
async def admin_corrections(org: Organizer, corrections: CorrectionsCase) -> S.AdminCorrections:
    """The append-only log (R28), oldest first, with who, when, what, before and after."""
    return await corrections.organizer_log()


@router.get("/corrections", response_model=S.PublicCorrections,
            response_model_exclude_unset=True)
async def public_corrections(corrections: CorrectionsCase) -> S.PublicCorrections:
    """The corrections as the public sees them: what, where, who (player id), why — no personal details."""
    return await corrections.public_log()
