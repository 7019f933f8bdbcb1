"""UTH's Bad Beat counted exactly (games.par.bad_beat): the losing hand of the two final hands, R24b.

The kernel's walk against every pair of hands on a few boards (games.batch's ranks, pair by pair); the
stored count adding up to every deal; the count against the vectorised simulation line by line; the
rare deals drawn for games.par.combine losing with the hand asked for, as the game settles them; and
``tablectl analyze`` answering the Bad Beat from the count (exact), or simulating it when asked.
"""

from __future__ import annotations

import random
from decimal import Decimal
from math import comb, sqrt

import numpy as np
import pytest

from games import analysis, batch
from games.cards import DECK, parse_card
from games.par import bad_beat, kernel
from games.par.bad_beat_kernel import TIES, categories, losers, per_board
from games.paytables import paytable
from games.poker import CATEGORY_NAMES
from games.round import Decision, Round, Seat
from games.simulation import bad_beat_lines, deal
from games.ultimate_texas_holdem import GAME as UTH_GAME

UTH = "ultimate_texas_holdem"
QUADS, STRAIGHT_FLUSH = CATEGORY_NAMES.index("four_of_a_kind"), CATEGORY_NAMES.index("straight_flush")
# a random board, a paired one, one holding four aces (every hand is four of a kind: ties and rare losers) and
# one of four suited cards (straight flushes against each other)
BOARDS = ("Kd 9c 6h 4s 2c", "Jh Jc 7d 7s 3h", "Ac Ad Ah As 5d", "9h Th Jh Qh 2c")


def _board(text: str) -> np.ndarray:
    return np.array(sorted(parse_card(c).index for c in text.split()), dtype=np.int64)


