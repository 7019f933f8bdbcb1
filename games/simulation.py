"""Par sheets by simulation: the base games played with their strategy, and the UTH Bad Beat.

Contract: shared/contracts/analyze.md, method ``simulation``.  Each round is dealt from a shuffled deck and
settled by the game's own code, so the par sheet pays what the table pays; the UTH Bad Beat (RULINGS R24b)
is vectorised with NumPy (``games.batch.categorise``).  The same ``--seed`` and ``--rounds`` give the same
counts however many processes run the chunks.  Units, reproducibility, the interval: docs/analysis.md.
"""

from __future__ import annotations

import math
import os
import random
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from decimal import Decimal
from multiprocessing import get_all_start_methods, get_context
from multiprocessing.context import BaseContext

import numpy as np

from games import batch
from games.cards import DECK, Card
from games.paytable import Paytable
from games.paytables import paytable
from games.poker import THREE_OF_A_KIND, best_hand, lines_made, lines_of_value, value
from games.progressive_return import line_return
from games.registry import GAMES
from games.round import Decision, Round, Seat, SeatSettlement
from games.strategy import (
    FOLD,
    RetStrategy,
    hcf_raise,
    jhe_first,
    jhe_second,
    jhe_third,
    uth_flop,
    uth_preflop,
    uth_river,
)

UTH, JHE, HCF, RET = "ultimate_texas_holdem", "jackpot_holdem", "high_card_flush", "run_em_twice"
ONE = Decimal(1)
Z95 = 1.959963984540054  # the 97.5 % point of the normal distribution

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Spec:
    """What to simulate: ``wager`` is ``base`` or ``bad_beat``; ``letter`` the paytable the game's
    base paytable (UTH Blind, JHE X-tra Bonus, RET Run) or the Bad Beat uses."""

    game: str
    wager: str
    letter: str | None  # None: High Card Flush has no base paytable (HCF ch.12 §A)

    @property
    def vectorised(self) -> bool:
        return self.wager == "bad_beat"

    @property
    def chunk(self) -> int:
        return 250_000 if self.vectorised else 5_000


@dataclass
class Tally:
    """The exact sums of a run of rounds."""

    rounds: int = 0
    total: Decimal = Decimal(0)  # sum of the per-round net, in units
    total_sq: Decimal = Decimal(0)  # sum of its squares
    wagered: Decimal = Decimal(0)  # sum of the amounts wagered
    lines: Counter[int] = field(default_factory=Counter)  # line index -> hits
    decisions: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[str] = field(default_factory=Counter)
    wagers: dict[str, Decimal] = field(default_factory=dict)  # wager -> sum of its net

    def add(self, other: Tally) -> None:
        self.rounds += other.rounds
        self.total += other.total
        self.total_sq += other.total_sq
        self.wagered += other.wagered
        self.lines.update(other.lines)
        self.decisions.update(other.decisions)
        self.outcomes.update(other.outcomes)
        for k, v in other.wagers.items():
            self.wagers[k] = self.wagers.get(k, Decimal(0)) + v

    def mean(self) -> Decimal:
        return self.total / self.rounds

    def ci95(self) -> tuple[float, float]:
        """The 95 % interval of the mean net (normal approximation)."""
        n = self.rounds
        mean = float(self.total) / n
        if n < 2:
            return mean, mean
        var = max(0.0, (float(self.total_sq) - n * mean * mean) / (n - 1))
        half = Z95 * math.sqrt(var / n)
        return mean - half, mean + half


def base_table(game: str, letter: str | None) -> Paytable | None:
    """The paytable of the base game: UTH Blind, JHE X-tra Bonus, RET Run; HCF has none (HCF ch.12 §A)."""
    name = {UTH: "blind", JHE: "xtra_bonus", RET: "run"}.get(game)
    return paytable(game, name, letter) if name else None


# -- one chunk of rounds -------------------------------------------------------------------------


def run_chunk(spec: Spec, seed: int, index: int, rounds: int) -> Tally:
    """Simulate ``rounds`` rounds of chunk ``index``; depends on (seed, index, rounds) only."""
    if spec.vectorised:
        return _bad_beat_chunk(spec, np.random.default_rng([seed, index]), rounds)
    rng = random.Random(seed * 1_000_003 + index)
    play = _PLAYERS[spec.game](spec)
    tally = Tally()
    for _ in range(rounds):
        play(rng, tally)
    tally.rounds = rounds
    return tally


def _record(tally: Tally, seat: SeatSettlement, wagered: int) -> Decimal:
    net = seat.net
    tally.total += net
    tally.total_sq += net * net
    tally.wagered += wagered
    for name, result in seat.wagers.items():
        tally.wagers[name] = tally.wagers.get(name, Decimal(0)) + result.net
    return net


#: a hold'em street's decision: (the two hole cards, the five community cards) -> multiple, CHECK or FOLD
_Street = Callable[[Sequence[Card], Sequence[Card]], int]
#: one round played and added to the tally
_Player = Callable[[random.Random, Tally], None]


