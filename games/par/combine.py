"""The base game combined with each side wager its exact sheet leaves out (issue 27), as data.

The exact sheets combine the base game with the side wagers the enumeration sees (UTH Trips, HCF Flush
and Straight Flush Bonus, JHE Player Bonus, RET Ultimate Pairs).  Here the others, each as one Ante-sized
side wager beside the base game: var(base + side) = var(base) + var(side) + 2 cov.  var(base) is the
stored sheet's, var(side) the side wager's exact count (games.analysis); the covariance is
- exact for UTH Ultimate Pairs: a function of the player's two cards (and, paytable B's first line, of
  the dealer's two: the showdown of AA against AA, every board counted), so the starting hands' exact
  values carry it;
- otherwise narrowed by simulation (the posted strategy or the exact sheet's optimal one, played by
  games.par.optimal_play; each round settled by the game's own code, the side wager's payouts
  included), as the mean of (base - its exact mean) x (side - its exact mean), with its 95 % interval.
A Progressive is taken at a stated meter: the rules' minimum reset amounts (R4) on a $1 unit, named in
"meters"; the Envy Bonus has no stake of its own and is left out.  Each combination also gives the
distribution of base + side ("distribution"): exact from a joint count (HCF's kernel tally; UTH's enumeration
when given; RET's kernel, hand by hand), else from the simulation's strata with an interval per value; so do
the sheet's own combinations where a joint is had ("sheet_combinations").  Stored as
games/par/data/<game>.<letter or base>.<strategy>.combinations.json; docs/analysis.md.
"""

from __future__ import annotations

import ast
import hashlib
import json
import math
import random
import re
import time
from collections.abc import Callable, Iterator
from decimal import Decimal
from fractions import Fraction
from importlib import resources
from itertools import combinations
from math import comb
from pathlib import Path
from typing import Any

import numpy as np

from games import batch
from games.cards import DECK, Card
from games.paytables import letters, paytable
from games.poker import CATEGORY_NAMES
from games.progressive_return import line_return
from games.registry import GAMES
from games.round import Decision, Progressive, Round, Seat
from games.strategy import (
    FOLD,
    RetStrategy,
    jhe_first,
    jhe_second,
    jhe_third,
    uth_flop,
    uth_preflop,
    uth_river,
)

UTH, JHE, HCF, RET = "ultimate_texas_holdem", "jackpot_holdem", "high_card_flush", "run_em_twice"
#: the side wagers combined here, per game (the others are in the exact sheets' own "combinations")
SIDES: dict[str, tuple[str, ...]] = {
    UTH: ("ultimate_pairs", "six_card_bonus", "play_the_board", "bad_beat", "progressive"),
    JHE: ("progressive",),
    HCF: ("progressive",),
    RET: ("five_card_bonus", "progressive"),
}
EXACT = {(UTH, "ultimate_pairs"), (HCF, "progressive")}
#: the base paytable's wager (its letter is the sheet's) and the base game's parts, per game
BASE = {UTH: "blind", JHE: "xtra_bonus", HCF: None, RET: "run"}
PARTS = {UTH: ("ante", "blind", "play"), JHE: ("ante", "xtra_bonus", "play"), HCF: ("ante", "raise"),
         RET: ("ante_1", "ante_2", "first_run", "second_run", "center")}
ROUNDS = 200_000
SEED = 27
CHUNK = 5_000
Z95 = 1.959963984540054
ONE = Decimal(1)
DATA = Path(__file__).with_name("data")


def file_name(game: str, letter: str | None, strategy: str) -> str:
    return f"{game}.{letter or 'base'}.{strategy}.combinations.json"


def code_version() -> str:
    """A hash of the code that computes the stored figures: this module, the optimal players it plays
    (games.par.optimal_play) and the Bad Beat's rare deals it draws (games.par.bad_beat).  Their syntax
    trees without docstrings (and without this function, which computes no figure), so a comment or
    docstring edited does not call for the half hour of a recomputation; a change to what runs does.  (The
    Bad Beat's kernel is checked by draw itself: each board's pairs counted again.)"""
    digest = hashlib.sha256()
    for path in (Path(__file__), *(Path(__file__).with_name(f) for f in ("optimal_play.py", "bad_beat.py"))):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        tree.body = [n for n in tree.body if not (isinstance(n, ast.FunctionDef) and n.name == "code_version")]
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                    and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]  # type: ignore[attr-defined]
        digest.update(ast.dump(tree).encode())
    return digest.hexdigest()[:16]


def stored(game: str, letter: str | None, strategy: str) -> dict[str, Any] | None:
    ref = resources.files("games.par").joinpath("data", file_name(game, letter, strategy))
    if not ref.is_file():
        return None
    out: dict[str, Any] = json.loads(ref.read_text(encoding="utf-8"))
    return out


def store(sheet: dict[str, Any]) -> Path:
    """Write the sheet, each value of a distribution on one line (thousands of them: a readable diff)."""
    path = DATA / file_name(sheet["game"], sheet["paytable"], sheet["strategy"])
    text = re.sub(r'\{\n\s*"net": [^{}]*\}', lambda m: json.dumps(json.loads(m.group(0))), json.dumps(sheet, indent=1))
    path.write_text(text + "\n")
    return path


# -- the side wager alone: exact ------------------------------------------------------------------


def meters_of(game: str, wager: str, letter: str) -> dict[str, Decimal]:
    from games.analysis import parse_meters

    return parse_meters(paytable(game, wager, letter), ())


def side_moments(game: str, wager: str, letter: str) -> tuple[Fraction, Fraction]:
    """The exact mean and variance of the net of a one-unit side wager (meters at their reset, $1 unit)."""
    from games.analysis import _line_counts

    table = paytable(game, wager, letter)
    meters = meters_of(game, wager, letter)
    space, counts, _ = _line_counts(table, None)
    returns = [line_return(line.pays, meters) for line in table.lines]
    mean = sum((n * r for n, r in zip(counts, returns, strict=True)), Fraction(0)) / space
    second = sum((n * r * r for n, r in zip(counts, returns, strict=True)), Fraction(0)) / space
    return mean - 1, second - mean * mean  # the net's variance is the return's


# -- UTH Ultimate Pairs: exact --------------------------------------------------------------------


def _class_of(cards: tuple[Card, Card]) -> str:
    hi, lo = sorted(cards, key=lambda c: c.rank, reverse=True)
    text = "23456789TJQKA"
    if hi.rank == lo.rank:
        return text[hi.rank - 2] * 2
    return text[hi.rank - 2] + text[lo.rank - 2] + ("s" if hi.suit == lo.suit else "o")


def aces_against_aces(blind_letter: str, boards: np.ndarray | None = None) -> Fraction:
    """The base game's expected net in Antes when the player holds two aces and the dealer the other two:
    bet 4x before the flop (both strategies; asserted by the caller), so only the showdown over the
    C(48,5) boards counts (UTH ch.11 §F-§H; the Blind by its paytable, UTH ch.12 §B).  ``boards``: (n, 5)
    card indices instead (a test settles them one by one)."""
    counts = aces_against_aces_counts(blind_letter, boards)
    return sum((b * n for b, n in counts.items()), Fraction(0)) / sum(counts.values())