def _pairwise(board: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The kernels' tallies of one board, pair by pair: each hand against every hand sharing none of its
    cards; the losers' tally and the categories' joint."""
    rest = [c for c in range(52) if c not in board]
    hands = np.array([(rest[i], rest[j]) for i in range(47) for j in range(i + 1, 47)], dtype=np.int64)
    ranks = batch.ranks(np.column_stack([hands, np.tile(board, (len(hands), 1))]))
    cats = batch.RANK_CATEGORY[ranks]
    out = np.zeros(TIES + 1, dtype=np.int64)
    joint = np.zeros((TIES, TIES), dtype=np.int64)
    for h, (a, b) in enumerate(hands):
        apart = ~np.isin(hands, (a, b)).any(axis=1)
        out[cats[h]] += int((apart & (ranks > ranks[h])).sum())  # h the lower hand
        out[TIES] += int((apart & (ranks == ranks[h])).sum())  # h itself shares its cards: not counted
        joint[cats[h]] += np.bincount(cats[apart], minlength=TIES)
    return out, joint


def _kernel_args() -> tuple[object, ...]:
    i, j = bad_beat.hand_pairs(47)
    return kernel.tables(7), kernel.CATEGORY.astype(np.int64), i, j


@pytest.mark.parametrize("text", BOARDS)
def test_the_walk_counts_every_pair_of_hands_on_a_board(text):
    board = _board(text)
    acc = np.zeros(TIES + 1, dtype=np.int64)
    losers(board[None, :], *_kernel_args(), acc)
    want, want_joint = _pairwise(board)
    assert acc.tolist() == want.tolist()
    joint = np.zeros((TIES, TIES), dtype=np.int64)
    categories(board[None, :], *_kernel_args(), joint)  # the soak's check against a published table
    assert joint.tolist() == want_joint.tolist()
    # every pair of hands sharing no card is counted once as a (lower, higher) pair or twice as a tie
    assert 2 * int(acc[:TIES].sum()) + int(acc[TIES]) == comb(47, 2) * comb(45, 2)
    out = np.zeros((1, TIES - bad_beat.RARE_FROM), dtype=np.int64)
    per_board(board[None, :], *_kernel_args(), bad_beat.RARE_FROM, out)
    assert out[0].tolist() == acc[bad_beat.RARE_FROM:TIES].tolist()


def test_the_stored_count_adds_up_to_every_deal_and_names_its_code():
    s = bad_beat.stored()
    assert s["computed"]["code_version"] == bad_beat.code_version()  # recount after changing the kernel
    assert s["space"] == comb(52, 5) * comb(47, 2) * comb(45, 2) == bad_beat.SPACE
    assert sum(s["losing_hand"].values()) + s["ties"] == s["space"]
    assert list(s["losing_hand"]) == list(CATEGORY_NAMES)
    assert s["losing_hand"]["royal_flush"] == 0  # no hand beats a royal flush: it only ties (R24b: loses)
    assert all(n % 2 == 0 for n in s["losing_hand"].values())  # the player holding either hand of a pair


def test_the_count_agrees_with_the_simulation_line_by_line():
    """games.simulation deals nine cards and settles the Bad Beat vectorised (checked against the game's own
    settlement in test_analysis_sim): 2,000,000 rounds, each line's hits within 4.5 standard deviations of
    the count's.  A one-hand count (Trips') would give three of a kind twice as often: far outside."""
    table = paytable(UTH, "bad_beat", "A")
    s = bad_beat.stored()
    hits = np.zeros(len(table.lines) + 1, dtype=np.int64)
    rng = np.random.default_rng(2711)
    for _ in range(4):
        hits += np.bincount(bad_beat_lines(table, deal(rng, 500_000, 9)), minlength=len(table.lines) + 1)
    n = int(hits.sum())
    exact = analysis.analyze(UTH, "bad_beat", "A")
    assert exact["method"] == "exact" and exact["space"] == s["space"]
    checked = 0
    for i, line in enumerate(exact["lines"]):
        p = line["count"] / s["space"]
        if n * p < 100:
            continue  # the straight flush: too rare for 2,000,000 rounds
        assert abs(int(hits[i]) - n * p) <= 4.5 * sqrt(n * p * (1 - p)), (line["line"], int(hits[i]), n * p)
        checked += 1
    assert checked == 5


def test_analyze_counts_the_bad_beat_and_simulates_it_when_asked():
    for letter in ("A", "B", "C"):
        r = analysis.analyze(UTH, "bad_beat", letter)
        assert r["method"] == "exact"
        assert r["losing_count"] + sum(x["count"] for x in r["lines"]) == r["space"]
        assert [x["line"] for x in r["lines"]] == [line.key for line in paytable(UTH, "bad_beat", letter).lines]
    s = bad_beat.stored()["losing_hand"]
    by_line = {x["line"]: x["count"] for x in analysis.analyze(UTH, "bad_beat", "A")["lines"]}
    assert by_line["three_of_a_kind"] == s["three_of_a_kind"] and by_line["straight_flush"] == s["straight_flush"]
    simulated = analysis.analyze(UTH, "bad_beat", "A", rounds=20_000, seed=1, workers=1)
    assert simulated["method"] == "simulation" and simulated["rounds"] == 20_000


def _settled(player, dealer, board, letter="A"):
    seat = Seat(seat=1, cards=tuple(DECK[c] for c in player), wagers={"ante": Decimal(1), "blind": Decimal(1),
                "bad_beat": Decimal(1)}, decision=Decision(fold=True))
    rnd = Round(game=UTH, paytables={"blind": "A", "bad_beat": letter}, seats=(seat,),
                dealer=tuple(DECK[c] for c in dealer), community=tuple(DECK[c] for c in board))
    return UTH_GAME.settle(rnd).seats[0].wagers["bad_beat"]


def test_the_rare_deals_drawn_lose_with_the_hand_asked_for():
    """games.par.combine draws deals whose losing hand is four of a kind or a straight flush: each is settled
    by the game and pays that line (R24b), the player holding the losing hand or the winning one."""
    boards = np.array([_board(t) for t in BOARDS], dtype=np.int64)
    weights = np.zeros((len(boards), TIES - bad_beat.RARE_FROM), dtype=np.int64)
    per_board(boards, *_kernel_args(), bad_beat.RARE_FROM, weights)
    rng = random.Random(5)
    seen = set()
    for category in (QUADS, STRAIGHT_FLUSH):
        for _ in range(40):
            player, dealer, board = bad_beat.draw(rng, category, boards, weights)
            assert len({*player, *dealer, *board}) == 9
            assert sorted(board) in [sorted(b) for b in boards.tolist()]
            w = _settled(player, dealer, board)
            assert w.result == "win" and w.line == CATEGORY_NAMES[category]
            p, d = (batch.ranks(np.array([[*h, *board]]))[0] for h in (player, dealer))
            seen.add((category, bool(p < d)))
    assert seen == {(c, lost) for c in (QUADS, STRAIGHT_FLUSH) for lost in (True, False)}
