"""The chips the dealer pays, takes or returns (controller.round.chips), against the settle contract's nets.

For every game and wager: per seat, paid - taken - collected is the contract's net to the cent; a wager
collected at no more bets (the Progressive, UTH ch.8 §C(3)) is paid in full when it wins and is never
taken again; a fold's wagers were collected at the fold (UTH ch.11 §F(2)); a void returns (R7a).
"""

from __future__ import annotations

import random
from decimal import Decimal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.progressive.hits import hits
from controller.round.chips import FOLD, NO_MORE_BETS, round_chips, settlement_chips
from controller.round.machine import Phase
from games.contract import parse_round, settlement_json
from games.registry import GAMES
from games.round import Round
from games.void import KEPT_ALIVE, void_round
from roundgen import GAMES as GAME_NAMES
from roundgen import random_round
from test_round import ListJournal, run, uth_round

CHIPS_SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

rounds = st.builds(
    lambda seed, game, every: (game, random_round(random.Random(seed), game, all_wagers=every)),
    st.integers(0, 2**32 - 1), st.sampled_from(GAME_NAMES), st.booleans(),
)


def folded(r: Round) -> set[int]:
    return {s.seat for s in r.seats if s.decision.fold}


def check_against_contract(game: str, r: Round, settlement, *, returned=None) -> None:
    """Per seat, paid - taken - collected == the contract's net; each wager's do as its chips stand."""
    g = GAMES[game]
    nets = {s["seat"]: Decimal(str(s["net"])) for s in settlement_json(settlement)["seats"]}
    chips = settlement_chips(g, settlement, folded=folded(r), returned=returned)
    assert list(chips) == [s.seat for s in settlement.seats]  # R1: settlement order
    for st_ in settlement.seats:
        c = chips[st_.seat]
        assert c.pay - c.take - c.collected == nets[st_.seat], (st_, c)
        assert c.winner == (nets[st_.seat] > 0)
        assert set(c.wagers) == set(st_.wagers)
        for name, w in st_.wagers.items():
            chip = c.wagers[name]
            assert chip.amount >= 0 and chip.amount == chip.amount.quantize(Decimal("0.01"))
            if name in g.collected_at_no_more_bets:
                assert chip.collected == w.amount and chip.at == NO_MORE_BETS
                assert chip.do != "take"  # never taken twice (the finding: "take progressive $1.00")
                if w.result == "win":
                    assert chip.do == "pay" and chip.amount == w.net + w.amount  # R2, R3
            elif chip.collected is not None:
                assert chip.at == FOLD and st_.seat in folded(r) and w.result in ("lose", "push")
                assert chip.do == ("none" if w.result == "lose" else "return")
            elif w.result == "lose":
                assert chip.do == "take" and chip.amount == w.amount
            elif w.result == "win" and not chip.limited_by:
                assert chip.do == "pay" and chip.amount == w.net
            elif w.result == "push":
                assert chip.do in ("none", "return")


@CHIPS_SETTINGS
@given(rounds)
def test_paid_less_taken_less_collected_is_the_contracts_net(case):
    game, data = case
    r = parse_round(data)
    check_against_contract(game, r, GAMES[game].settle(r))


@CHIPS_SETTINGS
@given(rounds)
def test_a_void_returns_every_wager_on_the_layout_and_from_the_rack(case):
    """R7a: a void's returned wagers: the chips on the layout picked up (nothing paid), those collected at no
    more bets or at a fold handed back; what a clause of chapter 13 keeps alive is settled as usual."""
    game, data = case
    r = parse_round(data)
    keeps = [frozenset()] + [w for (g, _), w in KEPT_ALIVE.items() if g == game]
    for keep in keeps:
        s = void_round(r, keep)
        returned = {x.seat: {k for k, w in x.wagers.items() if w.result == "push"} for x in s.seats}
        check_against_contract(game, r, s, returned=returned)
        chips = settlement_chips(GAMES[game], s, folded=folded(r), returned=returned)
        for x in s.seats:
            for name, w in x.wagers.items():
                if name not in keep and name != "envy":
                    c = chips[x.seat].wagers[name]
                    assert c.do == "return" and c.amount == w.amount
                    assert c.paid == (w.amount if c.collected is not None else 0)


