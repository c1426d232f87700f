"""R27: two players at one address are flagged for the organizer (never refused); by geocoded point when
both have one, by the normalised address string otherwise."""

import random
import time

from turf_common.rules.households import HOUSEHOLD_M, Home, households, same_household

HUDSON_PL = (40.7359, -74.0291)


def test_r27_main_st_and_main_street_geocoded_to_one_point_are_one_household() -> None:
    # the strings differ, so the string comparison alone missed them
    a, b = Home("a", "1 main st hoboken nj", HUDSON_PL), Home("b", "1 main street hoboken nj", HUDSON_PL)
    assert same_household(a, b)
    assert households([a, b]) == {"a": ["b"], "b": ["a"]}


def test_r27_points_decide_when_both_have_one() -> None:
    near = (HUDSON_PL[0] + 0.0001, HUDSON_PL[1])                       # ~11 m north: the same building
    across = (HUDSON_PL[0] + 0.0003, HUDSON_PL[1])                     # ~33 m: the neighbours'
    assert same_household(Home("a", "x", HUDSON_PL), Home("b", "y", near))
    assert not same_household(Home("a", "1 main st", HUDSON_PL), Home("b", "1 main st", across))
    assert HOUSEHOLD_M == 15.0


def test_r27_the_string_is_the_fallback_when_either_has_no_point() -> None:
    assert same_household(Home("a", "99 nowhere rd", None), Home("b", "99 nowhere rd", HUDSON_PL))
    assert not same_household(Home("a", "99 nowhere rd", None), Home("b", "98 nowhere rd", None))
    assert not same_household(Home("a", None, None), Home("b", None, None))
    assert not same_household(Home("a", "", None), Home("b", "", None))
    homes = [Home("a", "99 nowhere rd", None), Home("b", "1 hudson pl", HUDSON_PL),
             Home("c", "99 nowhere rd", None), Home("d", "1 hudson place", HUDSON_PL), Home("e", None, None)]
    assert households(homes) == {"a": ["c"], "b": ["d"], "c": ["a"], "d": ["b"], "e": []}


def test_r27_households_agree_with_the_pairwise_rule_and_are_fast_for_a_season() -> None:
    rng = random.Random(29)
    spots = [(40.6 + rng.random() * 0.5, -74.3 + rng.random() * 0.5) for _ in range(200)]
    homes = [Home(f"p{i}", rng.choice(["1 a st", "2 b st", None]),
                  rng.choice([*spots, None]) if i % 5 else None) for i in range(400)]
    got = households(homes)
    want = {h.player_id: [o.player_id for o in homes if o is not h and same_household(h, o)] for h in homes}
    assert got == want
    many = [Home(f"p{i}", f"{i} main st", (40.5 + rng.random(), -74.5 + rng.random())) for i in range(5000)]
    t = time.perf_counter()
    households(many)
    assert time.perf_counter() - t < 1.0
