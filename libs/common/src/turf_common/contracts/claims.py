from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, AwareDatetime, Field

from turf_common.contracts.base import Event, Message

#: a fix dated 9999-12-31T23:59:59-14:00 was stored as year 10000 UTC and every later read of that
#: player's trail failed; a fix's own time must fall in this window (R7 then judges its staleness)
FIX_TIME_WINDOW = (datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC))


def _sane_fix_time(t: datetime) -> datetime:
    if not FIX_TIME_WINDOW[0] <= t < FIX_TIME_WINDOW[1]:
        raise ValueError("must be a time between the years 2000 and 2099")
    return t


FixTime = Annotated[AwareDatetime, AfterValidator(_sane_fix_time)]
#: flags in one page of ``claims.flags``: a flag's evidence (legs of the trail) is about 1 kB, so a page stays far
#: below NATS's 1 MiB payload limit
FLAGS_PAGE = 200
#: claims in one page of ``claims.list``. A logged claim is at most about 500 bytes of JSON (ids of 64
#: characters, a territory id of 16, every flag kind: measured by the claims unit test
#: ``test_a_full_page_of_the_claim_log_stays_far_below_the_payload_limit``), so a page is at most about
#: 500 kB, half NATS's 1 MiB payload limit (about 280 kB with the usual 32-character ids)
CLAIMS_PAGE = 1000
ClaimKind = Literal["take", "steal", "reinforce", "war_reclaim"]
PlayerStatus = Literal["pending", "verified", "rejected", "disqualified"]


class Fix(Message):
    """A GPS fix as the browser reports it (R7): WGS84 degrees, accuracy in metres, the fix's own time."""

    lat: float = Field(ge=-90, le=90, allow_inf_nan=False)
    lon: float = Field(ge=-180, le=180, allow_inf_nan=False)
    accuracy_m: float = Field(ge=0, allow_inf_nan=False)
    fix_time: FixTime


class Home(Message):
    """A player's geocoded home address (R27), WGS84 degrees; private (never on public routes or the feed)."""

    lat: float = Field(ge=-90, le=90, allow_inf_nan=False)
    lon: float = Field(ge=-180, le=180, allow_inf_nan=False)


class SubmitClaim(Message):
    """``claims.submit`` / ``claims.check``, served by geo-verify, the claim path's first stage: it judges where the
    fix lies (R7) and what the player's trail shows (R7.1), then hands the claim on to the claims service
    (:class:`turf_common.contracts.geo.VerifiedClaim`). The gateway owns players, so it states the claimant's
    status. A ``located`` an older gateway still sends is ignored (unknown fields are)."""

    player_id: str
    player_status: PlayerStatus
    fix: Fix
    idempotency_key: str | None = None
    #: the player's geocoded home (R27), when known: the day's first fix is compared with it (R7.1)
    home: Home | None = None


class ClaimAcceptedReply(Message):
    ok: Literal[True] = True
    claim_id: str
    territory_id: str
    kind: ClaimKind
    owner_id: str
    progress: int
    fortified: bool
    #: R6: the claimant's claims left today after this claim (a page need not ask again); 0 in a reply recorded
    #: before the field existed (a repeated idempotency key answers the first reply verbatim)
    claims_left_today: int = Field(0, ge=0)


class TerritoryRef(Message):
    id: str
    name: str
    owner_id: str | None


class CheckReply(Message):
    ok: Literal[True] = True
    territory: TerritoryRef | None
    allowed: bool
    reason: str | None
    message: str | None


class TerritoryStateOut(Message):
    id: str
    owner_id: str | None
    progress: int
    fortified: bool


class StateRequest(Message):
    """``claims.state``: every territory's owner, or ``territory_id``'s; of ``season_id`` (R31: a past season's board
    as it ended), None the season in force."""

    territory_id: str | None = None
    season_id: str | None = Field(default=None, max_length=32)


class StateReply(Message):
    ok: Literal[True] = True
    territories: list[TerritoryStateOut]


class PlayerRequest(Message):
    player_id: str


class PlayerReply(Message):
    ok: Literal[True] = True
    player_id: str
    claims_left_today: int


