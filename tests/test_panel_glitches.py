"""Panel counter jumps of random size make no press (issue 30 (4)): a +30 glitch on the check counter once
made 8 decisions and revealed the board.  Rounds are played through the daemon in process; during the
players' decisions a random register of the panel (a button's counter or the press number) is set to a
random other value, up or back.  Each is a fault the dealer is told of; nothing is decided, revealed or
pressed by it; the round then plays on to settlement; every journal, meter and re-settlement invariant
holds (tests/kill_invariants.py).  `make test` runs a sample; `make soak` (tests/soak_faults.py) at least
100 across the four games.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from daemon_harness import (
    at_rest,
    bet,
    confirm,
    deal,
    first_round,
    next_round,
    no_more_bets,
    phase,
    play_out,
    round_id,
    smallest_decision,
    table_in_process,
    told,
)
from drivers.registers import BUTTONS
from kill_invariants import violations

REGISTERS = ["press_seq", *(f"count.{b}" for b in BUTTONS)]


def glitch_rounds(game: str, glitches: int, state_dir: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """Play rounds of ``game`` until ``glitches`` counter jumps were injected; fail on any press taken from one."""
    rng = random.Random(seed)
    done = 0
    with table_in_process(game, state_dir, monkeypatch) as t:
        s = first_round(t)
        while done < glitches:
            rid = bet(t, s, seats=(1, 2, 3))
            no_more_bets(t)
            s = deal(t)
            while phase(s) == "decisions" and s["round"].get("to_act"):
                if done < glitches:
                    s = _glitch(t, s, rng)
                    done += 1
                t.press(smallest_decision(s["round"]["to_act"]))
                s = t.until(at_rest, "the round at rest")
            s = play_out(t)
            assert phase(s) == "settled", s["message"]
            confirm(t)
            _, s = next_round(t, rid)
        registers = t.controls["progressive"]("state")["state"]
        found = violations(t.cfg, t.journal_path, t.status(), registers)
        assert found == [], found
        assert round_id(s) != rid


def _glitch(t: Any, s: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """One register set to another value (a jump of 1 to 65,535 counts, a counter going back included);
    the status once the dealer was told of it, checked unchanged otherwise."""
    register = rng.choice(REGISTERS)
    jump = rng.choice([1, 2, 3, rng.randint(4, 200), rng.randint(201, 65535)])
    value = t.controls["panel"]("state")["state"][register]
    told_before, handled, to_act = told(s)["n"], s["presses_handled"], s["round"]["to_act"]
    t.controls["panel"]("glitch", point=register, value=(value + jump) & 0xFFFF)
    s = t.until(lambda s: told(s)["n"] > told_before and told(s)["kind"] == "panel_fault", f"{register} +{jump}")
    assert told(s)["cause"] == "counter_jump", s["told"]
    assert s["presses_handled"] == handled and s["round"]["to_act"] == to_act, (register, jump, s["message"])
    assert phase(s) == "decisions"
    return s


def test_panel_counter_jumps_make_no_press_sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`make test`'s sample: 6 jumps in Ultimate Texas Hold 'Em (`make soak`: 25 a game, all four)."""
    glitch_rounds("ultimate_texas_holdem", 6, tmp_path, monkeypatch, seed=30)

