"""Ultimate Texas Hold 'Em's base game (Ante, Blind, Play), exact, under the optimal and the posted strategy.

Every player hand, flop, turn-and-river and dealer hand is counted: C(52,2) x C(50,3) x C(47,2) x
C(45,2) equally likely outcomes.  The player's hands are tallied one per class of suit-equivalent
hands (169, weighted 6, 4 or 12); the boards and dealer hands are all enumerated
(games.par.uth_kernel).  Optimal: each decision by exact integer comparison of the expected values
over the cards still unseen (4x, 3x or check before the flop, UTH ch.11 §B(1); 2x or check after it,
§D(1); 1x or fold after the river, §F); an exact tie takes the smaller wager.  Posted: games.strategy's
uth_preflop / uth_flop / uth_river, ported to the kernel (a differential test checks the port).
The sheet's fields: games/par/__init__.py; method and figures: docs/analysis.md.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable
from fractions import Fraction
from math import comb
from typing import Any

import numpy as np

from games import batch
from games.cards import DECK, Card
from games.par import kernel
from games.par import uth_kernel as uk
from games.paytables import letters, paytable
from games.poker import CATEGORY_NAMES, lines_of_value
from games.settlement import by_paytable, line_result
from games.strategy import uth_raise_4x

GAME = "ultimate_texas_holdem"
LETTERS = ("A", "B")
STRATEGIES = ("optimal", "posted")
Progress = Callable[[int, int], None]
ACTION_NAMES = ("bet_4x", "bet_3x", "bet_2x", "bet_1x", "fold")
ACTION_STREET = ("before_the_flop", "before_the_flop", "after_the_flop", "after_the_river", "after_the_river")
PLAY = (4, 3, 2, 1, 0)
RANK_TEXT = "23456789TJQKA"


def category_values() -> list[int]:
    """One games.poker value of each category (the lowest rank class of it)."""
    return [int(batch.RANK_VALUE[int(np.searchsorted(kernel.CATEGORY, c))]) for c in range(10)]


def _net_per_category(table_wager: str, letter: str, unmatched: str) -> list[Fraction]:
    """Net of a 1-unit wager that wins by its paytable, by the category of the player's hand."""
    from decimal import Decimal

    table = paytable(GAME, table_wager, letter)
    out = []
    for v in category_values():
        made = lines_of_value(v)
        r = line_result(Decimal(1), table.line_for(made), unmatched=unmatched) if unmatched == "push" \
            else by_paytable(Decimal(1), table, made)
        out.append(Fraction(r.net))
    return out


def blind_net(letter: str) -> list[Fraction]:
    """The Blind's net when the player wins, by category (UTH ch.12 §B; a hand below the lowest line pushes)."""
    return _net_per_category("blind", letter, "push")


def trips_net(letter: str) -> list[Fraction]:
    """Trips' net by the category of the player's seven cards (UTH ch.12 §C), whatever the round."""
    return _net_per_category("trips", letter, "lose")


def starting_hands() -> tuple[np.ndarray, list[str], list[int]]:
    """One hand of each of the 169 classes (cards as indices), its name (AKs, AKo, AA) and its weight."""
    reps, names, weights = [], [], []
    for hi in range(12, -1, -1):
        for lo in range(hi, -1, -1):
            if hi == lo:
                reps.append((4 * hi, 4 * hi + 1))
                names.append(RANK_TEXT[hi] * 2)
                weights.append(6)
            else:
                reps.append((4 * lo, 4 * hi))
                names.append(RANK_TEXT[hi] + RANK_TEXT[lo] + "s")
                weights.append(4)
                reps.append((4 * lo + 1, 4 * hi))
                names.append(RANK_TEXT[hi] + RANK_TEXT[lo] + "o")
                weights.append(12)
    return np.array(reps, dtype=np.int64), names, weights


