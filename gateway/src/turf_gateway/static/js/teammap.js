// Team Turf on the board map (modes.html): each occupied town in its team's colour with its troops written on it,
// the home towns outlined in theirs, my team's open orders drawn as arrows from town to town (T7: only my team's),
// the view on the game's towns. The game's towns (its field, T1) are outlined and the region's other towns greyed
// out, with a legend under the map that counts them. A tap on a town is handed to the page (onPick), which places or
// orders there.
/* global L */

import { BoardMap } from "./board.js";

// a team's colour: its name when it names one, else one of a colour-blind-safe set in the game's team order
const NAMED = { red: "#d62728", blue: "#1f77b4", green: "#2ca02c", yellow: "#e6b400", orange: "#ff7f0e",
  purple: "#9467bd", pink: "#e377c2", black: "#333", white: "#f4f4f4", grey: "#8c8c8c", gray: "#8c8c8c" };
const SPARE = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00"];

export function teamColour(teams, team) {
  return NAMED[String(team).toLowerCase()] || SPARE[Math.max(0, teams.indexOf(team)) % SPARE.length];
}

const OFF = { fillColor: "#cfd5da", fillOpacity: 0.12, color: "#9aa5b1", weight: 0.5, opacity: 1, dashArray: null };
// a town of the game's field with no troop on it: outlined, lightly filled; a town of the region outside the field:
// faint, so the field reads as one shape (the organizer's few towns, or the default's 419 of the board's 448)
const FIELD = { fillColor: "#ffffff", fillOpacity: 0.3, color: "#1d232a", weight: 1.6, opacity: 1, dashArray: null };
const OUTSIDE = { fillColor: "#aab4be", fillOpacity: 0.25, color: "#aab4be", weight: 0.4, opacity: 0.5,
  dashArray: null };
// a named field this small is framed whole and its towns named on the map before the others
const SMALL_FIELD = 40;

export class TeamMap extends BoardMap {
  // options.onPick(territoryId): a town was tapped
  constructor(el, options = {}) {
    // BoardMap.load asks options.view for the first view, before any town is drawn
    super(el, { ...options, view: () => this.firstView() });
    this.onPick = options.onPick || (() => {});
    this.state = null;           // the TeamTurfView drawn
    this.picked = [null, null];  // an order's towns being picked: from, to
    this.marks = L.layerGroup().addTo(this.map);  // troops and orders
    this.framed = false;
    this.field = new Set();      // the game's towns (T1); empty: a view without its field, every town drawn as in it
    this.legend = document.createElement("p");
    this.legend.className = "legend tt-legend";
    this.legend.hidden = true;
    el.after(this.legend);
  }

  // is the town one of the game's (its field, T1)?
  inGame(id) {
    return !this.field.size || this.field.has(id);
  }

  async init() {
    const before = this.state;
    await super.init();
    // the towns were made in the colours of the view known when the load began: all restyled only when a newer
    // view came in meanwhile (448 towns restyled are a long task on a phone)
    if (this.state) this.draw({ restyle: this.state !== before });
  }

  // the first view, set before any town is drawn: on the game's towns when the game's view is already known
  firstView() {
    const framing = this.framing();
    if (framing) this.framed = true;
    return framing;
  }

  // the occupying team of a town, from the view's board (town → player → troops)
  teamAt(id) {
    const occ = this.state && this.state.board[id];
    return occ ? this.state.team_of[Object.keys(occ)[0]] : null;
  }

  style(p) {
    const t = this.state;
    if (!t) return { ...OFF };
    if (!this.inGame(p.id)) return { ...OUTSIDE };
    const team = this.teamAt(p.id);
    const home = Object.entries(t.homes).find(([, h]) => h === p.id);
    let s = { ...FIELD };
    if (team) s = { ...FIELD, fillColor: teamColour(t.teams, team), fillOpacity: 0.6 };
    if (home) s = { ...s, color: teamColour(t.teams, home[0]), weight: 3, dashArray: team ? null : "5 4" };
    if (this.picked.includes(p.id)) s = { ...s, color: "#e8175d", weight: 4, dashArray: null };
    return s;
  }

