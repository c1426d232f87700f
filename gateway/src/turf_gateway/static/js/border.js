// "The border near me": with no tile layer the map is flat colour, so at a street corner nobody can tell
// where the town ends, though a fix near a border is refused `on_border` (R7). The nearest shared border is named
// with its distance and direction ("Jersey City line 35 m west") and drawn from my dot to it: the nearest of the
// town's neighbours, measured to its full-detail outline as the server checks it (GET /territories/{id}, read once).
/* global L */

import { api } from "./api.js";

const R = 6371000;
const DIRS = ["north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west"];

// the polygons' rings as [lon, lat] lists (GeoJSON Polygon or MultiPolygon)
function rings(g) {
  if (!g) return [];
  if (g.type === "Polygon") return g.coordinates;
  if (g.type === "MultiPolygon") return g.coordinates.flat();
  return [];
}

// the nearest point to `at` on the rings, in metres on a plane tangent at `at` (good to a few cm over a town)
export function nearest(at, rs) {
  const k = Math.cos((at.lat * Math.PI) / 180);
  const xy = ([lon, lat]) => [((lon - at.lon) * Math.PI / 180) * R * k, ((lat - at.lat) * Math.PI / 180) * R];
  let best = { d: Infinity, x: 0, y: 0 };
  for (const ring of rs) {
    for (let i = 1; i < ring.length; i++) {
      const [ax, ay] = xy(ring[i - 1]);
      const [bx, by] = xy(ring[i]);
      const dx = bx - ax;
      const dy = by - ay;
      const len = dx * dx + dy * dy;
      const t = len ? Math.max(0, Math.min(1, -(ax * dx + ay * dy) / len)) : 0;
      const x = ax + t * dx;
      const y = ay + t * dy;
      const d = Math.hypot(x, y);
      if (d < best.d) best = { d, x, y };
    }
  }
  if (best.d === Infinity) return null;
  return { d: best.d, lat: at.lat + (best.y / R) * 180 / Math.PI, lon: at.lon + (best.x / (R * k)) * 180 / Math.PI,
    dir: DIRS[Math.round(((Math.atan2(best.x, best.y) * 180 / Math.PI + 360) % 360) / 45) % 8] };
}

export class BorderNearMe {
  // board: BoardMap; el: the sentence's element
  constructor(board, el) {
    this.board = board;
    this.el = el;
    this.towns = new Map();   // territory id → GET /territories/{id} (full geometry, neighbours), read once
    this.line = null;
  }

  async town(id) {
    if (!this.towns.has(id)) {
      const read = api(`/territories/${encodeURIComponent(id)}`, { auth: false });
      read.catch(() => this.towns.delete(id));   // offline: asked again at the next fix
      this.towns.set(id, read);
    }
    return this.towns.get(id);
  }

  clear() {
    this.line?.remove();
    this.line = null;
    this.el.hidden = true;
    this.el.textContent = "";
  }

  // at: {lat, lon}; id: the territory I stand in (null: outside the board)
  async show(at, id) {
    if (!id || !at) return this.clear();
    let t;
    try {
      t = await this.town(id);
    } catch {
      return;   // offline: the last line stays
    }
    // the nearest neighbour's outline, full detail, is the shared border: near me it is the line between us
    let q = null;
    let across = null;
    const near = await Promise.all((t.neighbours || []).map((n) => this.town(n).then((nt) => [n, nt], () => [n, null])));
    for (const [n, nt] of near) {
      const p = nt && nearest(at, rings(nt.geometry));
      if (p && (!q || p.d < q.d)) [q, across] = [p, n];
    }
    if (!q) return this.clear();
    this.el.textContent = `${this.board.name(across)} line ${Math.round(q.d)} m ${q.dir}.`;
    this.el.dataset.across = across;
    this.el.dataset.metres = String(Math.round(q.d));
    this.el.hidden = false;
    const ll = [[at.lat, at.lon], [q.lat, q.lon]];
    if (this.line) this.line.setLatLngs(ll);
    else {
      this.line = L.polyline(ll, { pane: "me", color: "#1a73e8", weight: 3, dashArray: "6 6", interactive: false })
        .addTo(this.board.map);
    }
  }
}