class ClaimAccepted(Event):
    type: Literal["claim.accepted"] = "claim.accepted"
    claim_id: str
    player_id: str
    territory_id: str
    kind: ClaimKind
    game_day: date
    progress: int
    fortified: bool
    previous_owner_id: str | None
    lat: float
    lon: float
    accuracy_m: float
    border_distance_m: float | None
    flags: list[str] = Field(default_factory=list)


class ClaimRejected(Event):
    type: Literal["claim.rejected"] = "claim.rejected"
    player_id: str
    territory_id: str | None
    reason: str
    message: str


class TerritoryChanged(Event):
    """Ownership or fortification of one territory changed. ``version`` grows by one with every change of that
    territory, so a consumer can apply changes idempotently and in order."""

    type: Literal["territory.changed"] = "territory.changed"
    territory_id: str
    owner_id: str | None
    previous_owner_id: str | None
    progress: int
    fortified: bool
    version: int
    # ``withdrawal``: freed because its holder withdrew (R30), which the public never reads as a disqualification
    cause: Literal["claim", "war", "war_reclaim", "mulligan", "joker", "trade", "correction", "disqualification",
                   "withdrawal"]
    claim_id: str | None = None


class FlagRaised(Event):
    """``flag.raised``: a claim attempt that looks spoofed, for the organizer's review (never public)."""

    type: Literal["flag.raised"] = "flag.raised"
    flag_id: str
    player_id: str
    claim_id: str | None
    kind: str
    evidence: dict[str, Any]


class FlagOut(Message):
    id: str
    at: AwareDatetime
    player_id: str
    claim_id: str | None
    kind: str
    evidence: dict[str, Any]
    #: how many times the flag was raised (repeats between the same places merge, see
    #: turf_common.rules.antispoof.repeats); ``at`` is when it was first raised, ``last_at`` the latest (None: once)
    count: int = 1
    last_at: AwareDatetime | None = None


class FlagsRequest(Message):
    """``claims.flags``: a page of the anti-spoofing flags, oldest first (every list that crosses the bus
    is paginated, so no reply can outgrow the payload limit). ``after`` is the ``next`` of the previous page."""

    after: str | None = Field(default=None, max_length=200)
    limit: int = Field(default=FLAGS_PAGE, ge=1, le=FLAGS_PAGE)


class ClaimsListRequest(Message):
    """``claims.list``: a page of the claim log for the organizer, oldest first (in the order claims were logged);
    ``game_day`` and ``player_id`` narrow it. ``after`` is the ``next`` of the previous page (the id of its last
    claim; ``invalid_input`` for an id not in the log). Paged because the whole log in one reply (up to 100,000 claims)
    passed NATS's 1 MiB payload limit at about 3,800 claims (about 275 bytes each)."""

    game_day: date | None = None
    player_id: str | None = None
    after: str | None = Field(default=None, max_length=64)
    limit: int = Field(default=CLAIMS_PAGE, ge=1, le=CLAIMS_PAGE)


class ClaimRecord(Message):
    """One logged claim: ``kind`` take, steal, reinforce or war_reclaim; ``normal`` False for a claim that did
    not use the day's allowance (R17 extra, R19 replacement); ``undone_by`` what reversed it (R14 War, R19
    Mulligan, R28 correction) or null."""

    id: str
    at: AwareDatetime
    game_day: date
    player_id: str
    territory_id: str
    kind: str
    normal: bool
    previous_owner_id: str | None
    undone_by: str | None
    flags: list[str]


class ClaimsListReply(Message):
    ok: Literal[True] = True
    claims: list[ClaimRecord]
    next: str | None = None   # the cursor of the next page; None on the last one


class FlagsReply(Message):
    ok: Literal[True] = True
    flags: list[FlagOut]
    next: str | None = None   # the cursor of the next page; None on the last one


class CorrectOwnership(Message):
    """``claims.correct`` (R28): an organizer correction of ownership, idempotent by ``command_id``.
    ``reverse_claim`` restores what ``claim_id`` replaced (owner and fortification); ``set_owner`` gives
    ``territory_id`` to ``player_id`` (None: unclaimed)."""

    command_id: str = Field(min_length=1, max_length=64)
    action: Literal["reverse_claim", "set_owner"]
    claim_id: str | None = None
    territory_id: str | None = None
    player_id: str | None = None


class OwnershipCorrected(Message):
    ok: Literal[True] = True
    command_id: str
    territory_id: str
    before: TerritoryStateOut
    after: TerritoryStateOut

