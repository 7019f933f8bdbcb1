"""The dealer's order of payment (P65): chapter 11 of each game, from the dealer's right (RULINGS R1)."""

from __future__ import annotations

import asyncio
import json
import random
from decimal import Decimal

import pytest

from controller import events as ev
from controller.journal.rows import _canonical, _plain
from controller.round import settlement as round_settlement
from controller.round.machine import RoundController, TableSetup
from games.contract import parse_round
from games.registry import GAMES
from games.round import SeatSettlement, Settlement, WagerResult
from tests.roundgen import GAMES as GAME_NAMES
from tests.roundgen import random_round
from tests.test_round import ListJournal

# What each game's chapter 11 settles first at a seat, then next ... (the rules, not the code).
STAGES = {
    # UTH ch.11 §H: Ante, Blind, Play; §I: then Trips, Six Card Bonus; §J: then the Progressive, its Envy Bonus;
    # the side wagers UTH ch.11 does not name after those it names, before §J (P65)
    "ultimate_texas_holdem": [{"ante", "blind", "play"}, {"trips"}, {"six_card_bonus"},
                              {"ultimate_pairs", "bad_beat", "play_the_board"}, {"progressive"}, {"envy"}],
    # JHE ch.11 §I: Ante, X-tra Bonus, Play; §J: Player Bonus; §K: Progressive
    "jackpot_holdem": [{"ante", "xtra_bonus", "play"}, {"player_bonus"}, {"progressive"}],
    # HCF ch.11 §B(5): Ante, Raise; §B(6)-(8): Flush, Straight Flush Bonus; §B(9): Progressive, Envy
    "high_card_flush": [{"ante", "raise"}, {"flush_bonus", "straight_flush_bonus"}, {"progressive"}, {"envy"}],
    # RET ch.11 §H then §I: below, by pass
    "run_em_twice": [{"five_card_bonus", "ultimate_pairs"}, {"ante_1", "first_run", "ante_2", "second_run", "center"},
                     {"progressive"}, {"envy"}],
}


def stage(game: str, wager: str) -> int:
    return next(i for i, names in enumerate(STAGES[game]) if wager in names)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_every_wager_is_paid_once_in_the_rules_order(game):
    """R1: counterclockwise from the highest seat, in every pass; each wager of each seat exactly once,
    a seat's wagers in the order its game's chapter 11 names them."""
    g = GAMES[game]
    rng = random.Random(18)
    for _ in range(40):
        settlement = g.settle(parse_round(random_round(rng, game, all_wagers=True)))
        order = g.payment_order(settlement)
        paid = [(p.seat, w) for p in order for w in p.wagers]
        assert sorted(paid) == sorted((s.seat, w) for s in settlement.seats for w in s.wagers)
        for clause in dict.fromkeys(p.clause for p in order):  # each pass goes from the dealer's right
            seats = [p.seat for p in order if p.clause == clause]
            assert seats == sorted(seats, reverse=True)
        for seat in {p.seat for p in order}:
            stages = [stage(game, w) for p in order if p.seat == seat for w in p.wagers]
            assert stages == sorted(stages), (seat, order)


def test_run_em_twice_pays_every_side_wager_before_any_run_wager():
    """RET ch.11 §H: the Five Card Bonus and Ultimate Pairs of every player first, from the dealer's right;
    §I: then each player's cards are turned over and the Run, Ante and Center wagers settled."""
    g = GAMES["run_em_twice"]
    rng = random.Random(5)
    for _ in range(40):
        settlement = g.settle(parse_round(random_round(rng, "run_em_twice", seats=4, all_wagers=True)))
        order = g.payment_order(settlement)
        side = [i for i, p in enumerate(order) if set(p.wagers) & {"five_card_bonus", "ultimate_pairs"}]
        main = [i for i, p in enumerate(order) if "ante_1" in p.wagers]
        assert len(main) == 4 and (not side or max(side) < min(main))
        assert all(not order[i].shows_hand for i in side) and all(order[i].shows_hand for i in main)
        assert all(set(order[i].wagers) <= {"five_card_bonus", "ultimate_pairs"} for i in side)


def test_a_wager_in_no_pass_is_refused():
    """Fail closed: the dealer cannot be told when to pay a wager the order does not name."""
    odd = SeatSettlement(seat=2, hand={}, wagers={"mystery": WagerResult(Decimal(5), "win", Decimal(5))},
                         covered=frozenset())
    with pytest.raises(ValueError, match="mystery"):
        GAMES["high_card_flush"].payment_order(Settlement(game="high_card_flush", seats=[odd]))