def aces_against_aces_counts(blind_letter: str, boards: np.ndarray | None = None) -> dict[Fraction, int]:
    """The boards of aces_against_aces by the base game's net in Antes (the distribution the Ultimate Pairs
    B combination needs)."""
    from games.par.uth import blind_net

    aces = [c.index for c in DECK if c.rank == 14]
    if boards is None:
        rest = np.array([c.index for c in DECK if c.rank != 14], dtype=np.int64)
        boards = rest[np.array(list(combinations(range(48), 5)), dtype=np.int64)]
    player = np.concatenate([boards, np.tile(aces[:2], (len(boards), 1))], axis=1)
    dealer = np.concatenate([boards, np.tile(aces[2:], (len(boards), 1))], axis=1)
    rp, rd = batch.ranks(player), batch.ranks(dealer)
    cat = batch.RANK_CATEGORY[rp]
    blind = blind_net(blind_letter)
    win = rp > rd
    out = {Fraction(-6): int((rp < rd).sum()), Fraction(0): int((rp == rd).sum())}  # a lost 4x round: Ante,
    for c in range(10):  # Blind, Play (the dealer qualifies); a tie pushes all
        n = int((win & (cat == c)).sum())
        if n:
            net = 1 + 4 + blind[c]  # Ante 1 + Play 4 + the Blind's line
            out[net] = out.get(net, 0) + n
    return {b: n for b, n in out.items() if n}


def ultimate_pairs_cross(sheet: dict[str, Any], letter: str) -> Fraction:
    """E[base x Ultimate Pairs] from the starting hands' exact values (the side wager is settled on the
    player's two cards, R22; paytable B's first line also on the dealer's: aces_against_aces)."""
    from games.ultimate_pairs import ultimate_pairs_made

    table = paytable(UTH, "ultimate_pairs", letter)
    ev = {h["hand"]: Fraction(h["ev"]) for h in sheet["starting_hands"]}
    decision = {h["hand"]: h["decision"] for h in sheet["starting_hands"]}
    total = Fraction(0)
    for player in combinations(DECK, 2):
        line = table.line_for(ultimate_pairs_made(player))
        net = line_return(line.pays, {}) - 1 if line is not None else Fraction(-1)
        total += ev[_class_of(player)] * net
    with_dealer = [line for line in table.lines if "dealer" in line.key]
    if with_dealer and letter == "B":
        assert decision["AA"] == "bet_4x"
        top = line_return(with_dealer[0].pays, {}) - 1
        aces = next(line for line in table.lines if line.key == "pair_of_aces")
        extra = top - (line_return(aces.pays, {}) - 1)  # counted above at the pair of aces' pays
        total += 6 * Fraction(1, comb(50, 2)) * extra * aces_against_aces(sheet["paytable"])
    return total / comb(52, 2)


# -- HCF Progressive: exact ----------------------------------------------------------------------


_hcf_joint: dict[str, Any] = {}


def hcf_progressive_cross(strategy: str, letter: str) -> tuple[Fraction, Fraction]:
    """E[base x Progressive] for HCF: the Progressive is settled on the player's seven cards (HCF ch.12,
    R17, R18) as the base game's kernel tallies them (its joint distribution of the round's net and the
    longest straight-flush run, games.par.hcf); the suited 9-A line (R18), which the run does not tell,
    is added hand by hand (the 180 hands holding it without a seven-card run).  Also the side wager's mean
counted the same way, which the caller checks against games.analysis's count."""
    from games.par import hcf

    if "joint" not in _hcf_joint:
        _hcf_joint["joint"] = hcf.tally()[5]
    joint = _hcf_joint["joint"][hcf.STRATEGIES.index(strategy)]
    table = paytable(HCF, "progressive", letter)
    meters = meters_of(HCF, "progressive", letter)

    def net(made: frozenset[str]) -> Fraction:
        line = table.line_for(made)
        return Fraction(-1) if line is None else line_return(line.pays, meters) - 1

    total = mean = Fraction(0)
    for run in range(8):
        s = net(frozenset(f"straight_flush_{k}" for k in range(3, run + 1)))
        total += s * sum(int(joint[i, :, run, :].sum()) * hcf.NETS[i] for i in range(9))
        mean += s * int(joint[:, :, run, :].sum())
    total /= hcf.SPACE
    mean /= hcf.SPACE
    nine_up = net(frozenset({"suited_nine_ten_jack_queen_king_ace", *(f"straight_flush_{k}" for k in range(3, 7))}))
    six = net(frozenset(f"straight_flush_{k}" for k in range(3, 7)))
    if nine_up != six:
        for hand in suited_nine_to_ace_hands():
            player = hcf.masks_of(hand)
            value = hcf.raise_value(player, hcf.decide(player, strategy))
            total += (nine_up - six) * value / hcf.PLAYER_HANDS
            mean += (nine_up - six) / hcf.PLAYER_HANDS
    return total, mean


def suited_nine_to_ace_hands() -> Iterator[list[Card]]:
    """The 180 seven-card hands holding a suited 9-A (R18) and no eight of its suit: the kernel counts
    them by their six-card run, which a Progressive table printing the 9-A line pays otherwise."""
    from games.cards import parse_card

    for suit in "cdhs":
        top = [parse_card(r + suit) for r in "9TJQKA"]
        eight = parse_card("8" + suit)
        yield from ([*top, other] for other in DECK if other not in top and other != eight)


# -- the distribution of base + side (issue 27) ---------------------------------------------------

#: (base net, side net) -> weight: an exact joint count of the two, out of a total stated beside it
Joint = dict[tuple[Fraction, Fraction], int]
PLACES = 12  # a probability's decimals: the Progressive's top lines are near 1e-7
WHY_UTH = ("the starting hands' base-game distributions come from the UTH enumeration (about 22 minutes on "
           "2 cores), not from the stored sheet: python -m games.par.combine --uth-enumeration")


def _net_text(x: Fraction) -> str:
    return _frac(x).removesuffix("/1")


def _p(x: Fraction | float) -> str:
    """A probability to PLACES decimals, half up, never in exponent notation (a Progressive's top lines)."""
    from decimal import ROUND_HALF_UP

    d = Decimal(x.numerator) / Decimal(x.denominator) if isinstance(x, Fraction) else Decimal(repr(x))
    return f"{d.quantize(Decimal(1).scaleb(-PLACES), rounding=ROUND_HALF_UP):f}"


def exact_distribution(joint: Joint, total: int) -> dict[str, Any]:
    """The fields of an exact distribution of base + side: every value with its probability (a fraction and
    PLACES decimals), its mean and variance."""
    by: dict[Fraction, int] = {}
    for (b, s), n in joint.items():
        if n:
            by[b + s] = by.get(b + s, 0) + n
    assert sum(by.values()) == total, (sum(by.values()), total)
    mean = Fraction(sum(z * n for z, n in by.items()), total)
    var = Fraction(sum(z * z * n for z, n in by.items()), total) - mean * mean
    return {"distribution_method": "exact",
            "distribution": [{"net": _net_text(z), "probability": _frac(Fraction(n, total)),
                              "probability_decimal": _p(Fraction(n, total))} for z, n in sorted(by.items())],
            "distribution_mean": _frac(mean), "distribution_mean_decimal": _dec(mean),
            "distribution_variance": _frac(var), "distribution_variance_decimal": _dec(var),
            "distribution_std_dev": _sqrt(var)}


def not_computed(why: str) -> dict[str, Any]:
    return {"distribution_method": "not computed", "distribution_why": why}


