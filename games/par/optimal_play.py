"""The exact sheets' optimal strategy played at the table, one dealt round at a time (issue 27).

games.par.combine simulates the side wagers beside the base game; for the optimal strategy each
decision must be the exact sheet's.  UTH: before the flop, the stored sheet's decision for the
starting hand; after a check, the flop decision of the enumeration's first pass (games.par.uth:
bet 2x when its sum beats checking), looked up for the hand's representative after the suit
permutation that carries the hand onto it; after the river, the kernel's own rule on the C(45,2)
dealer hands left (play when it beats folding; a tie folds, the smaller wager, docs/analysis.md).
The flop sums come from the first pass run on the flop's C(49,2) boards alone (0.07 s, kept)
until FULL flops have been asked for, then from one pass over all C(52,5) boards (about three
minutes of CPU, on two threads), which also re-derives the preflop decisions (asserted equal to
the stored ones).  RET: the first decision the stored sheet's; the second and the Center decision
by the sums games.par.ret's kernel compares (every vertical pair and center left), at the table.
JHE as UTH: the first decision the stored sheet's (the cards shown on which it bets 3x), the
second from games.par.jhe's first pass (per three cards, on their boards' suit representatives;
then whole), the third by its river rule over the 990 dealer hands.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from games.cards import Card
from games.par import kernel, threads
from games.par import uth_kernel as uk
from games.par._jret import N_RANKS
from games.par._jret import kernel as njit_kernel
from games.par.ret import _center_choice, _run_table, _sign
from games.strategy import FOLD, ret_bets

UTH, JHE, RET = "ultimate_texas_holdem", "jackpot_holdem", "run_em_twice"
#: the games whose optimal strategy is played here
PLAYABLE = (UTH, JHE, RET)
#: flops computed one by one before the whole first pass is run instead (0.07 s each against ~170 s)
FULL = 1500
FULL_JHE = 300  # JHE's: 0.2 s each against a few minutes
PREFLOP = {"bet_4x": 4, "bet_3x": 3, "check": 0}
RANK_TEXT = "23456789TJQKA"


def class_name(a: int, b: int) -> str:
    """The starting hand's class (AA, AKs, AKo) of two card indices (rank-major, games.cards)."""
    hi, lo = max(a, b), min(a, b)
    if hi // 4 == lo // 4:
        return RANK_TEXT[hi // 4] * 2
    return RANK_TEXT[hi // 4] + RANK_TEXT[lo // 4] + ("s" if hi % 4 == lo % 4 else "o")


def suit_map(hole: tuple[int, int], rep: tuple[int, int]) -> list[int]:
    """A permutation of the four suits carrying ``hole`` onto ``rep`` (the same class): ``out[suit]``.
    The game treats the suits alike, so every exact value, and the decision, is the representative's."""
    (a, b), (ra, rb) = sorted(hole, reverse=True), sorted(rep, reverse=True)
    out = [-1] * 4
    out[a % 4] = ra % 4
    out[b % 4] = rb % 4  # a suited hand: the same suit both times
    free = iter(s for s in range(4) if s not in out)
    return [s if s >= 0 else next(free) for s in out]


def _indices(cards: Sequence[Card]) -> list[int]:
    return [c.index for c in cards]


# -- Ultimate Texas Hold 'Em ----------------------------------------------------------------------


class FlopDecisions:
    """The enumeration's decisions after the flop (or JHE's three cards shown), asked one flop at a time:
    each flop's row from the first pass over its own boards (``row``) until ``full`` flops have been
    asked, then the whole table from one pass over every board (``whole``).  Threads of a simulation
    share it (one lock)."""

    full = FULL

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.rows: dict[int, np.ndarray] = {}  # flop index -> the row, computed one by one
        self.table: np.ndarray | None = None  # (N_FLOPS, ...) the whole first pass's decisions

    def row(self, flop: Sequence[int]) -> np.ndarray:
        raise NotImplementedError

    def whole(self, workers: int | None = None) -> None:
        raise NotImplementedError

    def decided(self, flop: Sequence[int], at: tuple[int, ...]) -> bool:
        """The decision at ``at`` (the row's index: hand, and paytable where the row holds both)."""
        fi = kernel.colex3(*sorted(flop))
        with self.lock:
            if self.table is None and fi not in self.rows:
                if len(self.rows) >= self.full:
                    self.whole()
                else:
                    self.rows[fi] = self.row(flop)
            return bool((self.table[fi] if self.table is not None else self.rows[fi])[at])


class UthFlops(FlopDecisions):
    """The enumeration's flop decisions after a check, both Blind paytables (policies 0 = A, 1 = B)."""

    def __init__(self) -> None:
        from games.par import uth

        super().__init__()  # a row: (169, 2) bool, a hand's decision with each paytable
        self.reps, self.names, _ = uth.starting_hands()
        self.setup = uth.Setup(np.arange(52), self.reps)
        self.preflop: np.ndarray | None = None  # (2, 169) the whole pass's preflop actions
        self._scratch: np.ndarray | None = None

    def sums(self, flop: Sequence[int]) -> np.ndarray:
        """pass1's sums (169, SLOTS) of one flop, from its C(49,2) boards only: exactly the whole pass's
        row (a board adds to the flops it holds).  The scratch array is shared by every call and never
        cleared: the row is the difference of its int32 values after and before, exact modulo 2**32
        and so exact (every row's sum fits, uth_kernel.pass1)."""
        from games.par import uth

        f = sorted(flop)
        rest = np.array([c for c in range(52) if c not in f], dtype=np.int64)
        i, j = np.triu_indices(len(rest), 1)
        boards = np.sort(np.column_stack([np.tile(f, (len(i), 1)), rest[i], rest[j]]), axis=1)
        if self._scratch is None:
            self._scratch = np.zeros((kernel.N_FLOPS, len(self.reps), uk.SLOTS), dtype=np.int32)
        fi = kernel.colex3(*f)
        before = self._scratch[fi].copy()
        uth._call(uk.pass1, boards, *self.setup.args(), self._scratch)
        return np.asarray(self._scratch[fi] - before, dtype=np.int64)  # int32 wraps: the difference is exact

    @staticmethod
    def decisions(sums: np.ndarray) -> np.ndarray:
        """uth.decide's flop rule for each paytable: bet 2x when its sum beats checking (a tie checks)."""
        out = np.zeros((len(sums), 2), dtype=np.bool_)
        for p, (base, ropt) in enumerate(((uk.S_BASE_A, uk.S_ROPT_A), (uk.S_BASE_B, uk.S_ROPT_B))):
            out[:, p] = sums[:, base] + 4 * sums[:, uk.S_D] > sums[:, ropt]
        return out

    def whole(self, workers: int | None = None) -> None:
        """The first pass over every board, as games.par.uth runs it, and uth.decide's decisions."""
        from games.par import uth

        boards = kernel.five_card_subsets(self.setup.deck)
        workers = workers or min(2, os.cpu_count() or 1)
        nr = len(self.reps)

        def w1(b: np.ndarray, acc: np.ndarray) -> None:
            uth._call(uk.pass1, b, *self.setup.args(), acc)

        accs = uth._parallel(boards, w1, lambda: np.zeros((kernel.N_FLOPS, nr, uk.SLOTS), dtype=np.int32),
                             workers, None, 0, len(boards))
        acc = accs[0].astype(np.int64)
        for a in accs[1:]:
            acc += a
        del accs
        d = uth.decide(self.setup, acc)
        self.table = d["flop2x"][:, :, :2].astype(np.bool_)
        self.preflop = d["preflop"][:2]

    def row(self, flop: Sequence[int]) -> np.ndarray:
        return self.decisions(self.sums(flop))

    def bet_2x(self, policy: int, q: int, flop: Sequence[int]) -> bool:
        return self.decided(flop, (q, policy))


_UTH_FLOPS: list[UthFlops] = []


def uth_flops() -> UthFlops:
    """One per process: both paytables' simulations share it."""
    if not _UTH_FLOPS:
        _UTH_FLOPS.append(UthFlops())
    return _UTH_FLOPS[0]


class UthOptimal:
    """The optimal strategy of Blind paytable ``letter``: preflop() 4, 3 or 0 (check), flop() 2 or 0,
    river() 1 or FOLD, the interface of games.strategy's uth_preflop, uth_flop and uth_river."""

    def __init__(self, letter: str) -> None:
        from games import par
        from games.par import uth

        sheet = par.stored(UTH, letter, "optimal")
        self.policy = uth.LETTERS.index(letter)
        self.flops = uth_flops()
        self.q = {name: q for q, name in enumerate(self.flops.names)}
        self.pre = {h["hand"]: PREFLOP[h["decision"]] for h in sheet["starting_hands"]}
        self.checked = False
        self.bh = self.flops.setup.bh[self.policy]

    def preflop(self, hole: Sequence[Card]) -> int:
        a, b = _indices(hole)
        return self.pre[class_name(a, b)]

    def flop(self, hole: Sequence[Card], flop: Sequence[Card]) -> int:
        a, b = _indices(hole)
        q = self.q[class_name(a, b)]
        rep = (int(self.flops.reps[q, 0]), int(self.flops.reps[q, 1]))
        perm = suit_map((a, b), rep)
        mapped = [4 * (c // 4) + perm[c % 4] for c in _indices(flop)]
        bet = self.flops.bet_2x(self.policy, q, mapped)
        if self.flops.preflop is not None and not self.checked:  # the whole pass run: its preflop is the sheet's
            assert all(self.pre[n] == {uk.BET4: 4, uk.BET3: 3, uk.FOLD: 0}[int(self.flops.preflop[self.policy, q])]
                       for q, n in enumerate(self.flops.names))
            self.checked = True
        return 2 if bet else 0

    def river_sums(self, hole: Sequence[Card], board: Sequence[Card]) -> tuple[int, int]:
        """(playing 1x, folding) summed over the C(45,2) dealer hands, half-Antes: the kernel's values."""
        s = self.flops.setup
        counts = np.zeros((1, 5), dtype=np.int64)
        valid, rank_p, post = np.zeros(1, dtype=np.bool_), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.bool_)
        uk.board_results(np.array(_indices(board), dtype=np.int64), s.deck, np.array([_indices(hole)], dtype=np.int64),
                         s.t7, s.t6, s.t5, s.category, s.hidx, s.hi, s.hj, valid, rank_p, counts, post)
        c = counts[0]
        won, lost = int(c[uk.WQ] + c[uk.WNQ]), int(c[uk.LQ] + c[uk.LNQ])
        cat = int(s.category[rank_p[0]])
        base = 2 * int(c[uk.WQ] - c[uk.LQ]) + int(self.bh[cat]) * won - 2 * lost  # uth_kernel._base
        return base + 2 * (won - lost), -4 * s.n_dealer

    def river(self, hole: Sequence[Card], board: Sequence[Card]) -> int:
        play, fold = self.river_sums(hole, board)
        return 1 if play > fold else FOLD


# -- Jackpot Hold 'Em ----------------------------------------------------------------------------


def canonical_boards(boards: np.ndarray) -> np.ndarray:
    """The distinct representatives (the smallest image under the 24 suit permutations, as
    games.par.jhe._images chooses them) of ``boards`` (n, 5)."""
    from games.par import jhe

    perms = jhe._suit_perms()
    b = np.asarray(boards, dtype=np.int64)
    imgs = np.sort((b - b % 4)[None, :, :] + perms[:, b % 4], axis=2)  # (24, n, 5)
    codes = imgs @ (52 ** np.arange(4, -1, -1, dtype=np.int64))
    best = imgs[np.argmin(codes, axis=0), np.arange(len(b))]
    return np.unique(best, axis=0)


class JheFlops(FlopDecisions):
    """The enumeration's second decision (three cards shown: bet 2x or check) of X-tra Bonus paytable
    ``letter``, per (three cards, starting hand), as games.par.jhe's first pass and _aggregate give it."""

    full = FULL_JHE

    def __init__(self, letter: str) -> None:
        from games.par import jhe

        super().__init__()  # a row: (169,) bool, a hand's decision
        self.arr = jhe._Arrays(letter)
        self.first: np.ndarray | None = None  # (169, 52) the whole pass's 3x decisions
        self._scratch: np.ndarray | None = None

    def _pass1(self, boards: np.ndarray, s3: np.ndarray) -> None:
        from games.par import jhe

        a = self.arr
        jhe._pass1(boards, 0, len(boards), a.canon, a.keys, a.masks, a.r7, a.f7, a.r6, a.f6, a.r5, a.f5,
                   a.flush_rank, a.category, a.xpay, False, s3)

    def sums(self, three: Sequence[int]) -> np.ndarray:
        """The first pass's sums (169, 3: A, B, the river's value) of one set of three cards, from the
        representatives of its C(49,2) boards only: each representative adds to every distinct image, so
        the row gets each board holding the three cards once.  The difference of the shared scratch
        array's row after and before."""
        f = sorted(three)
        rest = np.array([c for c in range(52) if c not in f], dtype=np.int64)
        i, j = np.triu_indices(len(rest), 1)
        boards = np.sort(np.column_stack([np.tile(f, (len(i), 1)), rest[i], rest[j]]), axis=1)
        if self._scratch is None:
            self._scratch = np.zeros((kernel.N_FLOPS, len(self.arr.holes), 3), dtype=np.int64)
        fi = kernel.colex3(*f)
        before = self._scratch[fi].copy()
        self._pass1(canonical_boards(boards).astype(np.int8), self._scratch)
        return np.asarray(self._scratch[fi] - before, dtype=np.int64)

    @staticmethod
    def decisions(sums: np.ndarray) -> np.ndarray:
        """games.par.jhe._aggregate's optimal rule: bet 2x when A + 2B beats checking (a tie checks)."""
        return np.asarray(sums[..., 0] + 2 * sums[..., 1] > sums[..., 2], dtype=np.bool_)

    def whole(self, workers: int | None = None) -> None:
        """games.par.jhe's first pass over every board and its _aggregate: both decisions."""
        from games.par import jhe

        boards = jhe._all_boards()
        workers = workers or min(2, os.cpu_count() or 1)
        sums = threads.each(range(0, len(boards), 20_000), lambda s, s3: self._pass1(boards[s:s + 20_000], s3),
                            lambda: np.zeros((kernel.N_FLOPS, len(self.arr.holes), 3), dtype=np.int64), workers)
        s3 = sum(sums[1:], sums[0])
        del sums
        a = self.arr
        n = len(a.holes)
        dec2 = np.zeros((kernel.N_FLOPS, n), dtype=np.bool_)
        bet3, cont = np.zeros((n, 52), dtype=np.int64), np.zeros((n, 52), dtype=np.int64)
        jhe._aggregate(s3, a.holes, False, a.keys, a.masks, a.r5, a.f5, a.flush_rank, a.category, dec2, bet3, cont)
        self.table = self.decisions(s3)
        in_hole = np.zeros((n, 52), dtype=np.bool_)
        in_hole[np.arange(n), a.holes[:, 0]] = True
        in_hole[np.arange(n), a.holes[:, 1]] = True
        self.first = (bet3 > cont) & ~in_hole

    def row(self, flop: Sequence[int]) -> np.ndarray:
        return self.decisions(self.sums(flop))

    def bet_2x(self, hid: int, three: Sequence[int]) -> bool:
        return self.decided(three, (hid,))


class JheOptimal:
    """The optimal strategy of X-tra Bonus paytable ``letter``: first() 3 or 0 (one card shown), second()
    2 or 0 (three), third() 1 or FOLD (five), the interface of games.strategy's jhe_first, jhe_second,
    jhe_third.  The first from the stored sheet's cards shown on which it bets 3x (in the representative's
    suits), the second from the enumeration's first pass, the third by its rule over the 990 dealer hands."""

    def __init__(self, letter: str) -> None:
        from games import par
        from games.cards import parse_card
        from games.par import jhe

        sheet = par.stored(JHE, letter, "optimal")
        self.flops = JheFlops(letter)
        self.hid = {name: i for i, (name, _, _) in enumerate(jhe.HANDS)}
        self.rep = {name: cards for name, _, cards in jhe.HANDS}
        self.bet3: dict[str, set[int]] = {}
        for h in sheet["starting_hands"]:
            shown = h["bet_3x_shown_cards"]
            self.bet3[h["hand"]] = {parse_card(shown[i:i + 2]).index for i in range(0, len(shown), 2)}
            assert {parse_card(h["cards"][:2]).index, parse_card(h["cards"][2:]).index} == set(self.rep[h["hand"]])
        self.checked = False
        self._scratch = (np.empty(1081, dtype=np.int64), np.empty(1081, dtype=np.int64),
                         np.empty(1081, dtype=np.int64), np.empty(1081, dtype=np.int64),
                         np.empty(1081, dtype=np.int64), np.zeros(52, dtype=np.int64), np.zeros(52, dtype=np.int64),
                         np.empty(47, dtype=np.int64), np.zeros(N_RANKS + 1, dtype=np.int64),
                         np.empty(1081, dtype=np.int64))

    def _mapped(self, hole: Sequence[Card], cards: Sequence[Card]) -> tuple[str, list[int]]:
        a, b = _indices(hole)
        name = class_name(a, b)
        perm = suit_map((a, b), self.rep[name])
        return name, [4 * (c // 4) + perm[c % 4] for c in _indices(cards)]

    def first(self, hole: Sequence[Card], shown: Card) -> int:
        name, (c,) = self._mapped(hole, [shown])
        return 3 if c in self.bet3[name] else 0

    def second(self, hole: Sequence[Card], shown: Sequence[Card]) -> int:
        name, three = self._mapped(hole, shown)
        bet = self.flops.bet_2x(self.hid[name], three)
        if self.flops.first is not None and not self.checked:  # the whole pass run: its 3x decisions are the sheet's
            assert all(set(np.flatnonzero(self.flops.first[self.hid[n]]).tolist()) == cards
                       for n, cards in self.bet3.items())
            self.checked = True
        return 2 if bet else 0

    def third_sums(self, hole: Sequence[Card], board: Sequence[Card]) -> tuple[int, int]:
        """(playing 1x, folding) summed over the 990 dealer hands, Antes: games.par.jhe's river values."""
        from games.par import jhe

        a = self.flops.arr
        ha, hb, hr, less, ties, nqcnt, r6card, r6sorted, hist, order = self._scratch
        nq_total, _ = jhe._board(np.array(_indices(board), dtype=np.int64), a.keys, a.masks, a.r7, a.f7, a.r6, a.f6,
                                 a.r5, a.f5, a.flush_rank, a.category, ha, hb, hr, less, ties, nqcnt, r6card,
                                 r6sorted, hist, order)
        x, y = sorted(_indices(hole))
        h = int(np.flatnonzero((np.minimum(ha, hb) == x) & (np.maximum(ha, hb) == y))[0])
        wq, wnq, _, lq, lnq = jhe._outcomes(ha[h], hb[h], hr[h], less[h], ties[h], nqcnt, nq_total, a.category)
        pay = int(a.xpay[hr[h]])
        big_a = wq * (1 + pay) + wnq * pay - 2 * lq - lnq
        return int(big_a + wq + wnq - lq - lnq), -2 * jhe.DEALER

    def third(self, hole: Sequence[Card], board: Sequence[Card]) -> int:
        play, fold = self.third_sums(hole, board)
        return 1 if play > fold else FOLD


# -- Run 'Em Twice --------------------------------------------------------------------------------


@njit_kernel
def _ret_center(t3: Any, a: int, b: int, left: int, right: int, top: int, bottom: int, k1: int, k2: int) -> Any:
    """games.par.ret._hole's Center decision: (multiple or 0 = fold, value) over the 46 centers."""
    fixed = 0
    center = 0
    for c in range(52):
        if c == a or c == b or c == left or c == right or c == top or c == bottom:
            continue
        r1 = t3[left, c, right]
        r2 = t3[top, c, bottom]
        fixed += _sign(r1) + k1 * r1 + _sign(r2) + k2 * r2
        center += r1 if r1 > r2 else r2
    return _center_choice(fixed, center, k1, k2)


@njit_kernel
def _ret_second(t3: Any, a: int, b: int, left: int, right: int, k1: int) -> Any:
    """games.par.ret._hole's second decision: (2nd Run multiple or 0 = fold, value) over every vertical
    pair and center, the Center decided optimally; a tie takes the smaller bet, and folding."""
    v = np.zeros(2, dtype=np.int64)
    for top in range(52):
        if top == a or top == b or top == left or top == right:
            continue
        for bottom in range(top + 1, 52):
            if bottom == a or bottom == b or bottom == left or bottom == right:
                continue
            for ik2 in range(2):
                v[ik2] += _ret_center(t3, a, b, left, right, top, bottom, k1, 1 + 2 * ik2)[1]
    k2 = 3 if v[1] > v[0] else 1
    fold = -(2 + k1) * 1128 * 46
    if v[(k2 - 1) // 2] <= fold:
        return 0, fold
    return k2, v[(k2 - 1) // 2]


class RetOptimal:
    """The optimal strategy of Run paytable ``letter``: first(), second(), center() as
    games.strategy.RetStrategy's (a multiple or FOLD)."""

    FIRST = {"first_run_3x": 3, "first_run_1x": 1, "fold": FOLD}

    def __init__(self, letter: str) -> None:
        from games import par
        from games.par import _jret as j
        from games.paytables import paytable

        sheet = par.stored(RET, letter, "optimal")
        self.first_bets = {h["hand"]: self.FIRST[h["decision"]] for h in sheet["starting_hands"]}
        pays = j.pays_by_rank(paytable(RET, "run", letter))
        self.run_pay = np.array([-1 if p is None else int(p) for p in pays], dtype=np.int64)
        self.r5, self.f5 = j.tables(5)
        self._t3: dict[tuple[int, int], np.ndarray] = {}

    def t3(self, a: int, b: int) -> np.ndarray:
        key = (min(a, b), max(a, b))
        got = self._t3.get(key)
        if got is None:
            from games.par import _jret as j

            if len(self._t3) > 64:
                self._t3.clear()
            got = self._t3[key] = _run_table(key[0], key[1], j.CARD_KEYS, j.CARD_MASKS, self.r5, self.f5,
                                             j.FLUSH_RANK, self.run_pay)
        return got

    def first(self, hole: Sequence[Card]) -> int:
        a, b = _indices(hole)
        return self.first_bets[class_name(a, b)]

    def second_value(self, hole: Sequence[Card], left: Card, right: Card, first_bet: int) -> tuple[int, int]:
        a, b = _indices(hole)
        k, v = _ret_second(self.t3(a, b), a, b, left.index, right.index, first_bet)
        return int(k), int(v)

    def second(self, hole: Sequence[Card], left: Card, right: Card, first_bet: int) -> int:
        k = self.second_value(hole, left, right, first_bet)[0]
        return k if k else FOLD

    def center(self, hole: Sequence[Card], cross: tuple[Card, None, Card, Card, Card], bets: tuple[int, int]) -> int:
        a, b = _indices(hole)
        left, _, right, top, bottom = cross
        k = int(_ret_center(self.t3(a, b), a, b, left.index, right.index, top.index, bottom.index, *bets)[0])
        return k if k else FOLD

    def bets(self, hole: Sequence[Card], cross: Sequence[Card]) -> tuple[int, ...]:
        return ret_bets(self, hole, cross)


Optimal = UthOptimal | JheOptimal | RetOptimal
_PLAYERS: dict[tuple[str, str], Optimal] = {}


def player(game: str, letter: str) -> Optimal:
    """The optimal player of ``game`` and its base paytable ``letter`` (one per process)."""
    if game not in PLAYABLE:
        raise ValueError(f"the optimal strategy of {game} is not played outside its enumeration")
    key = (game, letter)
    if key not in _PLAYERS:
        _PLAYERS[key] = UthOptimal(letter) if game == UTH else JheOptimal(letter) if game == JHE \
            else RetOptimal(letter)
    return _PLAYERS[key]
