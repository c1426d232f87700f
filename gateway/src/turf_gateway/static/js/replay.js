// The watch page's season replay: the public feed of the season from GET /replay (paged), and the map's
// ownership and the standings at any instant of it; a time slider and a play button (a game day a second).

import { API, applyScoreDelta, gameTime, h, knownName, learnNames } from "./api.js";

const DAY = 86400000;
const TICK = 100; // ms between frames while playing: a tenth of a day each

// events: the replay's messages, stream order; t: ms since 1970. → {owners: Map id → {owner_id, progress,
// fortified}, standings: {standings, side_quests}} as the feed had made them by t
export function stateAt(events, t) {
  const owners = new Map();
  let standings = { standings: [], side_quests: {} };
  for (const e of events) {
    if (e.ms > t) break;
    if (e.type === "territory.changed") {
      owners.set(e.territory_id, { owner_id: e.owner_id, progress: e.progress, fortified: e.fortified });
    } else if (e.type === "score.updated") {
      standings = applyScoreDelta(standings, e);
    }
  }
  return { owners, standings };
}

// t (ms) as an ISO text in the offset the events are written in (the game's zone), for gameTime
function inOffsetOf(t, events) {
  const m = events.length ? /([+-])(\d{2}):(\d{2})$/.exec(events[events.length - 1].at) : null;
  const off = m ? (m[1] === "-" ? -1 : 1) * (+m[2] * 60 + +m[3]) : 0;
  const wall = new Date(t + off * 60000).toISOString().slice(0, 16);
  return wall + (m ? m[0] : "Z");
}

async function loadAll() {
  const out = [];
  let after = 0;
  for (;;) {
    const r = await fetch(`${API}/replay?limit=1000&after_seq=${after}`);
    if (!r.ok) throw new Error("replay " + r.status);
    const page = await r.json();
    for (const e of page.events) {
      if (e.type === "territory.changed" || e.type === "score.updated") out.push({ ...e, ms: Date.parse(e.at) });
    }
    if (page.next_seq === null || page.next_seq === undefined) return out;
    after = page.next_seq;
  }
}

// A `turfwar simulate` event log (events.jsonl: one stream message a line, {seq, subject, data}) as the replay's
// messages: territory changes, and each score.updated as the delta the feed would have sent (an older log's full
// leaderboard becomes a delta that replaces the standings).
export function fromEventLog(text) {
  const out = [];
  let known = new Set();
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const { seq, subject, data } = JSON.parse(line);
    const at = data.at || data.occurred_at;
    if (subject === "territory.changed") {
      out.push({ seq, type: subject, at, ms: Date.parse(at), territory_id: data.territory_id, owner_id: data.owner_id,
        progress: data.progress, fortified: data.fortified });
    } else if (subject === "score.updated") {
      let msg = { changes: data.changes || [], removed: data.removed || [], side_quests: data.side_quests };
      if (data.leaderboard) {
        const now = new Set(data.leaderboard.standings.map((s) => s.player_id));
        msg = { changes: data.leaderboard.standings, removed: [...known].filter((id) => !now.has(id)),
          side_quests: data.leaderboard.side_quests };
        known = now;
      }
      out.push({ seq, type: subject, at, ms: Date.parse(at), ...msg });
    }
  }
  return out.sort((a, b) => a.ms - b.ms || a.seq - b.seq);
}

// a File the spectator picked: events.jsonl, or events.jsonl.gz as `turfwar simulate` keeps it
export async function readEventLog(file) {
  const stream = file.name.endsWith(".gz") ? file.stream().pipeThrough(new DecompressionStream("gzip")) : file.stream();
  return fromEventLog(await new Response(stream).text());
}

export class Replay {
  // board: the BoardMap; root: the panel with #replay-slider, #replay-play, #replay-live, #replay-at,
  // #replay-standings
  constructor(board, root) {
    this.board = board;
    this.root = root;
    this.events = null;
    this.active = false; // the map shows the past: live changes wait until "Live"
    this.timer = null;
    this.slider = root.querySelector("#replay-slider");
    this.playBtn = root.querySelector("#replay-play");
    this.slider.addEventListener("input", () => this.ready().then(() => this.show(+this.slider.value)));
    this.playBtn.addEventListener("click", () => this.toggle());
    root.querySelector("#replay-live").addEventListener("click", () => this.live());
    const file = root.querySelector("#replay-file");
    if (file) {
      file.addEventListener("change", async () => {
        if (!file.files.length) return;
        this.use(await readEventLog(file.files[0]));
        this.root.dataset.source = "file";
        this.show(+this.slider.min);
      });
    }
  }

  async ready() {
    if (this.events) return;
    this.use(await loadAll());
  }

  // replay these messages (the season's from GET /replay, or a simulation's event log) from their start
  use(events) {
    this.stop();
    this.events = events;
    const first = this.events.length ? this.events[0].ms : Date.now();
    const last = this.events.length ? this.events[this.events.length - 1].ms : first;
    this.slider.min = String(first);
    this.slider.max = String(last);
    this.slider.step = "60000";
    this.slider.value = this.slider.min;
    this.root.dataset.events = String(this.events.length);
  }

  show(t) {
    this.active = true;
    const { owners, standings } = stateAt(this.events, t);
    for (const [id, p] of this.board.props) {
      const o = owners.get(id);
      p.owner_id = o ? o.owner_id : null;
      p.progress = o ? o.progress : 0;
      p.fortified = o ? o.fortified : false;
    }
    this.board.restyle();
    learnNames(standings.standings);
    const at = new Date(t);
    const label = this.root.querySelector("#replay-at");
    label.textContent = gameTime(inOffsetOf(t, this.events));
    label.dataset.at = at.toISOString();
    const rows = standings.standings.slice(0, 10).map((s) => h("li", { dataset: { playerId: s.player_id } },
      `${s.rank}. ${s.display_name || knownName(s.player_id) || "a player"} — ${s.total}`));
    this.root.querySelector("#replay-standings").replaceChildren(...rows);
    this.root.dataset.shown = String(+(this.root.dataset.shown || 0) + 1);
  }

  async toggle() {
    if (this.timer) {
      this.stop();
      return;
    }
    await this.ready();
    if (+this.slider.value >= +this.slider.max) this.slider.value = this.slider.min;
    this.playBtn.textContent = "❚❚ Pause";
    this.root.dataset.playing = "1";
    this.timer = setInterval(() => {
      const t = Math.min(+this.slider.value + DAY * (TICK / 1000), +this.slider.max);
      this.slider.value = String(t);
      this.show(t);
      if (t >= +this.slider.max) this.stop();
    }, TICK);
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
    this.playBtn.textContent = "▶ Play";
    this.root.dataset.playing = "0";
  }

  // back to now: the board as GET /board has it (the cached ETag would keep the past layers, so it is dropped)
  async live() {
    this.stop();
    this.active = false;
    this.events = null; // the next replay reads the season again, with what happened meanwhile
    this.board.etag = null;
    await this.board.load();
    this.root.querySelector("#replay-at").textContent = "Live.";
    this.root.querySelector("#replay-standings").replaceChildren();
  }
}
