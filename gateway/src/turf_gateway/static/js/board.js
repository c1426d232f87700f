// The board map (Leaflet, vendored) and the live score socket, shared by the play and watch pages.
/* global L */

import { API, knownName } from "./api.js";
import { storyElement } from "./history.js";
import { BOARD_URL, features } from "./topo.js";
import { colourFor, knowsPlayer, loadRoster, onRoster } from "./palette.js";
import { pageConfig } from "./pageconfig.js";

// Owners are coloured from a colour-blind-safe palette in join order (palette.js); re-exported for the
// watch page and the tests.
export { colourFor };

// Outlines that stand out on the light or the dark map (dark mode follows the system)
const DARK = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : { matches: false };
const outline = () => (DARK.matches ? { mine: "#f4f6f8", rival: "#c5ccd3", fort: "#fff" }
  : { mine: "#111", rival: "#2f3640", fort: "#000" });

const CHUNK = 30; // towns made into map layers and drawn per task (BoardMap.load)
const FREE = { fillColor: "#cfd5da", fillOpacity: 0.35, color: "#7b8794", weight: 0.7, dashArray: null };

// the browser's turn between two slices of work: a task of its own, queued behind what is waiting (not
// scheduler.yield(), whose slice after goes first: an answer that came in meanwhile, the play page's where-am-I
// check, waited for the last of the 448 towns, measured in bench/first_load.py)
function yieldTask() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

// a GeoJSON Polygon's or MultiPolygon's extent as a LatLngBounds, from its outer rings (GeoJSON is [lon, lat])
function extent(geometry) {
  let s = 90, w = 180, n = -90, e = -180;
  const polys = geometry.type === "Polygon" ? [geometry.coordinates] : geometry.coordinates;
  for (const poly of polys) {
    for (const [lon, lat] of poly[0]) {
      if (lat < s) s = lat;
      if (lat > n) n = lat;
      if (lon < w) w = lon;
      if (lon > e) e = lon;
    }
  }
  return L.latLngBounds([s, w], [n, e]);
}

export function union(boxes) {
  let all = null;
  for (const b of boxes) all = all ? all.extend(b) : L.latLngBounds(b.getSouthWest(), b.getNorthEast());
  return all;
}

export class BoardMap {
  // el: the map's element; options.me: () => my player id or null; options.cluster: () => Set of ids;
  // options.view: () => [LatLngBounds, fitBounds options] or null, the first view once the board's towns are known
  // (their props and boxes), before any is drawn; the whole board when null
  constructor(el, options = {}) {
    this.me = options.me || (() => null);
    this.view = options.view || null;
    this.cluster = options.cluster || (() => new Set());
    this.onSelect = options.onSelect || null;
    // SVG, not canvas (measured with Lighthouse): a canvas is rastered and handed to the compositor on the
    // main thread at each redraw (60-160 ms a frame on a phone's CPU while the towns come in), SVG paths are
    // rastered off it; the same projection and clipping either way
    this.map = L.map(el, { preferCanvas: false, zoomSnap: 0.25, minZoom: 7, maxZoom: 17 });
    this.map.attributionControl.setPrefix(false);
    this.props = new Map();
    this.layers = new Map();
    this.etag = null;
    this.geo = null;
    this.highlight = null;
    this.here = null; // the territory I stand in (where-am-I), outlined in its own style
    this.loaded = false;
    // the towns of players a roster read has just learnt, drawn until then in a fallback colour, take their own
    onRoster((ids) => {
      const learnt = new Set(ids);
      this.restyle([...this.props.values()].filter((p) => learnt.has(p.owner_id)).map((p) => p.id));
    });
  }

  async init() {
    const [cfg] = await Promise.all([pageConfig(), loadRoster()]);
    if (cfg.tile_url) {
      L.tileLayer(cfg.tile_url, { attribution: cfg.tile_attribution || "", maxZoom: 19 }).addTo(this.map);
    } else {
      this.map.getContainer().classList.add("no-tiles");
    }
    this.map.attributionControl.addAttribution("Boundaries: NJOGIS, NYC, US Census");
    await this.load();
  }

