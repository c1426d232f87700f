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
    #: every final standing of a season with display names (``GET /seasons/{id}/results``; None: the season in
    #: force's)
    results: Callable[[str | None], Awaitable[S.Results]]
    #: the season closing when the event names none (notify's queue key): a function of the season in force
    season_id: str | Callable[[], Awaitable[str]]

    async def season_closed(self, season_id: str | None = None) -> int:
        """Ask notify to mail the final results of ``season_id`` (R31: the season the event names; a clock moved
        past the next season's first opening in one step still mails the season that closed) (module docstring);
        how many players were named. Raises what :meth:`Services.ask` raises (the consumer retries; a repeat
        queues nothing twice)."""
        standings = (await self.results(season_id)).standings
        placed = {s.player_id: s for s in standings}
        podium = [PodiumPlace(place=s.place, name=s.display_name, total=s.total, prize=s.prize)
                  for s in standings if s.place <= PODIUM]
        # final results are optional mail (R30): skipped for those who turned it off, unlike rule changes
        to = [ResultsRecipient(player_id=r.id, to=r.email, name=r.name, place=s.place, total=s.total, prize=s.prize)
              for r in await self.players.players()
              if r.status == "verified" and r.announcements_by_mail and (s := placed.get(r.id)) is not None]
        if to:
            season = season_id or (self.season_id if isinstance(self.season_id, str) else await self.season_id())
            await self.services.ask(subjects.NOTIFY_MAIL_RESULTS,
                                    MailResults(season=season, podium=podium, recipients=to), Done, ASK_S)
        return len(to)