def uth(seats, progressive="B", **more):
    meters, reset = ({"meter": 12000}, {"meter": 10000}) if progressive == "A" else (
        {"major": 12000, "minor": 1400}, {"major": 1000, "minor": 250})
    return {"game": "ultimate_texas_holdem", "paytables": {"blind": "A", "trips": "A", "progressive": progressive},
            "progressive": {"unit": 1, "meters": meters, "reset": reset}, **more, "seats": seats}


def test_uth_progressive_three_of_a_kind_paytable_b_alert_equals_row():
    """The finding: UTH ch.12 §D(1)(b)(vii) three of a kind 9 for 1 on a $1 unit collected at no more bets
    (UTH ch.8 §C(3)): the held win (alert) is $9.00 and the dealer's row pays $9.00, not the net $8.00; the
    losing seat's progressive chip is already in the rack: nothing to take."""
    data = uth([{"seat": 1, "cards": ["7h", "7d"], "wagers": {"ante": 10, "blind": 10, "progressive": 1}, "play": 4},
                {"seat": 3, "cards": ["Ks", "Qd"], "wagers": {"ante": 10, "blind": 10, "progressive": 1}, "play": 4}],
               dealer=["Ad", "As"], community=["7c", "8s", "Jh", "4d", "5c"])  # R24a: the flop 7c 8s Jh
    r = parse_round(data)
    g = GAMES["ultimate_texas_holdem"]
    s = g.settle(r)
    by = {x.seat: x for x in s.seats}
    assert by[1].wagers["progressive"].line == "three_of_a_kind" and by[1].wagers["progressive"].net == 8
    chips = settlement_chips(g, s)
    win = chips[1].wagers["progressive"]
    assert (win.do, win.amount, win.collected, win.line) == ("pay", Decimal(9), Decimal(1), "three_of_a_kind")
    alert = hits(g, s, data["progressive"], data["paytables"])
    assert [(h.seat, h.wager, h.amount) for h in alert] == [(1, "progressive", win.amount)]
    lost = chips[3].wagers["progressive"]
    assert (lost.do, lost.amount, lost.collected) == ("none", 0, Decimal(1))
    assert chips[3].take == by[3].wagers["ante"].amount + by[3].wagers["blind"].amount + by[3].wagers["play"].amount
    public = chips[1].public()
    assert public["wagers"]["progressive"] == {"do": "pay", "amount": "9.00", "collected": "1.00",
                                               "line": "three_of_a_kind", "collected_at": "no_more_bets",
                                               "clause": "UTH ch.8 §C(3)", "limited_by": "0.00"}
    assert public["pay"] == str(Decimal(public["take"]) + Decimal(public["balance"]))


def test_a_to_1_progressive_line_gives_the_collected_wager_back():
    """R2: "X to 1" pays X and the wager stays with the player; the wager went to the rack at no more bets
    (UTH ch.8 §C(3)), so it comes back with the payout: UTH ch.12 §D(1)(a)(vii) three of a kind 9 to 1 pays $10."""
    data = uth([{"seat": 2, "cards": ["7h", "7d"], "wagers": {"ante": 10, "blind": 10, "progressive": 1}, "play": 4}],
               progressive="A", dealer=["2s", "3s"], community=["7c", "8s", "Jh", "4d", "5c"])
    g = GAMES["ultimate_texas_holdem"]
    s = g.settle(parse_round(data))
    w = s.seats[0].wagers["progressive"]
    assert w.net == 9
    assert settlement_chips(g, s)[2].wagers["progressive"].amount == 10


