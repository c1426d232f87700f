"""Events the gateway itself publishes whose identity matters beyond one transaction."""

from __future__ import annotations

import uuid
from datetime import datetime

from turf_common.contracts.players import PlayerDisqualified, PlayerVerified


def disqualification(player_id: str, at: datetime, withdrawn: bool = False) -> PlayerDisqualified:
    """The ``player.disqualified`` event of ``player_id`` (R28). Its event id is the player's own (a
    disqualification is final, so there is one): the claims service is asked to apply it before the organizer's
    answer (``claims.disqualify``), and applies it once whether that request or the event comes first, also when
    a repeated request asks again."""
    return PlayerDisqualified(event_id=uuid.uuid5(uuid.NAMESPACE_URL, "player.disqualified:" + player_id).hex,
                              occurred_at=at, player_id=player_id, at=at, withdrawn=withdrawn)


def verification(player_id: str, at: datetime, display_name: str) -> PlayerVerified:
    """The ``player.verified`` event of ``player_id`` (R27), its id the player's own as for
    :func:`disqualification` (a verified player is never verified again): scoring is asked to apply it before
    the organizer's answer (``scoring.verify``), once whichever comes first. ``display_name``: the public name
    (the notify service names players with it)."""
    return PlayerVerified(event_id=uuid.uuid5(uuid.NAMESPACE_URL, "player.verified:" + player_id).hex,
                          occurred_at=at, player_id=player_id, at=at, display_name=display_name)
