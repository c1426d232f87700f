// The play page's notifications (API.md "Notifications and announcements"): an unread badge and the list,
// read with GET /me/notifications?after=<id> every 15 s and whenever a feed message may concern me, except while the
// page is quiet (`quiet()`: around an opening; the first reading after it catches up); marked read
// with POST /me/notifications/read {up_to}. A server without these routes (404) shows nothing at all, and is not
// asked again until the page loads again.

import { api, ApiError, gameTime, h, session } from "./api.js";

const POLL_MS = 15000;
const KEEP = 50; // notifications shown

function readKey() {
  return "turf.notifications.read." + (session()?.player_id || "");
}

export class Notifications {
  // onRead(items): the notifications just marked read (the page hides an announcement read so)
  // open(): shows the panel where the page keeps it (the play page: its Notifications tab), instead of toggling it
  // in place; onEnabled(bool): whether this server has notifications for me (the page offers the tab then)
  // quiet(): true while the page asks nothing of its own accord (bell.js)
  // actions(n): the buttons a notification carries (Play War on a steal, Accept on a trade offer), if it can be acted
  // on now; [] when not. onNew(items): the notifications a reading brought (the page follows what they tell)
  constructor({ button, count, panel, list, markRead, onRead = () => {}, open = null, onEnabled = () => {},
    quiet = () => false, actions = () => [], onNew = () => {} }) {
    Object.assign(this, { button, count, panel, list, markRead, onRead, open, onEnabled, quiet, actions, onNew });
    this.items = []; // oldest first
    this.enabled = false;
    this.stopped = false;
    this.timer = null;
    this.again = null;
    this.busy = null;
    button.addEventListener("click", () => this.toggle());
    markRead.addEventListener("click", () => this.readAll());
  }

  lastId() {
    return this.items.length ? this.items[this.items.length - 1].id : null;
  }

  // ids grow (API.md: after=<id>); everything after the read mark is unread
  isUnread(n) {
    const seen = localStorage.getItem(readKey());
    return !n.read && (seen === null || Number(n.id) > Number(seen));
  }

  unread() {
    return this.items.filter((n) => this.isUnread(n)).length;
  }

  async start() {
    if (this.stopped || !session()) return;
    await this.fetch();
    clearInterval(this.timer);
    if (!this.stopped) this.timer = setInterval(() => this.quiet() || this.fetch(), POLL_MS);
  }

  stop() {
    clearInterval(this.timer);
    clearTimeout(this.again);
    this.items = [];
    this.enabled = false;
    this.render();
  }

  // a feed message arrived: maybe something for me
  poke() {
    if (!this.enabled || this.quiet()) return;   // quiet: the next poll after it reads what came
    const before = this.lastId();
    Promise.resolve(this.fetch()).then(() => {
      // the feed and the notifications service read the same events apart: the notification a message is about may
      // be stored a moment after the message arrives, so a reading that found nothing new is made once more
      if (this.lastId() !== before || this.stopped) return;
      clearTimeout(this.again);
      this.again = setTimeout(() => this.fetch(), 2000);
    });
  }

  async fetch() {
    if (this.stopped || !session()) return;
    if (this.busy) return this.busy; // one request at a time, so none of them misses or repeats an item
    this.busy = (async () => {
      const after = this.lastId();
      try {
        const out = await api("/me/notifications" + (after === null ? "" : `?after=${encodeURIComponent(after)}`));
        const fresh = (out && out.notifications) || [];
        const known = new Set(this.items.map((n) => String(n.id)));
        const added = fresh.filter((n) => !known.has(String(n.id)));
        this.items.push(...added);
        if (added.length) this.onNew(added);
        this.items = this.items.slice(-KEEP);
        // the server's read mark (POST /me/notifications/read) counts on every device
        const seen = localStorage.getItem(readKey());
        if (out && typeof out.read_up_to === "number" && (seen === null || out.read_up_to > Number(seen))) {
          localStorage.setItem(readKey(), String(out.read_up_to));
        }
        this.enabled = true;
      } catch (e) {
        if (e instanceof ApiError && (e.status === 404 || e.status === 405)) {
          this.stopped = true; // this server has no notifications yet: silent, no badge
          clearInterval(this.timer);
          this.enabled = false;
        }
        // anything else (offline, 503): keep what is shown, the next poll tries again
      } finally {
        this.busy = null;
      }
      this.render();
    })();
    return this.busy;
  }

