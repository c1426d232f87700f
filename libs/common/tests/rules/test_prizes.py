"""R26: every prize case the rulebook spells out, one test each, plus the generic split."""

from decimal import Decimal

from turf_common.rules.prizes import PrizeTable, final_places

TABLE = PrizeTable.load()


def prizes(totals: dict[str, int]) -> list[tuple[int, str, str]]:
    return [(f.place, f.player_id, str(f.prize)) for f in final_places(totals, TABLE)]


def test_r26_first_alone_50_second_25_third_25() -> None:
    assert prizes({"a": 9, "b": 7, "c": 5, "d": 1}) == [
        (1, "a", "50.00"), (2, "b", "25.00"), (3, "c", "25.00"), (4, "d", "0.00")]


def test_r26_two_way_tie_for_first_25_each_next_is_third_and_takes_25() -> None:
    assert prizes({"a": 9, "b": 9, "c": 5, "d": 1}) == [
        (1, "a", "25.00"), (1, "b", "25.00"), (3, "c", "25.00"), (4, "d", "0.00")]


def test_r26_two_way_tie_for_second_25_each_next_is_fourth_with_0() -> None:
    assert prizes({"a": 9, "b": 7, "c": 7, "d": 1}) == [
        (1, "a", "50.00"), (2, "b", "25.00"), (2, "c", "25.00"), (4, "d", "0.00")]


def test_r26_two_way_tie_for_third_12_50_each() -> None:
    assert prizes({"a": 9, "b": 7, "c": 5, "d": 5, "e": 1}) == [
        (1, "a", "50.00"), (2, "b", "25.00"), (3, "c", "12.50"), (3, "d", "12.50"), (5, "e", "0.00")]


def test_r26_three_way_tie_for_first_33_33_each() -> None:
    assert prizes({"a": 9, "b": 9, "c": 9, "d": 1}) == [
        (1, "a", "33.33"), (1, "b", "33.33"), (1, "c", "33.33"), (4, "d", "0.00")]


def test_r26_three_way_tie_for_second_16_66_each() -> None:
    assert prizes({"a": 9, "b": 7, "c": 7, "d": 7, "e": 1}) == [
        (1, "a", "50.00"), (2, "b", "16.66"), (2, "c", "16.66"), (2, "d", "16.66"), (5, "e", "0.00")]


def test_r26_three_way_tie_for_third_16_66_each_table_over_formula() -> None:
    assert prizes({"a": 9, "b": 7, "c": 5, "d": 5, "e": 5}) == [
        (1, "a", "50.00"), (2, "b", "25.00"), (3, "c", "16.66"), (3, "d", "16.66"), (3, "e", "16.66")]


def test_r26_other_ties_share_the_places_they_occupy_rounded_down() -> None:
    # four-way tie for first: (50 + 25 + 25 + 0) / 4 = 25.00
    assert [p for _, _, p in prizes({"a": 3, "b": 3, "c": 3, "d": 3})] == ["25.00"] * 4
    # two-way tie for first after... seven players tied at the top: 100 / 7 = 14.2857 → 14.28
    assert {p for _, _, p in prizes({str(i): 1 for i in range(7)})} == {"14.28"}


def test_r26_no_players_and_money_has_two_decimals() -> None:
    assert final_places({}, TABLE) == []
    assert final_places({"a": 1}, TABLE)[0].prize == Decimal("50.00")
