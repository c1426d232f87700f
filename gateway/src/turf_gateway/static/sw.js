// The service worker of the Turf War pages (issue 18): shows a Web Push message's title and body, and a tap on it
// focuses the play page (or opens it). Served at /sw.js so its scope covers every page.

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (ev) => ev.waitUntil(self.clients.claim()));

self.addEventListener("push", (ev) => {
  let d = {};
  try {
    d = ev.data ? ev.data.json() : {};
  } catch {
    d = { body: ev.data ? ev.data.text() : "" };
  }
  const title = d.title || "Turf War";
  ev.waitUntil(self.registration.showNotification(title, {
    body: d.body || d.message || "",
    icon: "/static/icon.svg",
    tag: d.tag || d.kind || undefined,
    data: { url: d.url || "/" },
  }));
});

self.addEventListener("notificationclick", (ev) => {
  ev.notification.close();
  const url = new URL((ev.notification.data && ev.notification.data.url) || "/", self.location.origin);
  ev.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((list) => {
    for (const c of list) {
      if (new URL(c.url).pathname === url.pathname && "focus" in c) return c.focus();
    }
    return self.clients.openWindow(url.href);
  }));
});
