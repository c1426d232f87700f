"""R25 (amended): a total of 0 wins no prize; the players who scored nothing keep their place."""

from decimal import Decimal

from turf_common.rules.prizes import PrizeTable, final_places

TABLE = PrizeTable.load()


def prizes(totals: dict[str, int]) -> list[tuple[int, str, str]]:
    return [(f.place, f.player_id, str(f.prize)) for f in final_places(totals, TABLE)]


def test_r25_a_total_of_zero_wins_no_prize_even_in_a_paid_place() -> None:
    # R25: c is third (a paid place, $25 under R26) but has 0 points: no prize, and nobody else gets it
    assert prizes({"a": 9, "b": 4, "c": 0}) == [(1, "a", "50.00"), (2, "b", "25.00"), (3, "c", "0.00")]


def test_r25_a_lone_player_with_zero_wins_nothing() -> None:
    assert final_places({"a": 0}, TABLE)[0].prize == Decimal("0.00")


def test_r25_everybody_at_zero_shares_nothing_and_a_negative_total_wins_nothing() -> None:
    # R25: three-way tie for first at 0 would be 33.33 each under R26's table; a total of 0 wins no prize
    assert prizes({"a": 0, "b": 0, "c": 0}) == [(1, "a", "0.00"), (1, "b", "0.00"), (1, "c", "0.00")]
    # an organizer's adjustment (R28) can take a total below 0: still no prize
    assert prizes({"a": 2, "b": -3}) == [(1, "a", "50.00"), (2, "b", "0.00")]
