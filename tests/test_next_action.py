"""The status's ``next_action`` says what the dealer does next, as data (docs/architecture.md, the status).

One round per game through the daemon (``table_in_process``), seat 1 dealt the top Progressive line of its
game (the decks of tests/test_progressive_each_game.py; UTH: a royal flush): at every decision the seat to
act and its choices in the dealer's order with what each costs to the cent; the held jackpot's hits and the
supervisor's steps with the game's own clauses; then the payment passes against the journaled
``payment_order``.  At UTH the irregularity menu is opened and cancelled on the way (its steps).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from controller import steps
from controller.round import decisions
from daemon_harness import phase, table_in_process
from games.dealing import Procedure
from games.registry import GAMES
from test_progressive_each_game import CASES, deal_order

ALL = {**{g: (p, w) for g, (p, w, _, _) in CASES.items()},
       # UTH ch.12 §D: a royal flush on seat 1's two cards and the flop (stacks of the shuffler, UTH ch.10)
       "ultimate_texas_holdem": (Procedure.AUTOMATED, {
           ("seat", 1, 0): "Ah", ("seat", 1, 1): "Kh", ("community", 0): "Qh", ("community", 1): "Jh",
           ("community", 2): "Th", ("community", 3): "2c", ("community", 4): "3d", ("dealer", 0): "7s",
           ("dealer", 1): "8s"})}
#: the clauses of a held jackpot's steps: verify the hand, the light, the supervisor's key, pay (P38)
VALIDATION = {"ultimate_texas_holdem": "UTH ch.11 §J(2)", "jackpot_holdem": "JHE ch.11 §K(2)",
              "high_card_flush": "HCF ch.11 §B(9)"}


def check_choices(game: str, na: dict[str, Any], to_act: dict[str, Any], seat: dict[str, Any]) -> None:
    """Check first, each bet with its multiple and the wager it makes at its cost, fold with what it forfeits."""
    g = GAMES[game]
    assert na["action"] == "decide" and na["seat"] == to_act["seat"] == 1
    made = len(seat["multiples"])
    wager = g.decision_wagers[made]  # RET: 1st Run, 2nd Run, Center (R26); the others: one wager
    ante = Decimal(seat["wagers"][g.antes[made % len(g.antes)]])
    expected: list[tuple[Any, ...]] = [("check", "check", None, "0.00")] if to_act["check"] else []
    expected += [(f"bet_{m}x", wager, m, f"{ante * m:.2f}") for m in to_act["multiples"]]
    if to_act["fold"]:
        lost = sum((Decimal(seat["wagers"][a]) for a in g.antes), Decimal(0))
        lost += sum((Decimal(seat["wagers"][g.antes[i % len(g.antes)]]) * k for i, k in enumerate(seat["multiples"])),
                    Decimal(0))
        expected.append(("fold", "fold", None, f"{lost:.2f}"))
    assert [(c["button"], c["decision"], c.get("multiple"), c["amount"]) for c in na["choices"]] == expected
    assert sorted(c["button"] for c in na["choices"]) == sorted(na["buttons"])  # every button, and only those
    street = next(st for st in g.streets if st.name == to_act["street"])
    assert {c["clause"] for c in na["choices"]} == {street.clause}
    if to_act["fold"]:
        assert set(na["choices"][-1]["forfeits"]) == {*g.antes, *g.decision_wagers[:made]}


def check_menu(t: Any, game: str) -> None:
    """The irregularity menu during the decisions: its options and steps; a player who left asks the seat."""
    s = t.press("irregularity")
    na = s["next_action"]
    assert na["action"] == "pick_irregularity" and na["options"] == len(na["menu"]) == len(s["irregularity_menu"])
    assert [m["button"] for m in na["menu"]] == [f"seat_{n}" for n in range(1, len(na["menu"]) + 1)]
    assert [st["do"] for st in na["steps"]] == ["press_option", "supervisor_confirms"]
    left = next(m for m in na["menu"] if m["what"] == "player_left")
    assert left["needs_seat"] and left["clause"] == "UTH ch.7 §C(2)"
    s = t.press(left["button"])
    na = s["next_action"]
    assert na["action"] == "pick_seat"
    assert [(st["n"], st["do"]) for st in na["steps"]] == [(1, "press_seat"), (2, "supervisor_confirms"),
                                                            (3, "collect_seat_wagers")]
    assert na["steps"][2]["clause"] == "UTH ch.7 §C(2)"
    s = t.press("seat_1")
    na = s["next_action"]
    assert na["action"] == "confirm_irregularity" and na["seat"] == 1 and na["key"]
    assert [st["do"] for st in na["steps"]] == ["supervisor_confirms", "collect_seat_wagers"]
    assert na["steps"][1]["seat"] == 1
    s = t.press("undo")  # nothing changed
    assert s["next_action"]["action"] == "decide"


@pytest.mark.parametrize("game", sorted(ALL))
def test_a_round_says_what_to_do_next(game, tmp_path, monkeypatch):
    procedure, wanted = ALL[game]
    g = GAMES[game]
    deck = deal_order(game, procedure, wanted)
    with table_in_process(game, tmp_path, monkeypatch) as t:
        cfg = t.cfg
        if "shuffler" in t.controls:
            t.controls["shuffler"]("set_deck", cards=deck)
        t.start_daemon()
        t.open_table()
        s = t.until(lambda s: phase(s) == "wagers", "the first round")
        if "shoe" in t.controls:
            t.controls["shoe"]("load", cards=deck)
        low = int(cfg.limits(g.antes[0])[0] * 100)
        t.controls["progressive"]("set_bets", bets={"1": {str(i): 2 * low for i in range(len(g.antes))}})
        assert t.controls["progressive"]("wager", seat=1)["accepted"]
        t.press("no_more_bets")
        t.press("confirm")
        s = t.until(lambda s: phase(s) in ("decisions", "settled"), "the deal")
        decided = 0
        while phase(s) == "decisions":  # seat 1 stays in with the largest wager it may make
            to_act = s["round"]["to_act"]
            check_choices(game, s["next_action"], to_act, s["round"]["seats"]["1"])
            if game == "ultimate_texas_holdem" and decided == 0:
                check_menu(t, game)
            decided += 1
            s = t.press(f"bet_{max(to_act['multiples'])}x" if to_act["multiples"] else "check")
            s = t.until(lambda s, to_act=to_act: phase(s) != "decisions" or s["round"]["to_act"] != to_act,
                        "the next decision")
        assert decided
        assert phase(s) == "settled" and s["validation"], s["message"]
        na = s["next_action"]
        assert na["action"] == "validate_progressive" and na["hits"] == s["validation"]
        assert {h["seat"] for h in na["hits"]} == {1}
        assert [st["do"] for st in na["steps"]] == ["verify_hand", "verify_light", "supervisor_validates",
                                                    "pay_progressive"]
        assert [st["n"] for st in na["steps"]] == [1, 2, 3, 4]
        base = VALIDATION.get(game)
        assert [st["clause"] for st in na["steps"]] == (
            [f"{base}({x})" for x in "abcd"] if base else ["P38"] * 4)  # RET prints none (RET ch.12 §F, P38)
        assert na["steps"][2]["key"] and na["steps"][2]["button"] == "confirm"
        s = t.dealer.with_key(s, "confirm")  # the floor supervisor validates
        na = s["next_action"]
        assert na["action"] == "pay_and_collect"
        order = s["round"]["payment_order"]
        flat = [(p["clause"], seat, w) for p in na["passes"] for seat in p["seats"] for w in p["wagers"]
                if w in next(o["wagers"] for o in order if o["seat"] == seat and o["clause"] == p["clause"])]
        assert sorted(flat) == sorted((o["clause"], o["seat"], w) for o in order for w in o["wagers"])
        assert [p["clause"] for p in na["passes"]] == list(dict.fromkeys(o["clause"] for o in order))
        assert [p["n"] for p in na["passes"]] == list(range(1, len(na["passes"]) + 1))
        assert na["paying"] == na["passes"][0]  # the daemon is not told when a pass is done
        for p in na["passes"]:
            declared = next(d.wagers for d in g.payment_passes if d.clause == p["clause"])
            assert p["wagers"] == [w for w in declared if w in p["wagers"]]  # in the pass's declared order


def test_every_code_has_its_words():
    """Every step a screen can be given, and every choice that makes no wager, has words (sentence case)."""
    for words in (steps.WORDS, decisions.WORDS):
        for code, text in words.items():
            assert text and text[0].isupper() and not text.endswith(".") and "_" not in text, code
    with pytest.raises(AssertionError):
        steps.numbered([{"do": "no_such_step"}])


def test_a_remedy_deals_no_card_where_every_card_is_out():
    """HCF ch.13 §F keeps the bonus wagers alive with every card already out (no card to deal); RET ch.13 §G
    returns a skipped seat's wagers, the seat playing the next hand."""
    from controller.irregularities import Option

    hcf = steps.remedy(GAMES["high_card_flush"], Option("dealer_card_exposed", ""), None, seat_asked=False,
                       kept=frozenset({"flush_bonus"}), abandoned_returned=False)
    assert [(st["do"], st["clause"]) for st in hcf] == [
        ("supervisor_confirms", "HCF ch.13 §E-§F"), ("settle_kept_wagers", "HCF ch.13 §F"),
        ("return_other_wagers", "R7a"), ("reshuffle", "HCF ch.13 §E-§F")]
    ret = steps.remedy(GAMES["run_em_twice"], Option("skipped", "", needs_seat=True), 3, seat_asked=False,
                       kept=frozenset(), abandoned_returned=False)
    assert [(st["do"], st.get("seat")) for st in ret] == [
        ("supervisor_confirms", None), ("return_seat_wagers", 3), ("seat_plays_next_round", 3)]
