"""The dealer's screen readable at every size: a six-seat round of each game at 800x480 to 1920x1080.

The corpus of the daemon's own statuses (tests/screen_corpus.py: six seats playing every wager with the
Progressive lit, each phase, a held jackpot, an irregularity, a halt, a device down) is served to the page
by ``tablectl web`` and measured at the two tightest sizes, ``TIGHTEST`` (make test: UTH; make soak: every game at
all four, ``SCREEN_SIZES=all``): every element with text of its own has its box
inside the viewport, not cut off by an ancestor that clips (overflow not visible), and no two overlap; no
code (a snake_case identifier) is in the rendered text; axe-core finds no serious or critical violation
(contrast included; once a status: colours and names do not change with the size, ``AXE_ALL``); the
held jackpot again once the daemon has stopped (the banner across the top).  A card is an image (role=img,
its name its aria-label): the text drawn inside its SVG is not measured.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from games.registry import GAMES as REGISTRY
from screen_corpus import DealerScreen, corpus

SIZES = [(800, 480), (1024, 768), (1366, 768), (1920, 1080)]
IDENTIFIER = re.compile(r"\b[a-z0-9]+_[a-z0-9_]+\b")
# FAILED_SHOTS=dir: a screenshot of each size and phase whose measurement failed, to look at
FAILED_SHOTS = os.environ.get("FAILED_SHOTS")

MEASURE = """() => {
  const vw = document.documentElement.clientWidth, vh = document.documentElement.clientHeight;
  const boxes = [], problems = [];
  const range = document.createRange();
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest("svg")) continue;
    const nodes = [...el.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim());
    if (!nodes.length) continue;
    const text = nodes.map((n) => n.textContent.trim()).join(" ");
    // not drawn by design (display none on it or an ancestor, hidden, visibility hidden): not on the screen
    if (!el.checkVisibility({visibilityProperty: true}) || el.closest("[hidden]")) continue;
    const rects = [];
    for (const n of nodes) { range.selectNodeContents(n); rects.push(...range.getClientRects()); }
    if (!rects.length) problems.push(["no box", text]);
    for (const b of rects) {
      if (b.width < 1 || b.height < 1) { problems.push(["empty box", text]); continue; }
      if (b.left < -0.5 || b.top < -0.5 || b.right > vw + 0.5 || b.bottom > vh + 0.5)
        problems.push(["outside the viewport", text, [b.left, b.top, b.right, b.bottom].map(Math.round)]);
      for (let a = el; a && a !== document.documentElement; a = a.parentElement) {
        const st = getComputedStyle(a);
        if (st.overflowX === "visible" && st.overflowY === "visible") continue;
        const c = a.getBoundingClientRect();
        if (b.left < c.left - 0.5 || b.top < c.top - 0.5 || b.right > c.right + 0.5 || b.bottom > c.bottom + 0.5)
          problems.push(["clipped by " + a.tagName + "#" + a.id, text]);
      }
      boxes.push([text, b, el]);
    }
  }
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const [ta, a, ea] = boxes[i], [tb, b, eb] = boxes[j];
    if (ea === eb) continue;  // the lines of one wrapped text
    const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
    const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    if (x > 1 && y > 1) problems.push(["overlap", ta, tb]);
  }
  return {texts: boxes.length, problems};
}"""

AXE = """() => axe.run(document, {resultTypes: ["violations"]}).then((r) => r.violations
  .filter((v) => v.impact === "serious" || v.impact === "critical")
  .map((v) => [v.id, v.impact, v.nodes.slice(0, 3).map((n) => n.target.join(" "))]))"""


def check(page: Any, where: str) -> None:
    measured = page.evaluate(MEASURE)
    if FAILED_SHOTS and measured["problems"]:  # what the measurement saw, for a person to look at
        page.screenshot(path=str(Path(FAILED_SHOTS) / (where.replace(" ", "_") + ".png")))
    assert measured["texts"] > 10, where
    assert measured["problems"] == [], where
    text = page.evaluate("document.body.innerText + ' ' + [...document.querySelectorAll('[title],[aria-label]')]"
                         ".map(e => (e.title || '') + ' ' + (e.getAttribute('aria-label') || '')).join(' ')")
    assert IDENTIFIER.findall(text) == [], where
    assert page.evaluate("window.__unsaid || []") == [], where  # a code words.js has no words for


#: the statuses axe-core checks (about half a second each): of the first game, each screen that draws something the
#: others do not (the choices, the alarms and steps, the menu, a halt, a device down, the reveal, the settlement);
#: of the others, those only they have (the shoe's dealing) and the held jackpot (their own wagers and lines)
AXE_ALL = "ultimate_texas_holdem"
AXE_FIRST = {"no_more_bets", "decisions_folded", "reveal", "settled_held", "settled", "irregularity_menu",
             "irregularity_chosen", "halted", "device_offline"}
AXE_OWN = {"dealing", "settled_held"}
#: the sizes make test measures: the type is min(2.85vh, 1.7vw) (web/static/style.css), so in ems 800x480 is
#: 58.8 x 35.3 wide and high, 1024x768 58.8 x 44 (as wide, taller), 1366x768 and 1920x1080 both 62.4 x 35.1 (one
#: the other scaled); the first game at the two that differ, the others at the shortest (make soak: all four)
TIGHTEST = [(800, 480), (1366, 768)]
SHORTEST = [(800, 480)]


#: the games drawn: make test UTH's screen at its two tightest sizes (HCF's is drawn through a whole round by
#: tests/test_web_dealer.py); make soak (SCREEN_SIZES=all) every game at every size
SCREEN_GAMES = list(REGISTRY) if os.environ.get("SCREEN_SIZES") == "all" else ["ultimate_texas_holdem"]


@pytest.mark.parametrize("game", SCREEN_GAMES)
def test_every_phase_of_a_six_seat_round_at_every_size(game, tmp_path, browser):
    from axe_playwright_python.sync_playwright import Axe

    statuses = corpus(game)  # the daemon's own statuses: every phase, an irregularity, a halt, a device down
    with DealerScreen(tmp_path, game) as screen:
        # a page at each size, each status drawn by the four at once; each in a context of its own (one
        # context's pages in the background get no animation frames, and the page marks a status shown in one)
        sizes = SIZES if os.environ.get("SCREEN_SIZES") == "all" else TIGHTEST if game == AXE_ALL else SHORTEST
        contexts = [browser.browser.new_context(viewport={"width": w, "height": h}) for w, h in sizes]
        pages = {}
        try:
            for size, context in zip(sizes, contexts, strict=True):
                pages[size] = page = context.new_page()
                screen.show(page, statuses[0][1])
            pages[sizes[-1]].evaluate(Axe().axe_script)
            for name, s in statuses:
                screen.publish(s)
                for size, page in pages.items():
                    screen.shown(page, s)
                    where = f"{game} {name} at {size[0]}x{size[1]}"
                    check(page, where)
                    if size == sizes[-1] and name in (AXE_FIRST if game == AXE_ALL else AXE_OWN):
                        assert page.evaluate(AXE) == [], where  # colours and names: the same at every size
                if (s.get("round") or {}).get("settlement") is not None:  # every seat's total, from round.chips
                    assert pages[sizes[-1]].locator("tfoot td.total").count() == len(s["round"]["chips"])
            # the daemon stops: the banner across the top (web/static/liveness.js) leaves the rest readable
            name, held = next((n, x) for n, x in statuses if n == "settled_held")
            screen.publish(held)
            screen.stopped()
            for size, page in pages.items():
                screen.shown(page, held)
                page.wait_for_function("() => document.body.dataset.live === 'stopped'")
                check(page, f"{game} {name} with the daemon stopped at {size[0]}x{size[1]}")
            assert pages[sizes[-1]].evaluate(AXE) == [], f"{game} stopped"
        finally:
            for context in contexts:
                context.close()