def _holdem_player(spec: Spec, streets: tuple[_Street, _Street, _Street], companion: str) -> _Player:
    """UTH and JHE: Ante and its companion of one unit each, one Play wager decided street by street."""
    game = GAMES[spec.game]
    table = base_table(spec.game, spec.letter)
    assert table is not None  # UTH Blind, JHE X-tra Bonus
    first, second, third = streets

    def play(rng: random.Random, tally: Tally) -> None:
        cards = rng.sample(DECK, 9)
        hole, dealer, board = tuple(cards[:2]), tuple(cards[2:4]), tuple(cards[4:])
        multiple = first(hole, board)
        if not multiple:
            multiple = second(hole, board)
            if not multiple:
                multiple = third(hole, board)
        decision = Decision(fold=True) if multiple == FOLD else Decision(multiples=(multiple,))
        tally.decisions["fold" if multiple == FOLD else f"{multiple}x"] += 1
        seat = Seat(seat=1, cards=hole, wagers={"ante": ONE, companion: ONE}, decision=decision)
        rnd = Round(game=spec.game, paytables={companion: table.letter}, seats=(seat,), dealer=dealer, community=board)
        settled = game.settle(rnd).seats[0]
        _record(tally, settled, 2 + max(multiple, 0))
        if multiple == FOLD:
            tally.outcomes["fold"] += 1
            return
        result = settled.wagers["play"].result
        tally.outcomes[result] += 1
        if result == "win":  # the companion is paid (or pushed) by the line the winning hand makes
            line = table.line_for(lines_of_value(value([*hole, *board])))
            if line is not None:
                tally.lines[table.lines.index(line)] += 1

    return play


def _uth(spec: Spec) -> _Player:
    return _holdem_player(
        spec,
        (lambda h, b: uth_preflop(h), lambda h, b: uth_flop(h, b[:3]), uth_river),
        "blind",
    )


def _jhe(spec: Spec) -> _Player:
    # R11: one community card shown before the first decision, three before the second, five at the last
    return _holdem_player(
        spec,
        (lambda h, b: jhe_first(h, b[0]), lambda h, b: jhe_second(h, b[:3]), jhe_third),
        "xtra_bonus",
    )


def _hcf(spec: Spec) -> _Player:
    game = GAMES[HCF]

    def play(rng: random.Random, tally: Tally) -> None:
        cards = rng.sample(DECK, 14)
        hole, dealer = tuple(cards[:7]), tuple(cards[7:])
        multiple = hcf_raise(hole)
        decision = Decision(fold=True) if multiple == FOLD else Decision(multiples=(multiple,))
        tally.decisions["fold" if multiple == FOLD else f"{multiple}x"] += 1
        seat = Seat(seat=1, cards=hole, wagers={"ante": ONE}, decision=decision)
        settled = game.settle(Round(game=HCF, paytables={}, seats=(seat,), dealer=dealer)).seats[0]
        _record(tally, settled, 1 + max(multiple, 0))
        if multiple == FOLD:
            tally.outcomes["fold"] += 1
        elif settled.wagers["raise"].result == "push" and settled.wagers["ante"].result == "win":
            tally.outcomes["dealer_not_qualifying"] += 1
        else:
            tally.outcomes[settled.wagers["ante"].result] += 1

    return play


def _ret(spec: Spec) -> _Player:
    game = GAMES[RET]
    table = base_table(RET, spec.letter)
    assert table is not None  # RET Run
    strategy = RetStrategy.for_table(table)

    def play(rng: random.Random, tally: Tally) -> None:
        cards = rng.sample(DECK, 7)
        hole = tuple(cards[:2])
        cross = tuple(cards[2:])  # left, center, right, top, bottom (R25)
        left, center, right, top, bottom = cross
        bets = strategy.bets(hole, cross)
        fold = len(bets) < 3
        tally.decisions["-".join([*(f"{b}x" for b in bets), *(["fold"] if fold else [])])] += 1
        seat = Seat(
            seat=1,
            cards=hole,
            wagers={"ante_1": ONE, "ante_2": ONE},
            decision=Decision(multiples=tuple(bets), fold=fold),
        )
        settled = game.settle(Round(game=RET, paytables={"run": table.letter}, seats=(seat,), community=cross)).seats[0]
        _record(tally, settled, 2 + sum(bets))
        if fold:
            tally.outcomes[("fold_first", "fold_second", "fold_center")[len(bets)]] += 1
            return
        tally.outcomes["played"] += 1
        for run in (cards[2:5], (top, center, bottom)):
            line = table.line_for(lines_of_value(value([*hole, *run])))
            if line is not None:
                tally.lines[table.lines.index(line)] += 1

    return play


_PLAYERS = {UTH: _uth, JHE: _jhe, HCF: _hcf, RET: _ret}


