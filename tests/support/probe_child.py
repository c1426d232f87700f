"""A stand-in service for the launcher's tests (``python -m tests.support.probe_child``): prints what a process
can tell of itself as one JSON line, then exits with ``PROBE_EXIT`` or, given ``PROBE_SLEEP``, sleeps first (until
a signal ends it)."""

import json
import os
import sys
import time

if __name__ == "__main__":
    print(json.dumps({"pid": os.getpid(), "sid": os.getsid(0), "env": dict(os.environ), "argv0": sys.argv[0],
                      "warm": "turf_claims.app" in sys.modules, "cwd": os.getcwd(),
                      "comm": open("/proc/self/comm").read().strip()}), flush=True)
    if os.environ.get("PROBE_SLEEP"):
        time.sleep(float(os.environ["PROBE_SLEEP"]))
    raise SystemExit(int(os.environ.get("PROBE_EXIT", "0")))