def hcf_joints(strategy: str, joint: np.ndarray | None = None) -> dict[tuple[str, str], Joint]:
    """Every HCF side wager on the player's seven cards beside the base game, as exact joint counts out of
    hcf.SPACE: the Flush Bonus and Straight Flush Bonus (HCF ch.7 §F) by the kernel's (flush length, run, four
    of a kind), the Progressive at its reset meters by the run (R17), the suited 9-A line (R18) moved hand
    by hand as in hcf_progressive_cross.  ``joint``: the kernel's (net, length, run, quad) tally of the
    strategy (default: the whole tally, about 3 s of CPU once compiled)."""
    from games.par import hcf

    if joint is None:
        if "joint" not in _hcf_joint:
            _hcf_joint["joint"] = hcf.tally()[5]
        joint = _hcf_joint["joint"][hcf.STRATEGIES.index(strategy)]
    cells = [(tuple(int(x) for x in c), int(joint[tuple(c)])) for c in np.argwhere(joint)]
    out: dict[tuple[str, str], Joint] = {}

    def tally(side_of: dict[tuple[int, int, int], Fraction]) -> Joint:
        """The joint of the base game's net and the side wager's, given its net by (length, run, quad)."""
        j: Joint = {}
        for (i, length, run, quad), n in cells:
            key = (Fraction(hcf.NETS[i]), side_of[(length, run, quad)])
            j[key] = j.get(key, 0) + n
        return j

    shapes = {(length, run, quad) for (_, length, run, quad), _ in cells}

    for wager in ("flush_bonus", "straight_flush_bonus"):
        for x in letters(HCF, wager):
            nets = hcf._side_nets(wager, x)
            out[(wager, x)] = tally({k: Fraction(nets[k]) for k in shapes})
    for x in letters(HCF, "progressive"):
        table = paytable(HCF, "progressive", x)
        meters = meters_of(HCF, "progressive", x)

        def net(made: frozenset[str], table: Any = table, meters: Any = meters) -> Fraction:
            line = table.line_for(made)
            return Fraction(-1) if line is None else line_return(line.pays, meters) - 1

        by_run = [net(frozenset(f"straight_flush_{k}" for k in range(3, run + 1))) for run in range(8)]
        j = tally({k: by_run[k[1]] for k in shapes})
        nine_up = net(frozenset({"suited_nine_ten_jack_queen_king_ace", *(f"straight_flush_{k}" for k in range(3, 7))}))
        if nine_up != by_run[6]:
            for hand in suited_nine_to_ace_hands():
                player = hcf.masks_of(hand)
                r = hcf.decide(player, strategy)
                nq, win, tie, lose = hcf.hand_counts(player)
                base = {-1: hcf.DEALER_HANDS} if r == 0 else {1: nq, 1 + r: win, 0: tie, -1 - r: lose}
                for b, n in base.items():
                    j[(Fraction(b), by_run[6])] -= n  # counted in the six-card run's stratum, a 9-A pays more
                    j[(Fraction(b), nine_up)] = j.get((Fraction(b), nine_up), 0) + n
                    assert j[(Fraction(b), by_run[6])] >= 0
        out[("progressive", x)] = j
    return out


def uth_joints(setup: Any, result: dict[str, Any], letter: str, strategy: str, weights: list[int],
               hands: list[tuple[tuple[Card, Card], int]]) -> tuple[dict[tuple[str, str], Joint], int]:
    """UTH's Trips and Ultimate Pairs beside the base game, as exact joint counts from the enumeration's
    histogram (games.par.uth.enumerate_all): Trips by the category of the player's seven cards (UTH ch.12 §C,
    as uth.sheet's by_cat_net), Ultimate Pairs by the player's two cards (R22): ``hands`` every two-card hand
    with the index of the class whose histogram it has.  With the whole deck, paytable B's line of the dealer's
    aces too: the AA-against-AA showdown over every board (aces_against_aces_counts).  The total: the space."""
    from games.par import uth
    from games.par import uth_kernel as uk
    from games.ultimate_pairs import ultimate_pairs_made

    policy = 2 if strategy == "posted" else uth.LETTERS.index(letter)
    bh = [int(x) for x in setup.bh[uth.LETTERS.index(letter)]]
    hist = result["hist"][policy]
    per_hand = setup.boards_per_hand * 10 * setup.n_dealer
    by_cat_net: dict[tuple[int, int], int] = {}
    per_class: list[dict[int, int]] = []
    for q in range(len(setup.reps)):
        mine: dict[int, int] = {}
        for a, c, o in zip(*np.nonzero(hist[q]), strict=True):
            n = int(hist[q, a, c, o])
            net = sum(uth._net_half(bh, int(a), int(c), int(o)))
            mine[net] = mine.get(net, 0) + n
            by_cat_net[(int(c), net)] = by_cat_net.get((int(c), net), 0) + n * weights[q]
        per_class.append(mine)
    space = sum(weights) * per_hand
    out: dict[tuple[str, str], Joint] = {}
    for x in letters(UTH, "trips"):
        t = uth.trips_net(x)
        j: Joint = {}
        for (c, net), n in by_cat_net.items():
            key = (Fraction(net, 2), t[c])
            j[key] = j.get(key, 0) + n
        out[("trips", x)] = j
    aces = [c for c in DECK if c.rank == 14]
    for x in letters(UTH, "ultimate_pairs"):
        table = paytable(UTH, "ultimate_pairs", x)

        def up(made: frozenset[str], table: Any = table) -> Fraction:
            line = table.line_for(made)
            return Fraction(-1) if line is None else line_return(line.pays, {}) - 1

        j = {}
        for cards, q in hands:
            v = up(ultimate_pairs_made(cards))
            for net, n in per_class[q].items():
                j[(Fraction(net, 2), v)] = j.get((Fraction(net, 2), v), 0) + n
            if len(setup.deck) == 52 and all(c.rank == 14 for c in cards):
                dealer = tuple(c for c in aces if c not in cards)
                top = up(ultimate_pairs_made(cards, dealer))
                if top != v:  # the outcomes with the dealer's aces: one dealer hand of every board, 10 flops each
                    assert int(result["preflop"][policy, q]) == uk.BET4, "AA bets 4x: the showdown below"
                    for b, n in aces_against_aces_counts(letter).items():
                        j[(b, v)] -= 10 * n
                        j[(b, top)] = j.get((b, top), 0) + 10 * n
                        assert j[(b, v)] >= 0
        out[("ultimate_pairs", x)] = j
    return out, space


def ret_histograms(strategy: str, letter: str | None = "A", hands: list[int] | None = None,
                   workers: int | None = None) -> dict[int, tuple[int, int, dict[int, int]]]:
    """RET's starting hands (``hands``: indices in games.par.jhe.HANDS, default all 169) by RET's own kernel, as
    its sheet counts them: each hand's (summed net over its ret.PER_HOLE outcomes, first decision, 0 = fold,
    and net histogram {net in Antes: outcomes}).  The kernel fills the histogram; ret.compute sums it over
    the hands and lets it go, so it is counted again here (ret.py unchanged: its stored sheets stay
    current).  The kernel releases the GIL: ``workers`` threads (default 2), as ret.compute runs it."""
    import os

    from games.par import _jret as j
    from games.par import ret, threads
    from games.par.jhe import HANDS  # ret's starting hands

    if strategy not in ("optimal", "posted"):
        raise ValueError(f"strategy must be optimal or posted, got {strategy!r}")
    table = paytable(RET, "run", letter or "A")
    run_pay = np.array([-1 if p is None else int(p) for p in j.pays_by_rank(table)], dtype=np.int64)
    r5, f5 = j.tables(5)
    posted = strategy == "posted"
    firsts, returns = ret._posted_inputs(letter) if posted else ([0] * len(HANDS), [(0, 0, 1)] * len(HANDS))

    def work(hid: int, out: dict[int, tuple[int, int, dict[int, int]]]) -> None:
        a, b = HANDS[hid][2]
        t3 = ret._run_table(a, b, j.CARD_KEYS, j.CARD_MASKS, r5, f5, j.FLUSH_RANK, run_pay)
        hist = np.zeros(ret.NET_OFFSET + 5000, dtype=np.int64)
        er, ea, den = returns[hid]
        value, k1 = ret._hole(a, b, t3, posted, firsts[hid], er, ea, den, hist, np.zeros((4, 4, 4), dtype=np.int64),
                              np.zeros(5, dtype=np.int64), np.zeros(4, dtype=np.int64))
        out[hid] = (int(value), int(k1), {int(i) - ret.NET_OFFSET: int(hist[i]) for i in np.nonzero(hist)[0]})

    parts = threads.each(range(len(HANDS)) if hands is None else hands, work, dict,
                         workers or min(2, os.cpu_count() or 1))
    return {hid: v for part in parts for hid, v in part.items()}


