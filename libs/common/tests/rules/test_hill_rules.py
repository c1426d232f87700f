"""King of the Hill as pure rules (docs/rules/king-of-the-hill.md): each test names its ruling (K1…K18)."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import replace

import pytest
from modes_support import ScriptedSource

from turf_common.rules.hill import (
    HillConfig,
    HillEnded,
    HillState,
    RoundResolved,
    all_chosen,
    choose,
    leave,
    open_room,
    resolve_round,
)
from turf_common.rules.moderefusals import ModeRefused
from turf_common.rules.seeded import SeededSource, seed_commitment

TOWNS = {"hill", "elsewhere"}
P = ("ann", "bob", "cat", "dan")


def room(n: int = 3) -> HillState:
    return open_room("room1", "hill", P[:n], TOWNS)


def dice(who: str, r: int, values: list[int], attempt: int = 0) -> dict[str, int]:
    """Script ``who``'s dice of round ``r`` (values 1…6) for the scripted source."""
    return {f"round|{r}|{who}|{attempt}|{k}": v - 1 for k, v in enumerate(values)}


def one_round(state: HillState, choices: dict[str, str], script: dict[str, int]) -> tuple[HillState, RoundResolved]:
    for p, c in choices.items():
        state = choose(state, p, state.round, c)  # type: ignore[arg-type]
    new, events = resolve_round(state, ScriptedSource(script))
    assert isinstance(events[0], RoundResolved)
    return new, events[0]


def test_k1_room_of_three_to_five_on_a_board_town() -> None:
    assert open_room("r", "hill", P[:3], TOWNS).players == P[:3]
    for n in (2, 6):
        with pytest.raises(ModeRefused) as e:
            open_room("r", "hill", [f"p{i}" for i in range(n)], TOWNS)
        assert e.value.code == "wrong_player_count"
    with pytest.raises(ModeRefused) as e:
        open_room("r", "hill", ["a", "a", "b"], TOWNS)
    assert e.value.code == "wrong_player_count"
    with pytest.raises(ModeRefused) as e:
        open_room("r", "nowhere", P[:3], TOWNS)
    assert e.value.code == "invalid_target"


def test_k2_each_player_starts_with_one_die_and_the_hill_open() -> None:
    s = room(4)
    assert dict(s.dice) == {p: 1 for p in P} and s.holder is None and s.round == 1


def test_k4_one_secret_choice_per_round_holder_does_not_choose() -> None:
    s = choose(room(), "ann", 1, "attack")
    for args, code in [(("ann", 1, "recruit"), "already_chosen"), (("bob", 2, "attack"), "round_closed"),
                       (("zed", 1, "attack"), "not_in_room")]:
        with pytest.raises(ModeRefused) as e:
            choose(s, *args)  # type: ignore[arg-type]
        assert e.value.code == code
    assert dict(s.choices) == {"ann": "attack"}  # nothing changed
    held = replace(room(), holder="ann")
    with pytest.raises(ModeRefused) as e:
        choose(held, "ann", 1, "attack")
    assert e.value.code == "holder_does_not_choose"
    assert not all_chosen(held) and all_chosen(choose(choose(held, "bob", 1, "attack"), "cat", 1, "recruit"))


def test_k5_k7_an_unchosen_player_recruits() -> None:
    s, ev = one_round(room(), {"ann": "attack"}, dice("ann", 1, [3]))
    assert ev.choices == {"ann": "attack", "bob": "recruit", "cat": "recruit"}
    assert dict(s.dice) == {"ann": 1, "bob": 2, "cat": 2} and s.holder == "ann"


def test_k3_k7_recruit_is_capped_at_three_dice() -> None:
    s = replace(room(), dice={"ann": 3, "bob": 2, "cat": 1})
    s, _ = one_round(s, {"ann": "recruit", "bob": "recruit", "cat": "recruit"}, {})
    assert dict(s.dice) == {"ann": 3, "bob": 3, "cat": 2} and s.holder is None  # K9: nobody attacked


