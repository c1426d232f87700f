// The watch page's TV mode (/watch?tv=1): a screen across the room. The map flies to each story and back
// to the whole board, the latest stories run as a ticker, the standings show who moved up or down since the last
// change, and the next opening or closing is counted down from the server's game clock.

import { $, h, knownName } from "./api.js";
import { describe, union } from "./board.js";
import { seasonLine } from "./seasons.js";

export const isTv = () => new URLSearchParams(location.search).get("tv") === "1";

// territory id → when (performance.now()) its last story came: the map names the busiest towns first
export const activity = new Map();

// the towns whose names come first on the map: the claimed ones, the most recently active first, then
// the largest; the story town (focus) before all
export function labelOrder(board, focus = null) {
  const claimed = [...board.props.values()].filter((p) => p.owner_id)
    .sort((a, b) => (activity.get(b.id) || 0) - (activity.get(a.id) || 0) || (b.land_area_m2 || 0) - (a.land_area_m2 || 0))
    .map((p) => p.id);
  return focus ? [focus, ...claimed.filter((id) => id !== focus)] : claimed;
}

// where the play is: the claimed towns' bounds (the whole board before the first claim); from the
// board's boxes, known before the towns are drawn (the first view is this one: BoardMap's options.view)
export function playBounds(board) {
  return union([...board.props.values()].filter((p) => p.owner_id).map((p) => board.boxes.get(p.id))
    .filter(Boolean)) || board.bounds;
}

// the view at rest, as [bounds, fitBounds options]
export function restView(board) {
  return [playBounds(board), { padding: [40, 40], maxZoom: 13 }];
}

const STAY_MS = 6000;    // how long the map stays on a story before the next one (or the whole board)
const FLY_S = 1.2;       // Leaflet flight, seconds

export class TvDirector {
  constructor(board) {
    this.board = board;
    this.queue = [];
    this.busy = false;
    this.ranks = new Map();   // player id → rank at the last standings
    this.moves = new Map();   // player id → places gained (negative: lost) at their last change of rank
    this.clock = null;
    this.clockAt = 0;         // performance.now() when the clock was read
    this.stories = new Map(); // territory id → its latest story message (the caption says who took it)
    // the story's sentence over the map ("Ann took Hoboken"): the outline and the name say where, this says who
    this.caption = h("div", { id: "tv-caption", class: "tv-caption", role: "status", "aria-live": "polite" });
    board.map.getContainer().append(this.caption);
    document.documentElement.classList.add("tv");
    document.body.classList.add("tv");
    document.body.dataset.tvFocus = "";
    setInterval(() => this.tick(), 1000);
  }

  // a territory story: fly there (stories queue up, the newest last), then back to the board
  story(msg) {
    if (!msg.territory_id || !this.board.layers.has(msg.territory_id)) return;
    this.queue = this.queue.filter((id) => id !== msg.territory_id).concat(msg.territory_id).slice(-5);
    this.stories.set(msg.territory_id, msg);
    if (!this.busy) this.next();
  }

  // at rest: the claimed towns framed, not the whole state, and no popup left open
  rest({ fly = true } = {}) {
    const map = this.board.map;
    map.closePopup();
    this.board.mark(null);
    this.caption.textContent = "";
    const [b, opts] = restView(this.board);
    if (fly) map.flyToBounds(b, { ...opts, duration: FLY_S });
    else map.fitBounds(b, { ...opts, animate: false });
  }

  // the story town is outlined and named on top (never under a popup, which would hide its name)
  next() {
    const id = this.queue.shift();
    const map = this.board.map;
    if (!id) {
      this.busy = false;
      document.body.dataset.tvFocus = "";
      this.rest();
      return;
    }
    this.busy = true;
    document.body.dataset.tvFocus = id;
    activity.set(id, performance.now());
    map.closePopup();
    map.flyToBounds(this.board.layers.get(id).getBounds(), { maxZoom: 13, padding: [60, 60], duration: FLY_S });
    this.board.mark(id);
    this.say(id);
    setTimeout(() => this.say(id), 1500);   // a player's name the page was still looking up (watch.js's feed)
    setTimeout(() => this.next(), STAY_MS);
  }

  // the caption of the story on screen: its sentence, with the players' names as the page knows them
  say(id) {
    const msg = this.stories.get(id);
    if (document.body.dataset.tvFocus !== id || !msg) return;
    const story = describe(msg, (p) => knownName(p) || "a player", (t) => this.board.name(t));
    this.caption.textContent = story ? story.text : this.board.name(id);
    this.caption.dataset.territoryId = id;
  }

  // movement: ▲2 / ▼1 beside each player whose rank changed, kept until it changes again
  standings(lb) {
    const now = new Map((lb.standings || []).map((s) => [s.player_id, s.rank]));
    for (const [id, rank] of now) {
      const before = this.ranks.get(id);
      if (before !== undefined && before !== rank) this.moves.set(id, before - rank);
    }
    this.ranks = now;
    for (const row of document.querySelectorAll("#leaderboard tbody tr[data-player-id]")) {
      const moved = this.moves.get(row.dataset.playerId) || 0;
      row.dataset.moved = String(moved);
      if (moved) {
        row.cells[0].append(h("span", { class: moved > 0 ? "move up" : "move down",
          "aria-label": `${moved > 0 ? "up" : "down"} ${Math.abs(moved)}` }, `${moved > 0 ? "▲" : "▼"}${Math.abs(moved)}`));
      }
    }
  }

  setClock(c) {
    this.clock = c;
    this.clockAt = performance.now();
    this.tick();
  }

  // "closes in 2 h 14 min": from the server's now; a manual clock stands still between moves (API.md)
  tick() {
    const el = $("#tv-countdown");
    const c = this.clock;
    if (!el || !c || !c.next_change) {
      if (el) el.textContent = c && c.season_state === "closed" ? `The season is over. ${seasonLine(c)}` : "";
      return;
    }
    // a real clock runs on here between reads; manual and accelerated ones are read again (watch.js, every 30 s)
    const now = Date.parse(c.now) + (c.mode === "real" ? performance.now() - this.clockAt : 0);
    const left = Math.max(0, Date.parse(c.next_change) - now);
    const hrs = Math.floor(left / 3.6e6);
    const min = Math.floor((left % 3.6e6) / 6e4);
    const sec = Math.floor((left % 6e4) / 1e3);
    const span = hrs ? `${hrs} h ${String(min).padStart(2, "0")} min` : `${min} min ${String(sec).padStart(2, "0")} s`;
    el.textContent = `${c.open ? "Closes" : "Opens"} in ${span}`;
  }
}
