// The service worker of the Turf War pages: keeps the pages for offline, shows a Web Push message's title and body, and a tap on it
// focuses the play page (or opens it). Served at /sw.js so its scope covers every page.

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (ev) => ev.waitUntil((async () => {
  for (const k of await caches.keys()) if (k.startsWith("turf-") && k !== SHELL) await caches.delete(k);
  await self.clients.claim();
})()));

// offline: the pages, their scripts (one bundle a page) and styles, Leaflet and the board are kept in one cache, each
// read from the network first (the browser revalidates it with its ETag: a 304 when nothing changed) and from the cache
// only when the network fails, so a reload at a street corner without signal still shows the page and the last
// board. Nothing else (the API's answers about me, the clock) is kept: those say "offline" instead.
const SHELL = "turf-shell-v1";
const KEPT = [/^\/$/, /^\/watch$/, /^\/admin$/, /^\/static\//, /^\/api\/v1\/board$/, /^\/api\/v1\/players$/, /^\/pages\/config\.json$/];

function kept(url) {
  return url.origin === self.location.origin && KEPT.some((re) => re.test(url.pathname));
}

self.addEventListener("fetch", (ev) => {
  const url = new URL(ev.request.url);
  if (ev.request.method !== "GET" || !kept(url)) return;
  ev.respondWith((async () => {
    const cache = await caches.open(SHELL);
    try {
      const r = await fetch(ev.request);
      if (r.ok) {
        // a page's bundle is named by its hash (/static/dist/play.js?v=…): one version kept, the one last loaded,
        // which the offline match below finds whatever hash the kept page names
        if (url.search && url.pathname.startsWith("/static/")) await cache.delete(ev.request, { ignoreSearch: true });
        await cache.put(ev.request, r.clone());
      }
      return r;
    } catch (e) {
      const hit = await cache.match(ev.request, { ignoreSearch: url.pathname !== "/api/v1/board" });
      if (hit) return hit;
      throw e;
    }
  })());
});

// a page hands over what it loaded before this worker controlled it (its first visit): kept for the next offline
self.addEventListener("message", (ev) => {
  const urls = ((ev.data && ev.data.keep) || []).filter((u) => kept(new URL(u, self.location.origin)));
  // only what is not kept yet: after the first visit every load passes through the fetch handler above
  ev.waitUntil(caches.open(SHELL).then((c) => Promise.all(urls.map(async (u) => {
    if (!(await c.match(u))) await c.add(u).catch(() => {});
  })))
    .then(() => ev.source && ev.source.postMessage({ kept: urls.length })));
});

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
