"""``make screens``: the dealer's screen at each size a table's display has, as pictures (docs/screens/).

    python tests/screens.py [--out docs/screens] [--game GAME ...]

The statuses are the daemon's own (tests/screen_corpus.py: six seats, every wager, a Progressive win),
shown by ``tablectl web`` in Debian's Chromium at 800x480, 1024x768, 1366x768 and 1920x1080.  Per size:
each game's settlement (``dealer-GAME-settled-WxH.png``), and for one game (``FEATURED``) a Progressive
win held for the supervisor (``-jackpot-held-``), an irregularity reported and awaiting the key
(``-irregularity-``), and the daemon stopped (``-stopped-``: whatever the page shows once the daemon's
heartbeat is gone).  28 pictures; the total size is printed.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from games.registry import GAMES  # noqa: E402
from screen_corpus import DealerScreen, corpus  # noqa: E402
from web_harness import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

SIZES = ((800, 480), (1024, 768), (1366, 768), (1920, 1080))
FEATURED = "ultimate_texas_holdem"
#: (the picture's name, the corpus's status) for the featured game, besides the settlement
MOMENTS = (("jackpot-held", "settled_held"), ("irregularity", "irregularity_chosen"))
# the stopped banner (web/static/liveness.js) says so on the body; a page without it shows what it shows
STOPPED = "() => !document.getElementById('liveness') || document.body.dataset.live === 'stopped'"


def picture(page: Page, path: Path) -> Path:
    page.screenshot(path=str(path))
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tests/screens.py")
    parser.add_argument("--out", default=str(ROOT / "docs" / "screens"))
    parser.add_argument("--game", action="append", choices=list(GAMES), help="only these games' settlement")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    games = args.game or list(GAMES)
    with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
        statuses = {game: dict(corpus(game)) for game in games}  # the daemon's log and the dealer's lines unsaid
        featured = statuses.get(FEATURED) or dict(corpus(FEATURED))
    written: list[Path] = []

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="screens-") as d, DealerScreen(Path(d)) as screen, \
            sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        for width, height in SIZES:
            page = browser.new_page(viewport={"width": width, "height": height})
            size = f"{width}x{height}"
            screen.started()
            for game in games:
                screen.show(page, statuses[game]["settled"])
                written.append(picture(page, out / f"dealer-{game}-settled-{size}.png"))
            for name, moment in MOMENTS:
                screen.show(page, featured[moment])
                written.append(picture(page, out / f"dealer-{FEATURED}-{name}-{size}.png"))
            screen.show(page, featured["settled"])
            screen.stopped()
            page.wait_for_function(STOPPED, timeout=10_000)
            written.append(picture(page, out / f"dealer-{FEATURED}-stopped-{size}.png"))
            page.close()
        browser.close()
    total = sum(p.stat().st_size for p in written)
    print(f"{len(written)} pictures in {out}, {total / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
