// Every town, searchable: the game played without the map. Part of a town's or its county's name
// narrows the board's towns (GET /board); each match says its owner and has a button that shows it on the map.
// A labelled search box, a polite live count of the matches, buttons named after their town; Enter in the box shows
// the first match. Only a page of matches is drawn at a time, "Show more" adds the next.

import { $, h, knownName, playerName } from "./api.js";
import { mapButton } from "./mapnames.js";

const PAGE = 25;
const TYPING_MS = 200; // the count is said once typing pauses, not at every key

// lower case without accents, so "bogota" finds "Bogotá"
export function fold(s) {
  return String(s || "").normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
}

// the towns matching the query: names that start with it first, then the others, each group by name
export function matches(towns, query) {
  const q = fold(query).trim();
  const hits = towns.filter((p) => !q || fold(p.name).includes(q) || fold(`${p.county} county`).includes(q));
  const starts = (p) => (q && fold(p.name).startsWith(q) ? 0 : 1);
  return hits.sort((a, b) => starts(a) - starts(b) || a.name.localeCompare(b.name));
}

export class TownList {
  // root: the panel; board: BoardMap; me(): my player id or null; show(id): shows a town on the map
  constructor(root, board, me, show) {
    Object.assign(this, { root, board, me, show });
    this.input = $("#town-search", root);
    this.limit = PAGE;
    this.timer = null;
    this.drawn = 0;
    this.input.addEventListener("input", () => {
      this.limit = PAGE;
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.render(), TYPING_MS);
    });
    this.input.addEventListener("keydown", (ev) => {
      if (ev.key !== "Enter") return;
      ev.preventDefault();
      const first = this.found()[0];
      if (first) this.show(first.id);
    });
    $("#town-more", root).addEventListener("click", () => {
      this.limit += PAGE;
      this.render();
    });
  }

  found() {
    return matches([...this.board.props.values()], this.input.value);
  }

  // after a change on the board (the feed): owners shown may be stale
  changed() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.render(), 300);
  }

  async render() {
    const drawn = ++this.drawn;
    const all = this.found();
    const items = await Promise.all(all.slice(0, this.limit).map((p) => this.item(p)));
    if (drawn !== this.drawn) return; // typed on meanwhile
    $("#town-results", this.root).replaceChildren(...items);
    $("#town-count", this.root).textContent = this.countText(all.length);
    $("#town-more", this.root).hidden = all.length <= this.limit;
    this.root.dataset.results = String(all.length);
  }

  countText(n) {
    const q = this.input.value.trim();
    if (!q) return `All ${n} towns.`;
    if (!n) return `No town matches “${q}”.`;
    const shown = n > this.limit ? `, the first ${this.limit} shown` : "";
    return `${n} ${n === 1 ? "town matches" : "towns match"} “${q}”${shown}.`;
  }

  async owner(p) {
    if (!p.owner_id) return "nobody";
    if (p.owner_id === this.me()) return "you";
    return knownName(p.owner_id) || playerName(p.owner_id);
  }

  async item(p) {
    const fort = p.fortified ? ", fortified" : p.owner_id ? `, ${p.progress}/3` : "";
    const button = mapButton(p.name);
    button.addEventListener("click", () => this.show(p.id));
    return h("li", { dataset: { territoryId: p.id } },
      h("div", { class: "row" },
        h("div", {}, h("b", {}, p.name), h("span", { class: "muted small" }, ` ${p.county} County, ${p.state}`),
          h("div", { class: "small owner" }, `Owner: ${await this.owner(p)}${fort}`)),
        button));
  }
}
