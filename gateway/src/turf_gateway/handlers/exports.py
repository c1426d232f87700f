"""The organizer's desk reads as use cases: the claim log, read from the claims service a page at a time
(one reply of the whole log outgrew NATS's payload limit), with names; and the CSV exports of players, claims and
results for the league's spreadsheets. Times in the season's zone, as everywhere else."""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from turf_common.board import Board
from turf_common.contracts import subjects
from turf_common.contracts.claims import CLAIMS_PAGE, ClaimRecord, ClaimsListReply, ClaimsListRequest
from turf_gateway.api import schemas as S
from turf_gateway.api.errors import ApiError
from turf_gateway.handlers.calendar import SeasonSource, config_at
from turf_gateway.handlers.players import Players
from turf_gateway.handlers.public import Public
from turf_gateway.ports import PlayerStore, Services

PLAYER_COLUMNS = ["id", "name", "display_name", "email", "discord", "home_address", "status", "status_reason",
                  "created_at", "same_address_as"]
CLAIM_COLUMNS = ["id", "at", "game_day", "player_id", "display_name", "territory_id", "territory_name", "kind",
                 "normal", "previous_owner_id", "undone_by", "flags"]
RESULT_COLUMNS = ["place", "player_id", "display_name", "base", "outposts", "bonuses", "total", "prize", "final"]


def csv_text(rows: Iterable[dict[str, Any]], columns: list[str], header: bool = False) -> str:
    """``rows`` as CSV lines (CRLF) of ``columns`` (other keys left out), with the header line when ``header``."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, extrasaction="ignore", lineterminator="\r\n")
    if header:
        w.writeheader()
    for row in rows:
        w.writerow({k: _cell(row.get(k)) for k in columns})
    return buf.getvalue()


def _cell(v: Any) -> Any:
    if isinstance(v, list):
        return " ".join(map(str, v))
    if isinstance(v, str) and v[:1] in ("=", "+", "-", "@"):
        return "'" + v   # a spreadsheet would run a cell starting so as a formula (CSV injection by a player's name)
    return "" if v is None else v



def _local(season: SeasonSource, at: datetime) -> str:
    """``at`` in the zone of the season it fell in (R31)."""
    return at.astimezone(config_at(season, at).tz).isoformat()

@dataclass
class Exports:
    services: Services
    players: PlayerStore
    board: Board
    season: SeasonSource   # R31: each claim's time in the zone of its season
    public: Public          # the standings and final results, as the public reads them
    accounts: Players       # the organizer's player list (private fields)

    async def claim_pages(self, day: date | None, player_id: str | None,
                          want: int | None = None) -> AsyncIterator[list[ClaimRecord]]:
        """The claim log (of ``day``, of ``player_id``) as claims answers it, a page at a time, oldest first (the
        whole log in one reply outgrew the bus's payload limit), until its last page or until ``want``
        claims were read (the last request asks for no more than are still wanted)."""
        after, got = None, 0
        while True:
            size = CLAIMS_PAGE if want is None else min(CLAIMS_PAGE, want - got)
            rep = await self.services.ask(subjects.CLAIMS_LIST, ClaimsListRequest(
                game_day=day, player_id=player_id, after=after, limit=size), ClaimsListReply, timeout=30)
            yield rep.claims
            got += len(rep.claims)
            if rep.next is None or (want is not None and got >= want):
                return
            after = rep.next

    async def named_claims(self, claims: list[ClaimRecord]) -> list[S.LoggedClaim]:
        """Claims as the organizer reads them: the player's display name, the town's name (its id for a town not
        on the board), times in the season's zone."""
        names = await self.players.display_names(list({c.player_id for c in claims}))
        towns = self.board.territories
        return [S.LoggedClaim(
            id=c.id, at=_local(self.season, c.at), game_day=c.game_day, player_id=c.player_id,
            display_name=names.get(c.player_id, ""), territory_id=c.territory_id,
            territory_name=towns[c.territory_id].name if c.territory_id in towns else c.territory_id, kind=c.kind,
            normal=c.normal, previous_owner_id=c.previous_owner_id, undone_by=c.undone_by, flags=c.flags)
            for c in claims]

    async def claim_log(self, day: date | None, player_id: str | None, limit: int) -> S.ClaimLog:
        """The first ``limit`` claims, ``truncated`` when more matched (one claim more is read to know it)."""
        claims: list[ClaimRecord] = []
        async for page in self.claim_pages(day, player_id, limit + 1):
            claims += page
        return S.ClaimLog(truncated=len(claims) > limit, claims=await self.named_claims(claims[:limit]))

    async def players_csv(self) -> str:
        """``players.csv``: every player with the private fields (keep it private)."""
        rows = (await self.accounts.admin_players()).model_dump(mode="json")["players"]
        return csv_text(rows, PLAYER_COLUMNS, header=True)

    async def claims_csv(self) -> AsyncIterator[str]:
        """``claims.csv``, the whole log, as text a page of claims at a time (neither one reply of the
        bus nor the gateway's memory holds it all). The first page is read before this returns, so a claims service
        that does not answer raises here (a 503 before the answer starts); one that stops answering later raises
        from the iterator (the download is cut off, never a short file that looks whole)."""
        pages = self.claim_pages(None, None)
        first = await anext(pages)

        async def text() -> AsyncIterator[str]:
            yield csv_text((c.model_dump(mode="json") for c in await self.named_claims(first)), CLAIM_COLUMNS,
                           header=True)
            async for page in pages:
                yield csv_text((c.model_dump(mode="json") for c in await self.named_claims(page)), CLAIM_COLUMNS)

        return text()

    async def results_csv(self) -> str:
        """``results.csv``: the final standings with prizes once the season is closed, the current standings
        before (``place`` their rank, no prize); ``final`` says which."""
        return csv_text(await self._results_rows(), RESULT_COLUMNS, header=True)

    async def _results_rows(self) -> list[dict[str, Any]]:
        try:
            final = await self.public.results()
        except ApiError as e:
            if e.reason != "season_not_closed":
                raise
            lb = await self.public.leaderboard()
            return [{"place": s["rank"], **s, "prize": None, "final": False} for s in lb["standings"]]
        # the final results have no outposts: the last standings do
        outposts = {s["player_id"]: s["outposts"] for s in (await self.public.leaderboard())["standings"]}
        return [{**s, "outposts": outposts.get(s["player_id"]), "final": True}
                for s in final.model_dump(mode="json")["standings"]]
