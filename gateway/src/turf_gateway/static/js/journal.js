// A player's season: GET /players/{id}/history's daily totals as a small table, for the watch page (a
// rival's season, from the leaderboard).

import { API, gameDay, h } from "./api.js";

const COLUMNS = [["claims", "Claims"], ["steals", "Steals"], ["stolen", "Stolen"], ["fortifications", "Forts"],
  ["cards", "Cards"], ["trades", "Trades"]];

// el: the panel (with h2 and a table inside); name: the player's display name; title: the heading instead of
// "<name>'s season" (the play page's "My season")
export async function showSeason(el, playerId, name, title = null) {
  const r = await fetch(`${API}/players/${encodeURIComponent(playerId)}/history`);
  if (!r.ok) throw new Error("journal " + r.status);
  const { days } = await r.json();
  el.querySelector("h2").textContent = title || `${name}'s season`;
  const head = h("tr", {}, h("th", {}, "Day"), ...COLUMNS.map(([, t]) => h("th", { class: "n" }, t)));
  const rows = days.map((d) => h("tr", { dataset: { day: d.day } }, h("td", {}, gameDay(d.day)),
    ...COLUMNS.map(([k]) => h("td", { class: "n" }, d[k]))));
  const body = rows.length ? rows : [h("tr", {}, h("td", { colspan: COLUMNS.length + 1, class: "muted" },
    "Nothing yet this season."))];
  el.querySelector("table").replaceChildren(h("thead", {}, head), h("tbody", {}, ...body));
  el.hidden = false;
  el.dataset.player = playerId;
}