def test_k8_k9_open_hill_highest_sum_takes_it_nobody_discards() -> None:
    s = replace(room(), dice={"ann": 2, "bob": 1, "cat": 3})
    s, ev = one_round(s, {"ann": "attack", "bob": "attack", "cat": "attack"},
                      {**dice("ann", 1, [6, 5]), **dice("bob", 1, [6]), **dice("cat", 1, [1, 1, 2])})
    assert ev.rolls == {"ann": (6, 5), "bob": (6,), "cat": (1, 1, 2)}
    assert s.holder == "ann" and ev.discards == () and dict(s.dice) == {"ann": 2, "bob": 1, "cat": 3}


def test_k9_k14_open_hill_tie_rerolls_among_the_tied() -> None:
    script = {**dice("ann", 1, [4]), **dice("bob", 1, [4]), **dice("cat", 1, [1]),
              **dice("ann", 1, [2], attempt=1), **dice("bob", 1, [5], attempt=1)}
    s, ev = one_round(room(), {"ann": "attack", "bob": "attack", "cat": "attack"}, script)
    assert s.holder == "bob" and len(ev.tiebreaks) == 1
    assert set(ev.tiebreaks[0].rolls) == {"ann", "bob"} and ev.discards == ()


def test_k6_k10_k11_k12_defence_gets_plus_two_a_tie_loses_and_discards() -> None:
    s = replace(room(), holder="ann", dice={"ann": 1, "bob": 2, "cat": 3})
    # defence 3 + 2 = 5; bob 2 + 3 = 5 ties (loses), cat 1 + 1 + 2 = 4 loses
    s, ev = one_round(s, {"bob": "attack", "cat": "attack"},
                      {**dice("ann", 1, [3]), **dice("bob", 1, [2, 3]), **dice("cat", 1, [1, 1, 2])})
    assert ev.defence == (3,) and ev.defence_power == 5
    assert s.holder == "ann" and set(ev.discards) == {"bob", "cat"}
    assert dict(s.dice) == {"ann": 1, "bob": 1, "cat": 2}  # K6: the holder gets no free recruit when attacked


def test_k12_a_loser_with_one_die_keeps_it() -> None:
    s = replace(room(), holder="ann", dice={"ann": 3, "bob": 1, "cat": 1})
    s, ev = one_round(s, {"bob": "attack", "cat": "recruit"}, {**dice("ann", 1, [1, 1, 1]), **dice("bob", 1, [5])})
    assert ev.defence_power == 5 and ev.discards == ("bob",) and dict(s.dice) == {"ann": 3, "bob": 1, "cat": 2}


def test_k13_strongest_winner_takes_the_hill_holder_discards_other_winners_keep_dice() -> None:
    s = replace(room(4), holder="ann", dice={"ann": 2, "bob": 3, "cat": 2, "dan": 1})
    # defence 1 + 1 + 2 = 4; bob 12 and cat 6 both exceed it, dan 4 ties and loses
    s, ev = one_round(s, {"bob": "attack", "cat": "attack", "dan": "attack"},
                      {**dice("ann", 1, [1, 1]), **dice("bob", 1, [4, 4, 4]), **dice("cat", 1, [3, 3]),
                       **dice("dan", 1, [4])})
    assert ev.holder_before == "ann" and s.holder == "bob"
    assert set(ev.discards) == {"dan", "ann"}
    assert dict(s.dice) == {"ann": 1, "bob": 3, "cat": 2, "dan": 1}
    assert "ann" in s.players and "ann" not in (s.holder,)  # the old holder chooses from the next round


def test_k14_reroll_cap_then_the_seed_picks() -> None:
    # every die of the scripted source is 1 unless scripted: the tie never breaks by rolling
    s, ev = one_round(room(), {"ann": "attack", "bob": "attack", "cat": "recruit"}, {"round|1|pick": 1})
    cfg = HillConfig()
    assert len(ev.tiebreaks) == cfg.max_rerolls + 1 and ev.tiebreaks[-1].picked == "bob" and s.holder == "bob"


