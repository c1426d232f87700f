"""The claim path's first stage (docs/architecture/claim-path.md, "The stages"): a claim or check from the gateway is
judged here on where its fix lies (R7) and what the player's trail shows (R7.1, the trail kept here), then handed on
to the claims service, whose answer (sent after its commit) goes back to the gateway as it came. Nothing here holds
a database transaction: the trail is joined in one Redis step before the claims service is asked."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime

import structlog

from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal
from turf_common.contracts.claims import SubmitClaim
from turf_common.contracts.geo import FlagFound, LocatePoint, Verdict, VerifiedClaim
from turf_common.contracts.players import EraseTrails, FixOut, PlayerFixes, PlayerFixesRequest, TrailsErased
from turf_common.rules import gametime
from turf_common.rules.antispoof import MAX_TRAIL, FixRecord, day_start_jump, trail_since
from turf_common.rules.location import verify_fix
from turf_common.seasonbook import SeasonBook
from turf_geo.handlers import GeoHandlers
from turf_geo.ports import ClaimsHandOn, Clock, NotHandedOn, Trails, Unavailable

log = structlog.get_logger(__name__)

#: the answer when the trail's store or the claims service does not answer: nothing was decided
UNAVAILABLE = Refusal(reason="unavailable", message="The location service is not answering; try again shortly.")
#: seconds from a claim's arrival within which it may still be handed on to the claims service: the gateway waits
#: 10 s for the whole path, and a claim handed on later (behind a burst, across a claims restart) could be decided
#: after its requester gave up: committed, and answered to nobody
HAND_ON_S = 6.0
#: claims and checks judged and handed on at a time: as many as the claims service takes at once (its
#: CLAIM_WORKERS, 32) plus those whose trail is being joined meanwhile. The subscriber takes every claim as it
#: arrives (so that its window starts then); the rest wait here for a place
AT_ONCE = 64


@dataclass
class ClaimPath:
    """``claims.submit`` / ``claims.check`` (served here), handed on as ``claims.verified.submit`` / ``.check``."""

    geo: GeoHandlers
    trails: Trails
    clock: Clock
    claims: ClaimsHandOn
    #: R31: the season in force's zone (the day's first fix), from the book of every season (one in tests)
    season: gametime.SeasonConfig | SeasonBook
    hand_on_s: float = HAND_ON_S
    places: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(AT_ONCE))

    async def submit(self, cmd: SubmitClaim) -> bytes | None:
        """A claim: every claim's fix joins its player's trail (R7.1). None: not handed on in time, unanswered
        (:meth:`_pass_on`)."""
        return await self._pass_on(subjects.CLAIMS_VERIFIED_SUBMIT, cmd, screen=True)

    async def check(self, cmd: SubmitClaim) -> bytes | None:
        """A check: only a verified player's fix joins a trail (R7.1 screens the players of the game; pending
        accounts' checks flooded the flag triage)."""
        return await self._pass_on(subjects.CLAIMS_VERIFIED_CHECK, cmd, screen=cmd.player_status == "verified")

    async def erase_trails(self, q: EraseTrails) -> TrailsErased | Refusal:
        """R30: one player's trail (a withdrawal) or every player's (the season long closed) erased here."""
        try:
            erased = await self.trails.erase(q.player_id)
        except Unavailable as e:
            log.warning("trails_not_erased", error=str(e))
            return UNAVAILABLE
        log.info("trails_erased", player_id=q.player_id, fixes=erased)
        return TrailsErased(erased=erased)

    async def player_fixes(self, q: PlayerFixesRequest) -> PlayerFixes | Refusal:
        """R30: the player's trail as kept here, oldest first (their export)."""
        try:
            trail = await self.trails.fixes(q.player_id)
        except Unavailable as e:
            log.warning("trail_not_read", error=str(e))
            return UNAVAILABLE
        return PlayerFixes(fixes=[FixOut(lat=f.lat, lon=f.lon, accuracy_m=f.accuracy_m, fix_time=f.fix_time,
                                         received_at=f.received_at) for f in trail])

    async def _pass_on(self, subject: str, cmd: SubmitClaim, screen: bool) -> bytes | None:
        """The claims service's answer; None for a claim not handed on within ``hand_on_s`` of its arrival (no
        place here, or no claims process listening: a restart): it is not answered, like a request a stopping
        process never began (nothing was decided; its requester gives up and the gateway answers 503
        ``unavailable`` itself). The places bound the work, as the subscriber's workers did: no lock on state."""
        loop = asyncio.get_running_loop()
        hand_on_by = loop.time() + self.hand_on_s
        async with self.places:
            if loop.time() < hand_on_by:
                return await self._ask(subject, cmd, screen, hand_on_by)
        log.warning("claim_not_handed_on", subject=subject, player_id=cmd.player_id)
        return None

    async def _ask(self, subject: str, cmd: SubmitClaim, screen: bool, hand_on_by: float) -> bytes | None:
        try:
            claim = await self.verified(cmd, screen)
            if (left := hand_on_by - asyncio.get_running_loop().time()) <= 0:
                log.warning("claim_not_handed_on", subject=subject, player_id=cmd.player_id)
                return None
            return await self.claims.ask(subject, claim, left)
        except NotHandedOn as e:
            log.warning("claim_not_handed_on", subject=subject, player_id=cmd.player_id, error=str(e))
            return None
        except Unavailable as e:
            log.warning("claim_path_unavailable", subject=subject, error=str(e))
            return UNAVAILABLE.model_dump_json().encode()

    async def verified(self, cmd: SubmitClaim, screen: bool) -> VerifiedClaim:
        """The claim with the instant it is judged at and the verdict on its fix: R7 first refusal, R7.1's flags
        (against the trail as it was before the fix, which joins it when ``screen``), and the day's first fix
        against where the player was last seen and their home (:func:`day_start_jump`). Raises Unavailable."""
        now = await self._now_for(cmd)
        limits = self.geo.limits_at(now)   # R31: the season in force's
        f = cmd.fix
        fix = FixRecord(f.lat, f.lon, f.accuracy_m, f.fix_time, now)
        located = self.geo.locate(LocatePoint.model_construct(lat=f.lat, lon=f.lon))
        trail = None
        flags: list[FlagFound] = []
        if screen:
            before = await self.trails.join(cmd.player_id, fix, trail_since(now, limits.max_travel_kmh),
                                            MAX_TRAIL)
            trail = before.fixes
            home = (cmd.home.lat, cmd.home.lon) if cmd.home is not None else None
            if (jump := day_start_jump(fix, before.last, home, self._config(now).tz)) is not None:
                flags.append(FlagFound(kind=jump.kind, evidence=jump.evidence))
        refused, found = verify_fix(fix, located.territory_id, located.border_distance_m, trail, limits)
        verdict = Verdict(located=located, reason=refused.reason if refused else None,
                          message=refused.message if refused else None,
                          flags=[*(FlagFound(kind=fl.kind, evidence=fl.evidence) for fl in found), *flags])
        return VerifiedClaim(claim=cmd, received_at=now, verdict=verdict)

    def _config(self, at: datetime) -> gametime.SeasonConfig:
        return self.season if isinstance(self.season, gametime.SeasonConfig) else self.season.config_at(at)

    async def _now_for(self, cmd: SubmitClaim) -> datetime:
        """The game instant to judge a fix at (R7). A fix further ahead than R7 allows may mean that this process's
        watched clock missed the organizer's last manual move (its watch lost with a NATS node, the poll not yet
        round; seen in the compose failover run): the clock is read once from NATS KV before the fix is judged."""
        now = await self.clock.now()
        if (cmd.fix.fix_time - now).total_seconds() > self.geo.limits_at(now).max_fix_future_s:
            try:
                now = await self.clock.fresh_now()
            except Exception as e:   # NATS unreachable: judge on the clock this process has
                log.warning("clock_fresh_read_failed", error=f"{type(e).__name__}: {e}")
        return now
