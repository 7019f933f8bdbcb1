"""UTH's exact base-game sheet (games.par.uth): the kernel against independent counts.

- one board's counts of dealer hands (beaten, tied, lost to, by the dealer qualifying) against a
  direct count with games.poker, and the kernel's posted river and flop decisions against
  games.strategy on random states (a differential test of the port);
- the whole pipeline (both passes, the optimal decisions, the sheet) on a 10-card deck against a
  brute-force game tree settled by games.holdem.against_dealer;
- the stored sheets' flop samples re-enumerated over every turn, river and dealer hand (numpy batch
  ranks) and compared exactly, and the stored sheets' own sums.
The whole enumeration runs in make soak (tests/soak_par.py).
"""

from __future__ import annotations

import random
from decimal import Decimal
from fractions import Fraction
from functools import cache
from itertools import combinations

import numpy as np
import pytest

from games import batch
from games.cards import DECK, parse_card
from games.holdem import against_dealer
from games.par import stored
from games.par import uth as par_uth
from games.par import uth_kernel as uk
from games.paytables import paytable
from games.poker import PokerHand, best_hand, lines_made, value
from games.round import Decision, Seat, WagerResult
from games.strategy import FOLD, uth_flop, uth_river

UTH = "ultimate_texas_holdem"


def test_kernel_against_independent_counts() -> None:
    """One test, so that one worker compiles the kernel (about 20 s of CPU once; cached after)."""
    reps, _, _ = par_uth.starting_hands()
    full = par_uth.Setup(np.arange(52), reps)
    _board_counts_and_posted_river_match_games_poker_and_strategy(full)
    _posted_decisions_agree_with_games_strategy(full)
    _small_deck_pipeline_matches_brute_force()


@cache
def _hand(cards: frozenset) -> PokerHand:
    return best_hand(sorted(cards, key=lambda c: c.index))


@cache
def _settle(player: PokerHand, dealer: PokerHand, play: int, letter: str) -> Fraction:
    """The round's net in Antes by the game's own settlement (Ante = Blind = 1; play 0 = fold)."""
    decision = Decision(multiples=(play,) if play else (), fold=not play)
    seat = Seat(1, (), {"ante": Decimal(1), "blind": Decimal(1)}, decision)
    results: dict[str, WagerResult] = {}
    amounts = {"play": Decimal(play)} if play else {}
    against_dealer(results, seat, amounts, "blind", paytable(UTH, "blind", letter), player,
                   lines_made(player), dealer)
    return sum((Fraction(r.net) for r in results.values()), Fraction(0))


def _board_counts_and_posted_river_match_games_poker_and_strategy(full: par_uth.Setup) -> None:
    rng = random.Random(27)
    for _ in range(3):
        board_cards = rng.sample(DECK, 5)
        board = np.array(sorted(c.index for c in board_cards))
        valid, rank_p, counts, post = full.board(board)
        for q in rng.sample(range(len(full.reps)), 6):
            hole = tuple(DECK[int(c)] for c in full.reps[q])
            if not valid[q]:
                assert set(hole) & set(board_cards)
                continue
            mine = value([*hole, *board_cards])
            assert batch.RANK_VALUE[rank_p[q]] == mine
            expect = [0] * 5
            rest = [c for c in DECK if c not in hole and c not in board_cards]
            for dealer in combinations(rest, 2):
                d = best_hand([*dealer, *board_cards])
                qualifies = d.category >= 1
                if mine > d.value:
                    expect[uk.WQ if qualifies else uk.WNQ] += 1
                elif mine == d.value:
                    expect[uk.TIE] += 1
                else:
                    expect[uk.LQ if qualifies else uk.LNQ] += 1
            assert list(counts[q]) == expect
            assert bool(post[q]) == (uth_river(hole, board_cards) != FOLD)


