// Seasons on the pages (R31): the sentence between seasons ("The 2027 season opens Monday 4 October at 06:00 —
// 27 days", or "The next season has not been announced"), from GET /clock's next_season; and the organizer's
// panel that lists the seasons and makes the next one (POST /api/v1/admin/seasons).

import { $, act, api, formData, h } from "./api.js";

const DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
  "November", "December"];

// the wall time of an ISO instant with its offset as written ("2027-10-04T06:00:00-04:00" → Monday 4 October at
// 06:00): the season's own zone, whatever the device's
function opening(iso) {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(iso || "");
  if (!m) return iso;
  const day = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return `${DAYS[(day.getUTCDay() + 6) % 7]} ${+m[3]} ${MONTHS[+m[2] - 1]} at ${m[4]}:${m[5]}`;
}

// whole days from the game clock's now to the opening (the clock, not the device: a rehearsal's clock is elsewhere)
function daysUntil(iso, now) {
  const d = Math.ceil((Date.parse(iso) - Date.parse(now)) / 86400e3);
  return Number.isNaN(d) ? "" : d <= 0 ? "" : d === 1 ? " — tomorrow" : ` — ${d} days`;
}

// The sentence of a page between seasons, or "" while a season runs (or before the first one opens, when the
// clock's own countdown says it)
export function seasonLine(c) {
  if (!c || c.season_state !== "closed") return "";
  const n = c.next_season;
  if (!n) return "The next season has not been announced.";
  return `The ${n.name} season opens ${opening(n.first_opening)}${daysUntil(n.first_opening, c.now)}.`;
}

// a page's banner between seasons: shown with the sentence, hidden while a season runs
export function showSeasonLine(el, c) {
  if (!el) return;
  el.textContent = seasonLine(c);
  el.hidden = !el.textContent;
}

// R31: a player who has not joined the next season (or the running one) is offered to, with one button
let joinable = null;
export function offerJoin(c, me) {
  const box = $("#season-join");
  if (!box) return;
  const target = c && (c.next_season || (c.season_state === "running" ? { id: c.season_id, name: c.season_id } : null));
  const show = !!(target && me && me.role === "player" && !(me.seasons || []).includes(target.id));
  joinable = show ? target : null;
  box.hidden = !show;
  if (show) {
    $("#season-join-text").textContent = `You have not joined the ${target.name} season yet. `
      + "Joining confirms your home address.";
    $("#season-join-button").textContent = `Join the ${target.name} season`;
  }
}

export function installJoin(afterJoin) {
  const button = $("#season-join-button");
  if (!button) return;
  button.addEventListener("click", () => act(button, $("#season-join-msg"), async () => {
    const target = joinable;   // the page's answer after the join offers nothing more
    if (!target) return "";
    const joined = await api(`/seasons/${encodeURIComponent(target.id)}/join`, { method: "POST" });
    await afterJoin();
    return joined.status === "pending"
      ? `You joined the ${target.name} season; the organizer verifies your home address again before you play.`
      : `You joined the ${target.name} season.`;
  }));
}

// ---------- the organizer's panel ----------

function seasonItem(s) {
  return h("li", { dataset: { season: s.id, state: s.state } },
    h("b", {}, s.name), ` · ${s.first_day} to ${s.last_day} · `, h("span", { class: "badge" }, s.state));
}

// Lists the seasons; leads the page with "Set up the next season" when the last one is over and none is announced
export async function refreshSeasons(clock) {
  const panel = $("#seasons");
  if (!panel) return;
  let listed = [];
  try {
    listed = (await api("/seasons", { auth: false })).seasons;
  } catch {
    listed = [];
  }
  $("#seasons-list").replaceChildren(...listed.map(seasonItem));
  const setUp = !!clock && clock.season_state === "closed" && !clock.next_season;
  $("#seasons-title").textContent = setUp ? "Set up the next season" : "Seasons";
  $("#seasons-lead").textContent = seasonLine(clock) || (listed.length ? "" : "No season yet.");
  if (setUp && panel.parentElement && panel.parentElement.firstElementChild !== panel) {
    panel.parentElement.prepend(panel);
  }
}

// the form's fields as POST /admin/seasons's body: weekdays from the checkboxes, prizes from "50.00, 25.00, …"
export function seasonForm(form) {
  const raw = formData(form);
  const body = { id: raw.id, name: raw.name || raw.id, zone: raw.zone, first_day: raw.first_day,
    last_day: raw.last_day, open_time: raw.open_time, close_time: raw.close_time,
    open_weekdays: [...form.querySelectorAll("input[name=weekday]:checked")].map((x) => +x.value),
    rehearsal: !!form.querySelector("input[name=rehearsal]:checked") };
  if (raw.prizes) body.prizes = raw.prizes.split(",").map((a, i) => ({ place: i + 1, amount: a.trim() }));
  return body;
}

export function installSeasonForm(afterSave) {
  const form = $("#season-form");
  if (!form) return;
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    await act(form.querySelector("button[type=submit]"), $("#season-msg"), async () => {
      const s = await api("/admin/seasons", { method: "POST", body: seasonForm(form) });
      await afterSave();
      return `Saved: the ${s.name} season opens ${opening(s.first_opening)}. Its card seed's commitment is `
        + `${s.seed_commitment.slice(0, 12)}…`;
    });
  });
}