  // GET /board as TopoJSON (half the bytes of its GeoJSON: shared borders once); the browser revalidates with
  // If-None-Match, an unchanged ETag keeps the layers as they are
  async load() {
    // a plain GET, as the page's <link rel=preload> asks it (a request with other headers would not use it)
    const r = await fetch(BOARD_URL);
    if (!r.ok) throw new Error("the board could not be loaded (" + r.status + ")");
    const etag = r.headers.get("ETag");
    if (this.geo && etag && etag === this.etag) return false;
    const fc = features(await r.json());
    this.etag = etag;
    if (!this.geo) {
      // the view is set before the first town is drawn, from the coordinates' extent (no projection):
      // drawn first and framed after, every town was projected and clipped again at each change of view (the TV's
      // framing of the claimed towns, the max bounds' pan), several hundred ms of one task on a phone's CPU
      this.boxes = new Map(); // territory id → its LatLngBounds, before its layer exists (TV framing, tv.js)
      for (const f of fc.features) {
        this.props.set(f.properties.id, f.properties);
        this.boxes.set(f.properties.id, extent(f.geometry));
      }
      this.bounds = union(this.boxes.values());
      this.map.setMaxBounds(this.bounds.pad(0.5)); // before the view, so the view is not panned into it after
      const [b, opts] = (this.view && this.view()) || [this.bounds, { padding: [4, 4] }];
      this.map.fitBounds(b, { ...opts, animate: false });
      this.geo = L.geoJSON(null, {
        style: (f) => this.style(f.properties),
        onEachFeature: (f, layer) => {
          this.layers.set(f.properties.id, layer);
          layer.on("click", () => this.select(f.properties.id, { pan: false }));
        },
      }).addTo(this.map);
      // the 448 towns made into layers and drawn a slice at a time (each projected and clipped once, at the view
      // just set), the browser free between slices: one long task of several hundred ms otherwise, a page that
      // does not answer a tap
      for (let i = 0; i < fc.features.length; i += CHUNK) {
        if (i) await yieldTask();
        this.geo.addData({ type: "FeatureCollection", features: fc.features.slice(i, i + CHUNK) });
      }
    } else {
      for (const f of fc.features) this.props.set(f.properties.id, f.properties);
      this.restyle();
    }
    this.loaded = true;
    this.map.getContainer().dataset.loaded = "1";
    return true;
  }

  style(p) {
    const me = this.me();
    const line = outline();
    let s = { ...FREE };
    if (p.owner_id) {
      this.learnOwner(p.owner_id);
      s = { fillColor: colourFor(p.owner_id), fillOpacity: 0.62, color: line.rival, weight: 0.8, dashArray: null };
      if (me && p.owner_id === me) {
        s.color = line.mine;
        s.weight = 2.2;
        s.fillOpacity = 0.75;
        if (this.cluster().has(p.id)) {
          s.color = "#ffb300";
          s.weight = 3.5;
          s.fillOpacity = 0.85;
        }
      }
    }
    if (p.fortified) {
      s.dashArray = "5 4";
      s.weight = Math.max(s.weight, 2.6);
      if (!(me && p.owner_id === me)) s.color = line.fort;
    }
    if (this.here === p.id) {
      // the "me" blue of the position dot, so "where I am" reads as one thing on the map
      s.color = "#1a73e8";
      s.weight = 4.5;
      s.dashArray = null;
    }
    if (this.highlight === p.id) {
      s.color = "#e8175d";
      s.weight = 4;
    }
    return s;
  }

  // an owner not in the roster may have joined since the page loaded: read the roster again (the read's onRoster
  // restyles their towns); a read that still misses them (failed, or answered just before) is tried twice more,
  // each at least 5 s after the last
  learnOwner(playerId, tries = 0) {
    if (knowsPlayer(playerId)) return;
    this.asked = this.asked || new Set();
    if (!tries && this.asked.has(playerId)) return;
    this.asked.add(playerId);
    loadRoster({ fresh: true }).then(() => {
      if (!knowsPlayer(playerId) && tries < 2) this.learnOwner(playerId, tries + 1);
    });
  }

