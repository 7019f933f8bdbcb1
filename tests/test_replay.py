"""``tablectl recall --round ID --steps``: a round replayed as the table saw it (P66), and the secrets of a
round still in play (nothing face down is shown)."""

from __future__ import annotations

import asyncio
import io
import json
from decimal import Decimal
from pathlib import Path

import pytest

from controller.cli.main import main as tablectl
from controller.journal.store import Journal
from controller.round.machine import RoundController, TableSetup

ROOT = Path(__file__).resolve().parent.parent
UTH = TableSetup(game="ultimate_texas_holdem", paytables={"blind": "A", "trips": "A"})
HOLE = {"As", "Ks", "7h", "7d"}  # the seats' cards below
DEALER = {"Qh", "Qs"}


@pytest.fixture
def journal_path(tmp_path, monkeypatch):
    path = tmp_path / "table.journal"
    monkeypatch.setenv("TABLE_JOURNAL", str(path))
    return path


def recall(game: str, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = tablectl(["recall", *argv, "--config", str(ROOT / "config" / f"{game}.toml")], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


async def uth_to_the_turn(j) -> RoundController:
    """UTH dealt from a shoe (UTH ch.8 §D): seat 1 plays 4x, seat 3 checks twice; the flop is out."""
    r = await RoundController.open("u1", UTH, j)
    for seat in (1, 3):
        await r.place_wager(seat, "ante", Decimal(10))
        await r.place_wager(seat, "blind", Decimal(10))
    await r.announce_no_more_bets()
    await r.confirm_progressive_count(0)
    for place, card in [("seat:1", "As"), ("seat:3", "7h"), ("dealer", "Qh"),
                        ("seat:1", "Ks"), ("seat:3", "7d"), ("dealer", "Qs")]:
        await r.card(place, card)
    await r.decide(1, multiple=4)
    await r.decide(3, check=True)
    for i, card in enumerate(["2c", "3d", "4h"]):
        await r.card(f"community:{i}", card)
    await r.decide(3, check=True)
    return r


@pytest.mark.requirement("AGCO recall")
def test_uth_reveals_are_journaled_in_the_order_the_table_sees_them(journal_path):
    """UTH ch.11 §C(2) the flop, §E(2) the turn and river, §G(1) the dealer's cards once every player acted;
    each journaled when its cards are face up, between the decisions around it."""

    async def main():
        with Journal(journal_path) as j:
            r = await uth_to_the_turn(j)
            await r.card("community:3", "5s")
            await r.card("community:4", "9c")
            await r.decide(3, fold=True)
            await r.settle()
            await r.confirm()

    asyncio.run(main())
    code, out, err = recall("ultimate_texas_holdem", "--round", "u1", "--steps", "--json")
    assert code == 0, err
    r = json.loads(out)
    assert r["steps_journaled"] and not r["in_play"]
    story = [(s["step"], s.get("what") or s.get("decision") or s.get("place")) for s in r["steps"]
             if s["step"] in ("reveal", "decision") or s.get("place", "").startswith("community")]
    assert story == [
        ("decision", "4x"), ("decision", "check"),
        ("card", "community:0"), ("card", "community:1"), ("card", "community:2"), ("reveal", "flop"),
        ("decision", "check"),
        ("card", "community:3"), ("card", "community:4"), ("reveal", "turn_and_river"),
        ("decision", "fold"), ("reveal", "dealer"),
    ]
    reveals = {s["what"]: (s["cards"], s["clause"]) for s in r["steps"] if s["step"] == "reveal"}
    assert reveals["flop"] == (["2c", "3d", "4h"], "UTH ch.11 §C(2)")
    assert reveals["dealer"] == (["Qh", "Qs"], "UTH ch.11 §G(1)")
    pays = [s for s in r["steps"] if s["step"] == "pay"]
    assert [p["seat"] for p in pays] == [3, 1]  # R1: from the dealer's right
    assert pays[1]["cards"] == ["As", "Ks"] and "cards" not in pays[0]  # a folded hand is not turned over
    assert {w["wager"]: w["result"] for w in pays[1]["wagers"]}["play"] == "win"


def test_ret_replay_shows_the_cross_line_by_line_and_the_two_passes(journal_path):
    """RET ch.11 §C, §E, §G: the horizontal line's outside cards after the 1st Run decisions, the vertical
    line's after the 2nd, the center after the Center decisions; §H then §I at settlement."""

    async def main():
        with Journal(journal_path) as j:
            r = await RoundController.open("r1", TableSetup(game="run_em_twice", paytables={"ultimate_pairs": "A"}), j)
            for seat in (2, 4):
                await r.place_wager(seat, "ante_1", Decimal(5))
                await r.place_wager(seat, "ante_2", Decimal(5))
            await r.place_wager(2, "ultimate_pairs", Decimal(5))
            await r.announce_no_more_bets()
            await r.confirm_progressive_count(0)
            community = zip(("left", "center", "right", "top", "bottom"), ["Jh", "Js", "2c", "Jd", "3s"], strict=True)
            for name, c in community:
                await r.card(f"community:{name}", c)
            for seat, c in [(2, "8h"), (4, "Ac"), (2, "8s"), (4, "Kc")]:
                await r.card(f"seat:{seat}", c)
            for _ in range(3):
                await r.decide(2, multiple=2)
                await r.decide(4, multiple=1)
            await r.settle()
            await r.confirm()

    asyncio.run(main())
    code, out, _ = recall("run_em_twice", "--round", "r1", "--steps", "--json")
    steps = json.loads(out)["steps"]
    story = [s.get("what") or s["step"] for s in steps if s["step"] in ("reveal", "decision", "pay")]
    assert story == ["decision", "decision", "horizontal_line", "decision", "decision", "vertical_line",
                     "decision", "decision", "center", "pay", "pay", "pay"]
    lines = {s["what"]: s["cards"] for s in steps if s["step"] == "reveal"}
    assert lines == {"horizontal_line": ["Jh", "2c"], "vertical_line": ["Jd", "3s"], "center": ["Js"]}
    pays = [
        (s["seat"], [w["wager"] for w in s["wagers"]], s["clause"], "cards" in s) for s in steps if s["step"] == "pay"
    ]
    run = ["ante_1", "first_run", "ante_2", "second_run", "center"]
    assert pays == [(2, ["ultimate_pairs"], "RET ch.11 §H", False),  # §H: not turned over
                    (4, run, "RET ch.11 §I-§J", True), (2, run, "RET ch.11 §I-§J", True)]
    code, text, _ = recall("run_em_twice", "--round", "r1", "--steps")
    assert code == 0 and "horizontal_line Jh 2c (RET ch.11 §C)" in text


@pytest.mark.requirement("AGCO recall")
def test_a_round_in_play_shows_no_card_that_is_face_down(journal_path):
    """Secrets (issue 13, finding 9): hole cards, the dealer's cards and the turn and river before their
    reveal are not in any recall of the round still in play; the settle input (every card) is refused."""

    async def main():
        with Journal(journal_path) as j:
            r = await uth_to_the_turn(j)
            await r.card("community:3", "5s")  # the turn is out, the river not yet: not revealed

    asyncio.run(main())
    code, listed, _ = recall("ultimate_texas_holdem")
    code_one, one, _ = recall("ultimate_texas_holdem", "--round", "u1")
    code_steps, steps, _ = recall("ultimate_texas_holdem", "--round", "u1", "--steps", "--json")
    code_json, _, err = recall("ultimate_texas_holdem", "--round", "u1", "--json")
    assert (code, code_one, code_steps, code_json) == (0, 0, 0, 2)
    assert "still in play" in err
    for out in (listed, one, steps):
        shown = {w.strip('",[]') for w in out.split()}
        assert not shown & (HOLE | DEALER | {"5s"}), out
    r = json.loads(steps)
    assert r["in_play"] and [s["what"] for s in r["steps"] if s["step"] == "reveal"] == ["flop"]
    assert {"2c", "3d", "4h"} <= {w.strip('",[]') for w in one.split()}  # the flop is face up


def test_a_journal_from_before_the_steps_still_recalls(journal_path):
    """An older journal has no reveals nor order of payment: recall works, --steps says they were not
    recorded (P66)."""
    with Journal(journal_path) as j:
        j.append("old", "round_opened", {"game": "high_card_flush", "paytables": {}, "progressive": None,
                                         "payout_limit": None})
        j.append("old", "wager", {"seat": 1, "wager": "ante", "amount": "5"})
        j.append("old", "settled", {"meters": {}, "nets": {"1": "5"}})
        j.append("old", "round_closed", {})
    code, out, _ = recall("high_card_flush", "--round", "old", "--steps", "--json")
    r = json.loads(out)
    assert code == 0 and r["steps_journaled"] is False and r["steps"] is None
    code, text, _ = recall("high_card_flush", "--round", "old", "--steps")
    assert code == 0 and "not recorded" in text
    code, text, _ = recall("high_card_flush", "--round", "old")
    assert code == 0 and "seat 1 ante 5" in text
