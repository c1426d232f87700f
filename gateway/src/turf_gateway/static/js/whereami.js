// "Where am I, always": whenever the position changes meaningfully, the play page asks
// POST /claims/check (which changes nothing) and says which town I stand in, its owner and whether I may claim it
// now, or the rule that stops me in its sentence — without pressing anything. The map follows me until I pan it
// away; a re-centre button brings it back.

const MIN_GAP_MS = 10000;   // at most one automatic check every 10 s (the server allows 30 a minute, R7.1 trails)
const MOVED_M = 25;
const KEPT = "turf.lastWhere";         // a move shorter than this (GPS jitter) asks nothing new

function metres(a, b) {
  const rad = Math.PI / 180;
  const x = (b.lon - a.lon) * rad * Math.cos(((a.lat + b.lat) / 2) * rad);
  const y = (b.lat - a.lat) * rad;
  return Math.hypot(x, y) * 6371000;
}

export class WhereAmI {
  // board: BoardMap; el: the sentence's element; recentre: the button; check: async () → the /claims/check answer;
  // describe: async (answer) → the sentence; onAnswer(answer): each answer shown (the Claim button follows it)
  constructor({ board, el, recentre, check, describe, onAnswer = () => {} }) {
    Object.assign(this, { board, el, recentre, check, describe, onAnswer });
    // when (device time) the last sentence was answered, and its town's name: kept across a reload offline
    const kept = JSON.parse(localStorage.getItem(KEPT) || "null");
    this.shownAt = kept?.at || null;
    this.town = kept?.town || null;
    this.last = null;       // {lat, lon} of the last check
    this.pending = null;    // {lat, lon} of the check on its way, if any
    this.lastAt = 0;
    this.timer = null;
    this.following = true;
    this.here = null;       // the territory I stand in
    this.pos = null;
    this.asked = 0;         // answers asked for so far: only the newest is shown
    // a pan by the player (not by us) stops the following; Leaflet's dragstart fires only for the user's drag
    board.map.on("dragstart", () => this.follow(false));
    recentre.addEventListener("click", () => this.follow(true));
  }

  follow(on) {
    this.following = on;
    this.recentre.hidden = on;
    if (on && this.pos) {
      this.board.map.setView([this.pos.lat, this.pos.lon], Math.max(this.board.map.getZoom(), 13), { animate: false });
    }
  }

  // every fix from watchPosition
  moved(coords) {
    this.pos = { lat: coords.latitude, lon: coords.longitude };
    if (this.following) this.board.map.panTo([this.pos.lat, this.pos.lon], { animate: false });
    // a fix where the check on its way (the one at the opening, say) stands asks nothing more either
    const near = this.last || this.pending;
    if (near && metres(near, this.pos) < MOVED_M) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(), Math.max(0, this.lastAt + MIN_GAP_MS - Date.now()));
  }

  // after a claim, a card play or a sign-in: what I may do where I stand has changed. Asked at once rather than
  // after the 10-s gap: these follow the player's own actions, which are few, and the sentence must not stay wrong
  refresh() {
    this.last = null;
    if (!this.pos) return;
    clearTimeout(this.timer);
    this.run();
  }

  // Someone's claim, a card or a correction changed the town I stand in (its new owner known from the feed or my
  // own claim's answer): the sentence names the new owner at once, says nothing about claiming until the check
  // answers (Claim off meanwhile), and the check is asked now (ask: the page's way to ask it, the bell's later)
  changed(territoryId, ownerText, ask = () => this.refresh()) {
    if (!this.here || territoryId !== this.here || this.el.dataset.offline === "true") return false;
    this.asked += 1;   // an answer on its way was about the town as it was: dropped
    this.el.textContent = `You are in ${this.town} (owner: ${ownerText}). Checking whether you can claim it…`;
    this.stale(ask);
    return true;
  }

  // a claim here was refused: the refusal is the sentence until the check answers again
  refused(message, ask = () => this.refresh()) {
    if (!this.here || this.el.dataset.offline === "true") return;
    this.asked += 1;
    this.el.textContent = `You are in ${this.town}. You cannot claim it: ${message}`;
    this.stale(ask);
  }

  stale(ask) {
    this.el.dataset.allowed = "false";
    this.el.dataset.checking = "true";
    this.onAnswer(null);
    this.last = null;
    clearTimeout(this.timer);
    ask();
  }

  // an answer the page asked for itself (the Check button): shown here too, and counted as the last check
  answered(r) {
    if (!this.pos) return;
    this.asked += 1;   // an automatic check still on its way is older: its answer is dropped
    this.last = { ...this.pos };
    this.lastAt = Date.now();
    clearTimeout(this.timer);
    return this.show(r);
  }

  // offline: the sentence no longer pretends to know where I am now, but says what it knew and when
  static offlineText() {
    const kept = JSON.parse(localStorage.getItem(KEPT) || "null");
    if (!kept?.at) return "Offline — where you stand is checked again when the connection is back.";
    const at = new Date(kept.at).toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" });
    return `Offline — last checked at ${at}${kept.town ? ` in ${kept.town}` : ""}.`;
  }

  offline() {
    this.asked += 1;   // an answer still on its way is not shown over this
    clearTimeout(this.timer);
    this.el.textContent = WhereAmI.offlineText();
    this.el.dataset.offline = "true";
    this.el.hidden = false;
  }

  // signed out: nothing to say, no town outlined
  clear() {
    clearTimeout(this.timer);
    this.asked += 1;
    this.last = null;
    this.here = null;
    this.board.mark(null);
    this.el.hidden = true;
  }

  async run() {
    if (!this.pos) return;
    const at = { ...this.pos };
    const asked = ++this.asked;
    this.lastAt = Date.now();
    this.pending = at;
    let r;
    try {
      r = await this.check();
    } catch {
      if (this.pending === at) this.pending = null;
      // a failed check (a busy server, rate-limited) is asked again after the gap, not only at the next move: a
      // player standing still would keep an old sentence. Offline, the "online" event asks (play.js)
      if (asked === this.asked && navigator.onLine) {
        clearTimeout(this.timer);
        this.timer = setTimeout(() => this.run(), MIN_GAP_MS);
      }
      return;
    }
    if (this.pending === at) this.pending = null;
    // the gap runs from the answer: the request may leave a moment after run() began (the bell's spread, a clock
    // read), and the next automatic check must still come 10 s after it went out
    this.lastAt = Date.now();
    if (asked !== this.asked) return;   // a newer answer is (or will be) shown
    this.last = at;
    await this.show(r, asked);
  }

  async show(r, asked = this.asked) {
    this.here = r.territory ? r.territory.id : null;
    this.board.mark(this.here);
    const text = await this.describe(r);
    if (asked !== this.asked) return;
    this.shownAt = Date.now();
    this.town = r.territory ? r.territory.name : null;
    localStorage.setItem(KEPT, JSON.stringify({ at: this.shownAt, town: this.town }));
    this.el.dataset.offline = "false";
    this.el.dataset.checking = "false";
    this.onAnswer(r);
    this.el.textContent = text;
    this.el.dataset.territoryId = this.here || "";
    this.el.dataset.allowed = String(!!r.allowed);
    this.el.dataset.reason = r.reason || "";
    this.el.hidden = false;
  }
}
