// The watch page's TV mode (/watch?tv=1, issue 20): a screen across the room. The map flies to each story and back
// to the whole board, the latest stories run as a ticker, the standings show who moved up or down since the last
// change, and the next opening or closing is counted down from the server's game clock.

import { $, h } from "./api.js";

export const isTv = () => new URLSearchParams(location.search).get("tv") === "1";

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
    document.documentElement.classList.add("tv");
    document.body.classList.add("tv");
    document.body.dataset.tvFocus = "";
    setInterval(() => this.tick(), 1000);
  }

  // a territory story: fly there (stories queue up, the newest last), then back to the board
  story(msg) {
    if (!msg.territory_id || !this.board.layers.has(msg.territory_id)) return;
    this.queue = this.queue.filter((id) => id !== msg.territory_id).concat(msg.territory_id).slice(-5);
    if (!this.busy) this.next();
  }

  next() {
    const id = this.queue.shift();
    const map = this.board.map;
    if (!id) {
      this.busy = false;
      document.body.dataset.tvFocus = "";
      map.flyToBounds(this.board.bounds, { padding: [8, 8], duration: FLY_S });
      return;
    }
    this.busy = true;
    document.body.dataset.tvFocus = id;
    map.flyToBounds(this.board.layers.get(id).getBounds(), { maxZoom: 13, padding: [60, 60], duration: FLY_S });
    this.board.select(id, { pan: false });
    setTimeout(() => this.next(), STAY_MS);
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
      if (el) el.textContent = c && c.season_state === "closed" ? "The season is over" : "";
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
