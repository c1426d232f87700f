"""The yard cards' catalogue (Y1, Y18, Y19): the starter loads, uses every mechanism, and a broken one is refused
with the card and the field named."""

from __future__ import annotations

import copy
import json
from typing import Any, get_args

import pytest

from turf_common.rules.yardcatalogue import (
    EFFECTS,
    KINDS,
    STARTER,
    CatalogueError,
    When,
    load_catalogue,
    parse_catalogue,
    starter,
)

RAW: dict[str, Any] = json.loads(STARTER.read_text())


def broken(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    raw = copy.deepcopy(RAW)
    node = raw
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value
    return raw


def index_of(card_id: str) -> int:
    return next(i for i, c in enumerate(RAW["cards"]) if c["id"] == card_id)


def test_y1_starter_catalogue_loads_with_its_version() -> None:
    cat = starter()
    assert (cat.format, cat.version) == (1, "2026.2")
    assert cat.starting_hand == ("trowel", "gloves", "seed_pail")
    assert sum(c.copies for c in cat.cards if c.kind == "neighbour") >= 8


def test_y1_every_mechanism_is_used_by_a_card_of_the_starter() -> None:
    cat = starter()
    actions = [a for c in cat.cards for a in c.actions]
    assert {c.kind for c in cat.cards} == set(KINDS)
    assert {a.effect.do for a in actions} == set(EFFECTS)
    assert {a.when for a in actions} == set(get_args(When))
    turns = {(a.effect.to, a.effect.where) for a in actions if a.effect.do == "turn"}  # type: ignore[union-attr]
    assert {w for _, w in turns} == {"this", "choose", "every_player"} and {t for t, _ in turns} == {"grass", "dirt"}
    assert {a.effect.what for a in actions if a.effect.do == "trash"} == {"under", "store"}  # type: ignore[union-attr]
    assert any(a.effect.do == "gain" and a.effect.amount < 0 for a in actions)  # type: ignore[union-attr]
    scores = [a.effect for a in actions if a.effect.do == "score_per"]
    assert any(e.grass for e in scores) and any(e.kind for e in scores)  # type: ignore[union-attr]
    reqs = [r for c in cat.cards for r in c.criteria]
    assert any(r.kind for r in reqs) and any(r.card for r in reqs) and any(r.grass for r in reqs)
    bribes = [c.bribe for c in cat.cards if c.bribe]
    assert any(b.money for b in bribes) and any(b.trash for b in bribes)
    assert any(c.criteria and c.bribe for c in cat.cards)
    assert any(c.places for c in cat.cards) and any(c.vp < 0 for c in cat.cards)


@pytest.mark.parametrize(("path", "value", "named"), [
    (("cards", index_of("mole"), "kind"), "weed", "card 'mole' (cards["),
    (("cards", index_of("mole"), "actions", 0, "effect", "to"), "mud", "card 'mole'"),
    (("cards", index_of("compost_bin"), "actions", 0, "when"), "static", "card 'compost_bin'"),
    (("cards", index_of("clover"), "cost"), -1, "field cost"),
    (("cards", index_of("birdwatcher"), "criteria", 0, "card"), "no_such_card", "unknown card 'no_such_card'"),
    (("cards", index_of("hailstorm"), "cost"), 3, "card 'hailstorm'"),
    (("starting_hand",), ["clover"], "starting_hand"),
    (("format",), 2, "field format"),
])
def test_y1_a_broken_catalogue_is_refused_naming_card_and_field(path: tuple[Any, ...], value: Any,
                                                                 named: str) -> None:
    with pytest.raises(CatalogueError) as e:
        parse_catalogue(broken(path, value))
    assert named in str(e.value)


def test_y1_a_catalogue_with_a_duplicate_id_or_too_few_neighbours_is_refused() -> None:
    raw = copy.deepcopy(RAW)
    raw["cards"].append(copy.deepcopy(raw["cards"][index_of("clover")]))
    with pytest.raises(CatalogueError, match="card 'clover': id used twice"):
        parse_catalogue(raw)
    raw = copy.deepcopy(RAW)
    raw["cards"] = [c for c in raw["cards"] if c["kind"] != "neighbour"][:] + raw["cards"][index_of("night_owl"):][:3]
    with pytest.raises(CatalogueError, match="fewer than 8 neighbours"):
        parse_catalogue(raw)


def test_y1_an_unreadable_file_is_refused(tmp_path: Any) -> None:
    bad = tmp_path / "cards.json"
    bad.write_text("{not json")
    with pytest.raises(CatalogueError, match="not a readable JSON"):
        load_catalogue(bad)
