"""Every configuration the validator accepts plays a round to settlement; every refusal cites a clause.

The candidates come from the schema (tests/config_matrix.py).  ``make test`` runs a documented
sample; ``make soak`` (``MATRIX=full``) runs the whole matrix:

* validation: every candidate (game x shuffler/shoe configured x procedure x decks x dealer-card
  handling x every subset of side wagers x Progressive off / each letter / each Envy letter, Envy
  requiring the Progressive wager or not).  A refused one must cite a clause (``ch.N §X``) or a
  ruling (``RULINGS Rn``, ``Pn``) in every problem.  Sample: no side wager, each alone, all of them;
  the Progressive off, its first letter, and that letter with Envy A or C (HCF's first Envy letter).
* play: for every accepted dealing combination (game, devices, procedure, decks, dealer cards), one
  round through the daemon against the simulators with the most side wagers the validator accepts
  and each kind of Progressive option it accepts (none; Progressive; Envy requiring the wager; Envy
  without it), seat 1 dealt the Progressive's top hand where offered (the win is held, validated and
  paid); and each fallback a device out of order forces (ch.13 §J, P43), played the same way.
  Sample (SAMPLE below): one per game and procedure kind, and the fallbacks that close the Six Card
  Bonus (P55) and shorten the deck change (ch.3 §C(1)).
"""

from __future__ import annotations

import os
import re

import pytest

import config_matrix as m
from controller.journal.store import Journal
from daemon_harness import phase, table_in_process, told
from games.cards import DECK
from games.dealing import Procedure, initial_deal, stacks, street_deal
from games.registry import GAMES
from test_config import dump
from test_irregularities_dealer import _report

FULL = os.environ.get("MATRIX") == "full"
CITES = re.compile(r"(ch\.\d+( §[A-Z])?|RULINGS R\d+|\bR\d+[a-z]?\b|\bP\d+\b)")

# seat 1 holds the Progressive's top hand (as in tests/test_progressive_each_game.py), seat 2 the rest
WIN = {
    "ultimate_texas_holdem": {("seat", 1, 0): "As", ("seat", 1, 1): "Ks", ("community", 0): "Qs",
                              ("community", 1): "Js", ("community", 2): "Ts", ("community", 3): "2d",
                              ("community", 4): "3c", ("dealer", 0): "7h", ("dealer", 1): "7c"},
    "jackpot_holdem": {("seat", 1, 0): "Ad", ("seat", 1, 1): "Kd", ("community", 0): "Qd", ("community", 1): "Jd",
                       ("community", 2): "Td", ("community", 3): "2s", ("community", 4): "3c",
                       ("dealer", 0): "7h", ("dealer", 1): "7c"},
    "high_card_flush": {**{("seat", 1, i): c for i, c in enumerate(["2h", "3h", "4h", "5h", "6h", "7h", "8h"])},
                        **{("dealer", i): c for i, c in enumerate(["2c", "5d", "9s", "Jc", "Kd", "4s", "7d"])}},
    "run_em_twice": {("seat", 1, 0): "As", ("seat", 1, 1): "Ks", ("community", "left"): "Qs",
                     ("community", "center"): "Js", ("community", "right"): "Ts", ("community", "top"): "2d",
                     ("community", "bottom"): "3c"},
}
PROCEDURES = {"manual_shoe": Procedure.MANUAL_SHOE, "hand": Procedure.HAND,
              "automated_shoe": Procedure.AUTOMATED, "shuffler": Procedure.AUTOMATED}


def dealt_order(game: str, procedure: str, seats: list[int]) -> list[str]:
    """The deck that puts WIN's cards on their places in the order ``procedure`` deals them."""
    g, p = GAMES[game], PROCEDURES[procedure]
    if p is Procedure.AUTOMATED:
        places = [pl for stack in stacks(g, seats) for pl in stack.places]
    else:
        places = initial_deal(g, p, seats) + [pl for k in range(1, len(g.streets) + 1) for pl in street_deal(g, p, k)]
    wanted = WIN[game]
    rest = [c.text for c in DECK if c.text not in wanted.values()]
    return [wanted[pl] if pl in wanted else rest.pop(0) for pl in places] + rest


