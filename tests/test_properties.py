"""Invariants over random legal rounds of every game (hypothesis).

* Money: every dollar staked is returned, paid or kept, to the cent (each
  wager's result agrees with its net; the seat's net is the sum less the
  payout limit's cut; amounts are whole cents).
* The decision creates exactly the wagers the rules say, at the right multiple.
* Settlement order is counterclockwise: highest seat first (RULINGS R1).
* Nothing depends on the order seats appear in the input.
* Meters never fall below their reset amount and only fall by what was paid (R4).
* A fold changes none of the side wagers (R7).
"""

from __future__ import annotations

import copy
import random
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.contract import parse_round, settle
from games.money import CENT
from games.registry import GAMES
from roundgen import GAMES as GAME_NAMES
from roundgen import random_round

SIDE = {
    "ultimate_texas_holdem": {"trips", "six_card_bonus", "ultimate_pairs", "bad_beat", "play_the_board"},
    "jackpot_holdem": {"player_bonus"},
    "high_card_flush": {"flush_bonus", "straight_flush_bonus"},
    "run_em_twice": {"five_card_bonus", "ultimate_pairs"},
}
DECISION_WAGERS = {  # the wagers a decision creates, by multiple index
    "ultimate_texas_holdem": ("play",),
    "jackpot_holdem": ("play",),
    "high_card_flush": ("raise",),
    "run_em_twice": ("first_run", "second_run", "center"),
}
PROPERTY_SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

rounds = st.builds(
    lambda seed, game: (game, random_round(random.Random(seed), game)),
    st.integers(0, 2**32 - 1),
    st.sampled_from(GAME_NAMES),
)


def test_every_game_is_registered():
    assert set(GAMES) == set(GAME_NAMES)


@PROPERTY_SETTINGS
@given(rounds)
def test_money_is_conserved_to_the_cent(case):
    game, r = case
    s = settle(r)
    seats_in = {seat["seat"]: seat for seat in r["seats"]}
    limit = r.get("payout_limit")
    for seat in s.seats:
        placed = seats_in[seat.seat]["wagers"]
        total = Decimal(0)
        for name, w in seat.wagers.items():
            assert w.net == w.net.quantize(CENT), (name, w.net)
            if name == "envy":
                assert w.amount == 0 and w.result == "win" and w.net > 0
            elif w.result == "lose":
                assert w.net == -w.amount
            elif w.result == "push":
                assert w.net == 0
            else:
                assert w.result == "win" and w.net > 0, (name, w)
            if name in placed:
                assert w.amount == placed[name]  # the stake settled is the stake placed
            total += w.net
        # every wager placed is settled, once
        assert set(placed) <= set(seat.wagers)
        winnings = sum((w.net for k, w in seat.wagers.items() if k in seat.covered and w.net > 0), Decimal(0))
        assert 0 <= seat.limited_by <= winnings
        if limit is None:
            assert seat.limited_by == 0
        else:
            assert winnings - seat.limited_by <= limit
            assert seat.limited_by == max(Decimal(0), winnings - limit)
        assert seat.net == total - seat.limited_by
        # staked = returned + kept; what the player takes home = returned + winnings - cut
        staked = sum((w.amount for w in seat.wagers.values()), Decimal(0))
        returned = sum((w.amount for w in seat.wagers.values() if w.result != "lose"), Decimal(0))
        kept = sum((w.amount for w in seat.wagers.values() if w.result == "lose"), Decimal(0))
        paid = sum((w.net for w in seat.wagers.values() if w.result == "win"), Decimal(0)) - seat.limited_by
        assert staked == returned + kept
        assert returned + paid - staked == seat.net


@PROPERTY_SETTINGS
@given(rounds)
def test_decisions_create_the_wagers_the_rules_say(case):
    game, r = case
    s = settle(r)
    seats_in = {seat["seat"]: seat for seat in r["seats"]}
    for seat in s.seats:
        raw = seats_in[seat.seat]
        ante = raw["wagers"].get("ante", raw["wagers"].get("ante_1"))
        multiples = raw.get("bets") or ([raw["play"]] if "play" in raw else [raw["raise"]] if "raise" in raw else [])
        names = DECISION_WAGERS[game]
        for i, name in enumerate(names):
            if i < len(multiples):
                assert seat.wagers[name].amount == ante * multiples[i]
            else:
                assert name not in seat.wagers
        if raw.get("fold"):
            # R7: the main-game wagers already made are lost
            for name, w in seat.wagers.items():
                if name not in SIDE[game] | {"progressive", "envy"}:
                    assert w.result == "lose", name


@PROPERTY_SETTINGS
@given(rounds, st.randoms(use_true_random=False))
def test_settlement_order_and_input_order_independence(case, rng):
    game, r = case
    s = settle(r)
    numbers = [seat.seat for seat in s.seats]
    assert numbers == sorted(numbers, reverse=True)  # R1
    shuffled = copy.deepcopy(r)
    rng.shuffle(shuffled["seats"])
    again = settle(shuffled)
    assert [(x.seat, x.hand, x.wagers, x.limited_by) for x in again.seats] == [
        (x.seat, x.hand, x.wagers, x.limited_by) for x in s.seats
    ]
    assert again.meters == s.meters


@PROPERTY_SETTINGS
@given(rounds)
def test_meters_fall_only_by_what_was_paid_and_never_below_reset(case):
    game, r = case
    if "progressive" not in r:
        return
    s = settle(r)
    before = {k: Decimal(v) for k, v in r["progressive"]["meters"].items()}
    reset = {k: Decimal(v) for k, v in r["progressive"]["reset"].items()}
    assert set(s.meters) == set(before)
    for meter, after in s.meters.items():
        assert after <= before[meter]
        if meter in reset:
            assert after >= min(reset[meter], before[meter])
    # meter-funded payouts: every fall of a meter is a progressive win
    fell = sum((before[m] - s.meters[m] for m in s.meters), Decimal(0))
    wins = sum(
        (seat.wagers["progressive"].net + seat.wagers["progressive"].amount
         for seat in s.seats if "progressive" in seat.wagers and seat.wagers["progressive"].result == "win"),
        Decimal(0),
    )
    assert fell <= wins


@PROPERTY_SETTINGS
@given(rounds)
def test_a_fold_changes_no_side_wager(case):
    game, r = case
    if any(seat.get("fold") for seat in r["seats"]):
        return
    folded = copy.deepcopy(r)
    for seat in folded["seats"]:
        seat.pop("play", None)
        seat.pop("raise", None)
        if game == "run_em_twice":
            seat["bets"] = []
        seat["fold"] = True
    a = {x.seat: x for x in settle(r).seats}
    b = {x.seat: x for x in settle(folded).seats}
    for number, seat in a.items():
        for name in SIDE[game] | {"progressive"}:
            if name in seat.wagers:
                assert b[number].wagers[name] == seat.wagers[name], (number, name)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_generator_makes_legal_rounds(game):
    rng = random.Random(5)
    for _ in range(200):
        parse_round(random_round(rng, game))
