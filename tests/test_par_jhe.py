"""JHE's exact base-game sheet (games/par/jhe.py): its kernel against the game's own code, and the stored
sheets against a recount of some of their states (one dealer hand at a time, no sorting)."""

from __future__ import annotations

import random
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from games.cards import DECK
from games.jackpot_holdem import GAME as JHE
from games.par import _jret as j
from games.par import jhe
from games.poker import category_of, value
from games.round import Decision, Round, Seat
from games.strategy import FOLD, jhe_second, jhe_third

ONE = Decimal(1)


@pytest.fixture(scope="module")
def arr() -> jhe._Arrays:
    return jhe._Arrays("A")


def _on_board(arr: jhe._Arrays, board: list[int]) -> tuple[np.ndarray, ...]:
    ha, hb, hr, less, ties = (np.empty(1081, np.int64) for _ in range(5))
    nqcnt, r6card, r6s = np.zeros(52, np.int64), np.zeros(52, np.int64), np.empty(47, np.int64)
    hist, order = np.zeros(j.N_RANKS + 1, np.int64), np.empty(1081, np.int64)
    nq_total, board_cat = jhe._board(
        np.array(board, dtype=np.int8), *arr.common(), ha, hb, hr, less, ties, nqcnt, r6card, r6s, hist, order
    )
    return ha, hb, hr, less, ties, nqcnt, r6card, r6s, np.array([nq_total, board_cat])


def _settled_net(hole: tuple[int, int], dealer: tuple[int, int], board: list[int], multiple: int) -> Decimal:
    decision = Decision(fold=True) if multiple == FOLD else Decision(multiples=(multiple,))
    seat = Seat(
        seat=1, cards=(DECK[hole[0]], DECK[hole[1]]), wagers={"ante": ONE, "xtra_bonus": ONE}, decision=decision
    )
    rnd = Round(
        game=jhe.GAME,
        paytables={"xtra_bonus": "A"},
        seats=(seat,),
        dealer=(DECK[dealer[0]], DECK[dealer[1]]),
        community=tuple(DECK[c] for c in board),
    )
    return JHE.settle(rnd).seats[0].net


def test_dealer_counts_and_the_play_formula_agree_with_the_game(arr: jhe._Arrays) -> None:
    """Per hand and board: the kernel's (Wq, Wnq, T, Lq, Lnq) by games.poker, dealer hand by dealer hand, and
    A + kB = the settled net summed over the 990 dealer hands (games.jackpot_holdem settles a sample)."""
    rng = random.Random(27)
    for _ in range(1):
        board = sorted(rng.sample(range(52), 5))
        ha, hb, hr, less, ties, nqcnt, _, _, extra = _on_board(arr, board)
        for h in rng.sample(range(1081), 3):
            a, b = int(ha[h]), int(hb[h])
            got = jhe._outcomes(a, b, hr[h], less[h], ties[h], nqcnt, int(extra[0]), arr.category)
            mine = value([DECK[a], DECK[b], *(DECK[c] for c in board)])
            want = [0] * 5
            rest = [c for c in range(52) if c not in board and c not in (a, b)]
            dealers = [(x, y) for i, x in enumerate(rest) for y in rest[i + 1 :]]
            for x, y in dealers:
                theirs = value([DECK[x], DECK[y], *(DECK[c] for c in board)])
                q = category_of(theirs) >= 1
                want[(0 if q else 1) if mine > theirs else 2 if mine == theirs else (3 if q else 4)] += 1
            assert tuple(int(g) for g in got) == tuple(want)
            wq, wnq, t, lq, lnq = want
            pay = int(arr.xpay[hr[h]])
            big_a, big_b = wq * (1 + pay) + wnq * pay - 2 * lq - lnq, wq + wnq - lq - lnq
            for k in (1, 3):
                sample = rng.sample(dealers, 15)
                # the settled net of one dealer hand = the formula's term for that dealer hand's outcome
                for x, y in sample:
                    theirs = value([DECK[x], DECK[y], *(DECK[c] for c in board)])
                    q = category_of(theirs) >= 1
                    term = (1 if q else 0) + pay + k if mine > theirs else 0 if mine == theirs else -(2 if q else 1) - k
                    assert _settled_net((a, b), (x, y), board, k) == term
            for k in (1, 2, 3):  # the sum of the terms over the dealer hands is A + kB
                terms = wq * (1 + pay + k) + wnq * (pay + k) - lq * (2 + k) - lnq * (1 + k)
                assert big_a + k * big_b == terms
            assert _settled_net((a, b), dealers[0], board, FOLD) == -2