def _posted_decisions_agree_with_games_strategy(full: par_uth.Setup) -> None:
    rng = random.Random(7)
    boards = [np.array(sorted(c.index for c in rng.sample(DECK, 5))) for _ in range(40)]
    checked = 0
    for board in boards:
        valid, _, _, post = full.board(board)
        board_cards = [DECK[int(c)] for c in board]
        for q in np.flatnonzero(valid)[::7]:
            hole = [DECK[int(c)] for c in full.reps[q]]
            assert bool(post[q]) == (uth_river(hole, board_cards) != FOLD)
            flop = board_cards[:3]
            kernel_flop = uk.posted_flop(int(full.reps[q, 0]), int(full.reps[q, 1]), *(c.index for c in flop),
                                         full.t5, full.category)
            assert kernel_flop == (uth_flop(hole, flop) == 2)
            checked += 1
    assert checked > 500


# -- the whole pipeline on a small deck --------------------------------------------------------------

#: ten cards: a royal flush, straights, flushes, pairs and two pairs can be made (about 3 s of CPU)
SMALL = ("As", "Ks", "Qs", "Js", "Ts", "Ah", "Kh", "5h", "5d", "2c")


def _brute(letter: str) -> tuple[dict[tuple[int, int], Fraction], dict[Fraction, int], int]:
    """Every hand's optimal expected net, the distribution of the net, the outcomes counted: the game
    tree walked street by street, each decision taken on the sums over what is still unseen."""
    deck = [parse_card(c) for c in SMALL]
    evs: dict[tuple[int, int], Fraction] = {}
    dist: dict[Fraction, int] = {}
    space = 0
    for hole in combinations(deck, 2):
        rest = [c for c in deck if c not in hole]
        plans: dict[int, list[Fraction]] = {4: [], 3: [], 0: []}
        for flop in combinations(rest, 3):
            left = [c for c in rest if c not in flop]
            bets: dict[int, list[Fraction]] = {4: [], 3: [], 2: []}
            checked: list[Fraction] = []
            for tr in combinations(left, 2):
                board = frozenset((*flop, *tr))
                player = _hand(board | set(hole))
                dealers = [_hand(board | set(d)) for d in combinations([c for c in left if c not in tr], 2)]
                for m in bets:
                    bets[m] += [_settle(player, d, m, letter) for d in dealers]
                river = [_settle(player, d, 1, letter) for d in dealers]
                folded = [_settle(player, d, 0, letter) for d in dealers]
                checked += river if sum(river) > sum(folded) else folded
            plans[4] += bets[4]
            plans[3] += bets[3]
            plans[0] += bets[2] if sum(bets[2]) > sum(checked) else checked
        totals = {m: sum(v) for m, v in plans.items()}
        choice = next(m for m in (0, 3, 4) if totals[m] == max(totals.values()))
        evs[tuple(sorted(c.index for c in hole))] = totals[choice] / len(plans[choice])
        for x in plans[choice]:
            dist[x] = dist.get(x, 0) + 1
        space += len(plans[choice])
    return evs, dist, space


def _small_deck_pipeline_matches_brute_force() -> None:
    deck = np.array(sorted(parse_card(c).index for c in SMALL))
    reps = np.array(list(combinations(deck, 2)), dtype=np.int64)
    setup = par_uth.Setup(deck, reps)
    result = par_uth.enumerate_all(setup, workers=1)
    names = [f"{DECK[int(a)].text}{DECK[int(b)].text}" for a, b in reps]
    for letter in ("A", "B"):
        sheet = par_uth.sheet(setup, result, letter, "optimal", names, [1] * len(reps))
        evs, dist, space = _brute(letter)
        assert sheet["space"] == space
        for hand, (a, b) in zip(sheet["starting_hands"], reps, strict=True):
            assert Fraction(hand["ev"]) == evs[(int(a), int(b))], hand["hand"]
        got = {Fraction(n["net"]): Fraction(n["probability"]) for n in sheet["net"]}
        assert got == {k: Fraction(v, space) for k, v in dist.items()}


# -- the stored sheets ---------------------------------------------------------------------------------