  restyle(ids) {
    for (const id of ids || this.layers.keys()) {
      const layer = this.layers.get(id);
      const p = this.props.get(id);
      if (layer && p) {
        layer.setStyle(this.style(p));
        layer.feature.properties = p;
      }
    }
  }

  // a territory.changed message or a claim answer: {territory_id, owner_id, progress, fortified}
  apply(change) {
    const id = change.territory_id || change.id;
    const p = this.props.get(id);
    if (!p) return null;
    for (const k of ["owner_id", "progress", "fortified"]) if (k in change) p[k] = change[k];
    this.restyle([id]);
    const el = this.map.getContainer();
    el.dataset.changes = String(+(el.dataset.changes || 0) + 1);
    return p;
  }

  name(id) {
    const p = this.props.get(id);
    return p ? p.name : id;
  }

  owned(playerId) {
    return [...this.props.values()].filter((p) => p.owner_id === playerId);
  }

  // open a territory's popup; pan: fit the map to it; mark: outline it until another is selected
  select(id, { pan = true, mark = true } = {}) {
    const old = this.highlight;
    this.highlight = mark ? id : null;
    this.restyle([old, id].filter(Boolean));
    const layer = this.layers.get(id);
    const p = this.props.get(id);
    if (!layer || !p) return;
    // not animated: the view is set before the popup opens, so the popup's own pan (autoPan) has the last word
    if (pan) this.map.fitBounds(layer.getBounds(), { maxZoom: 14, padding: [24, 24], animate: false });
    const owner = !p.owner_id ? "nobody" : p.owner_id === this.me() ? "you" : knownName(p.owner_id) || "a player";
    const fort = p.fortified ? " · fortified" : p.owner_id ? ` · progress ${p.progress}/3` : "";
    const html = `<b>${escapeHtml(p.name)}</b><br>${escapeHtml(p.county)} County, ${p.state}<br>`
      + `Owner: ${escapeHtml(owner)}${fort}`;
    if (layer.getPopup()) layer.setPopupContent(html);
    else layer.bindPopup(html, this.popupOptions());
    layer.openPopup();
    // then the town's story, unless another town was selected meanwhile
    const asked = (this.storyAsked = (this.storyAsked || 0) + 1);
    storyElement(id, this.me()).then((story) => {
      if (asked !== this.storyAsked) return;
      const box = document.createElement("div");
      box.innerHTML = html;
      box.append(story);
      layer.setPopupContent(box);
    }).catch(() => {});
    if (this.onSelect) this.onSelect(p);
  }

  // a popup is never clipped: the map pans to show it whole (with padding) and a long one (a town's
  // story) scrolls within the map's height, on a phone as on a desk
  // and never under the zoom buttons (a popup at the map's left edge read "boken", "dson County"): its pan keeps it
  // right of them, and its width leaves that room
  popupOptions() {
    const size = this.map.getSize();
    const zoom = this.map.zoomControl?.getContainer();
    const left = zoom ? zoom.offsetLeft + zoom.offsetWidth + 8 : 12;
    return { autoPan: true, autoPanPaddingTopLeft: [left, 12], autoPanPaddingBottomRight: [12, 12],
      maxWidth: Math.max(160, Math.min(280, size.x - left - 36)), maxHeight: Math.max(120, size.y - 72),
      className: "turf-popup" };
  }

  // a town that has just become mine (a claim, a Joker, War): outlined and flashed, the map framed on it when
  // `frame` (it may be anywhere on the board), kept outlined when `mark`; no popup, which would cover the moment
  show(id, { frame = false, mark = true } = {}) {
    const layer = this.layers.get(id);
    if (!layer) return;
    this.map.closePopup();
    const old = this.highlight;
    this.highlight = mark ? id : null;
    this.restyle([old, id].filter(Boolean));
    if (frame) this.map.fitBounds(layer.getBounds(), { maxZoom: 13, padding: [32, 32], animate: false });
    layer.bringToFront();
    this.flash(id);
  }