# -- validation --------------------------------------------------------------------------------


def _validation_candidates():
    for c in m.candidates():
        if FULL:
            yield c
            continue
        side = m.side_wagers(c.game)
        first = m.letters(c.game, "progressive")[0]
        if (len(c.wagers) in (0, 1, len(side)) and c.envy_requires_progressive_wager
                and c.progressive in (None, first) and c.envy in (None, "A", "C")):
            yield c


pytestmark = pytest.mark.usefixtures("no_table_env")


@pytest.mark.parametrize("game", tuple(GAMES))
def test_every_refusal_cites_the_clause_and_the_accepted_include_each_procedure(game):
    seen = {"accepted": set(), "refused": 0}
    for c in _validation_candidates():
        if c.game != game:
            continue
        found = m.problems(c)
        if not found:
            seen["accepted"].add(c.procedure)
            continue
        seen["refused"] += 1
        for where, msg in found:
            assert CITES.search(msg), f"{c.id}: {where}: {msg} cites no clause"
    # every procedure of the schema has an accepted table in every game (ch.8, ch.9, ch.10)
    assert seen["accepted"] == set(m.choices(m.DealingConfig, "procedure")) and seen["refused"]


# -- play --------------------------------------------------------------------------------------


def _play_cases() -> list[tuple[m.Combination, str | None]]:
    """(combination, device put out of order first or None) for every accepted dealing combination."""
    cases = []
    for game in GAMES:
        for dealing in m.dealing_candidates(game):
            if any(where.startswith(("dealing", "devices")) for where, _ in m.problems(m.Combination(
                    **dealing, wagers=(), progressive=None))):
                continue  # refused whatever is offered
            kinds: dict[tuple, m.Combination] = {}
            wagers = sorted(m.wager_candidates(game), key=len, reverse=True)
            for p in m.progressive_candidates(game):  # per kind of option, the first accepted, most side wagers
                kind = (p.get("progressive") is not None, p.get("envy") is not None,
                        p.get("envy_requires_progressive_wager", True))
                if kind in kinds:
                    continue
                c = next((c for w in wagers for c in [m.Combination(**dealing, wagers=w, **p)] if not m.problems(c)),
                         None)
                if c is not None:
                    kinds[kind] = c
            for c in kinds.values():
                cases.append((c, None))
            if kinds:
                c = max(kinds.values(), key=lambda c: (c.progressive is not None, len(c.wagers)))
                for device in ("shuffler", "shoe"):
                    if getattr(c, device) and fallback(c, device) is not None:
                        cases.append((c, device))
    return cases


def fallback(c: m.Combination, device: str) -> str | None:
    """The procedure the daemon deals by with ``device`` out of order (P43), or None: no round at all."""
    if device == "shuffler" and c.procedure in ("shuffler", "hand"):
        return "manual_shoe" if c.shoe else None
    if device == "shoe" and c.procedure in ("manual_shoe", "automated_shoe"):
        return "hand" if c.shuffler else None
    return c.procedure


# The sample of make test: one table per game, each procedure kind once, the fallback of P55 (the Six Card
# Bonus closed when the shuffler is out of order and the table deals from the manual shoe), and a table
# dealing from the shuffler with the dealer's cards held in it beside a card-reading shoe (the full matrix
# found it voiding every round: the cards were read from the shoe, the dealer's from the shuffler).
_UTH_SIDE = m.side_wagers("ultimate_texas_holdem")
SAMPLE = [
    (m.Combination("ultimate_texas_holdem", "automated_shoe", 2, "dealt", True, True, _UTH_SIDE, "A", "A"), None),
    (m.Combination("jackpot_holdem", "manual_shoe", 1, "dealt", False, True, ("player_bonus",), "A"), None),
    (m.Combination("high_card_flush", "shuffler", 2, "dealt", True, False, m.side_wagers("high_card_flush"), "C", "C",
                   False), None),
    (m.Combination("run_em_twice", "hand", 1, "dealt", True, False, m.side_wagers("run_em_twice"), None), None),
    (m.Combination("ultimate_texas_holdem", "shuffler", 2, "in_shuffler", True, True, _UTH_SIDE, "A"), "shuffler"),
    (m.Combination("jackpot_holdem", "shuffler", 1, "in_shuffler", True, True, ("player_bonus",), "C"), None),
]
PLAY = _play_cases() if FULL else SAMPLE



