"""The yard card game's catalogue as data (docs/rules/yard-cards.md, Y1, Y18, Y19): its schema and its loader.

A catalogue is a versioned JSON file; :func:`load_catalogue` refuses a broken one with :class:`CatalogueError`,
whose message names the card and the field.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

Kind = Literal["plant", "ornament", "feature", "tool", "pest", "event", "neighbour"]
KINDS: tuple[Kind, ...] = ("plant", "ornament", "feature", "tool", "pest", "event", "neighbour")
When = Literal["play", "start", "end", "reveal", "static"]
STARTER = Path(__file__).with_name("yard-cards-2026.json")
MIN_NEIGHBOURS = 8   # Y3: a row of 5 and 3 set aside for 5 players
MIN_STORE = 5        # Y3: a full first store


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Gain(_Strict):
    do: Literal["gain"]
    amount: int = Field(ge=-20, le=20)


class Draw(_Strict):
    do: Literal["draw"]
    count: int = Field(default=1, ge=1, le=5)


class Turn(_Strict):
    do: Literal["turn"]
    to: Literal["grass", "dirt"]
    where: Literal["this", "choose", "every_player"] = "this"
    count: int = Field(default=1, ge=1, le=9)


class Trash(_Strict):
    do: Literal["trash"]
    what: Literal["under", "store"]
    count: int = Field(default=1, ge=1, le=5)


class Move(_Strict):
    do: Literal["move"]


class ExtraBuy(_Strict):
    do: Literal["extra_buy"]
    count: int = Field(default=1, ge=1, le=4)


class EveryoneGain(_Strict):
    do: Literal["everyone_gain"]
    amount: int = Field(ge=-20, le=20)


class Protect(_Strict):
    do: Literal["protect"]


class ScorePer(_Strict):
    do: Literal["score_per"]
    kind: Kind | None = None
    grass: bool = False
    vp: int = Field(ge=-5, le=5)

    @model_validator(mode="after")
    def _one_basis(self) -> ScorePer:
        if (self.kind is None) == (not self.grass):
            raise ValueError("score_per counts either a kind or GRASS piles (exactly one)")
        return self


Effect = Annotated[Gain | Draw | Turn | Trash | Move | ExtraBuy | EveryoneGain | Protect | ScorePer,
                   Field(discriminator="do")]
STATIC_EFFECTS = ("protect", "score_per")
EFFECTS = ("gain", "draw", "turn", "trash", "move", "extra_buy", "everyone_gain", "protect", "score_per")


class Action(_Strict):
    when: When
    effect: Effect

    @model_validator(mode="after")
    def _timing(self) -> Action:
        static = self.effect.do in STATIC_EFFECTS
        if static != (self.when == "static"):
            raise ValueError(f"'{self.effect.do}' must be {'static' if static else 'play, start, end or reveal'}")
        if self.when == "reveal" and self.effect.do not in ("everyone_gain", "turn", "trash"):
            raise ValueError("an Event's reveal takes no choices: everyone_gain, turn every_player or trash store")
        if self.when == "reveal" and getattr(self.effect, "where", "every_player") != "every_player":
            raise ValueError("an Event's turn must be every_player")
        return self


class Requirement(_Strict):
    """Y19: at least ``count`` cards of ``kind`` (or of ``card``) in the yard, or ``count`` GRASS piles."""

    kind: Kind | None = None
    card: str | None = None
    grass: bool = False
    count: int = Field(default=1, ge=1, le=9)

    @model_validator(mode="after")
    def _one_basis(self) -> Requirement:
        if sum((self.kind is not None, self.card is not None, self.grass)) != 1:
            raise ValueError("a requirement names exactly one of kind, card or grass")
        return self


class Bribe(_Strict):
    """Y19: paid in full or not at all."""

    money: int = Field(default=0, ge=0, le=50)
    trash: Requirement | None = None


class Card(_Strict):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]{1,31}$")
    name: str = Field(min_length=1, max_length=40)
    kind: Kind
    cost: int = Field(default=0, ge=0, le=30)
    vp: int = Field(default=0, ge=-5, le=10)
    places: int = Field(default=0, ge=0, le=3)
    copies: int = Field(default=1, ge=1, le=10)
    text: str = Field(min_length=1, max_length=200)
    actions: tuple[Action, ...] = ()
    criteria: tuple[Requirement, ...] = ()
    bribe: Bribe | None = None

    @model_validator(mode="after")
    def _by_kind(self) -> Card:
        if self.kind != "neighbour" and (self.criteria or self.bribe):
            raise ValueError("only a neighbour has criteria or a bribe")
        if self.kind in ("neighbour", "event") and self.cost:
            raise ValueError(f"a {self.kind} has no cost")
        reveal = any(a.when == "reveal" for a in self.actions)
        if (self.kind == "event") != reveal or (self.kind == "event" and len(self.actions) != sum(
                a.when == "reveal" for a in self.actions)):
            raise ValueError("an event has reveal actions only, and only an event has them")
        if self.kind == "neighbour" and self.actions:
            raise ValueError("a neighbour has no actions")
        return self


class Catalogue(_Strict):
    format: Literal[1]
    name: str = Field(min_length=1)
    version: str = Field(min_length=1)
    starting_hand: tuple[str, ...] = Field(min_length=1)
    cards: tuple[Card, ...]

    @model_validator(mode="after")
    def _whole(self) -> Catalogue:
        seen: set[str] = set()
        for c in self.cards:
            if c.id in seen:
                raise ValueError(f"card '{c.id}': id used twice")
            seen.add(c.id)
        by_id = {c.id: c for c in self.cards}
        for s in self.starting_hand:
            if s not in by_id or by_id[s].kind != "tool":
                raise ValueError(f"starting_hand: '{s}' is not a tool of this catalogue")
        for c in self.cards:
            for k, r in enumerate((*c.criteria, *([c.bribe.trash] if c.bribe and c.bribe.trash else []))):
                if r.card is not None and r.card not in by_id:
                    raise ValueError(f"card '{c.id}': criteria/bribe [{k}] names unknown card '{r.card}'")
        if sum(c.copies for c in self.cards if c.kind == "neighbour") < MIN_NEIGHBOURS:
            raise ValueError(f"cards: fewer than {MIN_NEIGHBOURS} neighbours (5 players need a row of 5 and 3 aside)")
        if sum(c.copies for c in self.store_cards() if c.kind != "event") < MIN_STORE:
            raise ValueError(f"cards: fewer than {MIN_STORE} store cards that are not events")
        return self

    def card(self, card_id: str) -> Card:
        return next(c for c in self.cards if c.id == card_id)

    def store_cards(self) -> tuple[Card, ...]:
        """Y3: every card that is neither a neighbour nor in the starting hand."""
        return tuple(c for c in self.cards if c.kind != "neighbour" and c.id not in self.starting_hand)


class CatalogueError(ValueError):
    """A refused catalogue; the message names the card (by id, else its index) and the field."""


def _where(raw: Any, loc: tuple[int | str, ...]) -> str:
    if len(loc) >= 2 and loc[0] == "cards" and isinstance(loc[1], int):
        cards = raw.get("cards") if isinstance(raw, dict) else None
        card = cards[loc[1]] if isinstance(cards, list) and loc[1] < len(cards) else None
        ident = card.get("id") if isinstance(card, dict) else None
        field = ".".join(str(p) for p in loc[2:]) or "(the card)"
        return f"card '{ident}' (cards[{loc[1]}]) field {field}" if ident else f"cards[{loc[1]}] field {field}"
    return "field " + (".".join(str(p) for p in loc) or "(the catalogue)")


def parse_catalogue(raw: Any) -> Catalogue:
    """Validate ``raw`` (the decoded JSON). Raises :class:`CatalogueError` naming the card and field."""
    try:
        return Catalogue.model_validate(raw)
    except ValidationError as e:
        lines = []
        for err in e.errors()[:10]:
            loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p[:1].isupper()))  # union tags
            lines.append(f"{_where(raw, loc)}: {err['msg']}")
        raise CatalogueError("; ".join(lines)) from None


def load_catalogue(path: Path | str) -> Catalogue:
    p = Path(path)
    try:
        raw = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise CatalogueError(f"{p}: not a readable JSON file ({e})") from None
    return parse_catalogue(raw)


@cache
def starter() -> Catalogue:
    """Y1: the starter catalogue shipped with the rules."""
    return load_catalogue(STARTER)