def test_posted_decisions_are_games_strategy(arr: jhe._Arrays) -> None:
    """The kernel's jhe_second (uth_flop) and jhe_third (uth_river) against games.strategy, random states."""
    rng = random.Random(11)
    for _ in range(400):
        a, b, x, y, z = rng.sample(range(52), 5)
        got = jhe._flop_posted(a, b, x, y, z, arr.keys, arr.masks, arr.r5, arr.f5, arr.flush_rank, arr.category)
        assert bool(got) == (jhe_second((DECK[a], DECK[b]), (DECK[x], DECK[y], DECK[z])) == 2)
    for _ in range(6):
        board = sorted(rng.sample(range(52), 5))
        ha, hb, hr, _, _, _, r6card, r6s, extra = _on_board(arr, board)
        for h in rng.sample(range(1081), 40):
            got = jhe._river_posted(ha[h], hb[h], hr[h], int(extra[1]), arr.category, r6card, r6s)
            want = jhe_third((DECK[int(ha[h])], DECK[int(hb[h])]), [DECK[c] for c in board]) == 1
            assert bool(got) == want


@pytest.mark.parametrize("strategy", ["optimal", "posted"])
def test_stored_sheet_is_consistent(strategy: str) -> None:
    sheet = j.load(jhe.GAME, "A", strategy)
    assert sheet["method"] == "exact" and sheet["space"] == jhe.state_space() == 1326 * 50 * 1176 * 1081 * 990
    probs = [Fraction(n["probability"]) for n in sheet["net"]]  # type: ignore[index, union-attr]
    assert sum(probs) == 1
    mean = sum(Fraction(n["net"]) * Fraction(n["probability"]) for n in sheet["net"])  # type: ignore[index, union-attr]
    assert 1 + mean == Fraction(str(sheet["return_per_ante"]))
    hands = sheet["starting_hands"]
    assert isinstance(hands, list) and len(hands) == 169
    assert Fraction(sum(h["weight"] * Fraction(h["ev"]) for h in hands), 1326) == mean
    parts = sheet["parts"]
    assert isinstance(parts, dict) and sum(Fraction(p["return_share"]) for p in parts.values()) == mean
    assert sum(Fraction(d["probability"]) for d in sheet["decisions"]) == 1  # type: ignore[index, union-attr]


@pytest.mark.parametrize(("strategy", "index"), [("optimal", 0), ("posted", 2), ("optimal", 4)])
def test_stored_states_recounted(strategy: str, index: int) -> None:
    """A stored (hand, first card shown) state's sums for 3x and for continuing, recounted exactly."""
    sheet = j.load(jhe.GAME, "A", strategy)
    state = sheet["sample_states"][index]  # type: ignore[index]
    bet3, cont = jhe.recount_state(state["cards"], state["shown"], strategy)
    assert (str(bet3), str(cont)) == (state["bet_3x_sum"], state["continue_sum"])
    if strategy == "optimal":
        assert state["decision"] == ("bet_3x" if bet3 > cont else "check")


@pytest.mark.parametrize("strategy", ["optimal", "posted"])
def test_stored_sheet_names_the_current_code(strategy: str) -> None:
    """A kernel changed without recomputing the sheets (make soak: tests/soak_par_jret.py) fails here."""
    from pathlib import Path

    version = j.code_version([Path(jhe.__file__), Path(j.__file__)])
    assert j.load(jhe.GAME, "A", strategy)["computed"]["code_version"] == version  # type: ignore[index]
