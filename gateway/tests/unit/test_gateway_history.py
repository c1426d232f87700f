"""The pure side of the history routes (turf_gateway.handlers.history_entries): a change's kind, a journal's
entries and its daily totals."""

from __future__ import annotations

from zoneinfo import ZoneInfo

import pytest

from turf_gateway.handlers.history_entries import change_kind, daily_totals, journal_entry, players_of

NY = ZoneInfo("America/New_York")


def changed(cause: str, before: str | None, after: str | None, at: str = "2026-10-05T07:00:00-04:00",
            fortified: bool = False) -> dict[str, object]:
    return {"type": "territory.changed", "at": at, "seq": 1, "territory_id": "t1", "cause": cause,
            "previous_owner_id": before, "owner_id": after, "progress": 1, "fortified": fortified}


@pytest.mark.parametrize(("cause", "before", "after", "kind"), [
    ("claim", None, "ada", "take"), ("claim", "bob", "ada", "steal"), ("claim", "ada", "ada", "reinforce"),
    ("war_reclaim", "bob", "ada", "war_reclaim"), ("war", "bob", "ada", "war"), ("mulligan", "ada", "bob", "mulligan"),
    ("joker", None, "ada", "joker"), ("trade", "bob", "ada", "trade"), ("correction", "ada", None, "correction"),
    ("disqualification", "ada", None, "disqualification"), ("withdrawal", "ada", None, "withdrawal"),
])
def test_a_changes_kind(cause: str, before: str | None, after: str | None, kind: str) -> None:
    assert change_kind(changed(cause, before, after)) == kind


def test_a_journal_sees_a_steal_from_both_sides_and_counts_it_per_day() -> None:
    steal = changed("claim", "bob", "ada")
    assert players_of(steal) == ["ada", "bob"]
    mine, theirs = journal_entry("ada", steal), journal_entry("bob", steal)
    assert mine == {"at": steal["at"], "kind": "steal", "territory_id": "t1", "previous_owner_id": "bob",
                    "progress": 1, "fortified": False}
    assert theirs == {"at": steal["at"], "kind": "lost", "territory_id": "t1", "by": "ada", "cause": "steal"}
    assert journal_entry("cy", steal) is None
    fort = journal_entry("ada", changed("claim", "ada", "ada", "2026-10-07T23:30:00-04:00", fortified=True))
    card = journal_entry("ada", {"type": "card.played", "at": "2026-10-08T03:00:00Z", "player_id": "ada",
                                 "card_type": "war", "state": "consumed"})
    assert card == {"at": "2026-10-08T03:00:00Z", "kind": "card", "territory_id": None, "card_type": "war",
                    "state": "consumed"}
    zero = {"claims": 0, "steals": 0, "stolen": 0, "lost": 0, "fortifications": 0, "cards": 0, "trades": 0}
    # 03:00 UTC on the 8th is still the 7th in New York: one day with the fortification and the card
    assert daily_totals([mine, fort, card], NY) == [  # type: ignore[list-item]
        zero | {"day": "2026-10-05", "claims": 1, "steals": 1},
        zero | {"day": "2026-10-07", "claims": 1, "fortifications": 1, "cards": 1}]
    assert daily_totals([theirs], NY) == [zero | {"day": "2026-10-05", "stolen": 1}]  # type: ignore[list-item]
