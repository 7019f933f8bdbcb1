"""The screens' corpus (tests/screen_corpus.py) covers every moment it names, with the daemon's own statuses.

For each game: each name of ``NAMES`` once, in order (``GAME_NAMES`` for their games only); each status
is what its name says, as structured fields (the phase, the next action, the seats, the devices); six seats
play the main round with every wager of the game on some seat and the Progressive at each; the cards are
the chosen ones (seat 1 makes the Progressive's top line, its win held for the supervisor, seat 2 folds).
And the dealer's page served by ``DealerScreen`` shows exactly the status given.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from daemon_harness import phase
from games.registry import GAMES
from screen_corpus import GAME_NAMES, NAMES, ROUND_PHASES, TOP_LINE, DealerScreen, corpus


def expected_names(game: str) -> list[str]:
    return [n for n in NAMES if game in GAME_NAMES.get(n, (game,))]


@pytest.mark.parametrize("game", list(GAMES))
def test_the_corpus_covers_every_moment_of_the_game(game):
    g = GAMES[game]
    c = corpus(game)
    assert [name for name, _ in c] == expected_names(game)
    s = dict(c)
    assert all(x["game"] == game and x["updated"] for x in s.values())
    # every phase of a round the table rests in, from the daemon's statuses (complete: see ROUND_PHASES)
    assert {p for p in ROUND_PHASES if game in GAME_NAMES.get(p, (game,))} <= {phase(x) for x in s.values()}

    assert phase(s["wagers"]) == "wagers" and s["wagers"]["next_action"]["action"] == "no_more_bets"
    seats = s["no_more_bets"]["round"]["seats"]
    assert sorted(seats, key=int) == ["1", "2", "3", "4", "5", "6"]
    assert all("progressive" in v["wagers"] for v in seats.values())  # lit at every seat
    on_some_seat = {w for v in seats.values() for w in v["wagers"]}
    assert set(g.wagers) - on_some_seat <= {"play", "raise"}  # what is wagered later, at a decision
    assert Decimal(seats["1"]["wagers"][g.antes[0]]) >= 200  # the winner's amounts reach thousands
    if "dealing" in s:
        assert phase(s["dealing"]) == "dealing" and s["dealing"]["expecting_cards"] > 0
        assert s["dealing"]["next_action"]["action"] == "draw_cards"

    first = s["decisions"]["round"]
    assert phase(s["decisions"]) == "decisions" and first["to_act"]["seat"] == 1
    assert s["decisions"]["next_action"]["action"] == "decide" and not any(v["folded"] for v in first["seats"].values())
    later = s["decisions_folded"]["round"]
    assert later["seats"]["2"]["folded"] and later["to_act"]["seat"] > 2  # seats still to act after a fold
    if "reveal" in s:
        assert phase(s["reveal"]) == "reveal" and s["reveal"]["next_action"]["button"] == "confirm"

    held = s["settled_held"]
    assert phase(held) == "settled" and held["next_action"]["action"] == "validate_progressive"
    assert any(h["seat"] == 1 and h["wager"] == "progressive" for h in held["validation"])
    wanted = [card for place, card in sorted(TOP_LINE[game].items(), key=str) if place[:2] == ("seat", 1)]
    assert sorted(held["round"]["seats"]["1"]["cards"]) == sorted(wanted)  # the cards chosen, every run
    assert held["round"]["seats"]["2"]["folded"]
    assert phase(s["settled"]) == "settled" and not s["settled"]["validation"]
    assert s["settled"]["next_action"]["action"] == "pay_and_collect"
    assert (s["complete"].get("round") or {}).get("round_id") != held["round"]["round_id"]  # closed

    assert s["irregularity_menu"]["irregularity_menu"]
    assert s["irregularity_chosen"]["next_action"]["action"] == "confirm_irregularity"
    assert s["irregularity_chosen"]["next_action"]["key"]
    remedied = s["irregularity_remedied"]
    assert remedied["told"]["kind"] == "irregularity" and phase(remedied) == "voided"
    resume = s["halted"]["next_action"]
    assert phase(s["halted"]) == "halted" and (resume["action"], resume["button"], resume["key"]) == (
        "resume", "confirm", True)
    offline = s["device_offline"]
    assert phase(offline) == "halted" and "offline" in offline["devices"].values()
    assert offline["next_action"]["action"] == "device_back"


def test_the_dealer_screen_shows_the_status_it_is_given(browser, tmp_path):
    """``DealerScreen.show``: the page shows each status given, a later one or an earlier one; a stopped
    daemon's heartbeat is gone, a started one's beats."""
    c = dict(corpus("ultimate_texas_holdem"))
    with DealerScreen(tmp_path) as screen:
        page = browser.new_page()
        for name in ("settled_held", "decisions", "device_offline"):
            screen.show(page, c[name])
            assert page.evaluate("window.__status") == c[name], name
        assert screen.heartbeat.exists()
        screen.stopped()
        assert not screen.heartbeat.exists()
        screen.show(page, c["settled"])  # shown all the same: what the page does of a stopped daemon is its own
        assert page.evaluate("window.__status")["updated"] == c["settled"]["updated"]
        screen.started()
        assert screen.heartbeat.exists()