  // a tap: no popup or story here, the page decides what the town is for
  select(id) {
    this.onPick(id);
  }

  pick(from, to) {
    const old = this.picked;
    this.picked = [from, to];
    this.restyle([...old, from, to].filter(Boolean));
  }

  // view: the game's TeamTurfView; town(id) → its name; who(playerId) → a name
  show(view, town, who) {
    this.town = town;
    this.who = who;
    this.state = view;
    this.field = new Set(view.field || []);
    this.showLegend();
    if (this.loaded) this.draw();
  }

  draw({ restyle = true } = {}) {
    const t = this.state;
    if (restyle) this.restyle();
    this.marks.clearLayers();
    const at = (id) => {
      const p = this.props.get(id);
      return p && p.label_point ? [p.label_point.lat, p.label_point.lon] : null;
    };
    for (const o of t.orders) {
      const a = at(o.src);
      const b = at(o.dst);
      if (!a || !b) continue;
      L.polyline([a, b], { color: o.kind === "attack" ? "#b3261e" : "#1d232a", weight: 3, dashArray: "6 5",
        className: `order-line ${o.kind}`, interactive: false }).addTo(this.marks);
      L.marker(b, { interactive: false, keyboard: false, icon: L.divIcon({ className: "order-end", iconSize: null,
        html: `<span>${o.kind === "attack" ? "⚔" : "→"} ${o.n}</span>` }) }).addTo(this.marks);
    }
    for (const [id, occ] of Object.entries(t.board)) {
      const ll = at(id);
      if (!ll) continue;
      const n = Object.values(occ).reduce((x, y) => x + y, 0);
      const team = this.teamAt(id);
      const m = L.marker(ll, { interactive: false, keyboard: false, icon: L.divIcon({ className: "troops",
        iconSize: null, html: `<span style="background:${teamColour(t.teams, team)}">${n}</span>` }) })
        .addTo(this.marks);
      const el = m.getElement();
      el.dataset.territoryId = id;
      el.dataset.team = team;
      el.setAttribute("aria-label", `${this.town(id)}: ${n} ${team} troops`);
    }
    if (!this.framed) this.frame();
  }

  // the legend under the map: what the outlined and the greyed towns are, the game's towns counted
  showLegend() {
    const n = this.field.size || this.state.field_towns;
    const item = (cls, text) => Object.assign(document.createElement("span"), { className: cls, textContent: text });
    this.legend.replaceChildren(item("tt-in", `${n} ${n === 1 ? "town" : "towns"} in this game`),
      ...(this.field.size ? [item("tt-out", "other towns: not in this game")] : []));
    this.legend.dataset.fieldTowns = String(n);
    this.legend.hidden = false;
  }

  // the game's towns that matter most: its homes, the occupied towns, then the rest of a small field
  gameTowns() {
    const t = this.state;
    if (!t) return [];
    const small = this.field.size <= SMALL_FIELD ? [...this.field] : [];
    return [...new Set([...Object.values(t.homes), ...Object.keys(t.board), ...small])];
  }

  // once: the view on the game's towns (the homes and the occupied ones; a small field whole, filling the map),
  // not the whole board
  frame() {
    const framing = this.framing();
    if (!framing) return;
    this.framed = true;
    this.map.fitBounds(framing[0], { ...framing[1], animate: false });
  }

  // [bounds, fitBounds options] of the game's towns, or null before the view or the towns' extents are known
  framing() {
    const boxes = this.boxes ? this.gameTowns().map((id) => this.boxes.get(id)).filter(Boolean) : [];
    if (!boxes.length) return null;
    const all = boxes.reduce((u, b) => u.extend(b), L.latLngBounds(boxes[0].getSouthWest(), boxes[0].getNorthEast()));
    const whole = this.field.size && this.field.size <= SMALL_FIELD;
    return [all.pad(whole ? 0.1 : 0.6), { maxZoom: 13 }];
  }
}
