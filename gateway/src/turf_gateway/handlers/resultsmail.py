"""R30: the final results by mail. When the season closes (``season.final_results``, read by the feed log's durable
consumer, :mod:`turf_gateway.feed.log`), every verified player who keeps optional mail on is named to the notify
service with their place and points, and the podium with them; notify renders and queues one message each, once
per player and season (its queue's key), so a redelivered or republished event mails nobody twice."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from turf_common.contracts import subjects
from turf_common.contracts.notify import Done, MailResults, PodiumPlace, ResultsRecipient
from turf_gateway.api import schemas as S
from turf_gateway.ports import PlayerStore, Services

PODIUM = 3        # the places a podium shows (ties share a place, so it may name more players)
ASK_S = 60.0      # notify renders and queues a message per player before it answers


@dataclass
class ResultsMail:
    players: PlayerStore
    services: Services
    results: Callable[[], Awaitable[S.Results]]   # every final standing with display names (GET /results)
    #: the season closing (notify's queue key); R31: a function of the season in force when the event comes
    season_id: str | Callable[[], Awaitable[str]]

    async def season_closed(self) -> int:
        """Ask notify to mail the final results (module docstring); how many players were named. Raises what
        :meth:`Services.ask` raises (the consumer retries; a repeat queues nothing twice)."""
        standings = (await self.results()).standings
        placed = {s.player_id: s for s in standings}
        podium = [PodiumPlace(place=s.place, name=s.display_name, total=s.total, prize=s.prize)
                  for s in standings if s.place <= PODIUM]
        # final results are optional mail (R30): skipped for those who turned it off, unlike rule changes
        to = [ResultsRecipient(player_id=r.id, to=r.email, name=r.name, place=s.place, total=s.total, prize=s.prize)
              for r in await self.players.players()
              if r.status == "verified" and r.announcements_by_mail and (s := placed.get(r.id)) is not None]
        if to:
            season = self.season_id if isinstance(self.season_id, str) else await self.season_id()
            await self.services.ask(subjects.NOTIFY_MAIL_RESULTS,
                                    MailResults(season=season, podium=podium, recipients=to), Done, ASK_S)
        return len(to)
