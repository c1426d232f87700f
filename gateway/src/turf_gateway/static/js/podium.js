// The end of the season on the watch page: GET /results as a podium (places 1–3, ties sharing a step)
// and the full table with prizes; an organizer's score adjustment (R28) is shown where it changed a total.

import { api, ApiError, h } from "./api.js";

const money = (s) => `$${s}`;
// every player's public season recap (profile.html)
const recapOf = (s) => `/profile?player=${encodeURIComponent(s.player_id)}`;

// Shows the podium in `section` once the season is closed; false (section hidden) before (409 season_not_closed).
export async function renderPodium(section) {
  let r;
  try {
    r = await api("/results", { auth: false });
  } catch (e) {
    if (e instanceof ApiError && (e.status === 409 || e.status === 404)) {
      section.hidden = true;
      return false;
    }
    throw e;
  }
  const rows = r.standings || [];
  const step = (place) => {
    const who = rows.filter((s) => s.place === place);
    return h("li", { class: `step p${place}`, dataset: { place: String(place) } },
      h("div", { class: "who" }, who.length ? who.map((s) => h("div", {}, h("a", { href: recapOf(s), class: "recap" },
        h("b", {}, s.display_name || "a player")),
        h("span", { class: "small" }, ` ${s.total} pts · ${money(s.prize)}`))) : "—"),
      h("div", { class: "block" }, String(place)));
  };
  const adjustment = (s) => s.total - s.base - s.bonuses;
  section.replaceChildren(
    h("h2", {}, "Final results"),
    h("ol", { class: "podium", "aria-label": "Podium" }, step(2), step(1), step(3)),
    h("table", { id: "results" },
      h("thead", {}, h("tr", {}, h("th", { class: "n" }, "Place"), h("th", {}, "Player"),
        h("th", { class: "n" }, "Base"), h("th", { class: "n" }, "Bonus"), h("th", { class: "n" }, "Adj."),
        h("th", { class: "n" }, "Total"), h("th", { class: "n" }, "Prize"))),
      h("tbody", {}, rows.map((s) => h("tr", { dataset: { playerId: s.player_id } },
        h("td", { class: "n" }, s.place), h("td", { class: "name" },
          h("a", { href: recapOf(s), class: "recap" }, s.display_name || "a player")),
        h("td", { class: "n" }, s.base), h("td", { class: "n" }, s.bonuses),
        h("td", { class: "n adj" }, adjustment(s) ? (adjustment(s) > 0 ? "+" : "") + adjustment(s) : ""),
        h("td", { class: "n" }, s.total), h("td", { class: "n" }, money(s.prize)))))),
    h("p", { class: "muted small" }, "Prizes per R26; Adj. is an organizer's correction (R28), "
      + "listed on the corrections log."));
  section.hidden = false;
  return true;
}