  render() {
    this.button.hidden = !this.enabled;
    if (!this.enabled) this.panel.hidden = true;
    else if (this.open) this.panel.hidden = false;   // in a tab of its own: shown with the tab
    this.onEnabled(this.enabled);
    const n = this.unread();
    this.count.textContent = n ? String(n) : "";
    this.count.hidden = !n;
    this.button.setAttribute("aria-label", n ? `Notifications, ${n} unread` : "Notifications");
    this.button.dataset.unread = String(n);
    const rows = this.items.map((x) => h("li", { class: this.isUnread(x) ? "unread" : "",
      dataset: { kind: x.kind, id: x.id } }, h("span", { class: "when" }, gameTime(x.at)), " ", x.message,
      ...this.actionRow(x))).reverse();
    this.list.replaceChildren(...(rows.length ? rows : [h("li", { class: "muted small" }, "Nothing yet.")]));
  }

  actionRow(x) {
    const buttons = this.actions(x);
    return buttons.length ? [h("div", { class: "row actions" }, ...buttons)] : [];
  }

  toggle() {
    if (this.open) {
      this.open();
      return;
    }
    this.panel.hidden = !this.panel.hidden;
    this.button.setAttribute("aria-expanded", String(!this.panel.hidden));
    if (!this.panel.hidden) this.panel.scrollIntoView({ block: "nearest" });
  }

  async readAll() {
    const last = this.lastId();
    if (last === null) return;
    localStorage.setItem(readKey(), String(last));
    this.render();
    this.onRead(this.items);
    try {
      await api("/me/notifications/read", { method: "POST", body: { up_to: last } });
    } catch {
      // read here already; the server learns it at the next reading
    }
  }
}

// ---- Web Push: "notify me on this phone" ----

function keyBytes(b64) {
  const pad = "=".repeat((4 - (b64.length % 4)) % 4);
  const raw = atob((b64 + pad).replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(raw, (ch) => ch.charCodeAt(0));
}

export function pushSupported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window
    && window.isSecureContext !== false;
}

// The service worker lives at /sw.js, so its scope covers every page (/, /watch)
async function registration() {
  return navigator.serviceWorker.register("/sw.js", { scope: "/" });
}

export class PushToggle {
  constructor(button, out) {
    this.button = button;
    this.out = out;
    this.key = null;
    button.addEventListener("click", () => this.click());
  }

  // shown only when the browser can and the server has a VAPID key (GET /push/key)
  async start() {
    this.button.hidden = true;
    if (!pushSupported() || !session()) return;
    try {
      this.key = (await api("/push/key", { auth: false }))?.key || null;
    } catch {
      this.key = null; // 404 before the notifications service: no button
    }
    if (!this.key) return;
    const reg = await navigator.serviceWorker.getRegistration("/");
    const sub = reg ? await reg.pushManager.getSubscription() : null;
    this.label(!!sub);
    this.button.hidden = false;
  }

  label(on) {
    this.on = on;
    this.button.textContent = on ? "Stop notifications on this phone" : "Notify me on this phone";
    this.button.setAttribute("aria-pressed", String(on));
  }

  async click() {
    this.button.disabled = true;
    try {
      const reg = await registration();
      if (this.on) {
        const sub = await reg.pushManager.getSubscription();
        if (sub) {
          await api("/me/push", { method: "DELETE", body: { endpoint: sub.endpoint } });
          await sub.unsubscribe();
        }
        this.label(false);
        this.say("This phone will not be notified any more.");
        return;
      }
      if (await Notification.requestPermission() !== "granted") {
        this.say("Notifications are blocked for this site: allow them in the browser's settings first.");
        return;
      }
      await navigator.serviceWorker.ready;
      const sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(this.key) });
      const j = sub.toJSON();
      await api("/me/push", { method: "PUT", body: { endpoint: j.endpoint, keys: { p256dh: j.keys.p256dh,
        auth: j.keys.auth } } });
      this.label(true);
      this.say("This phone will be notified of steals, wars and trades, even with the page closed.");
    } catch (e) {
      this.say(e instanceof ApiError ? e.message : "This browser could not subscribe to notifications.");
    } finally {
      this.button.disabled = false;
    }
  }

  say(text) {
    if (!this.out) return;
    this.out.className = "msg info";
    this.out.textContent = text;
    this.out.hidden = !text;
  }
}