def test_the_payout_limit_cuts_the_last_covered_wager_paid():
    """R6: the winnings of the covered wagers are capped per seat; the dealer pays in order (P65) and stops at
    the limit: the last covered win is cut, the Progressive (not covered) is paid in full."""
    data = uth([{"seat": 1, "cards": ["Ah", "Kh"], "wagers": {"ante": 1000, "blind": 1000, "trips": 1000,
                                                               "progressive": 1}, "play": 4}],
               dealer=["2s", "3c"], community=["Qh", "Jh", "Th", "4d", "5c"], payout_limit=50000)
    g = GAMES["ultimate_texas_holdem"]
    r = parse_round(data)
    s = g.settle(r)
    seat = s.seats[0]
    assert seat.limited_by > 0
    check_against_contract("ultimate_texas_holdem", r, s)
    chips = settlement_chips(g, s)[1]
    assert chips.wagers["trips"].limited_by > 0  # the last covered win in UTH ch.11 §I
    covered_paid = sum(c.amount for k, c in chips.wagers.items() if k in seat.covered and c.do == "pay")
    assert covered_paid == 50000
    assert chips.wagers["progressive"].limited_by == 0


def test_the_rounds_chips_in_its_public_view_fold_and_progressive():
    """Through the round: seat 3 folded after the river, its Ante and Blind collected at the fold (UTH ch.11
    §F(2)): nothing left to take; seat 1's straight 30 for 1 on Progressive B (UTH ch.12 §D(1)(b)(vi)) paid $30."""

    async def main():
        r = await uth_round(ListJournal())
        await r.decide(1, multiple=4)
        await r.decide(3, check=True)
        for i, card in enumerate(["2c", "3d", "4h"]):
            await r.card(f"community:{i}", card)
        await r.decide(3, check=True)
        await r.card("community:3", "Ts")
        await r.card("community:4", "9c")
        await r.decide(3, fold=True)
        assert "chips" not in r.public_view()  # nothing to pay before the settlement
        await r.settle()
        return r

    r = run(main())
    view = r.public_view()
    nets = {str(s.seat): s.net for s in r.settlement.seats}
    chips = view["chips"]
    assert list(chips) == ["3", "1"]  # R1
    three = chips["3"]
    assert three["wagers"]["ante"] == {"do": "none", "amount": "0.00", "collected": "25.00", "line": None,
                                       "collected_at": "fold", "clause": "UTH ch.11 §F(2)", "limited_by": "0.00"}
    assert (three["pay"], three["take"], three["balance"], three["winner"]) == ("0.00", "0.00", "0.00", False)
    one = chips["1"]
    assert one["wagers"]["progressive"]["amount"] == "30.00" and one["wagers"]["progressive"]["do"] == "pay"
    assert one["winner"] is True
    for seat, c in chips.items():
        collected = sum(Decimal(w["collected"] or 0) for w in c["wagers"].values())
        assert Decimal(c["pay"]) - Decimal(c["take"]) - collected == nets[seat]
        assert Decimal(c["balance"]) == Decimal(c["pay"]) - Decimal(c["take"])
    for seat, wagers in view["settlement"].items():  # the same wagers, the same lines
        assert {k: w.get("line") for k, w in wagers.items()} == {k: w["line"] for k, w in chips[seat]["wagers"].items()}


def test_a_voided_round_returns_the_progressive_from_the_rack():
    async def main():
        r = await uth_round(ListJournal())
        await r.void("UTH ch.13 §I: automated shoe failed to deal")
        return r

    r = run(main())
    assert r.phase is Phase.VOIDED
    chips = round_chips(r)
    assert chips is not None
    one = chips[1]
    assert one.wagers["progressive"].do == "return" and one.wagers["progressive"].paid == 1
    assert one.wagers["ante"].do == "return" and one.wagers["ante"].paid == 0  # the chips stay: picked up
    assert one.pay == 1 and one.take == 0 and one.pay - one.take - one.collected == 0
    assert r.public_view()["chips"]["3"]["pay"] == "0.00"
