"""``web.event_to_screen``: from a status the daemon publishes to the frame that shows it in Chromium.

The simulated table of UTH with its daemon and ``tablectl web``, the dealer's screen open in Debian's
Chromium (Playwright), the scripted dealer playing rounds.  The page notes, for each status it
receives while listening, the time from the daemon's ``updated`` stamp (taken as the status is written)
to the animation frame that draws it (same machine, same clock).  A status replaced before the page
read it is not measured (the service sends the newest).
"""

from __future__ import annotations

import math
import statistics
import tempfile
from pathlib import Path
from typing import Any

import pytest

from daemon_harness import simulated_table
from web_harness import CHROMIUM, launch, web_service


def run(rounds: int = 5) -> list[dict[str, Any]]:
    if not Path(CHROMIUM).exists():
        print(f"web.event_to_screen: skipped, {CHROMIUM} is missing (make setup installs it as root)")
        return []
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp, sync_playwright() as p:
        with simulated_table("ultimate_texas_holdem", Path(tmp), mp, seed=11) as t:
            t.start_daemon()
            with web_service(t, Path(tmp), mp) as w:
                context, profile = launch(p)
                try:
                    page = context.new_page()
                    page.goto(w.dealer)
                    page.wait_for_function("() => window.__openedAt")
                    t.open_table()
                    while len(t.dealer.closed) < rounds:
                        t.dealer.step()
                    s = t.status()
                    page.wait_for_function("u => Number(document.body.dataset.shown) >= u", arg=s["updated"])
                    times = sorted(page.evaluate("window.__latencies"))
                finally:
                    context.close()
    what = (
        f"p99 by nearest rank; {len(times)} statuses of {rounds} UTH rounds (opening included), "
        "daemon's status written -> "
        "tablectl web (file watch, server-sent events) -> Chromium frame drawn; same machine"
    )
    return [
        {
            "name": "web.event_to_screen",
            "value": round(statistics.median(times), 1),
            "unit": "ms",
            "stat": "median",
            "what": what,
        },
        {
            "name": "web.event_to_screen",
            "value": round(times[math.ceil(len(times) * 0.99) - 1], 1),
            "unit": "ms",
            "stat": "p99",
            "what": what,
        },
    ]


if __name__ == "__main__":
    for f in run():
        print(f)
