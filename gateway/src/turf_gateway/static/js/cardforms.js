// The play page's card forms: each card offers only the moves the rules allow now, from the server's
// own answers (GET /me/territories, /players, /me/trade-partners), never from what this browser remembers.
// Cards of one type are grouped ("Mulligan ×4") with one form: a play takes the oldest ready card of the type.

import { GAME_ZONE, api, h, knownName, optional, playerName } from "./api.js";

// one line per card: the rule, as a player needs it at the form
export const CARD_RULE = {
  freeze: "Nobody may take the territory you pick for the whole next game day (R15).",
  blockade: "The rival you pick cannot take any of your territories next game day (R16).",
  war: "Take back a town stolen from you within the last 5 game hours (R14).",
  double_trouble: "Two claims today instead of one (R17).",
  trade: "Offer one of your towns for a town of a player who also holds a Trade card (R18).",
  mulligan: "Undo a claim you made today and get a replacement claim (R19).",
  joker: "Win an unclaimed territory without going there (R20).",
};

// R20's two modes, each with its one-line explanation
const JOKER_MODES = [
  ["cluster_edge", "Next to my largest cluster", "An unclaimed town touching my largest cluster, picked at random "
    + "(anywhere when I own nothing)."],
  ["random", "Anywhere on the board", "Any unclaimed town of the board, picked at random."],
];

export function cardLabel(type) {
  const s = type.replace(/_/g, " ");
  return s.charAt(0).toUpperCase() + s.slice(1);
}

// ready cards [{id, type, state}] → [{type, cards}] in the order each type first appears in the hand
export function groupCards(cards) {
  const groups = new Map();
  for (const c of cards) {
    if (!groups.has(c.type)) groups.set(c.type, { type: c.type, cards: [] });
    groups.get(c.type).cards.push(c);
  }
  return [...groups.values()];
}

// "5 h 00 min" from game hours
export function hoursText(hours) {
  const min = Math.max(0, Math.round(hours * 60));
  return `${Math.floor(min / 60)} h ${String(min % 60).padStart(2, "0")} min`;
}

function option(value, label) {
  return h("option", { value }, label);
}

function select(name, options, empty) {
  return h("select", { name, required: true }, options.length ? options : option("", empty));
}

function byName(list) {
  return list.slice().sort((a, b) => a.name.localeCompare(b.name));
}

export class CardForms {
  // board: the BoardMap; me: () => my player id; submit(card, form, button): plays the card (play.js)
  constructor({ board, me, submit }) {
    this.board = board;
    this.me = me;
    this.submit = submit;
    this.facts = { war: [], mulligan: [], rivals: [], partners: [], disputed: new Set() };
  }

  // read what the hand's forms need, in parallel, only for the types in hand; a failed read leaves that list empty
  async refresh(types) {
    const need = new Set(types);
    const outlook = need.has("war") || need.has("mulligan") ? optional("/me/territories").catch(() => null) : null;
    const roster = need.has("blockade") ? api("/players", { auth: false }).catch(() => null) : null;
    const partners = need.has("trade") ? optional("/me/trade-partners").catch(() => null) : null;
    const [o, r, p] = await Promise.all([outlook, roster, partners]);
    const me = this.me();
    this.facts = {
      war: o?.war_deadlines || [],
      mulligan: o?.mulligan_claims || [],
      rivals: (r?.players || []).filter((x) => x.id !== me),
      partners: p?.partners || [],
      disputed: new Set(p?.in_dispute || []),   // R14: towns either side may not trade away now
    };
    await Promise.all(this.facts.war.map((d) => playerName(d.by)));   // the thieves' names, for the War form
  }

  // the hand's list item for a group of ready cards of one type
  item(group) {
    const n = group.cards.length;
    const card = group.cards[0];
    return h("li", { dataset: { cardId: card.id, cardType: group.type, count: String(n) } },
      h("div", {}, h("span", { class: "cardname" }, n > 1 ? `${cardLabel(group.type)} ×${n}` : cardLabel(group.type))),
      h("div", { class: "muted small rule" }, CARD_RULE[group.type] || ""),
      this.form(card));
  }