@pytest.mark.parametrize("c, out", PLAY, ids=[f"{c.id}{'-' + d + '_out' if d else ''}" for c, d in PLAY])
def test_an_accepted_table_plays_a_round_to_settlement(c: m.Combination, out: str | None, tmp_path, monkeypatch):
    assert not m.problems(c), "the sample holds only accepted tables"
    path = tmp_path / "table.toml"
    path.write_text(dump(c.data()))
    game = GAMES[c.game]
    procedure = fallback(c, out) if out else c.procedure
    order = dealt_order(c.game, procedure, [1, 2])
    with table_in_process(c.game, tmp_path, monkeypatch, config=path) as t:
        if "shuffler" in t.controls:
            for deck in ("A", "B")[: c.decks]:
                t.controls["shuffler"]("set_deck", cards=order, deck=deck)
        t.start_daemon()
        t.open_table()
        s = t.until(lambda s: phase(s) == "wagers" and not s.get("next_step"), "the first round")
        if out:
            s = _report(t, f"{out} is out of order")
            s = t.dealer.with_key(s, "confirm")
            assert s["out_of_order"] == [out] and s["dealing"] == procedure, s["message"]
            if procedure in ("manual_shoe", "hand") and "six_card_bonus" in c.wagers:
                assert s["closed_wagers"] == ["six_card_bonus"] and "P55" in told(s)["clauses"]  # the dealer is told
                assert told(s)["wagers"] == ["six_card_bonus"], s["message"]
            while s.get("next_step"):  # the cards shuffled and cut by hand now (ch.5 §D(2), §F)
                t.dealer.step()
                s = t.status()
        round_id = s["round"]["round_id"]
        if "shoe" in t.controls and out != "shoe":  # a card-reading shoe in service reads every card dealt
            t.controls["shoe"]("load", cards=order)
        areas = [w for w in game.wagers if w != "progressive"]
        offered = [w for w in c.wagers if w not in s.get("closed_wagers", [])]
        seat_1 = {str(areas.index(w)): 500 for w in (*game.antes, *offered)}
        t.controls["progressive"]("set_bets", bets={"1": seat_1, "2": {str(areas.index(w)): 500 for w in game.antes}})
        if c.progressive:
            assert t.controls["progressive"]("wager", seat=1)["accepted"]
        t.dealer.bets_for = round_id
        t.press("no_more_bets")
        s = t.press("confirm")
        s = t.until(lambda s: phase(s) in ("decisions", "settled") and not s["expecting_cards"], "the deal")
        while phase(s) == "decisions":  # every seat stays in with the smallest wager
            to_act = s["round"]["to_act"]
            s = t.press("check" if to_act["check"] else f"bet_{min(to_act['multiples'])}x")
            s = t.until(
                lambda s, to_act=to_act: phase(s) != "decisions" or s["round"]["to_act"] != to_act, "the next decision"
            )
        assert phase(s) == "settled", s["message"]
        if c.progressive:
            assert s["validation"], s["message"]  # the top hand: held for the floor supervisor
            s = t.dealer.with_key(s, "confirm")
            assert not s["validation"]
        t.press("confirm")  # paid and collected
    with Journal(t.journal_path) as j:
        j.verify()
        kinds = [e.kind for e in j.events(round_id)]
        cards = [e.data["place"] for e in j.events(round_id) if e.kind == "card"]
    assert "settled" in kinds and kinds[-1] == "round_closed", kinds
    assert ("meter_paid" in kinds) == bool(c.progressive)
    assert ("bonus" in cards) == (procedure in ("automated_shoe", "shuffler") and game.bonus_cards > 0)
