// Town names on the board map: each town's name at its label point (GET /board `label_point`), shown
// only once the town is wide enough on screen to hold its name, so the state-wide view is not 448 names on top of
// each other, with a font that grows with the zoom. The town I stand in (BoardMap.mark, where-am-I) always shows its
// name, in its own style. A name whose box would overlap one already placed is left out, the larger towns placed
// first. Labels are non-interactive DOM markers (a tap goes through to the town underneath), and
// only those in view exist at a time.
/* global L */

import { h } from "./api.js";
import { escapeHtml } from "./board.js";

const M_PER_PX_Z0 = 156543.034; // metres per pixel at zoom 0 on the equator (Web Mercator, 256-px tiles)
const CHAR_EM = 0.55;           // a name's width per character, in font sizes (system sans-serif, rough)
const ROOM = 0.7;               // a name may overhang its town a little: else the state view shows none at all

export function fontPx(zoom) {
  return Math.max(12, Math.min(16, Math.round(9 + (zoom - 8) * 0.75)));
}

// does the town, seen at this zoom, have room for its name in a px font? (its width taken as the square root of
// its area)
export function fits(p, zoom, px = fontPx(zoom)) {
  const lat = p.label_point.lat * Math.PI / 180;
  const metresPerPx = (M_PER_PX_Z0 * Math.cos(lat)) / 2 ** zoom;
  const townPx = Math.sqrt(p.land_area_m2 || 0) / metresPerPx;
  return townPx >= p.name.length * px * CHAR_EM * ROOM;
}

// "Show on map" for a town in a list; a screen reader hears the town's name in it too ("Show Hoboken on map"),
// from text rather than an aria-label, so the name it hears contains the words it sees
export function mapButton(name) {
  return h("button", { type: "button", class: "secondary" }, "Show ", h("span", { class: "sr-only" }, `${name} `),
    "on map");
}

// do two label boxes {x0, x1, y0, y1} overlap?
export function overlaps(a, b) {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

function shift(box, dy) {
  return { ...box, y0: box.y0 + dy, y1: box.y1 + dy };
}

export class MapNames {
  // options.scale: the names' size against the phone's (the watch page's TV mode reads them across a room);
  // options.first: () → territory ids named before any other (the story town, then the claimed towns by
  // recent activity), whatever their size, nudged up or down a line rather than left out when another is in the way
  constructor(board, { scale = 1, first = () => [] } = {}) {
    this.board = board;
    this.scale = scale;
    this.first = first;
    this.markers = new Map(); // territory id → its label marker, for the labels shown now
    this.widths = new Map();  // name → its width in pixels per pixel of font size
    this.pending = false;
    board.map.on("zoomend moveend", () => this.schedule());
    board.map.on("turf:here", (e) => {
      this.drop(e.old);   // restyled when it is drawn again
      this.drop(e.id);
      this.schedule();
    });
  }

  // at most one render per frame, however many move events a fling fires
  schedule() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.render();
    });
  }

  // the labels to show: the town I stand in first, then the larger towns before the smaller, each skipped when its
  // box would overlap one already placed, so names never print over each other
  render() {
    const map = this.board.map;
    const zoom = map.getZoom();
    const px = Math.round(fontPx(zoom) * this.scale);
    const view = map.getBounds().pad(0.2);
    map.getContainer().style.setProperty("--town-label-px", `${px}px`);
    const here = this.board.here;
    const placed = [];
    const show = new Map();   // id → the label's vertical nudge in px
    const first = new Set(this.first());
    for (const p of this.bySize(first)) {
      const isHere = p.id === here;
      const inView = view.contains([p.label_point.lat, p.label_point.lon]);
      if (!isHere && !(inView && (first.has(p.id) || fits(p, zoom, px)))) continue;
      const box = this.box(p, px, isHere);
      let dy = 0;
      if (!isHere && placed.some((b) => overlaps(b, box))) {
        if (!first.has(p.id)) continue;
        const line = box.y1 - box.y0;
        dy = [line, -line, 2 * line, -2 * line].find((d) => !placed.some((b) => overlaps(b, shift(box, d))));
        if (dy === undefined) continue;
      }
      placed.push(shift(box, dy));
      show.set(p.id, dy);
    }
    for (const [id, m] of [...this.markers]) if (!show.has(id) || m.dy !== show.get(id)) this.drop(id);
    for (const [id, dy] of show) if (!this.markers.has(id)) this.add(this.board.props.get(id), id === here, dy);
    map.getContainer().dataset.labels = String(this.markers.size);
  }

  // the towns with a label point, the town I stand in first, then by land area, largest first (kept while the
  // board's towns are the same ones)
  bySize(first = new Set()) {
    const here = this.board.here;
    if (!this.sorted || this.sorted.length !== this.board.props.size - this.unlabelled) {
      const all = [...this.board.props.values()];
      this.sorted = all.filter((p) => p.label_point).sort((a, b) => (b.land_area_m2 || 0) - (a.land_area_m2 || 0));
      this.unlabelled = all.length - this.sorted.length;
    }
    const lead = [here, ...first].filter((id, i, all) => id && all.indexOf(id) === i)
      .map((id) => this.board.props.get(id)).filter((p) => p && p.label_point);
    if (!lead.length) return this.sorted;
    const led = new Set(lead.map((p) => p.id));
    return [...lead, ...this.sorted.filter((p) => !led.has(p.id))];
  }

  // the label's box in the map's pixels, centred on its label point (as the CSS centres it), a little margin
  // around; the text's width measured once per name and font size
  box(p, px, here) {
    const c = this.board.map.latLngToContainerPoint([p.label_point.lat, p.label_point.lon]);
    const w = this.textWidth(p.name, px) + (here ? 12 : 0) + 4;   // the here label's padding: .35rem a side
    const hgt = px * 1.25 + (here ? 2 : 0) + 2;
    return { x0: c.x - w / 2, x1: c.x + w / 2, y0: c.y - hgt / 2, y1: c.y + hgt / 2 };
  }

  // measured once per name at a 100-px font and scaled (a name's width grows with its font size): setting the
  // canvas's font and measuring again at every zoom of the TV's camera cost a long task
  textWidth(name, px) {
    let w = this.widths.get(name);
    if (w === undefined) {
      this.ctx = this.ctx || document.createElement("canvas").getContext("2d");
      if (this.ctx) {
        if (!this.family) {
          this.family = getComputedStyle(this.board.map.getContainer()).fontFamily || "sans-serif";
          this.ctx.font = `600 100px ${this.family}`;
        }
        w = this.ctx.measureText(name).width / 100;
      } else {
        w = name.length * CHAR_EM;
      }
      this.widths.set(name, w);
    }
    return w * px;
  }

  add(p, here, dy = 0) {
    const icon = L.divIcon({ className: here ? "town-label here" : "town-label", iconSize: null,
      html: `<span${dy ? ` style="margin-top:${dy}px"` : ""}>${escapeHtml(p.name)}</span>` });
    const m = L.marker([p.label_point.lat, p.label_point.lon], { icon, interactive: false, keyboard: false })
      .addTo(this.board.map);
    const el = m.getElement();
    el.dataset.territoryId = p.id;
    el.setAttribute("aria-hidden", "true"); // the town list says the same for screen readers
    m.dy = dy;
    this.markers.set(p.id, m);
  }

  drop(id) {
    const m = id && this.markers.get(id);
    if (!m) return;
    m.remove();
    this.markers.delete(id);
  }
}
