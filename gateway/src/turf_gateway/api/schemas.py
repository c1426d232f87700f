"""Response models of the routes whose handlers build their answer as a dict (API.md's shapes). FastAPI checks each
answer against its model and ``/openapi.json`` (and so ``/docs``) shows it: a field dropped or renamed by mistake
fails the route's tests instead of reaching a client. Times are ISO 8601 strings in the season's zone, as the
handlers write them; areas m², coordinates WGS84 degrees."""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, Field

CardState = Literal["ready", "reserved", "consumed"]


class Point(BaseModel):
    lat: float
    lon: float


class Registered(BaseModel):
    id: str
    status: str


class SessionOut(BaseModel):
    token: str
    player_id: str
    role: str


class PublicProfile(BaseModel):
    id: str
    display_name: str
    status: str


class PrivateProfile(BaseModel):
    """A player's profile with its private fields: only the player and the organizer see it (R27)."""

    id: str
    name: str
    display_name: str
    email: str
    discord: str
    home_address: str | None
    email_confirmed: bool = Field(description="the email address was confirmed by the link mailed to it (R30)")


class Me(PrivateProfile):
    """The caller's own profile."""

    role: Literal["player", "organizer"]
    status: str = Field(description="pending, verified, rejected or disqualified (R27, R28)")
    status_reason: str | None = Field(description="null or a code such as not_in_board")
    claims_left_today: int
    announcements_by_mail: bool = Field(
        description="optional mail is sent: announcements and the final results (rule changes always are)")
    seasons: list[str] = Field(default_factory=list, description="the ids of the seasons the caller joined (R31)")


class Card(BaseModel):
    id: str
    type: str
    state: CardState


class Hand(BaseModel):
    cards: list[Card]


class CardPlayed(BaseModel):
    card_id: str
    type: str
    state: CardState = Field(description="consumed, or reserved for a scheduled Freeze or Blockade")
    effect: dict[str, Any] = Field(description="freeze/blockade {active_on}; war {territory_id, reclaim_until}; "
                                               "double_trouble {claims_left_today}; mulligan {claims_left_today, "
                                               "territory_id, owner_id}; joker {territory_id}")


class ScheduleCancelled(BaseModel):
    id: str
    type: str
    state: CardState


class TradeOut(BaseModel):
    """A trade proposal's id and state (``open``, ``accepted``, ``declined``, ``cancelled``)."""

    id: str
    state: str


class ClaimOut(BaseModel):
    """An accepted claim (API.md): the territory's state after it."""

    claim_id: str
    territory_id: str
    kind: str = Field(description="take, steal, reinforce or war_reclaim")
    owner_id: str
    progress: int = Field(ge=1, le=3)
    fortified: bool
    claims_left_today: int = Field(ge=0, description="the caller's allowance after this claim (R6)")


class Trade(BaseModel):
    id: str
    state: str
    proposer_id: str
    partner_id: str
    offer_territory_id: str
    want_territory_id: str


class Trades(BaseModel):
    trades: list[Trade]


class CheckedTerritory(BaseModel):
    id: str
    name: str
    owner_id: str | None


class ClaimCheck(BaseModel):
    territory: CheckedTerritory | None = Field(description="null when the point is on no territory of the board")
    allowed: bool
    reason: str | None = Field(description="the rule code that refuses the claim, null when allowed")
    message: str | None


class TerritoryProperties(BaseModel):
    id: str
    name: str
    kind: str
    county: str
    state: Literal["NJ", "NY"]
    borders_water: bool
    land_area_m2: float
    population: int | None
    label_point: Point
    owner_id: str | None
    progress: int = Field(ge=0, le=3)
    fortified: bool


class TerritoryDetail(TerritoryProperties):
    neighbours: list[str]
    geometry: dict[str, Any] = Field(description="GeoJSON geometry, full detail")


class BoardFeature(BaseModel):
    type: Literal["Feature"]
    id: str
    properties: TerritoryProperties
    geometry: dict[str, Any] = Field(description="GeoJSON geometry, simplified for display")


class Board(BaseModel):
    type: Literal["FeatureCollection"]
    features: list[BoardFeature]


class Standing(BaseModel):
    rank: int
    player_id: str
    display_name: str
    base: int
    outposts: int = Field(description="territories outside the largest cluster")
    bonuses: int = Field(description="side-quest points")
    total: int


class QuestLeaders(BaseModel):
    leaders: list[str]
    value: float


class Leaderboard(BaseModel):
    standings: list[Standing]
    side_quests: dict[str, QuestLeaders]


class NextSeason(BaseModel):
    id: str
    name: str
    first_opening: str = Field(description="its first opening instant, ISO 8601 in its zone")


class Clock(BaseModel):
    now: str
    open: bool
    mode: Literal["real", "accelerated", "manual"]
    game_day: int | None
    season_state: Literal["before", "running", "closed"]
    next_change: str | None
    seed_commitment: str
    season_id: str | None = Field(default=None, description="the season in force (R31)")
    next_season: NextSeason | None = Field(default=None, description="the next season announced, or null (R31)")


class FinalStanding(BaseModel):
    place: int
    player_id: str
    display_name: str
    base: int
    bonuses: int
    total: int
    prize: str = Field(description="US dollars, exactly two decimals")


class Results(BaseModel):
    final: Literal[True]
    standings: list[FinalStanding]


class PlayerStatus(BaseModel):
    id: str
    status: str


class AdminPlayer(PrivateProfile):
    status: str
    status_reason: str | None
    created_at: str
    home: Point | None
    same_address_as: list[str] = Field(description="players registered at the same home address (R27)")


class AdminPlayers(BaseModel):
    players: list[AdminPlayer]


class ClockMoved(BaseModel):
    now: str
    events: list[str] = Field(description="the clock.* events published on the way")


