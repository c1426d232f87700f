"""K19: one player's spam of the turn-based modes (rooms opened, joins, leaves) cannot push other players' stories
out of the recent stories a new spectator is sent."""

from __future__ import annotations

from turf_gateway.feed.hub import HISTORY, MODE_STORIES_PER_PLAYER, Hub


def test_k19_one_players_mode_spam_keeps_their_newest_stories_and_everyone_elses() -> None:
    hub = Hub()
    hub.remember({"type": "mode.game_created", "game_id": "theirs", "created_by": "ann"})
    hub.remember({"type": "territory.changed", "territory_id": "T1"})
    for i in range(60):
        kind = ("mode.player_joined", "mode.player_left")[i % 2]
        hub.remember({"type": kind, "game_id": "spam", "player_id": "mallory", "n": i})
    recent = list(hub.recent)
    assert recent[:2] == [{"type": "mode.game_created", "game_id": "theirs", "created_by": "ann"},
                          {"type": "territory.changed", "territory_id": "T1"}]
    assert [m["n"] for m in recent[2:]] == list(range(60 - MODE_STORIES_PER_PLAYER, 60))


def test_the_season_stories_still_scroll_as_before() -> None:
    hub = Hub()
    for i in range(HISTORY + 10):
        hub.remember({"type": "territory.changed", "territory_id": f"T{i}"})
    assert [m["territory_id"] for m in hub.recent] == [f"T{i}" for i in range(10, HISTORY + 10)]