def _flop_state(hole: list, flop: list, letter: str, strategy: str) -> tuple[Fraction, Fraction]:
    """The expected net per Ante of betting 2x, and of checking then the river decision, counted over
    every turn, river and dealer hand with games.batch (independent of the kernel's counting)."""
    table = [par_uth.blind_net(letter)[c] for c in range(10)]
    seen = {c.index for c in (*hole, *flop)}
    left = [i for i in range(52) if i not in seen]
    bet2 = check = Fraction(0)
    n = 0
    for t, r in combinations(left, 2):
        board = [*(c.index for c in flop), t, r]
        dealers = [d for d in combinations(left, 2) if t not in d and r not in d]
        player = int(batch.ranks(np.array([[*(c.index for c in hole), *board]]))[0])
        cat = int(batch.RANK_CATEGORY[player])
        dealer = batch.ranks(np.array([[*d, *board] for d in dealers]))
        qualifies = batch.RANK_CATEGORY[dealer] >= 1
        win, lose = dealer < player, dealer > player
        ante = int((win & qualifies).sum()) - int((lose & qualifies).sum())
        blind = table[cat] * int(win.sum()) - int(lose.sum())
        d = int(win.sum()) - int(lose.sum())
        bet2 += ante + blind + 2 * d
        play1 = ante + blind + d
        if strategy == "posted":
            plays = uth_river(hole, [DECK[i] for i in board]) != FOLD
        else:
            plays = play1 > -2 * len(dealers)
        check += play1 if plays else -2 * len(dealers)
        n += len(dealers)
    return bet2 / n, check / n


@pytest.mark.parametrize(("letter", "strategy", "index"), [("A", "optimal", 0), ("B", "posted", 1)])
def test_stored_flop_samples_re_enumerated(letter: str, strategy: str, index: int) -> None:
    """One flop state a sheet stores (of four: make soak recomputes the whole), about 2 s of CPU."""
    sheet = stored(UTH, letter, strategy)
    for sample in sheet["flop_samples"][index:index + 1]:
        hole = [parse_card(c) for c in sample["cards"]]
        flop = [parse_card(c) for c in sample["flop"]]
        bet2, check = _flop_state(hole, flop, letter, strategy)
        assert (Fraction(sample["bet_2x"]), Fraction(sample["check"])) == (bet2, check), sample


@pytest.mark.parametrize("letter", ["A", "B"])
@pytest.mark.parametrize("strategy", ["optimal", "posted"])
def test_stored_sheet_adds_up(letter: str, strategy: str) -> None:
    sheet = stored(UTH, letter, strategy)
    assert (sheet["game"], sheet["paytable"], sheet["strategy"], sheet["method"]) == (UTH, letter, strategy, "exact")
    assert sheet["space"] == 1326 * 19600 * 1081 * 990
    net = [(Fraction(n["net"]), Fraction(n["probability"])) for n in sheet["net"]]
    assert sum(p for _, p in net) == 1
    mean = sum(x * p for x, p in net)
    assert -mean == Fraction(sheet["house_edge_per_ante"])
    assert sum(Fraction(p["return_share"]) for p in sheet["parts"].values()) == mean
    assert sum(Fraction(d["probability"]) for d in sheet["outcomes"]) == 1
    hands = sheet["starting_hands"]
    assert sum(h["weight"] for h in hands) == 1326 and len(hands) == 169
    assert sum(h["weight"] * Fraction(h["ev"]) for h in hands) / 1326 == mean
    if strategy == "posted":
        from games.strategy import uth_raise_4x

        for h in hands:
            cards = [DECK[i] for i in par_uth.starting_hands()[0][[x["hand"] for x in hands].index(h["hand"])]]
            assert (h["decision"] == "bet_4x") == uth_raise_4x(cards)


@pytest.mark.parametrize(("letter", "strategy"), [("A", "optimal"), ("A", "posted"), ("B", "optimal"), ("B", "posted")])
def test_stored_sheet_names_the_current_code(letter: str, strategy: str) -> None:
    """A kernel changed without recomputing the sheets (make soak: tests/soak_par.py) fails here."""
    from games.par import kernel

    assert stored(par_uth.GAME, letter, strategy)["computed"]["code_version"] == \
        kernel.code_version("uth.py", "uth_kernel.py")
