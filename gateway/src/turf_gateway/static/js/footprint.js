// A player's footprint (Ingress's portal history for this board): every town they held this season, coloured by
// what happened there (held now, or held and lost), on a small map of its own. Public facts only:
// GET /players/{id}/footprint and GET /board (as TopoJSON).
/* global L */

import { API, h } from "./api.js";
import { BOARD_URL, features } from "./topo.js";

export const FOOTPRINT_COLOURS = { held: "#1f77b4", lost: "#f28e2b" };
const MAX_ZOOM = 12; // a town with its neighbours, never one town alone
const NAMED = 8;     // the footprint's towns named on its map
const REST = { fillColor: "#cfd5da", fillOpacity: 0.25, color: "#9aa5b1", weight: 0.4 };

let boardBody = null; // GET /board, read once per page
async function boardGeo() {
  if (!boardBody) {
    // the board the play page has read already (the same URL: the browser's cache answers)
    boardBody = fetch(BOARD_URL).then((r) => {
      if (!r.ok) throw new Error("board " + r.status);
      return r.json();
    }).then(features);
  }
  return boardBody;
}

// The footprint of `playerId` in `el` (a block with a height); its towns listed in `list` (optional). Resolves to
// the footprint's towns ({territory_id, name, status, claims, lost}).
export async function showFootprint(el, playerId, list = null) {
  const [fc, r] = await Promise.all([boardGeo(),
    fetch(`${API}/players/${encodeURIComponent(playerId)}/footprint`)]);
  if (!r.ok) throw new Error("footprint " + r.status);
  const { towns } = await r.json();
  const status = new Map(towns.map((t) => [t.territory_id, t.status]));
  const named = new Set([...towns].sort((a, b) => (a.status === "held" ? 0 : 1) - (b.status === "held" ? 0 : 1))
    .slice(0, NAMED).map((t) => t.territory_id));
  if (el._footprint) el._footprint.remove();
  const map = L.map(el, { zoomSnap: 0.25, attributionControl: false });
  el._footprint = map;
  const layer = L.geoJSON(fc, {
    style: (f) => {
      const s = status.get(f.properties.id);
      return s ? { fillColor: FOOTPRINT_COLOURS[s], fillOpacity: 0.85, color: "#fff", weight: 0.6 } : REST;
    },
    onEachFeature: (f, l) => {
      const s = status.get(f.properties.id);
      // the footprint's towns are named on the map (the first few, held ones first), the others on a hover
      if (named.has(f.properties.id)) {
        l.bindTooltip(f.properties.name, { permanent: true, direction: "center", className: "fp-name" });
      } else {
        l.bindTooltip(s ? `${f.properties.name}: ${s}` : f.properties.name);
      }
    },
  }).addTo(map);
  const mine = L.featureGroup(layer.getLayers().filter((l) => status.has(l.feature.properties.id)));
  // framed with its neighbours around: one small town filled the whole map, unnamed, with nothing to place it by
  map.fitBounds(towns.length ? mine.getBounds().pad(0.3) : layer.getBounds(), { animate: false, maxZoom: MAX_ZOOM });
  el.dataset.held = String(towns.filter((t) => t.status === "held").length);
  el.dataset.lost = String(towns.filter((t) => t.status === "lost").length);
  if (list) {
    list.replaceChildren(...(towns.length ? towns.map((t) => h("li", { class: `fp-${t.status}`,
      dataset: { territory: t.territory_id, status: t.status } },
      `${t.name}: ${t.status === "held" ? "held" : "lost"}${t.claims ? ` · ${t.claims} claim${t.claims === 1 ? "" : "s"}` : ""}`))
      : [h("li", { class: "muted" }, "No town yet this season.")]));
  }
  return towns;
}
