// The opening bell: every player's page is open when the game opens, so what each page asks then is
// multiplied by the whole league in the same seconds. Around an opening the play page asks only what the player
// does — the check where they stand, at the opening, and their claim — and leaves the rest for after: its polls
// (clock, My turf, notifications) skip their turns, and the reads the opening makes due (the day's hand, my
// profile) or that a claim makes due (My turf) run once the bell is over, each page at its own moment of a spread
// so that they do not come back all together either.
//
// Counted on the game clock (gameclock.js). A clock that stands still (the manual clock of rehearsals and tests,
// rate 0) has no opening the page can see coming: nothing is held back then.

export const BEFORE_MS = 90 * 1000;   // the quiet starts this long before the opening (game time)
export const AFTER_MS = 60 * 1000;    // and ends this long after it
export const SPREAD_MS = 60 * 1000;   // what waited is asked at a random moment of this span after the quiet
export const OPENING_JITTER_MS = 2000;   // the check at the opening, spread over its first 2 s

export class Bell {
  // clock: the page's GameClock; onOpening(): the game has just opened (the page checks where the player stands)
  constructor(clock, onOpening = () => {}) {
    this.clock = clock;
    this.onOpening = onOpening;
    this.opening = null;   // the next (or the current bell's) opening, ms on the game clock
    this.timer = null;     // fires at the opening
    this.jitter = 0;       // ms after the opening this page checks (its moment of the opening's spread)
    this.waiting = new Map();   // what waits for the quiet's end, by name (one read each, however often asked)
    this.flush = null;     // fires when the quiet ends
  }

  // each GET /clock answer: a closed game's next change is its opening
  learn(c) {
    if (!c || !c.next_change || this.clock.rate <= 0) return;
    if (c.open) {
      // open: the opening passed (keep it while its quiet lasts, so the reads it made due wait their turn)
      if (this.opening !== null && !this.quiet()) this.opening = null;
      return;
    }
    const at = Date.parse(c.next_change);
    // each page's moment of the spread is drawn once an opening; the timer is armed again at every answer, on the
    // clock as it now reads: a later answer that moves the clock (the device's drift corrected, an organizer's
    // rehearsal clock read again) would otherwise ring the bell before the opening, and its check be refused (R3)
    if (at !== this.opening) this.jitter = Math.random() * OPENING_JITTER_MS;
    this.opening = at;
    clearTimeout(this.timer);
    const ms = this.realMs(at - this.clock.now()) + this.jitter;
    this.timer = setTimeout(() => this.onOpening(), Math.max(0, ms));
  }

  // real milliseconds for game milliseconds on this clock
  realMs(gameMs) {
    return gameMs / (this.clock.rate || 1);
  }

  // is the page within an opening's quiet now?
  quiet() {
    const now = this.clock.now();
    if (this.opening === null || now === null || this.clock.rate <= 0) return false;
    return now >= this.opening - BEFORE_MS && now < this.opening + AFTER_MS;
  }

  // run fn now, or, within the quiet, once it is over (at a random moment of the spread); a name asked again
  // while it waits is run once
  later(name, fn) {
    if (!this.quiet()) return fn();
    this.waiting.set(name, fn);
    if (this.flush) return undefined;
    const end = this.realMs(this.opening + AFTER_MS - this.clock.now());
    this.flush = setTimeout(() => {
      this.flush = null;
      const due = [...this.waiting.values()];
      this.waiting.clear();
      for (const f of due) Promise.resolve().then(f).catch(() => {});
    }, Math.max(0, end) + Math.random() * SPREAD_MS);
    return undefined;
  }
}
