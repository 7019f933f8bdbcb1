"""The exact sheets' optimal strategy played at the table (games.par.optimal_play): each decision against
the enumeration's on a sample (UTH's flop sums against the stored sheets' exact flop states and against
the first pass run on the hand itself, unmapped; JHE's against an independent count; both rivers against
the game's own settlement of every dealer hand; RET's decisions adding up to the stored value of whole
starting hands), and the combinations' simulation playing it.  The simulated base house edge against
the exact one: tests/soak_par_combine.py."""

from __future__ import annotations

import random
from decimal import Decimal
from fractions import Fraction
from itertools import combinations
from math import comb

import numpy as np
import pytest

from games import batch, par
from games.cards import DECK, Card, parse_card
from games.par import combine, kernel, optimal_play, uth
from games.par import uth_kernel as uk
from games.par.ret import PER_HOLE
from games.registry import GAMES
from games.round import Decision, Round, Seat
from games.strategy import FOLD

UTH, JHE, RET = "ultimate_texas_holdem", "jackpot_holdem", "run_em_twice"


def test_every_hand_is_carried_onto_its_representative() -> None:
    reps, names, _ = uth.starting_hands()
    rep_of = {n: (int(r[0]), int(r[1])) for n, r in zip(names, reps, strict=True)}
    seen: dict[str, int] = {}
    for a, b in combinations(range(52), 2):
        name = optimal_play.class_name(a, b)
        perm = optimal_play.suit_map((a, b), rep_of[name])
        assert sorted(perm) == [0, 1, 2, 3]
        assert {4 * (c // 4) + perm[c % 4] for c in (a, b)} == set(rep_of[name])
        seen[name] = seen.get(name, 0) + 1
    assert len(seen) == 169 and sum(seen.values()) == comb(52, 2)


@pytest.mark.parametrize("letter", ["A", "B"])
def test_uth_preflop_and_flop_are_the_enumerations(letter: str) -> None:
    """The stored flop states' exact sums (the whole enumeration's), recomputed from the flop's boards."""
    sheet = par.stored(UTH, letter, "optimal")
    player = optimal_play.UthOptimal(letter)
    base, ropt = (uk.S_BASE_A, uk.S_ROPT_A) if letter == "A" else (uk.S_BASE_B, uk.S_ROPT_B)
    per_flop = comb(47, 2) * comb(45, 2) * 2
    for state in sheet["flop_samples"]:
        hole = [parse_card(c) for c in state["cards"]]
        flop = [parse_card(c) for c in state["flop"]]
        sums = player.flops.sums([c.index for c in flop])
        q = player.q[optimal_play.class_name(*(c.index for c in hole))]
        assert Fraction(int(sums[q, base] + 4 * sums[q, uk.S_D]), per_flop) == Fraction(state["bet_2x"])
        assert Fraction(int(sums[q, ropt]), per_flop) == Fraction(state["check"])
        assert player.flop(hole, flop) == (2 if state["decision"] == "bet_2x" else 0)
    for h in sheet["starting_hands"][::17]:
        a, b = (c.index for c in (parse_card(h["hand"][0] + "c"), parse_card(h["hand"][1] + "d")))
        assert player.preflop((DECK[a], DECK[b])) == optimal_play.PREFLOP[h["decision"]]


def test_uth_flop_of_a_hand_is_its_own_enumeration() -> None:
    """Random hands and flops, in their own suits: the first pass run on the hand itself (no suit map)."""
    rng = random.Random(8)
    player = {x: optimal_play.UthOptimal(x) for x in "AB"}
    for _ in range(6):
        cards = rng.sample(DECK, 5)
        hole, flop = cards[:2], cards[2:]
        setup = uth.Setup(np.arange(52), np.array([[c.index for c in hole]], dtype=np.int64))
        f = sorted(c.index for c in flop)
        rest = [c for c in range(52) if c not in f]
        boards = np.array([sorted([*f, x, y]) for x, y in combinations(rest, 2)], dtype=np.int64)
        acc = np.zeros((kernel.N_FLOPS, 1, uk.SLOTS), dtype=np.int32)
        uk.pass1(boards, *setup.args(), acc)
        own = optimal_play.UthFlops.decisions(acc[kernel.colex3(*f)].astype(np.int64))
        for p, x in enumerate("AB"):
            assert player[x].flop(hole, flop) == (2 if own[0, p] else 0)


@pytest.mark.parametrize("letter", ["A", "B"])
def test_uth_river_is_the_games_settlement(letter: str) -> None:
    """Playing 1x against folding, summed over the 990 dealer hands by the game's own settlement."""
    rng = random.Random(12 if letter == "A" else 13)
    player = optimal_play.UthOptimal(letter)
    for _ in range(2):
        cards = rng.sample(DECK, 7)
        hole, board = tuple(cards[:2]), tuple(cards[2:])
        rest = [c for c in DECK if c not in cards]
        total = Decimal(0)
        for dealer in combinations(rest, 2):
            seat = Seat(seat=1, cards=hole, wagers={"ante": Decimal(1), "blind": Decimal(1)},
                        decision=Decision(multiples=(1,)))
            rnd = Round(game=UTH, paytables={"blind": letter}, seats=(seat,), dealer=dealer, community=board)
            total += GAMES[UTH].settle(rnd).seats[0].net
        play, fold = player.river_sums(hole, board)
        assert Fraction(play, 2) == Fraction(total) and fold == -4 * comb(45, 2)
        assert player.river(hole, board) == (1 if play > fold else FOLD)


@pytest.mark.parametrize("name", ["T9s", "Q4o"])
def test_ret_decisions_add_up_to_the_stored_value(name: str) -> None:
    """A whole starting hand: the second decision's value over every horizontal pair (the Center's inside
    it) adds up to the stored sheet's exact value of the hand, and the first decision is the sheet's."""
    sheet = par.stored(RET, "A", "optimal")
    hand = next(h for h in sheet["starting_hands"] if h["hand"] == name)
    hole = (parse_card(hand["cards"][:2]), parse_card(hand["cards"][2:]))
    player = optimal_play.RetOptimal("A")
    k1 = player.first(hole)
    assert k1 == optimal_play.RetOptimal.FIRST[hand["decision"]] and k1 != FOLD
    rest = [c for c in DECK if c not in hole]
    total = sum(player.second_value(hole, left, right, k1)[1] for left, right in combinations(rest, 2))
    assert Fraction(total, PER_HOLE) == Fraction(hand["ev"])


@pytest.mark.parametrize("game", [UTH, JHE, RET])
def test_combinations_simulated_under_the_optimal_strategy(game: str) -> None:
    """combine's simulation plays the optimal player: a few rounds (one of each group of rare hands drawn on
    purpose), an interval around the covariance."""
    sheet = par.stored(game, "A", "optimal")
    wager = {UTH: "six_card_bonus", JHE: "progressive", RET: "five_card_bonus"}[game]
    sides = {(wager, "A"): combine.side_moments(game, wager, "A")[0]}
    sim = combine.simulate_cross(game, "A", sheet, sides, 16, 5, forced=1)
    (cov, low, high), = sim.values()
    assert low <= cov <= high and low < high
    assert optimal_play.PLAYABLE == (UTH, JHE, RET)


def _relabel(cards: list[Card], perm: list[int]) -> list[Card]:
    return [DECK[4 * (c.index // 4) + perm[c.index % 4]] for c in cards]


def test_jhe_first_is_the_enumerations_in_any_suits() -> None:
    """The stored sample states' 3x decisions (the enumeration's sums), the cards relabelled by random suit
    permutations."""
    sheet = par.stored(JHE, "A", "optimal")
    player = optimal_play.JheOptimal("A")
    rng = random.Random(21)
    for state in sheet["sample_states"]:
        cards = [parse_card(state["cards"][:2]), parse_card(state["cards"][2:]), parse_card(state["shown"])]
        for _ in range(3):
            perm = rng.sample(range(4), 4)
            a, b, shown = _relabel(cards, perm)
            assert player.first((a, b), shown) == (3 if state["decision"] == "bet_3x" else 0), state


def test_jhe_second_sums_are_an_independent_count() -> None:
    """One hand and three cards: the first pass's sums (A, B, the river's value) against every turn, river
    and dealer hand ranked by games.batch and compared here; and the decision of the hand in other suits."""
    player = optimal_play.JheOptimal("A")
    hid = player.hid["QJs"]
    a, b = player.rep["QJs"]
    three = [parse_card(c).index for c in ("Tc", "7d", "2c")]
    sums = player.flops.sums(three)[hid]
    xpay = player.flops.arr.xpay
    rest = [c for c in range(52) if c not in (a, b, *three)]
    total = np.zeros(3, dtype=np.int64)
    for t, r in combinations(rest, 2):
        board = [*three, t, r]
        left = np.array([c for c in rest if c not in (t, r)], dtype=np.int64)
        i, j = np.triu_indices(len(left), 1)
        dealer = np.column_stack([np.tile(board, (len(i), 1)), left[i], left[j]])
        rd = batch.ranks(dealer)
        rp = int(batch.ranks(np.array([[*board, a, b]]))[0])
        q = batch.RANK_CATEGORY[rd] >= 1
        win, lose = rd < rp, rd > rp
        pay = int(xpay[rp])
        big_a = int((win & q).sum()) * (1 + pay) + int((win & ~q).sum()) * pay - 2 * int((lose & q).sum()) \
            - int((lose & ~q).sum())
        big_b = int(win.sum()) - int(lose.sum())
        total += (big_a, big_b, max(big_a + big_b, -2 * len(rd)))  # play 1x or fold, whichever is worth more
    assert sums.tolist() == total.tolist()
    bet = bool(sums[0] + 2 * sums[1] > sums[2])
    hole, shown = [DECK[a], DECK[b]], [DECK[c] for c in three]
    perm = [2, 0, 3, 1]
    assert player.second(tuple(_relabel(hole, perm)), _relabel(shown, perm)) == (2 if bet else 0)


def test_jhe_third_is_the_games_settlement() -> None:
    """Playing 1x against folding, summed over the 990 dealer hands by the game's own settlement."""
    rng = random.Random(14)
    player = optimal_play.JheOptimal("A")
    for _ in range(2):
        cards = rng.sample(DECK, 7)
        hole, board = tuple(cards[:2]), tuple(cards[2:])
        total = Decimal(0)
        for dealer in combinations([c for c in DECK if c not in cards], 2):
            seat = Seat(seat=1, cards=hole, wagers={"ante": Decimal(1), "xtra_bonus": Decimal(1)},
                        decision=Decision(multiples=(1,)))
            rnd = Round(game=JHE, paytables={"xtra_bonus": "A"}, seats=(seat,), dealer=dealer, community=board)
            total += GAMES[JHE].settle(rnd).seats[0].net
        play, fold = player.third_sums(hole, board)
        assert play == total and fold == -2 * comb(45, 2)
        assert player.third(hole, board) == (1 if play > fold else FOLD)
