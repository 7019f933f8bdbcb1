"""Void rounds and the partial settlements of each game's chapter 13 (RULINGS R7a)."""

import random
from decimal import Decimal

import pytest

from games.contract import parse_round, settle
from games.round import Decision
from games.void import KEPT_ALIVE, void_round
from roundgen import GAMES, random_round


@pytest.mark.parametrize("game", GAMES)
def test_full_void_returns_every_wager_and_leaves_the_meters(game):
    """R7a: every wager returned, Progressive included, net 0; meters untouched."""
    rng = random.Random(11)
    for _ in range(50):
        r = parse_round(random_round(rng, game))
        s = void_round(r)
        by_seat = {x.seat: x for x in r.seats}
        assert [x.seat for x in s.seats] == sorted(by_seat, reverse=True)
        for seat in s.seats:
            placed = dict(by_seat[seat.seat].wagers)
            made = len(by_seat[seat.seat].decision.multiples)
            assert len(seat.wagers) == len(placed) + made  # the Play/Raise/Run wagers already made come back too
            for name, w in seat.wagers.items():
                assert w.result == "push" and w.net == 0
                if name in placed:
                    assert w.amount == placed[name]
            assert seat.net == 0
        assert s.meters == (dict(r.progressive.meters) if r.progressive else {})


def test_void_before_any_decision():
    """A round voided during the deal: no decisions yet, only the wagers placed come back."""
    r = parse_round(random_round(random.Random(3), "run_em_twice", seats=3))
    seats = tuple(s.__class__(**{**s.__dict__, "decision": Decision()}) for s in r.seats)
    undecided = r.__class__(**{**r.__dict__, "seats": seats})
    s = void_round(undecided)
    for seat in s.seats:
        assert set(seat.wagers) == set(next(x for x in r.seats if x.seat == seat.seat).wagers)


def _uth_round():
    return {
        "game": "ultimate_texas_holdem",
        "paytables": {"blind": "A", "trips": "A"},
        "dealer": ["Qh", "Qs"],
        "community": ["7c", "7s", "4h", "5s", "9c"],
        "seats": [
            {"seat": 2, "cards": ["7h", "2d"], "wagers": {"ante": 10, "blind": 10, "trips": 5}, "play": 4},
            {"seat": 5, "cards": ["Ac", "Kd"], "wagers": {"ante": 10, "blind": 10}, "play": 3},
        ],
    }


def test_uth_13_G_dealer_card_exposed_keeps_trips():
    """UTH ch.13 §F-§G: Ante, Blind and Play returned; Trips settled on the cards (three 7s: 3 to 1,
    UTH ch.12 §C(1)(g))."""
    r = parse_round(_uth_round())
    s = void_round(r, KEPT_ALIVE[("ultimate_texas_holdem", "UTH ch.13 §G")])
    two = next(x for x in s.seats if x.seat == 2)
    assert two.wagers["trips"].net == Decimal(5) * 3 and two.wagers["trips"].line == "three_of_a_kind"
    for name in ("ante", "blind", "play"):
        assert two.wagers[name].result == "push"
    assert two.wagers["play"].amount == 40
    assert two.net == 15
    assert next(x for x in s.seats if x.seat == 5).net == 0
    # the same Trips result as in a normal settlement
    assert settle(_uth_round()).seats[1].wagers["trips"] == two.wagers["trips"]


def test_hcf_13_F_keeps_side_and_progressive_wagers_and_pays_from_the_meter():
    r = {
        "game": "high_card_flush",
        "paytables": {"flush_bonus": "A", "progressive": "A"},
        "progressive": {"unit": 1, "meters": {"meter": 40000}, "reset": {"meter": 30000}},
        "dealer": ["2c", "3d", "4h", "5s", "7c", "8d", "9h"],
        "seats": [
            {"seat": 1, "cards": ["Ah", "Kh", "Qh", "Jh", "Th", "9s", "2s"],
             "wagers": {"ante": 10, "flush_bonus": 5, "progressive": 1}, "raise": 2},
        ],
    }
    s = void_round(parse_round(r), KEPT_ALIVE[("high_card_flush", "HCF ch.13 §F")])
    seat = s.seats[0]
    assert seat.wagers["ante"].result == seat.wagers["raise"].result == "push"
    # HCF ch.12 §B(1)(c): five-card flush 10 to 1; §E(1)(a)(iii): five-card straight flush $250 for a $1 unit (R3)
    assert seat.wagers["flush_bonus"].net == 50
    assert seat.wagers["progressive"].net == 250 - 1
    assert s.meters == {"meter": Decimal(40000)}


def test_keeping_a_wager_the_game_lacks_is_refused():
    with pytest.raises(ValueError, match="no wager"):
        void_round(parse_round(_uth_round()), {"player_bonus"})