class Clearance(BaseModel):
    at: str
    by: str
    reason: str | None


class Flag(BaseModel):
    id: str
    at: str
    player_id: str
    claim_id: str | None
    kind: str
    evidence: dict[str, Any]
    state: Literal["open", "cleared"]
    cleared: Clearance | None
    # Repeats between the same places are one flag: how many times it was raised (``at`` the first),
    # and when last
    count: int = 1
    last_at: str


class Flags(BaseModel):
    flags: list[Flag]


class CorrectionRecord(BaseModel):
    id: str
    at: str
    action: str
    by: str
    reason: str
    before: Any
    after: Any
    post_season: bool


class AdminCorrection(CorrectionRecord):
    note: str | None
    territory_id: str | None
    player_id: str | None
    request: dict[str, Any]


class AdminCorrections(BaseModel):
    corrections: list[AdminCorrection]


class PublicCorrection(BaseModel):
    id: str
    at: str
    action: str
    territory_id: str | None = None
    player_id: str | None = None
    reason: str


class PublicCorrections(BaseModel):
    corrections: list[PublicCorrection]


class GameDay(BaseModel):
    number: int = Field(description="1-based (R2)")
    date: date
    opens: str = Field(description="ISO 8601 in the season's zone")
    closes: str


class Limits(BaseModel):
    max_accuracy_m: float = Field(description="a less precise fix is inaccurate_fix (R7)")
    max_fix_age_s: float = Field(description="an older fix is stale_fix (R7)")
    max_travel_kmh: float = Field(description="a faster trail is flagged for the organizer, never refused (R7.1)")


class Season(BaseModel):
    season_id: str
    zone: str = Field(description="every game time is in it (R1)")
    first_day: date
    last_day: date
    open_weekdays: list[str]
    opens: str = Field(description="local opening time of each game day, HH:MM (R3)")
    closes: str = Field(description="local closing time, HH:MM, exclusive (R3)")
    game_days: list[GameDay]
    limits: Limits


class LoggedClaim(BaseModel):
    id: str
    at: str
    game_day: date
    player_id: str
    display_name: str
    territory_id: str
    territory_name: str
    kind: str = Field(description="take, steal, reinforce or war_reclaim")
    normal: bool = Field(description="false for an R17 extra or R19 replacement claim")
    previous_owner_id: str | None
    undone_by: str | None = Field(description="war, mulligan or correction when reversed (R14, R19, R28)")
    flags: list[str]


class ClaimLog(BaseModel):
    claims: list[LoggedClaim]
    truncated: bool = Field(description="true when more claims matched than the limit")


class MyData(BaseModel):
    """R30: everything the game holds about the caller (``GET /me/export``)."""

    exported_at: str
    profile: Me
    notifications: list[dict[str, Any]]
    cards: list[dict[str, Any]] = Field(description="the cards in hand (R12)")
    trades: list[dict[str, Any]] = Field(description="open trade proposals, both directions")
    history: list[dict[str, Any]] = Field(description="the public season record")
    location_fixes: list[dict[str, Any]] = Field(
        description="the fixes kept of the player, oldest first per source: `{source, lat, lon, accuracy_m, "
                    "fix_time, received_at}`, source `trail` (the R7.1 trail) or `claims` (stored with claims)")
    push_subscriptions: list[dict[str, Any]] = Field(description="`{endpoint}` of each, never the keys")


class EmailConfirmed(BaseModel):
    """R30: the email address is confirmed."""

    email_confirmed: bool


class ResetRequested(BaseModel):
    """R30: the same answer whether or not the address is registered."""

    message: str = Field(description="a sentence for the person who asked")


class MailItem(BaseModel):
    """One message the product sent or tried to (R30), as the organizer page lists it."""

    id: int
    at: str
    to: str
    kind: str = Field(description="email_confirmation, email_change_confirmation, email_changed, password_reset, "
                                  "announcement, final_results or verified")
    subject: str
    status: str = Field(description="queued, sent or failed")
    attempts: int
    error: str | None
    links: list[str] = Field(description="the message's links, only when mail is written as .eml files (rehearsal)")


class MailList(BaseModel):
    mail: list[MailItem]
    warning: str | None = Field(default=None, description="R30: 'mail is not configured: players get no mail' when "
                                                          "no relay is set (TURF_SMTP_URL); null when mail leaves")


# ---- seasons (R31) ------------------------------------------------------------------------------------------------


class SeasonListed(BaseModel):
    id: str
    name: str
    first_day: date
    last_day: date
    state: Literal["upcoming", "running", "closed"]


class SeasonList(BaseModel):
    seasons: list[SeasonListed] = Field(description="every season, newest first (rehearsals are not listed)")


class Prize(BaseModel):
    place: int
    amount: str = Field(description="US dollars, exactly two decimals")


class SeasonRecord(BaseModel):
    """A season as the organizer made it (R31): R1's calendar and limits, R26's prizes, R12.1's seed commitment."""

    id: str
    name: str
    zone: str
    first_day: date
    last_day: date
    open_weekdays: list[int] = Field(description="0 = Monday … 6 = Sunday")
    open_time: str = Field(description="HH:MM, local")
    close_time: str = Field(description="HH:MM, local")
    limits: dict[str, float]
    prizes: list[Prize]
    state: Literal["upcoming", "running", "closed"]
    seed_commitment: str = Field(description="SHA-256 of the season's card seed, published at its creation (R12.1)")
    first_opening: str = Field(description="the first opening instant, ISO 8601 in the season's zone")
    rehearsal: bool = Field(description="a throwaway season for trying the game out, never listed to players")


class SeasonJoined(BaseModel):
    season_id: str
    status: str = Field(description="as in GET /me: pending while the player must be verified (again, R27)")