def ret_joints(per_class: list[dict[Fraction, int]]) -> dict[tuple[str, str], Joint]:
    """RET Ultimate Pairs A-E beside the base game, as exact joint counts out of the RET space: the side wager
    is settled on the player's two cards alone (RET ch.12 §E, R29 reading its lines as R22; no dealer hand, so
    no line on another hand's cards), so every two-card hand of the deck takes its class's base-net histogram
    (``per_class``: in games.par.jhe.HANDS's order, each out of ret.PER_HOLE) with the line its own cards make
    (C and D's hearts-and-diamonds aces apart from the other pairs of aces).  Pays as ret.py's sheet pays them."""
    from games.par import _jret as j
    from games.par.jhe import HANDS  # ret's starting hands
    from games.ultimate_pairs import ultimate_pairs_made

    index = {name: q for q, (name, _, _) in enumerate(HANDS)}
    assert len(per_class) == len(HANDS)
    hands = [((a, b), index[_class_of((a, b))]) for a, b in combinations(DECK, 2)]
    out: dict[tuple[str, str], Joint] = {}
    for x in letters(RET, "ultimate_pairs"):
        table = paytable(RET, "ultimate_pairs", x)
        joint: Joint = {}
        for cards, q in hands:
            line = table.line_for(ultimate_pairs_made(cards))
            v = Fraction(-1) if line is None else j.pays_of_line(line)
            for net, n in per_class[q].items():
                joint[(net, v)] = joint.get((net, v), 0) + n
        out[("ultimate_pairs", x)] = joint
    return out


def ret_sheet_joints(sheet: dict[str, Any], workers: int | None = None) -> tuple[dict[tuple[str, str], Joint], int]:
    """ret_joints of a stored RET sheet, its 169 histograms counted by ret_histograms (about 170-180 s of
    CPU a strategy), checked against the sheet exactly: each hand's value and first decision, the base
    game's distribution (every value's probability) and mean, each Ultimate Pairs covariance."""
    from games.par import ret
    from games.par.jhe import HANDS  # ret's starting hands

    counted = ret_histograms(sheet["strategy"], sheet["paytable"], workers=workers)
    stored_hands = {h["hand"]: h for h in sheet["starting_hands"]}
    per_class: list[dict[Fraction, int]] = []
    for hid, (name, _, _) in enumerate(HANDS):
        value, k1, hist = counted[hid]
        assert sum(hist.values()) == ret.PER_HOLE and sum(k * n for k, n in hist.items()) == value, name
        assert Fraction(value, ret.PER_HOLE) == Fraction(stored_hands[name]["ev"]), name
        assert stored_hands[name]["decision"] == (f"first_run_{k1}x" if k1 else "fold"), name
        per_class.append({Fraction(k): n for k, n in hist.items()})
    joints = ret_joints(per_class)
    space = comb(52, 2) * ret.PER_HOLE
    assert space == sheet["space"]
    base = {Fraction(x["net"]): Fraction(x["probability"]) for x in sheet["net"]}
    mean = Fraction(sheet["return_per_ante"]) - 1
    covariance = {c["paytable"]: Fraction(c["covariance"]) for c in sheet["combinations"]
                  if c["side_wager"] == "ultimate_pairs"}
    for (_, x), joint in joints.items():
        margin: dict[Fraction, int] = {}
        for (b, _), n in joint.items():
            margin[b] = margin.get(b, 0) + n
        assert {b: Fraction(n, space) for b, n in margin.items() if n} == base, x  # the sheet's distribution
        assert sum((b * n for b, n in margin.items()), Fraction(0)) / space == mean, x
        side = sum((s * n for (_, s), n in joint.items()), Fraction(0)) / space
        cross = sum((b * s * n for (b, s), n in joint.items()), Fraction(0)) / space
        assert cross - mean * side == covariance[x], x
    return joints, space


def uth_hands(names: list[str]) -> list[tuple[tuple[Card, Card], int]]:
    """Every two-card hand of the whole deck with the index of its class among ``names`` (169 classes)."""
    index = {name: q for q, name in enumerate(names)}
    return [((a, b), index[_class_of((a, b))]) for a, b in combinations(DECK, 2)]


def _wilson(k: int, n: int) -> tuple[float, float]:
    """The Wilson score interval of a proportion k / n at 95 % (Wilson 1927; Brown, Cai and DasGupta 2001:
    unlike the normal interval it does not shrink to a point at k = 0)."""
    p = k / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


RAKE_PRIOR = 1.0  # pseudo-rounds of the base game's exact distribution in every stratum (no base net has share 0)


def rake(shares: np.ndarray, base: np.ndarray, side: np.ndarray) -> np.ndarray:
    """The joint table ``shares`` (base nets x strata, each column a stratum's shares) scaled to the exact
    margins, the base game's distribution ``base`` and the strata's probabilities ``side``, by iterative
    proportional fitting (Deming and Stephan, "On a least squares adjustment of a sampled frequency table
    when the expected marginal totals are known", Ann. Math. Statist. 11 (1940)): rows and columns scaled in
    turn until both margins hold to 1e-14."""
    w: np.ndarray = shares * side[None, :]
    for _ in range(10_000):
        w *= (base / w.sum(axis=1))[:, None]
        w *= (side / w.sum(axis=0))[None, :]
        if np.abs(w.sum(axis=1) - base).max() < 1e-14:
            break
    else:  # pragma: no cover - margins of positive tables always rake
        raise AssertionError("the joint did not rake to its margins")
    return w


