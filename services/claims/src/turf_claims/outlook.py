"""``claims.outlook``: a player's territories with their streak, Freeze, lock and War state, the War
deadlines on the steals of their territories, the reclaim windows they hold and today's claims a Mulligan
may undo, at the game clock's instant. A read:
it locks nothing and changes nothing (the pure rules are turf_common.rules.outlook)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from turf_claims.boards import Boards
from turf_claims.ports import Claim, ClaimsStore, ClaimsTx, Clock
from turf_common.contracts.outlook import (
    MulliganClaim,
    OutlookReply,
    ReclaimWindow,
    TerritoryOutlook,
    WarDeadline,
)
from turf_common.rules import cards, gametime
from turf_common.rules import outlook as rules

#: a bound on one day's claims read for the Mulligan list: far above any allowance (R6: 1 + Double Trouble +
#: one per Mulligan), War reclaims included
MAX_CLAIMS_A_DAY = 200


@dataclass
class Outlooks:
    store: ClaimsStore
    clock: Clock
    #: R31: the season in force, its calendar and board
    boards: Boards
    names: dict[str, str]

    async def outlook(self, player_id: str) -> OutlookReply:
        now = await self.clock.now()
        cfg = await self.boards.at(now)

        def local(at: datetime) -> datetime:
            """Instants read from the store come back in UTC; the API shows game times in the season's zone (R1)."""
            return at.astimezone(cfg.tz)

        today = gametime.game_day_at(cfg, now)
        async with self.store.connect(cfg.season_id) as tx:
            facts = await tx.outlook.outlook_facts(player_id, today, now)
            undoable = await self._mulligan_claims(tx, player_id, today, {f.territory.id for f in facts.owned})
        territories = []
        for f in facts.owned:
            ter = f.territory
            s = rules.streak(cfg, now, ter.fort, f.claimed_today,
                             locked_by_other=f.locked_today and not f.claimed_today)
            victim = f.take.previous_owner_id if f.take is not None else None
            # R14: the victim's War window on a territory the player stole
            war_until = rules.war_deadline(cfg, now, f.take, victim, player_id) if victim else None
            territories.append(TerritoryOutlook(
                id=ter.id, name=self.names.get(ter.id, ter.id), progress=ter.progress, fortified=ter.fortified,
                streak=s.state, claim_day=s.claim_day, claim_opens=s.opens, claim_closes=s.closes,
                next_progress=s.next_progress, claimed_today=f.claimed_today,
                keeps_streak_today=s.state == "keeps" and s.claim_day == today,
                frozen_today=f.frozen_today, locked_today=f.locked_today,
                reclaim_holder_id=f.reclaim_holder, reclaim_until=local(f.reclaim_until) if f.reclaim_until else None,
                war_by=victim if war_until else None, war_until=war_until))
        deadlines = []
        for st in facts.stolen:
            until = rules.war_deadline(cfg, now, st.take, player_id, st.owner_id)
            if until is not None and st.take is not None and st.owner_id is not None:
                deadlines.append(WarDeadline(territory_id=st.territory_id,
                                             name=self.names.get(st.territory_id, st.territory_id), by=st.owner_id,
                                             stolen_at=local(st.take.at), war_until=until,
                                             game_hours_left=gametime.game_hours_between(cfg, now, until)))
        windows = [ReclaimWindow(territory_id=w.territory_id, name=self.names.get(w.territory_id, w.territory_id),
                                 owner_id=w.owner_id, until=local(w.until),
                                 game_hours_left=gametime.game_hours_between(cfg, now, w.until))
                   for w in facts.held]
        return OutlookReply(player_id=player_id, now=now.astimezone(cfg.tz), territories=territories,
                            war_deadlines=sorted(deadlines, key=lambda d: (d.war_until, d.territory_id)),
                            reclaim_windows=sorted(windows, key=lambda w: (w.until, w.territory_id)),
                            mulligan_claims=[MulliganClaim(claim_id=c.id, territory_id=c.territory_id,
                                                           name=self.names.get(c.territory_id, c.territory_id),
                                                           kind=c.kind, at=local(c.at)) for c in undoable])

    async def _mulligan_claims(self, tx: ClaimsTx, player_id: str, today: date | None,
                               owned: set[str]) -> list[Claim]:
        """R19: today's claims of the player a Mulligan may undo now, in the order they were made."""
        if today is None:
            return []
        log = await tx.claims.claims_log(today, player_id, MAX_CLAIMS_A_DAY)
        records = {c.id: cards.ClaimRecord(c.id, c.player_id, c.territory_id, c.kind, c.normal, c.game_day,
                                           c.undone_by, c.previous_owner_id, c.fort_before) for c in log}
        owners: dict[str, str | None] = {t: player_id for t in owned}
        keep = {r.claim_id for r in cards.mulligan_undoable(player_id, today, list(records.values()), owners)}
        return [c for c in log if c.id in keep]
