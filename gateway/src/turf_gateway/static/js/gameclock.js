// The game clock as the pages count with it: never the device's own clock, which may be wrong, and in a
// rehearsal is not the game's time at all. The server's `now` (GET /clock) plus the time elapsed on this device
// since that answer, times the clock's rate: 1 for the real clock, N for accelerated:N, 0 for the manual clock
// (time stands still between the organizer's moves, so the page shows the server's instant as it is).

export class GameClock {
  constructor(rate = 1) {
    this.rate = rate;
    this.base = null; // the server's now (ms since 1970) at the last answer
    this.at = 0; // performance.now() when that answer arrived
    this.wall = 0; // Date.now() then
    this.last = null; // the last GET /clock answer
  }

  set(c) {
    if (!c || !c.now) return;
    this.last = c;
    this.base = Date.parse(c.now);
    this.at = performance.now();
    this.wall = Date.now();
  }

  // may now() stand for the server's clock without asking it again (a check or claim at the opening
  // sends no GET /clock first)? Not on a clock that stands still (the organizer moves it), nor after a while, nor
  // when the device slept since the answer (performance.now() may stop in sleep, Date.now() does not)
  fresh(maxAgeMs = 5 * 60 * 1000) {
    if (this.base === null || this.rate <= 0) return false;
    const wall = Date.now() - this.wall;
    return wall >= 0 && wall < maxAgeMs && Math.abs(performance.now() - this.at - wall) < 2000;
  }

  // the game instant now (ms), or null before the first answer
  now() {
    if (this.base === null) return null;
    return this.base + (performance.now() - this.at) * this.rate;
  }

  // ms from the game's now to an ISO instant (negative once passed), or null
  until(iso) {
    const now = this.now();
    return now === null || !iso ? null : Date.parse(iso) - now;
  }
}

// 3 700 000 → "1 h 01 min"; 59 000 → "59 s"; 2 days and more → "2 d 4 h"
export function duration(ms) {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "—";
  if (ms <= 0) return "now";
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400);
  const hr = Math.floor((s % 86400) / 3600);
  const min = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d} d ${hr} h`;
  if (hr > 0) return `${hr} h ${String(min).padStart(2, "0")} min`;
  if (min > 0) return `${min} min`;
  return `${s} s`;
}

// Every element with data-until="<ISO>" shows the time left to it on `clock`; data-prefix/data-done around it.
export function tick(root, clock) {
  for (const el of root.querySelectorAll("[data-until]")) {
    const left = clock.until(el.dataset.until);
    el.textContent = left !== null && left <= 0 ? (el.dataset.done || "now") : `in ${duration(left)}`;
  }
}
