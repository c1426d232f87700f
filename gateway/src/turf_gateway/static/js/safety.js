// The rulebook's safety rule, "do not interact with the game while driving": from the browser's fixes, is the player moving
// faster than walking or cycling? The speed the device reports, or the one two fixes imply (distance less both
// accuracies, as R7.1 counts it, over the time between them), whichever is higher. The page then warns and asks
// "I'm a passenger" before a claim; the server never refuses a claim for speed.

export const FAST_KMH = 25;
// a reading older than this says nothing about now (the phone stopped sending fixes, e.g. parked)
const STALE_MS = 120000;

function metres(a, b) {
  const rad = Math.PI / 180;
  const dlat = (b.latitude - a.latitude) * rad;
  const dlon = (b.longitude - a.longitude) * rad;
  const x = Math.sin(dlat / 2) ** 2
    + Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(dlon / 2) ** 2;
  return 2 * 6371008.8 * Math.asin(Math.min(1, Math.sqrt(x)));
}

export class Motion {
  constructor(limitKmh = FAST_KMH) {
    this.limit = limitKmh;
    this.prev = null; // the previous fix {coords, timestamp}
    this.kmh = null; // the latest speed estimate
    this.at = 0; // performance.now() of that estimate
  }

  // a GeolocationPosition → km/h (null when nothing can be said yet)
  update(pos) {
    const c = pos.coords;
    let kmh = null;
    if (typeof c.speed === "number" && Number.isFinite(c.speed) && c.speed >= 0) kmh = c.speed * 3.6;
    if (this.prev) {
      const dt = (pos.timestamp - this.prev.timestamp) / 1000;
      if (dt > 0) {
        const d = metres(this.prev.coords, c) - (this.prev.coords.accuracy || 0) - (c.accuracy || 0);
        const implied = Math.max(0, d) / dt * 3.6;
        kmh = kmh === null ? implied : Math.max(kmh, implied);
      }
    }
    this.prev = { coords: { latitude: c.latitude, longitude: c.longitude, accuracy: c.accuracy },
      timestamp: pos.timestamp };
    if (kmh !== null) {
      this.kmh = kmh;
      this.at = performance.now();
    }
    return kmh;
  }

  fast() {
    return this.kmh !== null && this.kmh > this.limit && performance.now() - this.at < STALE_MS;
  }
}
