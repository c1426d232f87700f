// "How to play": the rulebook's essentials in the page, with this season's dates, hours and limits from
// the server (GET /season), so the text never disagrees with the game. Rulings cited as RULINGS.md numbers them.

import { api, h } from "./api.js";

const DATE = new Intl.DateTimeFormat("en-US", { weekday: "short", month: "short", day: "numeric", timeZone: "UTC" });
const day = (iso) => DATE.format(new Date(iso + "T12:00:00Z"));

function essentials(s) {
  const days = s.open_weekdays.length === 6 && s.open_weekdays[0] === "Mon" ? "Monday to Saturday"
    : s.open_weekdays.join(", ");
  return [
    ["When", `${day(s.first_day)} – ${day(s.last_day)}: ${s.game_days.length} game days, ${days}, ${s.opens}–`
      + `${s.closes} New York time. Outside those hours nothing can be claimed or played (R2, R3).`],
    ["Claim", `Go into a town and press Claim: your phone's position must be inside it (not on a border with its `
      + `neighbour), accurate to ${s.limits.max_accuracy_m} m and at most ${s.limits.max_fix_age_s} s old (R7). `
      + "You have 1 claim a game day (R6); the first claim of a town locks it for everyone else until tomorrow (R10)."],
    ["Fortify", "Claim your own town again on the next game day, and the next: at 3 of 3 it is fortified and "
      + "nobody can take it for the rest of the season (R9, R11)."],
    ["Steal", "Claim a rival's town that is not fortified and it is yours. The victim has 5 game hours to play War: "
      + "the town goes back to them and the thief gets 16 game hours to reclaim it (R14)."],
    ["Cards", "Your hand is topped up to 3 cards on Mondays and gets 1 more each other game day (R12): Freeze and "
      + "Blockade protect tomorrow, War answers a steal, Double Trouble gives a second claim today, Mulligan undoes "
      + "today's claim, Joker awards an unclaimed town, Trade swaps towns with a player who also holds one."],
    ["Score", "Your score is the size of your largest cluster of connected towns; towns outside it are outposts "
      + "worth 0 (R23). +3 each for the most waterfront towns, the most land and the most residents (R24)."],
    ["Safety", "Never play while driving: pull over, or let a passenger claim (the safety rule)."],
  ];
}

// Renders into `el` (a <section>); leaves it hidden when the server has no /season.
export async function renderHowTo(el) {
  let s;
  try {
    s = await api("/season", { auth: false });
  } catch {
    return false;
  }
  el.replaceChildren(h("h2", {}, "How to play"),
    h("dl", { class: "facts howto" }, essentials(s).flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])));
  el.hidden = false;
  return true;
}
