// Town names on the board map (issue 20): each town's name at its label point (GET /board `label_point`), shown
// only once the town is wide enough on screen to hold its name, so the state-wide view is not 448 names on top of
// each other, with a font that grows with the zoom. The town I stand in (BoardMap.mark, where-am-I) always shows its
// name, in its own style. Labels are non-interactive DOM markers (a tap goes through to the town underneath), and
// only those in view exist at a time.
/* global L */

import { h } from "./api.js";
import { escapeHtml } from "./board.js";

const M_PER_PX_Z0 = 156543.034; // metres per pixel at zoom 0 on the equator (Web Mercator, 256-px tiles)
const CHAR_EM = 0.55;           // a name's width per character, in font sizes (system sans-serif, rough)
const ROOM = 0.7;               // a name may overhang its town a little: else the state view shows none at all

export function fontPx(zoom) {
  return Math.max(10, Math.min(15, Math.round(9 + (zoom - 8) * 0.75)));
}

// does the town, seen at this zoom, have room for its name? (its width taken as the square root of its area)
export function fits(p, zoom) {
  const lat = p.label_point.lat * Math.PI / 180;
  const metresPerPx = (M_PER_PX_Z0 * Math.cos(lat)) / 2 ** zoom;
  const townPx = Math.sqrt(p.land_area_m2 || 0) / metresPerPx;
  return townPx >= p.name.length * fontPx(zoom) * CHAR_EM * ROOM;
}

// "Show on map" for a town in a list; a screen reader hears the town's name in it too ("Show Hoboken on map"),
// from text rather than an aria-label, so the name it hears contains the words it sees
export function mapButton(name) {
  return h("button", { type: "button", class: "secondary" }, "Show ", h("span", { class: "sr-only" }, `${name} `),
    "on map");
}

export class MapNames {
  constructor(board) {
    this.board = board;
    this.markers = new Map(); // territory id → its label marker, for the labels shown now
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

  render() {
    const map = this.board.map;
    const zoom = map.getZoom();
    const view = map.getBounds().pad(0.2);
    map.getContainer().style.setProperty("--town-label-px", `${fontPx(zoom)}px`);
    for (const p of this.board.props.values()) {
      if (!p.label_point) continue;
      const here = p.id === this.board.here;
      const show = here || (view.contains([p.label_point.lat, p.label_point.lon]) && fits(p, zoom));
      if (show && !this.markers.has(p.id)) this.add(p, here);
      else if (!show) this.drop(p.id);
    }
    map.getContainer().dataset.labels = String(this.markers.size);
  }

  add(p, here) {
    const icon = L.divIcon({ className: here ? "town-label here" : "town-label", iconSize: null,
      html: `<span>${escapeHtml(p.name)}</span>` });
    const m = L.marker([p.label_point.lat, p.label_point.lon], { icon, interactive: false, keyboard: false })
      .addTo(this.board.map);
    const el = m.getElement();
    el.dataset.territoryId = p.id;
    el.setAttribute("aria-hidden", "true"); // the town list says the same for screen readers
    this.markers.set(p.id, m);
  }

  drop(id) {
    const m = id && this.markers.get(id);
    if (!m) return;
    m.remove();
    this.markers.delete(id);
  }
}