class Setup:
    """What the kernel is given: the deck, the hands tallied, the tables and the hand indices."""

    def __init__(self, deck: np.ndarray, reps: np.ndarray):
        self.deck = np.asarray(deck, dtype=np.int64)
        self.reps = np.asarray(reps, dtype=np.int64)
        self.t7, self.t6, self.t5 = kernel.tables(7), kernel.tables(6), kernel.tables(5)
        self.category = kernel.CATEGORY.astype(np.int64)
        n_rest = len(self.deck) - 5
        pairs = [(i, j) for i in range(n_rest) for j in range(i + 1, n_rest)]
        self.hi = np.array([p[0] for p in pairs], dtype=np.int64)
        self.hj = np.array([p[1] for p in pairs], dtype=np.int64)
        self.hidx = np.full((n_rest, n_rest), -1, dtype=np.int64)
        for h, (i, j) in enumerate(pairs):
            self.hidx[i, j] = h
        self.n_dealer = comb(n_rest - 2, 2)
        self.boards_per_hand = comb(len(self.deck) - 2, 5)
        bh = [[int(2 * x) for x in blind_net(letter)] for letter in LETTERS]
        self.bh = np.array(bh, dtype=np.int64)

    def args(self) -> tuple[Any, ...]:
        return (self.deck, self.reps, self.t7, self.t6, self.t5, self.category, self.hidx, self.hi, self.hj, self.bh)

    def board(self, board: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The kernel's results for one board: valid, rank, counts (WQ..LNQ), posted river decision."""
        nr = len(self.reps)
        valid = np.zeros(nr, dtype=np.bool_)
        rank_p = np.zeros(nr, dtype=np.int64)
        counts = np.zeros((nr, 5), dtype=np.int64)
        post = np.zeros(nr, dtype=np.bool_)
        uk.board_results(np.asarray(board, dtype=np.int64), self.deck, self.reps, self.t7, self.t6, self.t5,
                         self.category, self.hidx, self.hi, self.hj, valid, rank_p, counts, post)
        return valid, rank_p, counts, post


def _call(kernel_function: Callable[..., None], *args: Any) -> None:
    """A compiled pass called with the setup's arguments (typed loosely: numba's dispatchers are not)."""
    kernel_function(*args)


def _chunks(n: int, size: int) -> list[tuple[int, int]]:
    return [(s, min(n, s + size)) for s in range(0, n, size)]


def _parallel(boards: np.ndarray, work: Callable[[np.ndarray, Any], None], make: Callable[[], Any],
              workers: int, progress: Progress | None, done0: int, total: int) -> list[Any]:
    """Run ``work(board slice, accumulator)`` over chunks of boards on ``workers`` threads (the kernel
    releases the GIL), one accumulator each."""
    chunks = iter(_chunks(len(boards), 4096))
    lock = threading.Lock()
    done = [done0]
    outs = [make() for _ in range(workers)]

    def run(acc: Any) -> None:
        while True:
            with lock:
                c = next(chunks, None)
            if c is None:
                return
            work(boards[c[0]:c[1]], acc)
            if progress is not None:
                with lock:
                    done[0] += c[1] - c[0]
                    progress(done[0], total)

    threads = [threading.Thread(target=run, args=(o,)) for o in outs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outs


def enumerate_all(setup: Setup, workers: int | None = None, progress: Progress | None = None,
                  boards: np.ndarray | None = None) -> dict[str, Any]:
    """Both passes over every board: the decisions of each policy and the histogram of outcomes."""
    workers = workers or min(2, os.cpu_count() or 1)
    if boards is None:
        boards = kernel.five_card_subsets(setup.deck)
    nr = len(setup.reps)
    total = 2 * len(boards)

    def w1(b: np.ndarray, acc: np.ndarray) -> None:
        _call(uk.pass1, b, *setup.args(), acc)

    accs = _parallel(boards, w1, lambda: np.zeros((kernel.N_FLOPS, nr, uk.SLOTS), dtype=np.int32),
                     workers, progress, 0, total)
    acc = accs[0].astype(np.int64)
    for a in accs[1:]:
        acc += a
    del accs
    decisions = decide(setup, acc)

    def w2(b: np.ndarray, hist: np.ndarray) -> None:
        _call(uk.pass2, b, *setup.args(), decisions["preflop"], decisions["flop2x"], hist)

    hists = _parallel(boards, w2, lambda: np.zeros((3, nr, 5, 10, 5), dtype=np.int64),
                      workers, progress, len(boards), total)
    hist = sum(hists[1:], hists[0])
    return {**decisions, "hist": hist, "acc": acc}


def decide(setup: Setup, acc: np.ndarray) -> dict[str, Any]:
    """The flop and preflop decisions of each policy from pass 1's sums (exact integers)."""
    nr = len(setup.reps)
    d = acc[:, :, uk.S_D]
    flop2x = np.zeros((kernel.N_FLOPS, nr, 3), dtype=np.uint8)
    preflop = np.zeros((3, nr), dtype=np.int64)
    value = np.zeros((3, nr), dtype=object)  # the expected net of each policy, half-Antes x outcomes
    posted_flop = np.zeros((kernel.N_FLOPS, nr), dtype=np.bool_)
    uk.posted_flops(setup.reps, setup.t5, setup.category, posted_flop)
    posted_pre = [uth_raise_4x([DECK[int(c)] for c in rep]) for rep in setup.reps]
    for p, (base_slot, ropt, rpost) in enumerate(((uk.S_BASE_A, uk.S_ROPT_A, uk.S_RPOST_A),
                                                  (uk.S_BASE_B, uk.S_ROPT_B, uk.S_RPOST_B))):
        base = acc[:, :, base_slot]
        bet2 = base + 4 * d
        opt2 = bet2 > acc[:, :, ropt]  # a tie: check (the smaller wager)
        flop2x[:, :, p] = opt2
        check = np.where(opt2, bet2, acc[:, :, ropt]).sum(axis=0)
        bet4 = (base + 8 * d).sum(axis=0)
        bet3 = (base + 6 * d).sum(axis=0)
        for q in range(nr):
            best, action = int(check[q]), uk.FOLD
            for a, v in ((uk.BET3, int(bet3[q])), (uk.BET4, int(bet4[q]))):
                if v > best:
                    best, action = v, a
            preflop[p, q] = action
            value[p, q] = best
        if p == 0:
            post_check = np.where(posted_flop, bet2, acc[:, :, rpost]).sum(axis=0)
            value_post_a = [int(bet4[q]) if posted_pre[q] else int(post_check[q]) for q in range(nr)]
    flop2x[:, :, 2] = posted_flop
    preflop[2] = [uk.BET4 if x else uk.FOLD for x in posted_pre]
    value[2] = value_post_a
    return {"preflop": preflop, "flop2x": flop2x, "value": value}


# -- the sheet ------------------------------------------------------------------------------------


def _frac(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def _dec(x: Fraction, places: int = 9) -> str:
    """``x`` rounded half up to ``places`` decimals, exactly (never through float)."""
    from decimal import Decimal

    return f"{Decimal(math.floor(x * 10**places + Fraction(1, 2))).scaleb(-places):.{places}f}"


def _sqrt(x: Fraction, places: int = 9) -> str:
    from decimal import ROUND_HALF_UP, Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 40
        r = (Decimal(x.numerator) / Decimal(x.denominator)).sqrt()
        return str(r.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def _net_half(letter_bh: list[int], action: int, cat: int, outcome: int) -> tuple[int, int, int]:
    """(Ante, Blind, Play) net in half-Antes of one outcome (UTH ch.11 §F(2), §H)."""
    if action == uk.FOLD:
        return -2, -2, 0
    m = 2 * PLAY[action]
    if outcome == uk.WQ:
        return 2, letter_bh[cat], m
    if outcome == uk.WNQ:
        return 0, letter_bh[cat], m
    if outcome == uk.TIE:
        return 0, 0, 0
    if outcome == uk.LQ:
        return -2, -2, -m
    return 0, -2, -m


def sheet(setup: Setup, result: dict[str, Any], letter: str, strategy: str, names: list[str],
          weights: list[int]) -> dict[str, Any]:
    """The stored sheet (games/par/__init__.py) of one paytable letter and strategy."""
    policy = 2 if strategy == "posted" else LETTERS.index(letter)
    bh = [int(x) for x in setup.bh[LETTERS.index(letter)]]
    hist = result["hist"][policy]
    per_hand = setup.boards_per_hand * 10 * setup.n_dealer  # outcomes of one player hand
    space = sum(weights) * per_hand
    net_w: dict[int, int] = {}
    parts = {"ante": 0, "blind": 0, "play": 0}
    decisions = [0] * 5
    outcomes = {"win": 0, "lose": 0, "push": 0, "fold": 0}
    wagered = 0
    by_cat_net: dict[tuple[int, int], int] = {}  # (category, net half-Antes) -> weight: for Trips
    wins_by_cat = [0] * 10
    hands = []
    for q, (name, w) in enumerate(zip(names, weights, strict=True)):
        ev_q = 0
        pre = int(result["preflop"][policy, q])
        for a in range(5):
            for c in range(10):
                for o in range(5):
                    n = int(hist[q, a, c, o])
                    if not n:
                        continue
                    ante, blind, play = _net_half(bh, a, c, o)
                    net = ante + blind + play
                    ev_q += n * net
                    nw = n * w
                    net_w[net] = net_w.get(net, 0) + nw
                    by_cat_net[(c, net)] = by_cat_net.get((c, net), 0) + nw
                    parts["ante"] += nw * ante
                    parts["blind"] += nw * blind
                    parts["play"] += nw * play
                    decisions[a] += nw
                    wagered += nw * (2 + PLAY[a])
                    key = "fold" if a == uk.FOLD else ("win" if o in (uk.WQ, uk.WNQ) else
                                                       "push" if o == uk.TIE else "lose")
                    outcomes[key] += nw
                    if key == "win":
                        wins_by_cat[c] += nw
        if strategy == "optimal" or letter == "A":  # pass 1's value of the decisions, pass 2's tally
            assert ev_q == result["value"][policy, q], (name, ev_q, result["value"][policy, q])
        hands.append({"hand": name, "weight": w, "ev": _frac(Fraction(ev_q, 2 * per_hand)),
                      "ev_decimal": _dec(Fraction(ev_q, 2 * per_hand)),
                      "decision": {uk.BET4: "bet_4x", uk.BET3: "bet_3x", uk.FOLD: "check"}[pre]})
    mean = Fraction(sum(k * v for k, v in net_w.items()), 2 * space)
    second = Fraction(sum(k * k * v for k, v in net_w.items()), 4 * space)
    variance = second - mean * mean
    avg_wagered = Fraction(wagered, space)
    edge = -mean
    out: dict[str, Any] = {
        "game": GAME,
        "paytable": letter,
        "strategy": strategy,
        "method": "exact",
        "space": space,
        "simulated_rounds": None,
        "return_per_ante": _frac(1 + mean),
        "return_per_ante_decimal": _dec(1 + mean),
        "house_edge_per_ante": _frac(edge),
        "house_edge_per_ante_decimal": _dec(edge),
        "house_edge_per_total_wagered": _frac(edge / avg_wagered),
        "house_edge_per_total_wagered_decimal": _dec(edge / avg_wagered),
        "element_of_risk": _frac(edge / avg_wagered),
        "element_of_risk_decimal": _dec(edge / avg_wagered),
        "average_total_wagered_per_ante": _frac(avg_wagered),
        "average_total_wagered_per_ante_decimal": _dec(avg_wagered),
        "variance_per_ante": _frac(variance),
        "std_dev_per_ante": _sqrt(variance),
        "net": [{"net": _frac(Fraction(k, 2)).removesuffix("/1"), "probability": _frac(Fraction(v, space)),
                 "probability_decimal": _dec(Fraction(v, space), 12)} for k, v in sorted(net_w.items())],
        "parts": {k: {"return_share": _frac(Fraction(v, 2 * space)),
                      "return_share_decimal": _dec(Fraction(v, 2 * space))} for k, v in parts.items()},
        "decisions": [{"decision": ACTION_NAMES[a], "street": ACTION_STREET[a],
                       "probability": _frac(Fraction(decisions[a], space)),
                       "probability_decimal": _dec(Fraction(decisions[a], space))} for a in range(5)],
        "outcomes": [{"outcome": k, "probability": _frac(Fraction(v, space)),
                      "probability_decimal": _dec(Fraction(v, space))} for k, v in outcomes.items()],
        "lines": _blind_lines(letter, wins_by_cat, space),
        "starting_hands": hands,
        "combinations": _trips(by_cat_net, space, mean, variance),
    }
    return out


def _blind_lines(letter: str, wins_by_cat: list[int], space: int) -> list[dict[str, Any]]:
    """The outcomes in which the player beat the dealer, by the Blind line the hand made (UTH ch.12 §B)."""
    table = paytable(GAME, "blind", letter)
    counts = {line.key: 0 for line in table.lines}
    for c, v in enumerate(category_values()):
        line = table.line_for(lines_of_value(v))
        if line is not None:
            counts[line.key] += wins_by_cat[c]
    return [{"line": line.key, "pays": line.pays.text, "count": counts[line.key],
             "probability": _frac(Fraction(counts[line.key], space))} for line in table.lines]


def _trips(by_cat_net: dict[tuple[int, int], int], space: int, mean: Fraction,
           variance: Fraction) -> list[dict[str, Any]]:
    """The base game with a Trips wager of one Ante (UTH ch.12 §C): exact, Trips being settled on the
    player's seven cards whatever the round's decisions (UTH ch.11 §I, RULINGS R7)."""
    out = []
    for letter in letters(GAME, "trips"):
        t = trips_net(letter)
        et = Fraction(sum(v * t[c] for (c, _), v in by_cat_net.items()), space)
        et2 = Fraction(sum(v * t[c] * t[c] for (c, _), v in by_cat_net.items()), space)
        ebt = Fraction(sum(v * t[c] * Fraction(n, 2) for (c, n), v in by_cat_net.items()), space)
        cov = ebt - mean * et
        var_t = et2 - et * et
        var_sum = variance + var_t + 2 * cov
        out.append({
            "side_wager": "trips", "paytable": letter,
            "side_return_per_ante": _frac(1 + et), "side_return_per_ante_decimal": _dec(1 + et),
            "side_std_dev_per_ante": _sqrt(var_t),
            "covariance": _frac(cov), "covariance_decimal": _dec(cov),
            "variance_per_ante": _frac(var_sum), "std_dev_per_ante": _sqrt(var_sum),
        })
    return out


#: the published figures a sheet is compared with (docs/analysis.md): optimal play, the Blind paytable A
PUBLISHED = {
    ("A", "optimal"): [
        {"figure": "house_edge_per_ante", "value": "0.02185",
         "source": "Michael Shackleford, Wizard of Odds, Ultimate Texas Hold 'Em "
                   "(wizardofodds.com/games/ultimate-texas-hold-em/): 2.185 % under optimal strategy; "
                   "quoted by edgevegas.com, Ultimate Texas Hold 'Em Strategy"},
    ],
}


def published(letter: str, strategy: str) -> list[dict[str, str]]:
    return [dict(p) for p in PUBLISHED.get((letter, strategy), [])]


def compute(letter: str | None, strategy: str, progress: Progress | None = None,
            workers: int | None = None) -> dict[str, Any]:
    """The sheet of ``letter`` (A or B) and ``strategy`` (optimal or posted), recomputed (both passes)."""
    return compute_all(progress, workers)[(letter or "A", strategy)]


def compute_all(progress: Progress | None = None, workers: int | None = None,
                samples: int = 4) -> dict[tuple[str, str], dict[str, Any]]:
    """The four sheets (A and B, optimal and posted), from one enumeration."""
    start, cpu_start = time.monotonic(), time.process_time()
    reps, names, weights = starting_hands()
    setup = Setup(np.arange(52), reps)
    result = enumerate_all(setup, workers, progress)
    seconds, cpu = time.monotonic() - start, time.process_time() - cpu_start
    cores = workers or min(2, os.cpu_count() or 1)
    out = {}
    for letter in LETTERS:
        for strategy in STRATEGIES:
            s = sheet(setup, result, letter, strategy, names, weights)
            s["flop_samples"] = flop_samples(setup, result, letter, strategy, names)
            s["published"] = published(letter, strategy)
            s["computed"] = {"seconds": round(seconds), "cpu_seconds": round(cpu), "cores": cores,
                             "code_version": kernel.code_version("uth.py", "uth_kernel.py")}
            out[(letter, strategy)] = s
    return out


#: flop states stored with each sheet for make test to re-enumerate independently: (hand, flop)
SAMPLE_FLOPS = (("AKs", ("Qs", "7s", "2d")), ("T9o", ("9c", "5h", "2s")), ("22", ("Kd", "8h", "3c")),
                ("K5o", ("As", "Jh", "5d")))


def flop_samples(setup: Setup, result: dict[str, Any], letter: str, strategy: str,
                 names: list[str]) -> list[dict[str, Any]]:
    """The flop states of SAMPLE_FLOPS: the exact expected net of betting 2x and of checking (then the
    policy's river decision), per Ante, over the C(47,2) x C(45,2) turns, rivers and dealer hands."""
    from games.cards import parse_card

    acc = result["acc"]
    policy = 2 if strategy == "posted" else LETTERS.index(letter)
    base = uk.S_BASE_A if letter == "A" else uk.S_BASE_B
    river = {("A", "optimal"): uk.S_ROPT_A, ("B", "optimal"): uk.S_ROPT_B,
             ("A", "posted"): uk.S_RPOST_A, ("B", "posted"): uk.S_RPOST_B}[(letter, strategy)]
    per_flop = comb(len(setup.deck) - 5, 2) * setup.n_dealer * 2
    out = []
    for hand, flop in SAMPLE_FLOPS:
        q = names.index(hand)
        f = sorted(parse_card(c).index for c in flop)
        fi = kernel.colex3(*f)
        bet2 = Fraction(int(acc[fi, q, base] + 4 * acc[fi, q, uk.S_D]), per_flop)
        check = Fraction(int(acc[fi, q, river]), per_flop)
        out.append({"hand": hand, "cards": [DECK[int(c)].text for c in setup.reps[q]], "flop": list(flop),
                    "bet_2x": _frac(bet2), "check": _frac(check),
                    "decision": "bet_2x" if result["flop2x"][fi, q, policy] else "check"})
    return out


def cards_of(indices: Any) -> list[Card]:
    return [DECK[int(c)] for c in indices]


__all__ = ["CATEGORY_NAMES", "compute", "compute_all"]