# -- UTH Bad Beat, vectorised --------------------------------------------------------------------


def deal(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """``n`` rows of ``k`` distinct card indices, each row a uniformly random ordered deal
    (the first ``k`` steps of a Fisher-Yates shuffle of each row's deck)."""
    deck = np.tile(np.arange(52, dtype=np.int8), (n, 1))
    rows = np.arange(n)
    for i in range(k):
        j = rng.integers(i, 52, size=n)
        top = deck[:, i].copy()
        deck[:, i] = deck[rows, j]
        deck[rows, j] = top
    return deck[:, :k].astype(np.intp)


def bad_beat_line_of_category(table: Paytable) -> np.ndarray:
    """For each poker category, the index of the Bad Beat line a losing hand of it earns
    (``len(table.lines)``: none), by ``games.poker.lines_made`` and ``Paytable.line_for`` (R5, R24b)."""
    from games.progressive_return import representative_hand  # one hand of each category

    out = np.full(10, len(table.lines), dtype=np.int64)
    for cat in range(10):
        line = table.line_for(lines_made(best_hand(representative_hand(cat))))
        if line is not None:
            out[cat] = table.lines.index(line)
    return out


def bad_beat_lines(table: Paytable, cards: np.ndarray) -> np.ndarray:
    """The Bad Beat line index of each round (``len(table.lines)``: the wager loses).

    ``cards``: (n, 9) card indices, the player's two, the dealer's two, the five community cards.
    RULINGS R24b: when one hand loses to the other, the losing hand's line; a tie loses.
    """
    board = cards[:, 4:9]
    player = batch.categorise(np.concatenate([cards[:, 0:2], board], axis=1))
    dealer = batch.categorise(np.concatenate([cards[:, 2:4], board], axis=1))
    losing = np.minimum(player, dealer)
    lines: np.ndarray = bad_beat_line_of_category(table)[losing]
    # Hands of one category, three of a kind or better: games.poker tells the loser or a tie.
    for i in np.flatnonzero((player == dealer) & (player >= THREE_OF_A_KIND)):
        row = [DECK[c] for c in cards[i]]
        if value(row[0:2] + row[4:9]) == value(row[2:4] + row[4:9]):
            lines[i] = len(table.lines)
    return lines


def _bad_beat_chunk(spec: Spec, rng: np.random.Generator, rounds: int) -> Tally:
    table = paytable(UTH, "bad_beat", spec.letter)
    lines = bad_beat_lines(table, deal(rng, rounds, 9))
    counts = np.bincount(lines, minlength=len(table.lines) + 1)
    tally = Tally(rounds=rounds, wagered=Decimal(rounds))
    for i, n in enumerate(counts.tolist()):
        if i == len(table.lines):
            net = Decimal(-1)
        else:
            ret = line_return(table.lines[i].pays, {})
            net = Decimal(ret.numerator) / Decimal(ret.denominator) - 1
        if i < len(table.lines):
            tally.lines[i] += n
        tally.total += n * net
        tally.total_sq += n * net * net
    tally.outcomes["losing"] = int(counts[-1])
    return tally


# -- running the chunks --------------------------------------------------------------------------


def _worker_context() -> BaseContext:
    """How the worker processes start: where the platform has it, forked from a fork server (it lasts as
    long as this process), so a worker does not run the caller's main module as a spawned one does;
    elsewhere spawned.  Never a plain fork of the caller, which may hold threads.  Nothing is preloaded
    in the server: numpy's import starts its BLAS threads, and a process forked from one holding threads
    may deadlock (a CI run hung in the fork server, stuck on a lock); each worker imports this module
    itself.  The chunks draw the same cards either way."""
    if "forkserver" not in get_all_start_methods():
        return get_context("spawn")
    return get_context("forkserver")


def simulate(spec: Spec, rounds: int, seed: int, progress: Progress | None = None, workers: int | None = None) -> Tally:
    """Every chunk of the run, on up to ``workers`` processes (default: the CPUs), summed in chunk order."""
    size = spec.chunk
    sizes = [size] * (rounds // size) + ([rounds % size] if rounds % size else [])
    workers = min(workers or os.cpu_count() or 1, len(sizes))
    total = Tally()
    done = 0
    if workers <= 1:
        for i, n in enumerate(sizes):
            total.add(run_chunk(spec, seed, i, n))
            done += n
            if progress:
                progress(done, rounds)
        return total
    results: dict[int, Tally] = {}
    with ProcessPoolExecutor(max_workers=workers, mp_context=_worker_context()) as pool:
        futures = {pool.submit(run_chunk, spec, seed, i, n): i for i, n in enumerate(sizes)}
        for f in as_completed(futures):
            results[futures[f]] = f.result()
            done += results[futures[f]].rounds
            if progress:
                progress(done, rounds)
    for i in range(len(sizes)):
        total.add(results[i])
    return total