def simulated_distribution(strata: list[tuple[Fraction, Fraction, dict[Fraction, int]]],
                           base: dict[Fraction, Fraction], rounds: int) -> dict[str, Any]:
    """The distribution of base + side from the post-stratified simulation: ``strata`` each (the side wager's
    net v, its exact probability P, the base game's nets counted in its rounds); ``base``: the base game's
    exact distribution (the sheet's).  Each stratum's shares of the base nets (with RAKE_PRIOR pseudo-rounds of
    the base game's distribution: a stratum never seen is the base game's) are raked to both exact margins
    (rake): the base game's distribution and the side wager's are the sheets', so the sum's mean is exact and
    the base game's rare nets, seldom dealt in a simulation, weigh what they weigh.  P(z) = the raked cells
    with b + v = z.  Each point's 95 % interval: every stratum's Wilson interval of its share, combined by the
    method of variance estimates recovery (Zou and Donner 2008); a stratum seen fewer than FEW times may hold
    anything of its P, [0, P], added.  The variance's interval by its influence (b + v)^2 - 2 mean (b + v) over
    the strata (normal), a rare stratum bounded over the base game's range."""
    support = sorted(base)
    base_vec = np.array([float(base[b]) for b in support])
    raw = np.empty((len(support), len(strata)))
    for k, (_, _, counts) in enumerate(strata):
        assert set(counts) <= set(support), "a base net outside the sheet's distribution"
        n = sum(counts.values())
        raw[:, k] = [(counts.get(b, 0) + RAKE_PRIOR * float(base[b])) / (n + RAKE_PRIOR) for b in support]
    raked = rake(raw, base_vec, np.array([float(p) for _, p, _ in strata]))
    point: dict[Fraction, float] = {}
    low2: dict[Fraction, float] = {}
    high2: dict[Fraction, float] = {}
    lin_low: dict[Fraction, float] = {}
    lin_high: dict[Fraction, float] = {}
    for k, (v, p, counts) in enumerate(strata):
        n = sum(counts.values())
        for i, b in enumerate(support):
            z = b + v
            cell = float(raked[i, k])
            point[z] = point.get(z, 0.0) + cell
            if n >= FEW:
                share = counts.get(b, 0) / n
                lo, hi = _wilson(counts.get(b, 0), n)
                low2[z] = low2.get(z, 0.0) + (float(p) * (share - lo)) ** 2
                high2[z] = high2.get(z, 0.0) + (float(p) * (hi - share)) ** 2
            else:
                lin_low[z] = lin_low.get(z, 0.0) + cell
                lin_high[z] = lin_high.get(z, 0.0) + float(p) - cell
    assert abs(sum(point.values()) - 1) < 1e-12
    mean = sum(float(z) * q for z, q in point.items())
    var = sum(float(z) ** 2 * q for z, q in point.items()) - mean * mean
    v_var = v_low = v_high = 0.0
    for k, (v, p, counts) in enumerate(strata):
        n = sum(counts.values())
        column = raked[:, k] / float(p)
        g = np.array([float((b + v) ** 2) - 2 * mean * float(b + v) for b in support])
        eg = float(column @ g)
        if n >= FEW:
            v_var += float(p) ** 2 * float(column @ (g - eg) ** 2) / n
        else:
            v_low += float(p) * (float(g.min()) - eg)
            v_high += float(p) * (float(g.max()) - eg)
    v_ci = (var - Z95 * math.sqrt(v_var) + v_low, var + Z95 * math.sqrt(v_var) + v_high)
    values = []
    for z in sorted(point):
        q = point[z]
        lo = max(0.0, q - math.sqrt(low2.get(z, 0.0)) - lin_low.get(z, 0.0))
        hi = min(1.0, q + math.sqrt(high2.get(z, 0.0)) + lin_high.get(z, 0.0))
        values.append({"net": _net_text(z), "probability_decimal": _p(q), "probability_ci95": [_p(lo), _p(hi)]})
    return {"distribution_method": "simulation", "distribution_rounds": rounds,
            "distribution_raked": "to the base game's and the side wager's exact distributions",
            "distribution": values, "distribution_mean_decimal": _dec(mean),
            "distribution_variance_decimal": _dec(var),
            "distribution_variance_ci95": [_dec(v_ci[0]), _dec(v_ci[1])],
            "distribution_std_dev": _sqrt(var), "distribution_std_dev_ci95": [_sqrt(v_ci[0]), _sqrt(v_ci[1])]}


# -- the others: simulated ------------------------------------------------------------------------

def _settle_all(game: str, base: dict[str, str], seat: Seat, sides: tuple[str, ...], **deal: Any,
                ) -> tuple[Decimal, dict[tuple[str, str], Decimal]]:
    """Settle the round once per letter index, every side wager with that letter on the seat beside the
    base wagers, by the game's own code; the base game's net from the first settlement."""
    rules = GAMES[game]
    out: dict[tuple[str, str], Decimal] = {}
    base_net: Decimal | None = None
    for k in range(max(len(letters(game, w)) for w in sides)):
        placed = {w: letters(game, w)[k] for w in sides if k < len(letters(game, w))}
        progressive = None
        if "progressive" in placed:
            reset = meters_of(game, "progressive", placed["progressive"])
            progressive = Progressive(unit=ONE, meters=reset, reset=reset)
        s = Seat(seat=1, cards=seat.cards, wagers={**seat.wagers, **dict.fromkeys(placed, ONE)},
                 decision=seat.decision)
        settled = rules.settle(Round(game=game, paytables={**base, **placed}, seats=(s,), progressive=progressive,
                                     **deal)).seats[0]
        if base_net is None:
            base_net = sum((settled.wagers[p].net for p in PARTS[game] if p in settled.wagers), Decimal(0))
        for w, letter in placed.items():
            out[(w, letter)] = settled.wagers[w].net
    assert base_net is not None
    return base_net, out


#: where the side wager's cards lie in the dealt cards (_player's order), for drawing its rare hands
SIDE_CARDS: dict[tuple[str, str], tuple[int, ...]] = {
    (UTH, "six_card_bonus"): (0, 1, 9, 10, 11, 12),  # the two hole cards and the box (R21)
    (UTH, "ultimate_pairs"): (0, 1),  # the hole cards (R22): no rare hand of two cards (a test simulates it)
    (UTH, "play_the_board"): (4, 5, 6, 7, 8),  # the community cards (R23)
    (UTH, "progressive"): (0, 1, 4, 5, 6),  # the hole cards and the flop (R24a)
    (JHE, "progressive"): (0, 1, 4, 5, 6),  # the hole cards and the first three community cards (R24a)
    (RET, "five_card_bonus"): (2, 3, 4, 5, 6),  # the cross (R29)
    (RET, "progressive"): (0, 1, 2, 3, 4),  # the 1st Run hand: hole cards, left, center, right (R25, R29)
}
RARE_LINES = ("royal", "straight_flush", "four_of_a_kind")  # line keys drawn on purpose (key contains one)
FORCED = 400  # rounds drawn with a rare hand in the side wager's cards, per group of rare hands (rare_groups)
FEW = 30  # a stratum seen fewer times is bounded by the base game's least and greatest net
#: side wagers settled on the losing hand of two (R24b): their rare lines drawn on purpose by the losing hand's
#: category, each such deal equally likely (games.par.bad_beat.draw)
LOSING_HAND = {(UTH, "bad_beat")}


_Play = Callable[[random.Random, dict[int, Card] | None], tuple[Decimal, dict[tuple[str, str], Decimal]]]


