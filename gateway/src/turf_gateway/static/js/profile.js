// A player's public profile and season recap (/profile?player=<id>): place, towns, longest hold, best steal,
// medals, the footprint map, the shareable recap image and the statistics plot. Public facts only: the routes
// GET /players/{id}/recap, …/recap.png, …/stats.png and …/footprint never carry an email, address or fix.

import { API, gameTime, h, $ } from "./api.js";
import { showFootprint } from "./footprint.js";

const TIER_ORDER = ["bronze", "silver", "gold", "platinum"];

// "1 game day", "3 game days"; a hold not yet lasted to a close is "less than a game day" (it read "0 game days")
function gameDays(n) {
  return n > 0 ? `${n} game day${n === 1 ? "" : "s"}` : "less than a game day";
}

function fact(dl, term, value) {
  dl.append(h("dt", {}, term), h("dd", {}, value));
}

function medalItem(m) {
  const next = m.next_threshold ? ` · next tier at ${m.next_threshold}` : "";
  return h("li", { class: `medal tier-${m.tier || "none"}`, dataset: { medal: m.id, tier: m.tier || "" } },
    h("b", {}, m.name), ` ${m.tier || "not yet"} — ${m.counts}: ${m.value}${next}`);
}

async function main() {
  const id = new URLSearchParams(location.search).get("player");
  if (!id) {
    $("#profile-name").textContent = "No player chosen";
    return;
  }
  const enc = encodeURIComponent(id);
  const [rr, mr] = await Promise.all([fetch(`${API}/players/${enc}/recap`), fetch(`${API}/players/${enc}/medals`)]);
  if (!rr.ok || !mr.ok) {
    $("#profile-name").textContent = "No such player";
    return;
  }
  const recap = await rr.json();
  const medals = (await mr.json()).medals;
  document.title = `Turf War — ${recap.display_name}`;
  $("#profile-name").textContent = recap.display_name;
  // "live place" until the close, then "final place": one word for one thing, as the recap image says it
  const place = recap.place == null ? "not placed" : `${recap.final ? "final" : "live"} place ${recap.place}`;
  $("#profile-place").textContent = place;
  const dl = $("#recap-facts");
  dl.replaceChildren();
  fact(dl, "Towns held", `${recap.towns_held} (of ${recap.towns_ever} ever)`);
  const hold = recap.longest_hold;
  fact(dl, "Longest hold", hold ? `${hold.name}, ${gameDays(hold.days)} (since ${gameTime(hold.since)})` : "—");
  const steal = recap.best_steal;
  fact(dl, "Best steal", steal ? `${steal.name} on ${gameTime(steal.at)}, held ${gameDays(steal.held_days)}` : "—");
  const st = recap.stats;
  fact(dl, "Steals", `${st.steals_given} given, ${st.steals_taken} taken`);
  fact(dl, "Rival fought most", st.rival_id ? `${st.rival_name || "a player"} (${st.rival_steals} steals)` : "—");
  const sorted = [...medals].sort((a, b) => TIER_ORDER.indexOf(b.tier) - TIER_ORDER.indexOf(a.tier));
  $("#medals").replaceChildren(...sorted.map(medalItem));
  $("#recap-img").src = `${API}/players/${enc}/recap.png`;
  $("#recap-img").alt = `Season recap of ${recap.display_name}: ${place}, ${recap.towns_held} towns held`;
  $("#recap-link").href = `${API}/players/${enc}/recap.png`;
  $("#stats-img").src = `${API}/players/${enc}/stats.png`;
  $("#stats-img").alt = `Statistics of ${recap.display_name}: claims by hour, steals given and taken`;
  document.body.dataset.loaded = "1";
  await showFootprint($("#footprint"), id, $("#footprint-list"));
  document.body.dataset.footprint = "1";
}

main().catch((e) => {
  $("#profile-name").textContent = "The profile could not be loaded";
  console.error(e);
});