def test_k15_free_recruit_for_the_holder_when_nobody_attacks_capped_at_three() -> None:
    s = replace(room(), holder="ann", dice={"ann": 2, "bob": 1, "cat": 1})
    s, ev = one_round(s, {"bob": "recruit", "cat": "recruit"}, {})
    assert ev.defence is None and dict(s.dice) == {"ann": 3, "bob": 2, "cat": 2}
    s, _ = one_round(s, {}, {})
    assert s.dice["ann"] == 3


def _independent_die(seed: str, room_id: str, label: str) -> int:
    """K16 recomputed without the module: key = HMAC(seed, room), block 0 of HMAC(key, label#0), rejection."""
    key = bytes.fromhex(hmac.new(seed.encode(), room_id.encode(), hashlib.sha256).hexdigest())
    digest = hmac.new(key, f"{label}#0".encode(), hashlib.sha256).digest()
    limit = (2**64 // 6) * 6
    for i in range(0, 32, 8):
        x = int.from_bytes(digest[i:i + 8], "big")
        if x < limit:
            return 1 + x % 6
    raise AssertionError("every block rejected")


def test_k16_fixed_seed_gives_fixed_dice_uniform_on_one_to_six() -> None:
    src = SeededSource("k16-seed", "room-k16")
    labels = [f"round|{r}|ann|0|{k}" for r in range(1, 11) for k in range(3)]
    assert [src.die(x) for x in labels] == [_independent_die("k16-seed", "room-k16", x) for x in labels]
    assert seed_commitment("k16-seed") == hashlib.sha256(b"k16-seed").hexdigest()
    counts = [0] * 6
    n = 6000
    for i in range(n):
        counts[src.die(f"u|{i}") - 1] += 1
    assert all(abs(c / n - 1 / 6) < 0.025 for c in counts), counts  # > 5 sigma either side
    other = SeededSource("k16-seed", "other-room")
    assert [other.die(x) for x in labels] != [src.die(x) for x in labels]  # each room its own key


def test_k17_a_leaving_holder_leaves_the_hill_open_last_player_wins() -> None:
    s = choose(replace(room(), holder="ann"), "bob", 1, "attack")
    s, ended = leave(s, "ann")
    assert s.holder is None and s.players == ("bob", "cat") and ended == []
    s, ended = leave(s, "bob")
    assert s.finished and s.winner == "cat" and ended == [HillEnded("room1", "cat", 0)]
    assert dict(s.choices) == {}
    with pytest.raises(ModeRefused) as e:
        leave(s, "zed")
    assert e.value.code == "not_in_room"


def _play(seed: str, n: int) -> tuple[HillState, list[RoundResolved | HillEnded]]:
    src = SeededSource(seed, "room-k18")
    s = open_room("room1", "hill", [f"p{i}" for i in range(n)], TOWNS)
    log: list[RoundResolved | HillEnded] = []
    while not s.finished:
        for i, p in enumerate(s.players):
            if p != s.holder:
                s = choose(s, p, s.round, "attack" if src.below(f"bot|{s.round}|{i}", 2) else "recruit")
        s, events = resolve_round(s, src)
        log.extend(events)
        assert all(1 <= d <= 3 for d in s.dice.values())  # K3
    return s, log


@pytest.mark.parametrize(("seed", "n"), [("a", 3), ("b", 4), ("c", 5), ("d", 5), ("e", 3)])
def test_k18_ten_rounds_then_the_holder_wins(seed: str, n: int) -> None:
    s, log = _play(seed, n)
    rounds = [e for e in log if isinstance(e, RoundResolved)]
    assert [e.round for e in rounds] == list(range(1, 11)) and s.round == 10
    assert isinstance(log[-1], HillEnded) and log[-1].winner == s.winner == s.holder == rounds[-1].holder_after
    with pytest.raises(ModeRefused) as e:
        resolve_round(s, SeededSource(seed, "room-k18"))
    assert e.value.code == "game_over"
    assert _play(seed, n) == (s, log)  # K16: the seed and the choices replay every roll


def test_k18_nobody_ever_attacks_is_a_draw() -> None:
    s = room()
    for _ in range(10):
        s, events = resolve_round(s, SeededSource("x", "y"))
    assert s.finished and s.winner is None and events[-1] == HillEnded("room1", None, 10)
    assert dict(s.dice) == {p: 3 for p in s.players}