def _player(game: str, letter: str | None, only: tuple[str, ...] | None = None, strategy: str = "posted") -> _Play:
    """The posted strategy of games.strategy, or the exact sheet's optimal one (games.par.optimal_play),
    dealt as games.simulation deals it (plus UTH's bonus box); ``forced``: cards placed at given positions
    of the deal, the rest drawn at random."""
    from games.par import optimal_play

    optimal = optimal_play.player(game, letter or "A") if strategy == "optimal" else None
    sides = only or tuple(w for w in SIDES[game] if (game, w) not in EXACT)
    wager = BASE[game]
    base: dict[str, str] = {wager: letter} if wager and letter else {}
    n = {UTH: 13, JHE: 9, HCF: 14, RET: 7}[game]

    def deal(rng: random.Random, forced: dict[int, Card] | None) -> list[Card]:
        if not forced:
            return rng.sample(DECK, n)
        rest = iter(rng.sample([c for c in DECK if c not in forced.values()], n - len(forced)))
        return [forced[i] if i in forced else next(rest) for i in range(n)]

    def holdem(rng: random.Random, forced: dict[int, Card] | None) -> tuple[Decimal, dict[tuple[str, str], Decimal]]:
        cards = deal(rng, forced)
        hole, dealer, board = tuple(cards[:2]), tuple(cards[2:4]), tuple(cards[4:9])
        if isinstance(optimal, optimal_play.UthOptimal):
            streets = (optimal.preflop(hole), lambda: optimal.flop(hole, board[:3]),
                       lambda: optimal.river(hole, board))
        elif isinstance(optimal, optimal_play.JheOptimal):
            streets = (optimal.first(hole, board[0]), lambda: optimal.second(hole, board[:3]),
                       lambda: optimal.third(hole, board))
        elif game == UTH:
            streets = (uth_preflop(hole), lambda: uth_flop(hole, board[:3]), lambda: uth_river(hole, board))
        else:
            streets = (jhe_first(hole, board[0]), lambda: jhe_second(hole, board[:3]), lambda: jhe_third(hole, board))
        multiple = streets[0] or streets[1]() or streets[2]()
        decision = Decision(fold=True) if multiple == FOLD else Decision(multiples=(multiple,))
        seat = Seat(seat=1, cards=hole, wagers={"ante": ONE, str(BASE[game]): ONE}, decision=decision)
        extra = {"bonus_cards": tuple(cards[9:13])} if game == UTH else {}
        return _settle_all(game, base, seat, sides, dealer=dealer, community=board, **extra)

    def ret(rng: random.Random, forced: dict[int, Card] | None) -> tuple[Decimal, dict[tuple[str, str], Decimal]]:
        chosen = optimal if isinstance(optimal, optimal_play.RetOptimal) \
            else RetStrategy.for_table(paytable(RET, "run", letter))
        cards = deal(rng, forced)
        hole, cross = tuple(cards[:2]), tuple(cards[2:])
        bets = chosen.bets(hole, cross)
        seat = Seat(seat=1, cards=hole, wagers={"ante_1": ONE, "ante_2": ONE},
                    decision=Decision(multiples=tuple(bets), fold=len(bets) < 3))
        return _settle_all(game, base, seat, sides, community=cross)

    return {UTH: holdem, JHE: holdem, RET: ret}[game]


def rare_groups(k: int) -> dict[str, list[tuple[Card, ...]]]:
    """Every k-card hand (k = 5 or 6) holding four of a kind or a straight flush, in groups every line of
    the side wagers treats alike: four of a kind, straight flush, royal flush by suit, and (six cards)
    9-A of one suit by suit (R21)."""
    by_rank = {r: [c for c in DECK if c.rank == r] for r in range(2, 15)}
    cores: set[frozenset[Card]] = set()
    for r, four in by_rank.items():
        cores.update(frozenset([*four, c]) for c in DECK if c.rank != r)
    for suit in "cdhs":
        for top in range(5, 15):
            ranks = [14 if t == 1 else t for t in range(top - 4, top + 1)]
            cores.add(frozenset(c for c in DECK if c.suit == suit and c.rank in ranks))
    hands = cores if k == 5 else {h | {c} for h in cores for c in DECK if c not in h}
    groups: dict[str, list[tuple[Card, ...]]] = {}
    for h in sorted((tuple(sorted(h, key=lambda c: c.index)) for h in hands), key=lambda h: [c.index for c in h]):
        rank = int(batch.ranks(batch.hand_indices([list(h)]))[0])
        category = int(batch.RANK_CATEGORY[rank])
        suits = {c.suit for c in h}
        if k == 6 and len(suits) == 1 and {c.rank for c in h} == set(range(9, 15)):
            key = f"super_royal_{h[0].suit}"
        elif category == 9:  # ROYAL_FLUSH: its suit, the suit of five cards
            key = "royal_" + max(suits, key=lambda x: sum(c.suit == x for c in h))
        else:
            key = {8: "straight_flush", 7: "four_of_a_kind"}[category]
        groups.setdefault(key, []).append(h)
    return groups


def strata(game: str, wager: str, letter: str) -> tuple[dict[Fraction, Fraction], set[Fraction]]:
    """The side wager's net values with their exact probabilities (games.analysis's counts), and those of
    the rare lines (drawn on purpose); a rare line's net is never a common line's (asserted)."""
    from games.analysis import _line_counts

    table = paytable(game, wager, letter)
    meters = meters_of(game, wager, letter)
    space, counts, losing = _line_counts(table, None)
    prob: dict[Fraction, Fraction] = {Fraction(-1): Fraction(losing, space)}
    rare: set[Fraction] = set()
    common = {Fraction(-1)}
    for n, line in zip(counts, table.lines, strict=True):
        v = line_return(line.pays, meters) - 1
        prob[v] = prob.get(v, Fraction(0)) + Fraction(n, space)
        (rare if any(r in line.key for r in RARE_LINES) else common).add(v)
    if (game, wager) not in SIDE_CARDS and (game, wager) not in LOSING_HAND:
        rare = set()
    assert not rare & common, (game, wager, letter)
    return prob, rare