  form(card) {
    const form = h("form", { class: "cardform", dataset: { cardType: card.type } });
    const fields = this.fields(card.type);
    form.append(...fields.nodes);
    if (fields.none) {
      form.append(h("p", { class: "muted small none" }, fields.none));
      return form;   // nothing the rules allow now: no button to press
    }
    const button = h("button", { type: "submit" },
      card.type === "trade" ? "Propose trade" : `Play ${cardLabel(card.type).toLowerCase()}`);
    form.append(button);
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      this.submit(card, form, button);
    });
    return form;
  }

  // {nodes, none}: the form's fields, or none, the sentence saying why nothing is possible now
  fields(type) {
    switch (type) {
      case "freeze": return this.freeze();
      case "war": return this.war();
      case "blockade": return this.blockade();
      case "mulligan": return this.mulligan();
      case "joker": return this.joker();
      case "trade": return this.trade();
      default: return { nodes: [] };
    }
  }

  mine() {
    return byName(this.board.owned(this.me()));
  }

  freeze() {
    const mine = this.mine();
    if (!mine.length) return { nodes: [], none: "You own no territory to freeze yet." };
    return { nodes: [h("label", {}, "Territory to freeze", select("territory_id",
      mine.map((p) => option(p.id, `${p.name} (${p.county})`))))] };
  }

  // R14: only steals of my towns still inside their 5 game hours (the server's war_deadlines)
  war() {
    const steals = this.facts.war;
    if (!steals.length) return { nodes: [], none: "No town of yours was stolen in the last 5 game hours." };
    const opts = steals.map((d) => option(d.territory_id,
      `${d.name}, stolen by ${knownName(d.by) || "a rival"}: ${hoursText(d.game_hours_left)} of game time left`));
    return { nodes: [h("label", {}, "Stolen town to take back", select("territory_id", opts))] };
  }

  // R16: any other verified player, by display name
  blockade() {
    const rivals = this.facts.rivals.slice().sort((a, b) => a.display_name.localeCompare(b.display_name));
    if (!rivals.length) return { nodes: [], none: "There is no rival to blockade yet." };
    return { nodes: [h("label", {}, "Rival to blockade",
      select("rival_id", rivals.map((p) => option(p.id, p.display_name))))] };
  }

  // R19: today's claims the server says a Mulligan may undo
  mulligan() {
    const claims = this.facts.mulligan;
    if (!claims.length) return { nodes: [], none: "No claim of yours today can be undone." };
    const opts = claims.map((c) => option(c.claim_id, `${c.name} (${c.kind}, ${timeOfDay(c.at)})`));
    return { nodes: [h("label", {}, "Today's claim to undo", select("claim_id", opts))] };
  }

  joker() {
    const radios = JOKER_MODES.map(([mode, label, why], i) => h("label", { class: "choice" },
      h("input", { type: "radio", name: "mode", value: mode, checked: i === 0 }),
      h("span", {}, h("b", {}, label), h("span", { class: "small muted" }, ` ${why}`))));
    return { nodes: [h("fieldset", { class: "modes" }, h("legend", {}, "Where"), ...radios)] };
  }

  // R18: my towns for a town of a player holding a Trade card (GET /me/trade-partners), neither in a War dispute
  // (R14 territory_in_dispute: a War or reclaim window open on it)
  trade() {
    const tradable = (towns) => towns.filter((t) => !this.facts.disputed.has(t.id));
    const owned = this.mine();
    const mine = tradable(owned);
    if (!owned.length) return { nodes: [], none: "You own no territory to offer yet." };
    if (!mine.length) return { nodes: [], none: "Every town of yours is in a War dispute: none can be traded now." };
    const groups = this.facts.partners.map((p) => {
      const towns = tradable(byName(this.board.owned(p.player_id)));
      return towns.length ? h("optgroup", { label: p.display_name },
        towns.map((t) => option(t.id, `${t.name} (${p.display_name})`))) : null;
    }).filter(Boolean);
    if (!groups.length) {
      return { nodes: [], none: "No other player holding a Trade card owns a town that can be traded now." };
    }
    return { nodes: [
      h("label", {}, "I offer", select("offer_territory_id", mine.map((p) => option(p.id, `${p.name} (${p.county})`)))),
      h("label", {}, "I want", h("select", { name: "want_territory_id", required: true }, groups))] };
  }
}

// a claim's time as the game shows it (New York), hours and minutes
function timeOfDay(iso) {
  return new Date(iso).toLocaleTimeString("en-US", { timeZone: GAME_ZONE, hour: "2-digit",
    minute: "2-digit", hour12: false });
}
