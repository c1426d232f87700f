// The play page's countdowns (docs/countdowns.md): the game clock's next opening or closing, my War
// deadlines, my reclaim windows and the state of each of my territories, from GET /clock and GET /me/territories,
// counted down on the server's game clock (gameclock.js).

import { $, gameTime, h, optional, playerName } from "./api.js";
import { tick } from "./gameclock.js";

// a game day, "2026-10-06" → "Tue 6 Oct" (a calendar date: no time zone to convert)
const DAY_FORMAT = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", weekday: "short", day: "numeric",
  month: "short" });
function dayName(isoDate) {
  const t = Date.parse(isoDate + "T12:00:00Z");
  if (Number.isNaN(t)) return isoDate;
  const p = Object.fromEntries(DAY_FORMAT.formatToParts(new Date(t)).map((x) => [x.type, x.value]));
  return `${p.weekday} ${p.day} ${p.month}`;
}

function left(iso, done) {
  return h("span", { class: "left", dataset: { until: iso, done: done || "now" } });
}

// The next opening or closing of the game (R3), or the season's state
export function renderNextChange(el, c) {
  if (!el) return;
  if (!c) {
    el.replaceChildren("The game clock is unavailable.");
    return;
  }
  if (c.season_state === "closed" || !c.next_change) {
    el.replaceChildren("The season is closed.");
    el.dataset.next = "";
    return;
  }
  const verb = c.open ? "closes" : "opens";
  el.dataset.next = verb;
  el.replaceChildren(`The game ${verb} `, left(c.next_change, verb === "opens" ? "opening…" : "closing…"),
    ` (${gameTime(c.next_change)}).`);
}

function streakText(t) {
  const target = t.next_progress ? `${t.next_progress}/3` : "";
  switch (t.streak) {
    case "fortified": return ["Fortified: nobody can take it this season (R11)."];
    case "claimed": return [t.progress >= 2 ? `Claimed today: claim it again next game day for ${t.progress + 1}/3.`
      : "Claimed today: claim it again next game day to keep the streak."];
    case "keeps":
      return t.keeps_streak_today
        ? ["Claim it today to keep the streak: ", target, ", closes ", left(t.claim_closes, "closed"), "."]
        : [`Claim it on ${dayName(t.claim_day)} to keep the streak (${target}), opens `, left(t.claim_opens), "."];
    case "restarts": return [`Streak broken: a claim on ${dayName(t.claim_day)} restarts at 1/3.`];
    default: return ["No game day is left this season."];
  }
}

async function territoryItem(t) {
  const chips = [];
  if (t.frozen_today) chips.push(" ", h("span", { class: "badge frozen" }, "frozen today"));
  if (t.locked_today) chips.push(" ", h("span", { class: "badge" }, "locked today"));
  const lines = [h("div", { class: "small" }, ...streakText(t))];
  if (t.reclaim_until) {
    lines.push(h("div", { class: "small warn" }, `${await playerName(t.reclaim_holder_id)} may reclaim it until `
      + `${gameTime(t.reclaim_until)} (`, left(t.reclaim_until, "over"), ")."));
  }
  if (t.war_until) {
    lines.push(h("div", { class: "small warn" }, `${await playerName(t.war_by)} may play War on it until `
      + `${gameTime(t.war_until)} (`, left(t.war_until, "over"), ")."));
  }
  return h("li", { dataset: { territoryId: t.id, streak: t.streak, progress: t.progress } },
    h("div", {}, h("b", {}, t.name), ` · progress ${t.progress}/3`, ...chips), ...lines);
}

export class Countdowns {
  // onDrift(): called when an answer's `now` is not the clock's (the organizer moved a manual clock, say): the
  // page reads GET /clock again; onData(answer): each GET /me/territories answer, for My turf (myturf.js)
  // hasCard(type): does my hand hold a ready card of this type (War is advised only when it is there)
  // onWar(territoryId, button): plays War on a stolen town from its banner (the alert carries its action)
  constructor(root, clock, onDrift = () => {}, onData = () => {}, hasCard = () => true, onWar = null) {
    this.root = root;
    this.onWar = onWar;
    this.hasCard = hasCard;
    this.clock = clock;
    this.onDrift = onDrift;
    this.onData = onData;
    this.available = true;
    setInterval(() => this.tick(), 1000);
  }

  tick() {
    if (!this.root.hidden) tick(this.root, this.clock);
    tick($("#deadlines-box"), this.clock);
  }

  // the clock part (no sign-in needed)
  showClock(c) {
    renderNextChange($("#next-change", this.root), c);
    this.tick();
  }

  // "Play War before 17:40" only to a player holding a War card; otherwise what War would have allowed
  warAdvice(d) {
    const hours = ` (${+d.game_hours_left.toFixed(1)} game hours).`;
    if (this.hasCard("war")) return [`Play War before ${gameTime(d.war_until)}: `, left(d.war_until, "too late"), hours];
    return [`A War card would win it back until ${gameTime(d.war_until)}, but you hold none: `,
      left(d.war_until, "too late"), hours];
  }

  // the banner's action: "Play War" on this town, with a War card in the hand and the window open
  warButton(d) {
    if (!this.onWar || !this.hasCard("war") || !(this.clock.until(d.war_until) > 0)) return [];
    const b = h("button", { type: "button", class: "war-now", dataset: { territoryId: d.territory_id } }, "Play War");
    b.addEventListener("click", () => this.onWar(d.territory_id, b));
    return [b];
  }

  // GET /me/territories; null when this server has no such route (the panel keeps the clock only)
  async refresh() {
    if (!this.available) return;
    let out;
    try {
      out = await optional("/me/territories");
    } catch {
      return; // a transient error: the next refresh tries again, the last list stays
    }
    if (out === null) {
      this.available = false;
      return;
    }
    Promise.resolve(this.onData(out)).catch(() => {}); // My turf keeps its last list; the next answer redraws it
    const drift = this.clock.until(out.now);
    if (drift === null || Math.abs(drift) > 2000) await this.onDrift();
    const wars = await Promise.all((out.war_deadlines || []).map(async (d) => h("li",
      { class: "urgent", dataset: { territoryId: d.territory_id } },
      h("div", {}, h("b", {}, d.name), ` was stolen by ${await playerName(d.by)}.`),
      h("div", { class: "small" }, ...this.warAdvice(d)), ...this.warButton(d))));
    const reclaims = (out.reclaim_windows || []).map((w) => h("li",
      { class: "urgent", dataset: { territoryId: w.territory_id } },
      h("div", {}, `Reclaim `, h("b", {}, w.name), " by claiming it there, free (R14)."),
      h("div", { class: "small" }, `Until ${gameTime(w.until)}: `, left(w.until, "over"),
        ` (${+w.game_hours_left.toFixed(1)} game hours).`)));
    const mine = await Promise.all((out.territories || []).map(territoryItem));
    // the deadlines are the banner at the top of the page, outside this panel
    $("#war-deadlines").replaceChildren(...wars);
    $("#reclaim-windows").replaceChildren(...reclaims);
    $("#my-territories", this.root).replaceChildren(...(mine.length ? mine
      : [h("li", { class: "muted small" }, "You own no territory yet.")]));
    $("#deadlines-box").hidden = !wars.length && !reclaims.length;
    this.root.dataset.loaded = String(+(this.root.dataset.loaded || 0) + 1);
    this.tick();
  }
}