  // outline the territory I stand in without opening its popup or moving the map; the map fires "turf:here" so
  // its town names (mapnames.js) can keep that one's name shown
  mark(id) {
    const old = this.here;
    this.here = id;
    this.restyle([old, id].filter(Boolean));
    if (id) this.layers.get(id)?.bringToFront(); // its outline drawn over its neighbours'
    if (old !== id) this.map.fire("turf:here", { id, old });
  }

  // a short flash of a territory that just changed
  flash(id) {
    const layer = this.layers.get(id);
    if (!layer) return;
    layer.setStyle({ color: "#e8175d", weight: 5 });
    clearTimeout(this.flashes?.get(id));
    this.flashes = this.flashes || new Map();
    this.flashes.set(id, setTimeout(() => this.restyle([id]), 2500));
  }
}

export function escapeHtml(s) {
  return String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
    "'": "&#39;" })[c]);
}

// WS /ws/scores with automatic reconnection (jittered backoff 0.5 s → 10 s). onMessage(msg); onState("live"|
// "connecting"). Every message carries the stream's seq (the snapshot the one it reflects), so a reconnect
// asks ?since=<the last seq seen> and the server resends what was missed, in order; only when that is too old does
// it answer a snapshot, and then onReconnect lets a page re-read what the snapshot does not bring (the board).
export class LiveSocket {
  constructor({ onMessage, onState, onReconnect }) {
    this.onMessage = onMessage;
    this.onState = onState || (() => {});
    this.onReconnect = onReconnect || (() => {});
    this.delay = 500;
    this.opened = 0;
    this.closed = false;
    this.seq = null; // the last seq seen: where a reconnect resumes
    this.snapshots = 0; // snapshots received (a resumed reconnect gets none)
  }

  start() {
    const since = this.seq === null ? "" : `?since=${this.seq}`;
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + API + "/ws/scores" + since;
    this.onState("connecting");
    let ws;
    try {
      ws = new WebSocket(url);
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.delay = 500;
      this.opened += 1;
      this.onState("live");
    };
    ws.onmessage = (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (msg.type === "snapshot") {
        this.snapshots += 1;
        if (this.opened > 1) this.onReconnect(); // not resumed: the board may have changed meanwhile
      } else if (typeof msg.seq === "number" && this.seq !== null && msg.seq <= this.seq) {
        return; // seen already (the server sends none twice; this keeps a page right if one ever did)
      }
      if (typeof msg.seq === "number") this.seq = msg.seq;
      this.onMessage(msg);
    };
    ws.onclose = () => {
      if (this.ws === ws) this.retry();
    };
    ws.onerror = () => {
      try {
        ws.close();
      } catch {
        /* already closed */
      }
    };
  }

  retry() {
    if (this.closed) return;
    this.onState("connecting");
    const d = this.delay;
    this.delay = Math.min(this.delay * 2, 10000);
    // jitter: spectators dropped together (a gateway restart) come back spread over the wait, not all at once
    setTimeout(() => this.start(), d / 2 + Math.random() * (d / 2));
  }

  // for tests and for the "reconnect" link: drop the socket as a network failure would
  drop() {
    if (this.ws) this.ws.close();
  }
}

// Largest connected cluster of my territories, from the board's adjacency graph (GET /adjacency: one small body,
// read once, instead of each territory's full geometry from GET /territories/{id}).
let graph = null;

export async function neighbours(id) {
  if (!graph) {
    graph = fetch(`${API}/adjacency`).then((r) => (r.ok ? r.json() : { neighbours: {} }))
      .then((g) => g.neighbours || {})
      .catch(() => { graph = null; return {}; });
  }
  return (await graph)[id] || [];
}

export async function largestCluster(ids) {
  const mine = new Set(ids);
  const adj = new Map();
  await Promise.all(ids.map(async (id) => adj.set(id, (await neighbours(id)).filter((n) => mine.has(n)))));
  let best = new Set();
  const seen = new Set();
  for (const start of [...ids].sort()) {
    if (seen.has(start)) continue;
    const comp = new Set([start]);
    const stack = [start];
    seen.add(start);
    while (stack.length) {
      for (const n of adj.get(stack.pop()) || []) {
        if (!seen.has(n)) {
          seen.add(n);
          comp.add(n);
          stack.push(n);
        }
      }
    }
    if (comp.size > best.size) best = comp;
  }
  return best;
}