def simulate_cross(game: str, letter: str | None, base_sheet: dict[str, Any],
                   side_means: dict[tuple[str, str], Fraction], rounds: int, seed: int,
                   forced: int = FORCED, distributions: dict[tuple[str, str], dict[str, Any]] | None = None,
                   ) -> dict[tuple[str, str], tuple[float, float, float]]:
    """Per side wager (and letter) the covariance with the base game, post-stratified on the side wager's
    net: cov = sum over its net values v of P(v) (v - E side) (E[base | v] - E base), P(v) exact, E[base | v]
    the mean of the simulated rounds with that net.  The rounds are ``rounds`` plain ones plus, for a
    wager on fixed cards, FORCED rounds dealt with one of its rare hands (four of a kind or better, every
    such hand equally likely, placed in its cards in random order), which alone estimate those strata; for
    the Bad Beat (LOSING_HAND) FORCED deals whose losing hand is four of a kind, and as many a straight flush.
    The 95 % interval: the strata's normal intervals combined, widened by the whole range of the base
    game's net (the sheet's) times P(v) |v - E side| for a stratum seen fewer than FEW times.  Chunk i of
    the plain rounds draws from a generator seeded with (seed, i) only (games.simulation's convention).
    A side wager counted exactly may be simulated too (a test compares the two).  ``distributions``: filled
    with each side wager's distribution of base + side from the same strata (simulated_distribution)."""
    play = _player(game, letter, tuple(sorted({w for w, _ in side_means})), base_sheet["strategy"])
    mb = Fraction(base_sheet["return_per_ante"]) - 1
    support = [Fraction(x["net"]) for x in base_sheet["net"]]
    low_b, high_b = min(support), max(support)
    info = {key: strata(game, key[0], key[1]) for key in side_means}
    sums: dict[tuple[str, str], dict[Fraction, list[float]]] = {key: {} for key in side_means}
    hists: dict[tuple[str, str], dict[Any, dict[Fraction, int]]] = {key: {} for key in side_means}

    groups: dict[tuple[str, str], dict[Any, tuple[Fraction, Fraction]]] = {key: {} for key in side_means}

    def add(key: tuple[str, str], b: Decimal, s: Decimal, rare_only: bool,
            group: tuple[str, Fraction] | None = None) -> None:
        if key not in info:
            return  # a letter not asked for
        v = Fraction(s)
        prob, rare = info[key]
        assert v in prob, (key, v)
        if (v in rare) != rare_only:
            return  # a rare stratum is estimated from the forced rounds only, a common one from the plain
        stratum: Any = v if group is None else group[0]
        if group is not None:  # a group's net is one value (asserted), its probability the group's size
            assert groups[key].setdefault(group[0], (v, group[1]))[0] == v, (key, group[0])
        else:
            groups[key][v] = (v, prob[v])
        acc = sums[key].setdefault(stratum, [0, 0.0, 0.0])
        hist = hists[key].setdefault(stratum, {})
        hist[Fraction(b)] = hist.get(Fraction(b), 0) + 1
        db = float(Fraction(b) - mb)
        acc[0] += 1
        acc[1] += db
        acc[2] += db * db

    for index in range((rounds + CHUNK - 1) // CHUNK):
        rng = random.Random(seed * 1_000_003 + index)
        for _ in range(min(CHUNK, rounds - index * CHUNK)):
            b, sides = play(rng, None)
            for key, s in sides.items():
                add(key, b, s, False)
    for wager in sorted({w for w, _ in side_means}):
        positions = SIDE_CARDS.get((game, wager))
        if positions is None or len(positions) < 5:
            continue
        rng = random.Random(seed * 1_000_003 + 999_983)
        space = comb(52, len(positions))
        for name, hands in rare_groups(len(positions)).items():
            for _ in range(forced):
                hand = list(rng.choice(hands))
                rng.shuffle(hand)
                b, sides = play(rng, dict(zip(positions, hand, strict=True)))
                for key, s in sides.items():
                    if key[0] == wager:
                        add(key, b, s, True, (name, Fraction(len(hands), space)))
    if any((game, w) in LOSING_HAND for w, _ in side_means):
        from games.par import bad_beat

        boards, weights = bad_beat.rare_weights()
        counted = bad_beat.stored()
        rng = random.Random(seed * 1_000_003 + 999_979)
        for category, name in enumerate(CATEGORY_NAMES[bad_beat.RARE_FROM:], bad_beat.RARE_FROM):
            p = Fraction(counted["losing_hand"][name], counted["space"])
            for _ in range(forced if p else 0):
                player, dealer, board = bad_beat.draw(rng, category, boards, weights)
                cards = dict(enumerate(DECK[c] for c in [*player, *dealer, *board]))
                b, sides = play(rng, cards)
                for key, s in sides.items():
                    if (game, key[0]) in LOSING_HAND:
                        add(key, b, s, True, (f"losing_{name}", p))
    out = {}
    for key, ms in side_means.items():
        prob, rare = info[key]
        # every stratum: the common net values seen or not, the rare lines' groups drawn on purpose
        table: dict[Any, tuple[Fraction, Fraction]] = {v: (v, p) for v, p in prob.items() if p and v not in rare}
        table.update({g: vp for g, vp in groups[key].items() if not isinstance(g, Fraction)})
        for v in rare:  # the groups of a rare net value add up to its exact probability
            assert sum(p for w, p in table.values() if w == v) == prob[v], (key, v)
        cov = var = 0.0
        below = above = 0.0
        for stratum, (v, p) in table.items():
            weight = float(p * (v - ms))
            n, s1, s2 = sums[key].get(stratum, [0, 0.0, 0.0])
            mean = s1 / n if n else 0.0
            cov += weight * mean
            if n >= FEW:
                var += weight * weight * max(0.0, (s2 - n * mean * mean) / (n - 1)) / n
            else:  # too rare to estimate: its conditional mean lies somewhere in the base game's range
                lo, hi = sorted((weight * float(low_b - mb), weight * float(high_b - mb)))
                below += lo - weight * mean
                above += hi - weight * mean
        half = Z95 * math.sqrt(var)
        out[key] = (cov, cov - half + below, cov + half + above)
        if distributions is not None:
            base = {Fraction(x["net"]): Fraction(x["probability"]) for x in base_sheet["net"]}
            seen = sum(sum(h.values()) for h in hists[key].values())
            distributions[key] = simulated_distribution(
                [(v, p, hists[key].get(stratum, {})) for stratum, (v, p) in table.items()], base, seen)
    return out


# -- the stored data ------------------------------------------------------------------------------


def _frac(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def _dec(x: Fraction | float, places: int = 9) -> str:
    from decimal import ROUND_HALF_UP

    d = Decimal(x.numerator) / Decimal(x.denominator) if isinstance(x, Fraction) else Decimal(repr(x))
    return str(d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def _sqrt(x: Fraction | float) -> str:
    from decimal import localcontext

    with localcontext() as ctx:
        ctx.prec = 40
        d = Decimal(x.numerator) / Decimal(x.denominator) if isinstance(x, Fraction) else Decimal(repr(x))
        return _dec(float(max(d, Decimal(0)).sqrt()))  # an interval's lower end may go below 0


def compute(game: str, letter: str | None, strategy: str, base_sheet: dict[str, Any],
            rounds: int = ROUNDS, seed: int = SEED, cross: dict[tuple[str, str], tuple[float, float, float]]
            | None = None, enumeration: tuple[Any, dict[str, Any], list[str], list[int]] | None = None,
            ) -> dict[str, Any]:
    """The combinations of one stored base sheet (``base_sheet``); ``cross``: the simulated covariances
    already computed for this game, letter and strategy, else simulated here (with the distributions).
    ``enumeration``: UTH's (setup, result, names, weights) of games.par.uth.enumerate_all, for the exact
    distributions of Trips and Ultimate Pairs; without it they are "not computed"."""
    from games.par import optimal_play

    start, cpu = time.monotonic(), time.process_time()
    base_mean = Fraction(base_sheet["return_per_ante"]) - 1
    base_var = Fraction(base_sheet["variance_per_ante"])
    moments = {(w, x): side_moments(game, w, x) for w in SIDES[game] for x in letters(game, w)}
    simulated = {k: v for k, v in moments.items() if (game, k[0]) not in EXACT}
    dists: dict[tuple[str, str], dict[str, Any]] = {}
    playable = strategy == "posted" or game in optimal_play.PLAYABLE
    own = {(w, x): side_moments(game, w, x)[0] for w in SIMULATED_SHEET.get(game, ()) for x in letters(game, w)}
    if playable and cross is None and simulated:
        cross = simulate_cross(game, letter, base_sheet, {**{k: v[0] for k, v in simulated.items()}, **own}, rounds,
                               seed, distributions=dists)
    joints, total = exact_joints(game, letter, strategy, enumeration)
    out = []
    for (wager, x), (side_mean, side_var) in moments.items():
        entry: dict[str, Any] = {"side_wager": wager, "paytable": x,
                                 "side_return_per_ante": _frac(1 + side_mean),
                                 "side_return_per_ante_decimal": _dec(1 + side_mean),
                                 "side_variance_per_ante": _frac(side_var), "side_std_dev_per_ante": _sqrt(side_var)}
        if wager == "progressive":
            entry["meters"] = {m: str(v) for m, v in meters_of(game, wager, x).items()}
            entry["meters_are"] = "the rules' minimum reset amounts (R4), a $1 unit"
        if (game, wager) in EXACT:
            if game == UTH:
                cross_exact = ultimate_pairs_cross(base_sheet, x)
            else:
                cross_exact, counted_mean = hcf_progressive_cross(strategy, x)
                assert counted_mean == side_mean, (x, counted_mean, side_mean)  # the two counts agree
            cov = cross_exact - base_mean * side_mean
            var = base_var + side_var + 2 * cov
            entry.update({"method": "exact", "covariance": _frac(cov), "covariance_decimal": _dec(cov),
                          "variance_per_ante": _frac(var), "variance_per_ante_decimal": _dec(var),
                          "std_dev_per_ante": _sqrt(var)})
            if (wager, x) in joints:
                entry.update(exact_distribution(joints[(wager, x)], total))
                assert Fraction(entry["distribution_variance"]) == var, (wager, x)  # the two counts agree
            else:
                entry.update(not_computed(WHY_UTH))
        elif playable and cross is not None:
            c, lo, hi = cross[(wager, x)]
            fixed = float(base_var + side_var)
            entry.update({"method": "simulation", "rounds": rounds, "seed": seed,
                          "covariance_decimal": _dec(c), "covariance_ci95": [_dec(lo), _dec(hi)],
                          "variance_per_ante_decimal": _dec(fixed + 2 * c),
                          "variance_per_ante_ci95": [_dec(fixed + 2 * lo), _dec(fixed + 2 * hi)],
                          "std_dev_per_ante": _sqrt(fixed + 2 * c),
                          "std_dev_per_ante_ci95": [_sqrt(fixed + 2 * lo), _sqrt(fixed + 2 * hi)]})
            entry.update(dists.get((wager, x)) or not_computed("the covariance was given, not simulated here"))
        else:
            entry.update({"method": "not computed",
                          "why": "the covariance needs the side wager's cards beside the base game's decisions: "
                                 "the enumeration does not visit them and this game's optimal strategy is "
                                 "not played outside it (games.par.optimal_play)"})
            entry["distribution_method"] = "not computed"
        out.append(entry)
    return {"game": game, "paytable": letter, "strategy": strategy,
            "base_variance_per_ante": base_sheet["variance_per_ante"],
            "combinations": out,
            "sheet_combinations": _sheet_distributions(game, base_sheet, joints, total, dists),
            "computed": {"seconds": round(time.monotonic() - start), "cpu_seconds": round(time.process_time() - cpu),
                         "code_version": code_version()}}


#: the sheet's own combinations whose joint distribution is not kept by the game's enumeration: why
WHY_SHEET = {
    JHE: "the Player Bonus is settled on the player's seven cards, but the JHE kernel tallies its covariance, not "
         "the joint of the hand's category and the round's net (uth.py's by_cat_net): a tally to add to games/par/"
         "jhe.py and a recount of the JHE sheets",
}
#: the sheet's own combinations (exact covariance) whose distribution is simulated beside the others: the JHE
#: Player Bonus (WHY_SHEET: no exact joint), its strata the side wager's exact line counts
SIMULATED_SHEET: dict[str, tuple[str, ...]] = {JHE: ("player_bonus",)}
#: a sheet's own combination: the keys of the side wager's return and standard deviation (RET's sheet: side_wager_*)
SIDE_KEYS = (("side_return_per_ante", "side_return", "side_wager_return"),
             ("side_std_dev_per_ante", "side_std_dev", "side_wager_std_dev"))


def exact_joints(game: str, letter: str | None, strategy: str,
                 enumeration: tuple[Any, dict[str, Any], list[str], list[int]] | None,
                 ) -> tuple[dict[tuple[str, str], Joint], int]:
    """The exact joint counts this module can have for a sheet: HCF's from its kernel's tally (every side
    wager), UTH's from the enumeration when given (Trips and Ultimate Pairs), RET's Ultimate Pairs from its
    kernel's starting hands (ret_sheet_joints: the stored sheet's); with the total they count."""
    if game == HCF:
        from games.par import hcf

        return hcf_joints(strategy), hcf.SPACE
    if game == UTH and enumeration is not None:
        setup, result, names, weights = enumeration
        return uth_joints(setup, result, str(letter), strategy, weights, uth_hands(names))
    if game == RET:
        from games.par import stored as base_stored

        return ret_sheet_joints(base_stored(RET, letter, strategy))
    return {}, 1


def _sheet_distributions(game: str, sheet: dict[str, Any], joints: dict[tuple[str, str], Joint],
                         total: int, simulated: dict[tuple[str, str], dict[str, Any]] | None = None,
                         ) -> list[dict[str, Any]]:
    """The distributions of the sheet's own combinations (its "combinations"), checked against its figures:
    the distribution's mean is the base game's plus the side wager's, its variance the sheet's; ``simulated``:
    those simulated (SIMULATED_SHEET), raked to the exact margins, so their mean is checked too."""
    base_mean = Fraction(sheet["return_per_ante"]) - 1
    out = []
    for c in sheet.get("combinations", []):
        entry: dict[str, Any] = {"side_wager": c["side_wager"], "paytable": c["paytable"]}
        key = (c["side_wager"], c["paytable"])
        if key in joints:
            entry.update(exact_distribution(joints[key], total))
            side = Fraction(next(c[k] for k in SIDE_KEYS[0] if k in c)) - 1
            assert Fraction(entry["distribution_mean"]) == base_mean + side, key
            if "covariance" in c:
                var = Fraction(sheet["variance_per_ante"]) + 2 * Fraction(c["covariance"])
                side_var = Fraction(entry["distribution_variance"]) - var
                std = next(c[k] for k in SIDE_KEYS[1] if k in c)
                assert abs(float(_sqrt(side_var)) - float(std)) <= 2e-9, (key, side_var, std)  # var(side)
        elif simulated and key in simulated:
            entry.update(simulated[key])
            side = Fraction(next(c[k] for k in SIDE_KEYS[0] if k in c)) - 1
            assert abs(float(entry["distribution_mean_decimal"]) - float(base_mean + side)) < 1e-8, key
        else:
            entry.update(not_computed(WHY_UTH if game == UTH else WHY_SHEET.get(game, "")))
        out.append(entry)
    return out


#: every stored base sheet: (game, letter)
SHEETS = ((UTH, "A"), (UTH, "B"), (JHE, "A"), (HCF, None), (RET, "A"))


def compute_all(rounds: int = ROUNDS, seed: int = SEED, games: tuple[str, ...] | None = None,
                uth_enumeration: bool = False) -> Iterator[dict[str, Any]]:
    """The combinations of every stored base sheet (``games``: of these only), both strategies, one after the
    other (make soak; ``python -m games.par.combine`` writes each as it comes).  ``uth_enumeration``: run
    UTH's enumeration (about 22 minutes on 2 cores) for its Trips and Ultimate Pairs distributions."""
    from games.par import stored as base_stored

    enumeration = None
    for game, letter in SHEETS:
        if games is not None and game not in games:
            continue
        if game == UTH and uth_enumeration and enumeration is None:
            from games.par import uth

            reps, names, weights = uth.starting_hands()
            setup = uth.Setup(np.arange(52), reps)
            enumeration = (setup, uth.enumerate_all(setup), names, weights)
        for strategy in ("optimal", "posted"):
            yield compute(game, letter, strategy, base_stored(game, letter, strategy), rounds, seed,
                          enumeration=enumeration if game == UTH else None)


if __name__ == "__main__":  # pragma: no cover - the stored data's generator
    import sys

    chosen = tuple(a for a in sys.argv[1:] if not a.startswith("--")) or None
    for sheet in compute_all(games=chosen, uth_enumeration="--uth-enumeration" in sys.argv):
        print(store(sheet), sheet["computed"], flush=True)
