"""Which decisions are legal when, per game: what the daemon asks the dealer panel for."""

import pytest

from games.cards import parse_cards
from games.registry import GAMES


def streets(game):
    return [(s.shown, s.multiples, s.may_check, s.may_fold) for s in GAMES[game].streets]


def test_uth_streets():
    # UTH ch.11 §B(1): 3x or 4x or check before the flop; §D(1): 2x or check after it; §F: 1x or fold.
    assert streets("ultimate_texas_holdem") == [
        (0, (4, 3), True, False), (3, (2,), True, False), (5, (1,), False, True)
    ]


def test_jhe_streets():
    # RULINGS R11, JHE ch.11 §B-§G: one community card shown before the first decision.
    assert streets("jackpot_holdem") == [(1, (3,), True, False), (3, (2,), True, False), (5, (1,), False, True)]


def test_ret_streets():
    # RET ch.11 §B, §D, §F; RULINGS R26: 1-3x an Ante or fold, three times; no check.
    assert streets("run_em_twice") == [
        (0, (1, 2, 3), False, True), (2, (1, 2, 3), False, True), (4, (1, 2, 3), False, True)
    ]


@pytest.mark.parametrize(
    "cards, allowed",
    [
        ("As Kd Qh Jc 9s 7d 5h", (1,)),  # two-card flushes: exactly 1x (R16)
        ("As Ks Qs Jc 9d 7d 5h", (1,)),  # three-card
        ("As Ks Qs Js 9d 7d 5h", (1,)),  # four-card
        ("As Ks Qs Js 9s 7d 5h", (1, 2)),  # five-card: 1x or 2x
        ("As Ks Qs Js 9s 7s 5h", (1, 2, 3)),  # six-card
        ("As Ks Qs Js 9s 7s 5s", (1, 2, 3)),  # seven-card
    ],
)
def test_hcf_raise_follows_the_players_own_flush(cards, allowed):
    game = GAMES["high_card_flush"]
    (street,) = game.streets
    assert street.may_fold and not street.may_check
    assert game.legal_multiples(street, parse_cards(cards.split())) == allowed