// A one-line story for the feed from a websocket message; null for messages that are not news.
export function describe(msg, nameOf, territory) {
  const who = (id) => (id ? nameOf(id) : "nobody");
  const t = msg.territory_id ? territory(msg.territory_id) : "";
  switch (msg.type) {
    case "territory.changed": {
      const { owner_id: o, previous_owner_id: prev, cause } = msg;
      if (cause === "war") return { kind: "war", text: `⚔ War: ${t} goes back to ${who(o)} from ${who(prev)}` };
      if (cause === "war_reclaim") return { kind: "war", text: `⚔ ${who(o)} reclaimed ${t} from ${who(prev)}` };
      if (cause === "joker") return { kind: "card", text: `★ ${who(o)} won ${t} with a Joker` };
      if (cause === "mulligan") return { kind: "card", text: `↺ Mulligan: ${t} goes back to ${who(o)}` };
      if (cause === "trade") return { kind: "trade", text: `⇄ ${t} traded to ${who(o)}` };
      if (cause === "correction") return { kind: "admin", text: `✎ Correction: ${t} now belongs to ${who(o)}` };
      // R30: a player who withdrew left the game; they are never shown as disqualified (a withdrawal stored before
      // it had a cause of its own is known by its holder's public name)
      if (cause === "withdrawal" || (cause === "disqualification" && who(prev) === "a withdrawn player")) {
        return { kind: "admin", text: `${t} is free again: its holder withdrew from the game` };
      }
      if (cause === "disqualification") return { kind: "admin", text: `${t} is free again (disqualification)` };
      if (o && prev && o !== prev) return { kind: "steal", text: `⚑ ${who(o)} stole ${t} from ${who(prev)}` };
      if (o && o === prev && msg.fortified) return { kind: "fort", text: `${who(o)} fortified ${t}` };
      if (o && o === prev) return { kind: "claim", text: `${who(o)} reinforced ${t} (${msg.progress}/3)` };
      if (o) return { kind: "claim", text: `${who(o)} took ${t}` };
      return { kind: "claim", text: `${t} is unclaimed` };
    }
    case "correction.applied":
      // R30: a withdrawal is logged with the corrections, but nobody corrected anything
      if (msg.action === "withdrawal") return { kind: "admin", text: "A player withdrew from the game" };
      // a correction of a town's owner is told once, by its territory.changed ("✎ Correction: …")
      if (msg.territory_id) return null;
      return { kind: "admin", text: `✎ Organizer correction (${(msg.action || "").replace(/_/g, " ")})` };
    case "season.final_results":
      return { kind: "admin", text: "★ The season is over: final results are in" };
    case "card.played": {
      const card = (msg.card_type || "card").replace(/_/g, " ");
      return msg.state === "reserved"
        ? { kind: "card", text: `★ ${who(msg.player_id)} scheduled a ${card}` }
        : { kind: "card", text: `★ ${who(msg.player_id)} played ${card}` };
    }
    case "card.consumed":
      return { kind: "card", text: `★ ${who(msg.player_id)}'s ${(msg.card_type || "").replace(/_/g, " ")} is active` };
    case "trade.proposed":
      return { kind: "trade", text: `⇄ ${who(msg.proposer_id)} proposed a trade to ${who(msg.partner_id)}` };
    case "trade.accepted":
      return { kind: "trade", text: `⇄ ${who(msg.proposer_id)} and ${who(msg.partner_id)} traded territories` };
    case "medal.earned": // a tier of a medal (docs/medals.md)
      return { kind: "medal", text: `🏅 ${who(msg.player_id)} earned ${msg.name || "a medal"} (${msg.tier})` };
    case "announcement.published": // the organizer's announcement (its body shows in the banner)
      return { kind: "admin", text: `Announcement: ${msg.title || (msg.announcement && msg.announcement.title) || "Announcement"}` };
    default:
      return null;
  }
}