def test_the_run_em_twice_round_journals_and_shows_the_two_passes():
    """RET ch.11 §H, §I through the round: the settlement's journal event carries the order of payment
    the dealer is given, and the public view shows it (seats 5, 3, 1: 5 is farthest to the dealer's right)."""

    async def main():
        j = ListJournal()
        r = await RoundController.open("ret", TableSetup(game="run_em_twice", paytables={"ultimate_pairs": "A"}), j)
        for seat in (1, 3, 5):
            await r.place_wager(seat, "ante_1", Decimal(5))
            await r.place_wager(seat, "ante_2", Decimal(5))
        await r.place_wager(1, "five_card_bonus", Decimal(5))
        await r.place_wager(5, "five_card_bonus", Decimal(5))
        await r.place_wager(3, "ultimate_pairs", Decimal(5))
        await r.announce_no_more_bets()
        await r.confirm_progressive_count(0)
        for name, c in zip(("left", "center", "right", "top", "bottom"), ["Jh", "Js", "2c", "Jd", "3s"], strict=True):
            await r.card(f"community:{name}", c)
        for seat, c in [(1, "Jc"), (3, "8h"), (5, "Ac"), (1, "4d"), (3, "8s"), (5, "Kc")]:
            await r.card(f"seat:{seat}", c)
        for _ in range(3):
            for seat in (1, 3, 5):
                await r.decide(seat, multiple=1)
        await r.settle()
        return j, r.public_view()

    j, view = asyncio.run(main())
    settled = next(d for k, d in j.of("ret") if k == "settled")
    order = [(p["seat"], [w["wager"] for w in p["wagers"]], p["clause"]) for p in settled["order"]]
    run = ["ante_1", "first_run", "ante_2", "second_run", "center"]
    assert order == [
        (5, ["five_card_bonus"], "RET ch.11 §H"),
        (3, ["ultimate_pairs"], "RET ch.11 §H"),
        (1, ["five_card_bonus"], "RET ch.11 §H"),
        (5, run, "RET ch.11 §I-§J"),
        (3, run, "RET ch.11 §I-§J"),
        (1, run, "RET ch.11 §I-§J"),
    ]
    # amounts are the settlement's: seat 3's pair of eights wins Ultimate Pairs, the board's three jacks
    # win the Five Card Bonus (RET ch.12 §D-§E)
    assert settled["order"][1]["wagers"][0]["result"] == "win"
    assert settled["order"][0]["wagers"][0]["result"] == "win"
    assert [(p["seat"], p["wagers"]) for p in view["payment_order"]] == [(s, w) for s, w, _ in order]
    assert view["payment_passes"] == [
        {"clause": "RET ch.11 §H", "wagers": ["five_card_bonus", "ultimate_pairs"], "seats": [5, 3, 1]},
        {"clause": "RET ch.11 §I-§J", "wagers": run, "seats": [5, 3, 1]},
    ]


def _won(*wagers: str) -> dict[str, WagerResult]:
    return {w: WagerResult(Decimal(5), "win", Decimal(5)) for w in wagers}


@pytest.mark.parametrize("game", GAME_NAMES)
def test_the_dealers_line_names_each_pass_s_wagers_in_the_pass_s_declared_order(game):
    """P65: the dealer is told each pass's wagers in the order its game's chapter 11 declares them (UTH ch.11
    §I before §J: Trips before the Progressive), even when the seat paid first has only the pass's last wagers:
    seat 6 (paid first, R1) has each pass's last wager only, seat 1 every wager of every pass."""
    g = GAMES[game]
    everything = [w for p in g.payment_passes for w in p.wagers]
    seats = [SeatSettlement(seat=1, hand={}, wagers=_won(*everything), covered=frozenset()),
             SeatSettlement(seat=6, hand={}, wagers=_won(*(p.wagers[-1] for p in g.payment_passes)),
                            covered=frozenset())]
    order = round_settlement.payment_order(g, Settlement(game=game, seats=seats))
    passes = round_settlement.payment_passes(g, order)
    assert [(p.clause, p.wagers, p.seats) for p in passes] == [(p.clause, p.wagers, (6, 1)) for p in g.payment_passes]


@pytest.mark.parametrize("game", GAME_NAMES)
def test_the_passes_told_follow_the_declared_order_in_played_rounds(game):
    """Random rounds with every wager: each pass told names the wagers its seats have, in the declared order,
    and its seats in the order they are paid."""
    g = GAMES[game]
    declared = {p.clause: p.wagers for p in g.payment_passes}
    rng = random.Random(65)
    for _ in range(40):
        settlement = g.settle(parse_round(random_round(rng, game, all_wagers=True)))
        order = round_settlement.payment_order(g, settlement)
        for told in round_settlement.payment_passes(g, order):
            steps = [p for p in order if p.clause == told.clause]
            had = {w.wager for p in steps for w in p.wagers}
            assert told.wagers == tuple(w for w in declared[told.clause] if w in had)
            assert told.seats == tuple(p.seat for p in steps)


def test_the_typed_order_of_payment_is_journaled_as_before():
    """The journaled steps (``settled.order``) keep their JSON: seat, clause, shows_hand, and each wager's
    result and net as exact text, its line only when there is one."""
    g = GAMES["ultimate_texas_holdem"]
    settlement = g.settle(parse_round(random_round(random.Random(3), "ultimate_texas_holdem", all_wagers=True)))
    data = ev.Settled(meters={}, nets={}, order=round_settlement.payment_order(g, settlement)).to_data()
    by_seat = {s.seat: s for s in settlement.seats}
    assert journal_payload(data)["order"] == [
        {"seat": p.seat, "clause": p.clause, "shows_hand": p.shows_hand,
         "wagers": [{"wager": w, "result": r.result, "net": str(r.net), **({"line": r.line} if r.line else {})}
                    for w in p.wagers for r in [by_seat[p.seat].wagers[w]]]}
        for p in g.payment_order(settlement)
    ]
    # and it reads back as the same typed steps
    assert ev.Settled.from_data(journal_payload(data)).order == round_settlement.payment_order(g, settlement)


def journal_payload(data):
    """``data`` as the journal stores it (amounts as their exact text)."""
    return json.loads(_canonical(_plain(data, "settled")))
