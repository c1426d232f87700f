// The board as the pages read it (GET /board?format=topojson): a TopoJSON topology, every border two towns share
// stored once, made back into GeoJSON features here (about half the bytes of the GeoJSON body on the wire).

import { API } from "./api.js";

// the board the pages read: a TopoJSON topology (GET /board?format=topojson; index.html preloads this URL)
export const BOARD_URL = API + "/board?format=topojson";

// a TopoJSON topology of polygons (its first object, a GeometryCollection) → a GeoJSON FeatureCollection: each
// arc's delta-encoded integers made degrees once (transform), each ring joined from its arcs (~i: arc i backwards,
// the point two arcs share written once)
export function features(topo) {
  const [sx, sy] = topo.transform.scale;
  const [tx, ty] = topo.transform.translate;
  const arcs = topo.arcs.map((arc) => {
    let x = 0, y = 0;
    return arc.map(([dx, dy]) => [(x += dx) * sx + tx, (y += dy) * sy + ty]);
  });
  const ring = (refs) => {
    const out = [];
    for (const i of refs) {
      const pts = i >= 0 ? arcs[i] : arcs[~i].slice().reverse();
      for (let k = out.length ? 1 : 0; k < pts.length; k += 1) out.push(pts[k]);
    }
    return out;
  };
  const polygon = (rings) => rings.map(ring);
  const object = Object.values(topo.objects)[0];
  return { type: "FeatureCollection", features: object.geometries.map((g) => ({ type: "Feature", id: g.id,
    properties: g.properties, geometry: { type: g.type,
      coordinates: g.type === "Polygon" ? polygon(g.arcs) : g.arcs.map(polygon) } })) };
}
