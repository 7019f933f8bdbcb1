"""Par sheets: the return of each wager under each paytable letter (``tablectl analyze``).

Contract: shared/contracts/analyze.md.  Two methods:

* ``exact``: every equally likely outcome of the cards the wager depends on is
  counted, the counts are integers, and the return is computed from them with
  ``Fraction`` -- nothing is rounded until the result is written.
* ``simulation`` (``games.simulation``): the base games, played with the
  strategies of ``games.strategy``, and the UTH Bad Beat; rounds dealt at random
  and settled by the game's own code, reported with a 95 % confidence interval.

Which lines a hand makes is always decided by the game's own code
(``games.poker.lines_made``, ``games.jackpot_holdem.jackpot_lines_made``,
``six_card_bonus_made``, ``ultimate_pairs_made``, ``games.high_card_flush``),
applied to one representative hand of each class of equivalent hands; the
paytable then pays the highest line made (``Paytable.line_for``, RULINGS R5).

Spaces counted (exact):

* UTH Trips and Progressive, JHE Player Bonus and Progressive: the player's
  best five of seven cards, C(52,7) = 133,784,560 (``games.batch``).
* UTH Six Card Bonus: the player's two and the four box cards, C(52,6) (R21).
* UTH Play the Board, RET Five Card Bonus: the five community cards, C(52,5)
  (R23, R29).
* Ultimate Pairs: the player's two cards, C(52,2); UTH paytable B, whose first
  line needs the dealer's two cards too (R22), C(52,2) x C(50,2).
* HCF Flush Bonus, Straight Flush Bonus, Progressive: seven cards, C(52,7),
  counted by suit: the lines a hand makes are the union of what each suit's
  cards make (longest flush, longest run, suited 9-A), plus four of a kind
  (Straight Flush Bonus G, R19), so the counts are coefficients of a product
  of four per-suit generating polynomials.
* RET Progressive: the better of the two Run hands (R25, R29): the player's
  two cards, the center, the two other cards of the horizontal line and the
  two of the vertical line, C(52,2) x 50 x C(49,2) x C(47,2) (``ret_better_counts``).
* Envy Bonus (UTH, HCF, RET): the hand of one other seat -- UTH seven cards
  (R24a), HCF seven cards (R18a), RET the better Run hand (R29) -- counted as
  that game's Progressive hand is.  The Envy paid to one seat is a sum over the
  other seats, so by linearity its expectation is ``other_seats`` times that of
  one other seat, whatever the seats' hands share (the community cards): exact.

Returns per unit wagered, stake included (R2, R3, R21a, R4): "X to 1" X+1,
"X for 1" X, push 1, a fixed amount D for any wager (Six Card Bonus super
royal) D+1 on a unit of 1, a dollar amount stated for a $1 Progressive D, a
percentage of a meter p x meter rounded half up to the cent (unit 1).

The parts of a base game (UTH Ante, Blind, Play; JHE Ante, X-tra Bonus, Play;
HCF Ante, Raise; RET Antes, Run and Center wagers) depend on each other
through the player's decisions: they are analysed together as ``base``, whose
result gives each part's share of the return (``"wagers"``); asking for one of
them alone is refused with a message naming ``base``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from fractions import Fraction
from itertools import combinations
from math import comb

import numpy as np

from games import batch
from games.cards import ACE, DECK, SUIT_CHARS, Card, parse_card
from games.high_card_flush import has_suited_nine_to_ace, straight_flush_run
from games.jackpot_holdem import jackpot_lines_made
from games.money import meter_display, round_cents
from games.paytable import FixedAmount, FixedPerUnit, MeterPercent, Odds, Paytable, Push
from games.paytables import METER_MINIMUMS, letters, paytable
from games.poker import CATEGORY_NAMES, PAIR, ROYAL_FLUSH, best_hand, lines_made
from games.registry import GAMES
from games.ultimate_pairs import ultimate_pairs_made
from games.ultimate_texas_holdem import six_card_bonus_made

UTH, JHE, HCF, RET = "ultimate_texas_holdem", "jackpot_holdem", "high_card_flush", "run_em_twice"

#: The wagers counted exactly here, per game.
EXACT: dict[str, tuple[str, ...]] = {
    UTH: ("trips", "six_card_bonus", "ultimate_pairs", "play_the_board", "progressive", "envy"),
    JHE: ("player_bonus", "progressive"),
    HCF: ("flush_bonus", "straight_flush_bonus", "progressive", "envy"),
    RET: ("five_card_bonus", "ultimate_pairs", "progressive", "envy"),
}

#: The wagers simulated (games.simulation), per game.
SIMULATED: dict[str, tuple[str, ...]] = {
    UTH: ("base", "bad_beat"),
    JHE: ("base",),
    HCF: ("base",),
    RET: ("base",),
}

#: The parts of each base game: analysed together as ``base`` (refused alone, naming ``base``).
PART_OF_BASE: dict[str, tuple[str, ...]] = {
    UTH: ("ante", "blind", "play"),
    JHE: ("ante", "xtra_bonus", "play"),
    HCF: ("ante", "raise"),
    RET: ("ante_1", "ante_2", "first_run", "second_run", "center", "run"),
}

#: The paytable each base game is played with (``--paytable`` names its letter); HCF has none.
BASE_PAYTABLE: dict[str, str | None] = {UTH: "blind", JHE: "xtra_bonus", HCF: None, RET: "run"}

#: Default number of simulated rounds: each runs in well under a minute on two cores.
DEFAULT_ROUNDS: dict[tuple[str, str], int] = {
    (UTH, "base"): 1_000_000,
    (JHE, "base"): 1_000_000,
    (HCF, "base"): 1_000_000,
    (RET, "base"): 600_000,
    (UTH, "bad_beat"): 50_000_000,
}
DEFAULT_SEED = 1

#: Envy Bonus: the other seats assumed to hold a Progressive wager, by default a full table
#: (six seats, RULINGS R1).  Every one of them keeps its cards on the layout (R24c).
DEFAULT_OTHER_SEATS = 5
MAX_OTHER_SEATS = 5

PROGRESSIVE_UNIT = 1


class AnalysisError(ValueError):
    """A bad argument: ``argument`` names it (``--game``, ``--wager``, ...)."""

    def __init__(self, argument: str, message: str):
        super().__init__(f"{argument}: {message}")
        self.argument = argument


Progress = Callable[[int, int], None]

# -- choosing the table -------------------------------------------------------------------------


def analysable(game: str) -> tuple[str, ...]:
    """Every wager ``tablectl analyze`` takes for ``game``."""
    return SIMULATED[game] + EXACT[game]


def resolve(game: str | None, wager: str | None, letter: str | None) -> Paytable | None:
    """The paytable of an analysis (None: the HCF base game, which has none), or ``AnalysisError``
    naming the bad argument."""
    if not game:
        raise AnalysisError("--game", f"required: one of {', '.join(GAMES)}")
    if game not in GAMES:
        raise AnalysisError("--game", f"unknown game {game!r}: one of {', '.join(GAMES)}")
    if not wager:
        raise AnalysisError("--wager", f"required: one of {', '.join(analysable(game))}")
    if wager in PART_OF_BASE[game]:
        raise AnalysisError(
            "--wager",
            f"{wager!r} is part of the {game} base game, whose wagers depend on each other through the "
            f"player's decisions: analyse them together with --wager base (its \"wagers\" give each one's share)",
        )
    if wager not in analysable(game):
        raise AnalysisError("--wager", f"unknown wager {wager!r} for {game}: one of {', '.join(analysable(game))}")
    name = BASE_PAYTABLE[game] if wager == "base" else wager
    if name is None:
        if letter is not None:
            raise AnalysisError(
                "--paytable", f"{game} base has no paytable (Ante and Raise pay 1 to 1, HCF ch.12 §A): omit it"
            )
        return None
    offered = letters(game, name)
    what = f"{game} {wager}" + (f" (its {name.replace('_', ' ')} paytable)" if wager == "base" else "")
    if letter is None:
        if len(offered) != 1:
            raise AnalysisError("--paytable", f"required for {what}: one of {', '.join(offered)}")
    elif letter not in offered:
        raise AnalysisError("--paytable", f"no paytable {letter!r} for {what}: the rules offer {', '.join(offered)}")
    return paytable(game, name, letter)


def parse_meters(table: Paytable, given: Iterable[str]) -> dict[str, Decimal]:
    """The meter amounts: ``NAME=AMOUNT`` items over the rules' minimum reset amounts."""
    used = table.meters
    minimums = METER_MINIMUMS.get((table.game, table.letter), {}) if used else {}
    meters = {m: minimums[m] for m in used}
    for item in given:
        name, sep, amount = item.partition("=")
        if not sep or not name:
            raise AnalysisError("--meter", f"{item!r}: expected NAME=AMOUNT, e.g. meter=12000.00")
        if name not in used:
            uses = f"pays from {', '.join(used)}" if used else "pays from no meter"
            raise AnalysisError(
                "--meter", f"{name!r}: {table.game} {table.wager} paytable {table.letter} {uses}"
            )
        try:
            value = Decimal(amount)
        except InvalidOperation:
            raise AnalysisError("--meter", f"{item!r}: {amount!r} is not an amount") from None
        if not value.is_finite() or value != value.quantize(Decimal("0.01")):
            raise AnalysisError("--meter", f"{item!r}: an amount in dollars with at most two decimals")
        if value < minimums[name]:
            raise AnalysisError(
                "--meter", f"{item!r}: below the rules' minimum reset amount {meter_display(minimums[name])} (R4)"
            )
        meters[name] = value
    return meters


# -- the return of one line ----------------------------------------------------------------------


def line_return(pays, meters: Mapping[str, Decimal]) -> Fraction:
    """What a unit wager returns, stake included, when the line is paid (R2, R3, R4, R21a)."""
    if isinstance(pays, Odds):
        ratio = Fraction(pays.numerator, pays.denominator)
        return ratio + 1 if pays.word == "to" else ratio
    if isinstance(pays, Push):
        return Fraction(1)
    if isinstance(pays, FixedAmount):  # R21a: net +D whatever the wager; the wager stays
        return Fraction(pays.dollars) + 1
    if isinstance(pays, FixedPerUnit):  # R3: D per $1 unit; the wager was collected
        return Fraction(pays.dollars) * PROGRESSIVE_UNIT / PROGRESSIVE_UNIT
    if isinstance(pays, MeterPercent):  # R3, R4: p x meter to the cent, whatever the unit
        return Fraction(round_cents(meters[pays.meter] * pays.percent / 100)) / PROGRESSIVE_UNIT
    raise TypeError(type(pays).__name__)  # pragma: no cover


# -- classes of hands and their counts ------------------------------------------------------------

# One representative five-card hand per category (the pair by its rank, the royal by its suit).
_REPRESENTATIVE = {
    "high_card": "2c 4d 6h 8s Tc",
    "two_pair": "5c 5d 9h 9s Kc",
    "three_of_a_kind": "7c 7d 7h 2s Kc",
    "straight": "5c 6d 7h 8s 9c",
    "flush": "2h 5h 7h 9h Jh",
    "full_house": "4c 4d 4h Qs Qc",
    "four_of_a_kind": "8c 8d 8h 8s 3c",
    "straight_flush": "9h 8h 7h 6h 5h",
}


def _cards(text: str) -> list[Card]:
    return [parse_card(t) for t in text.split()]


def representative_hand(category: int, pair_rank: int = ACE, royal_suit: str = "s") -> list[Card]:
    """One five-card hand of ``category`` (a pair of ``pair_rank``, a royal flush of ``royal_suit``)."""
    if category == ROYAL_FLUSH:
        hand = [parse_card(r + royal_suit) for r in "AKQJT"]
    elif category == PAIR:
        kickers = [r for r in (14, 13, 12, 11, 2) if r != pair_rank][:3]
        hand = [c for c in DECK if c.rank == pair_rank and c.suit in "cd"]
        hand += [next(c for c in DECK if c.rank == k and c.suit == s) for k, s in zip(kickers, "hsc")]
    else:
        hand = _cards(_REPRESENTATIVE[CATEGORY_NAMES[category]])
    assert best_hand(hand).category == category, (category, hand)
    return hand


_COUNTS: dict[int, batch.Counts] = {}


def poker_counts(k: int, progress: Progress | None = None) -> batch.Counts:
    """Category counts of every k-card hand (one enumeration per process, then kept)."""
    if k not in _COUNTS:
        _COUNTS[k] = batch.count_categories(k, progress=progress)
    return _COUNTS[k]


def _poker_classes(
    k: int, made_of: Callable[[list[Card]], frozenset[str]], progress: Progress | None
) -> list[tuple[frozenset[str], int]]:
    """(lines made, count) for every class of k-card hands: the category, the pair's rank, the royal's suit."""
    counts = poker_counts(k, progress)
    classes: list[tuple[frozenset[str], int]] = []
    for cat in range(10):
        if cat == PAIR:
            for r in range(2, ACE + 1):
                classes.append((made_of(representative_hand(PAIR, pair_rank=r)), int(counts.pair_by_rank[r])))
        elif cat == ROYAL_FLUSH:
            for s, suit in enumerate(SUIT_CHARS):
                classes.append((made_of(representative_hand(cat, royal_suit=suit)), int(counts.royal_by_suit[s])))
        else:
            classes.append((made_of(representative_hand(cat)), int(counts.categories[cat])))
    assert sum(n for _, n in classes) == comb(52, k)
    return classes


def _best_five_lines(cards: list[Card]) -> frozenset[str]:
    return lines_made(best_hand(cards))


def _jackpot_lines(cards: list[Card]) -> frozenset[str]:
    return jackpot_lines_made(best_hand(cards))


def _six_card_bonus_classes(progress: Progress | None) -> list[tuple[frozenset[str], int]]:
    """Six cards: the best five by category (R21), and the super royal hands on their own."""
    classes = _poker_classes(6, _best_five_lines, progress)  # the four royal classes last, in suit order
    # A-K-Q-J-10-9 of one suit: exactly these four six-card hands (R21); each was counted above
    # as a royal flush of its suit, which is taken back here.
    first_royal = len(classes) - 4
    for s, suit in enumerate(SUIT_CHARS):
        hand = [parse_card(r + suit) for r in "AKQJT9"]
        assert batch.categorise(batch.hand_indices([hand]))[0] == ROYAL_FLUSH
        made, n = classes[first_royal + s]
        assert made == _best_five_lines(representative_hand(ROYAL_FLUSH, royal_suit=suit))
        classes[first_royal + s] = (made, n - 1)
        classes.append((six_card_bonus_made(hand[:2], hand[2:]), 1))
    return classes


def _ultimate_pairs_classes(table: Paytable) -> tuple[int, list[tuple[frozenset[str], int]]]:
    """The player's two cards; with the dealer's two as well when a line names them (R22)."""
    with_dealer = any("dealer" in line.key for line in table.lines)
    per_player = comb(50, 2) if with_dealer else 1
    classes: list[tuple[frozenset[str], int]] = []
    for player in combinations(DECK, 2):
        made = ultimate_pairs_made(player)
        if with_dealer and "pair_of_aces" in made:
            # only a pair of aces can make the dealer line (R22): every dealer pair is counted
            rest = [c for c in DECK if c not in player]
            for dealer in combinations(rest, 2):
                classes.append((ultimate_pairs_made(player, dealer), 1))
        else:
            classes.append((made, per_player))
    space = comb(52, 2) * per_player
    assert sum(n for _, n in classes) == space
    return space, classes


# -- High Card Flush: by suit ----------------------------------------------------------------------


def _suit_cards(mask: int, suit: str = "c") -> list[Card]:
    return [c for c in DECK if c.suit == suit and mask >> (c.rank - 2) & 1]


@functools.cache
def _suit_lines(mask: int) -> frozenset[str]:
    """The HCF lines one suit's cards make (13-bit mask, bit r-2 = rank r): what a hand makes is the union."""
    cards = _suit_cards(mask)
    n = len(cards)
    made = {f"flush_{k}" for k in range(4, n + 1)}  # ch.7 §F(2): four-card or longer (P17)
    run = straight_flush_run(cards).length if cards else 0
    made |= {f"straight_flush_{k}" for k in range(3, run + 1)}  # R17, P17
    if has_suited_nine_to_ace(cards):
        made.add("suited_nine_ten_jack_queen_king_ace")  # R18
    return frozenset(made)


def _hcf_wager_lines(wager: str, made: frozenset[str]) -> frozenset[str]:
    """What ``games.high_card_flush.lines_made`` gives this wager: flushes, or runs (and the suited 9-A)."""
    if wager == "flush_bonus":
        return frozenset(m for m in made if m.startswith("flush_"))
    return frozenset(m for m in made if not m.startswith("flush_"))


def _index(table: Paytable, made: frozenset[str]) -> int:
    line = table.line_for(made)
    return len(table.lines) if line is None else table.lines.index(line)


def hcf_line_index(table: Paytable, cards: list[Card]) -> int:
    """The line a seven-card hand earns, computed suit by suit as the counting does (for tests)."""
    best = len(table.lines)
    for suit in SUIT_CHARS:
        mask = sum(1 << (c.rank - 2) for c in cards if c.suit == suit)
        best = min(best, _index(table, _hcf_wager_lines(table.wager, _suit_lines(mask))))
    if table.wager == "straight_flush_bonus" and max(sum(c.rank == r for c in cards) for r in range(2, 15)) == 4:
        best = min(best, _index(table, frozenset({"four_of_a_kind"})))
    return best


def _poly_pow4_coeff(poly: list[int], degree: int) -> int:
    def mul(a: list[int], b: list[int]) -> list[int]:
        out = [0] * (len(a) + len(b) - 1)
        for i, x in enumerate(a):
            if x:
                for j, y in enumerate(b):
                    out[i + j] += x * y
        return out

    sq = mul(poly, poly)
    full = mul(sq, sq)
    return full[degree] if degree < len(full) else 0


def _hcf_line_counts(table: Paytable) -> tuple[int, list[int], int]:
    """Exact counts of each line over all C(52,7) hands, by per-suit generating polynomials."""
    n_lines = len(table.lines)
    idx = [_index(table, _hcf_wager_lines(table.wager, _suit_lines(m))) for m in range(1 << 13)]
    pops = [m.bit_count() for m in range(1 << 13)]
    quad_line = n_lines
    if table.wager == "straight_flush_bonus":
        quad_line = _index(table, frozenset({"four_of_a_kind"}))  # R19 (G only)

    def at_least(i: int, rank_bit: int | None = None) -> int:
        """Hands whose every suit earns line i or lower (index >= i); with ``rank_bit`` in every suit."""
        poly = [0] * 14
        for m in range(1 << 13):
            if idx[m] >= i and (rank_bit is None or m >> rank_bit & 1):
                poly[pops[m]] += 1
        return _poly_pow4_coeff(poly, 7)

    # At most one four of a kind among seven cards, so the hands with quads are a disjoint union by rank.
    h = []
    for i in range(n_lines + 1):
        total = at_least(i)
        if quad_line < n_lines:
            quads = sum(at_least(i, r) for r in range(13))
            total = total - quads + (quads if i <= quad_line else 0)
        h.append(total)
    counts = [h[i] - h[i + 1] for i in range(n_lines)]
    return comb(52, 7), counts, h[n_lines]


# -- Run 'Em Twice: the better of the two Run hands -------------------------------------------------

_PAIRS = np.array(list(combinations(range(52), 2)), dtype=np.intp)  # the 1,326 pairs of card indices
_RET_BETTER: list[int] = []


def ret_better_counts(progress: Progress | None = None) -> list[int]:
    """The number of deals, by category, of the better of the two Run hands (R25, R29; kept once computed).

    A deal is the player's two cards, the center card, the other two cards of the horizontal line
    and the other two of the vertical line: C(52,2) x 50 x C(49,2) x C(47,2) equally likely deals.
    The 1st Run hand is S + X and the 2nd S + Y, where S is the player's two cards and the center
    (a set of three cards: which of them is the center does not change the hands, 3 ways) and X, Y
    are disjoint pairs of the 49 other cards.  For each S every X is categorised
    (``games.batch.categorise``); the ordered disjoint pairs (X, Y) with both hands of category
    <= c, within a set A of pairs, are |A|^2 - sum over cards of m(card)^2 + |A|, m(card) being the
    number of pairs of A holding that card (each X meets m(a) + m(b) - 1 pairs of A, itself once).
    The better hand is of category <= c exactly when both are.
    """
    if _RET_BETTER:
        return list(_RET_BETTER)
    triples = np.array(list(combinations(range(52), 3)), dtype=np.intp)
    at_most = np.zeros(10, dtype=object)  # deals with both hands of category <= c (per S, one center)
    block = 400
    for start in range(0, len(triples), block):
        t = triples[start : start + block]
        b = len(t)
        rows = np.arange(b)[:, None]
        held = np.zeros((b, 52), dtype=bool)
        held[rows, t] = True
        valid = ~(held[:, _PAIRS[:, 0]] | held[:, _PAIRS[:, 1]])
        pairs = _PAIRS[np.nonzero(valid)[1].reshape(b, comb(49, 2))]  # (b, 1176, 2)
        hands = np.concatenate([np.broadcast_to(t[:, None, :], (b, comb(49, 2), 3)), pairs], axis=2)
        cat = batch.categorise(hands.reshape(-1, 5)).reshape(b, -1).astype(np.intp)
        size = np.bincount((rows * 10 + cat).ravel(), minlength=b * 10).reshape(b, 10).cumsum(axis=1)
        m = np.zeros(b * 52 * 10, dtype=np.int64)
        for k in (0, 1):
            m += np.bincount(((rows * 52 + pairs[:, :, k]) * 10 + cat).ravel(), minlength=b * 520)
        m = m.reshape(b, 52, 10).cumsum(axis=2)
        both = size * size - (m * m).sum(axis=1) + size
        at_most += np.array([int(x) for x in both.sum(axis=0)], dtype=object)
        if progress:  # in deals: each set S stands for 3 x C(49,2) x C(47,2) of them
            progress(min(RET_DEALS, (start + b) * 3 * comb(49, 2) * comb(47, 2)), RET_DEALS)
    at_most *= 3
    counts = [int(at_most[0])] + [int(at_most[c] - at_most[c - 1]) for c in range(1, 10)]
    assert sum(counts) == RET_DEALS
    _RET_BETTER[:] = counts
    return list(counts)


RET_DEALS = comb(52, 2) * 50 * comb(49, 2) * comb(47, 2)


def _ret_better_classes(progress: Progress | None) -> list[tuple[frozenset[str], int]]:
    """(lines made, count) by the category of the better Run hand: the RET Progressive and Envy
    tables print category lines only, so one hand of each category stands for it."""
    counts = ret_better_counts(progress)
    return [(_best_five_lines(representative_hand(cat)), n) for cat, n in enumerate(counts)]


# -- the analysis ------------------------------------------------------------------------------------


def _line_counts(table: Paytable, progress: Progress | None) -> tuple[int, list[int], int]:
    game, wager = table.game, table.wager
    if game == HCF:
        return _hcf_line_counts(table)
    if game == RET and wager in ("progressive", "envy"):
        assert all(line.key in CATEGORY_NAMES for line in table.lines), table
        space, classes = RET_DEALS, _ret_better_classes(progress)
    elif wager == "ultimate_pairs":
        space, classes = _ultimate_pairs_classes(table)
    elif wager == "six_card_bonus":
        space, classes = comb(52, 6), _six_card_bonus_classes(progress)
    elif wager in ("play_the_board", "five_card_bonus"):
        space, classes = comb(52, 5), _poker_classes(5, _best_five_lines, progress)
    elif game == JHE and wager == "progressive":
        space, classes = comb(52, 7), _poker_classes(7, _jackpot_lines, progress)
    else:  # UTH trips, progressive and envy (R24a), JHE player bonus
        space, classes = comb(52, 7), _poker_classes(7, _best_five_lines, progress)
    counts = [0] * len(table.lines)
    losing = 0
    for made, n in classes:
        i = _index(table, made)
        if i == len(table.lines):
            losing += n
        else:
            counts[i] += n
    return space, counts, losing


def _exact_return(table: Paytable, meters: Mapping[str, Decimal], progress: Progress | None):
    space, counts, losing = _line_counts(table, progress)
    assert losing + sum(counts) == space
    total = sum((n * line_return(line.pays, meters) for n, line in zip(counts, table.lines)), Fraction(0))
    return space, counts, losing, total / space


def _int_arg(name: str, value: int | None, default: int, low: int, high: int | None = None) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        bound = f"{low} to {high}" if high is not None else f"at least {low}"
        raise AnalysisError(name, f"{value!r}: a whole number, {bound}")
    return value


def analyze(
    game: str | None,
    wager: str | None,
    letter: str | None,
    meter_args: Iterable[str] = (),
    progress: Progress | None = None,
    *,
    rounds: int | None = None,
    seed: int | None = None,
    other_seats: int | None = None,
    workers: int | None = None,
) -> dict:
    """The par sheet of one wager (shared/contracts/analyze.md), as its JSON object.

    ``rounds`` and ``seed`` are for simulated wagers (``SIMULATED``), ``other_seats`` for the Envy
    Bonus; other wagers ignore them.  ``workers``: processes for a simulation (default: the CPUs).
    """
    table = resolve(game, wager, letter)
    assert game is not None and wager is not None
    rounds = _int_arg("--rounds", rounds, DEFAULT_ROUNDS.get((game, wager), 0), 1)
    seed = _int_arg("--seed", seed, DEFAULT_SEED, 0)
    other_seats = _int_arg("--other-seats", other_seats, DEFAULT_OTHER_SEATS, 0, MAX_OTHER_SEATS)
    if wager in SIMULATED[game]:
        if table is None and list(meter_args):
            raise AnalysisError("--meter", f"{game} {wager} pays from no meter")
        if table is not None:
            parse_meters(table, meter_args)  # no base game or Bad Beat pays from a meter: refuses any
        return _simulated(game, wager, table, rounds, seed, progress, workers)
    assert table is not None
    if wager == "envy":
        return _envy(table, meter_args, other_seats, progress)
    meters = parse_meters(table, meter_args)
    space, counts, losing, ret = _exact_return(table, meters, progress)
    out = {**_exact_head(table, space, counts, losing),
           "return": _six(ret), "house_edge": _six(1 - ret), "return_exact": f"{ret.numerator}/{ret.denominator}"}
    if meters:
        out["meters"] = {m: meter_display(a) for m, a in meters.items()}
        out["progressive_unit"] = PROGRESSIVE_UNIT
    return out


def _exact_head(table: Paytable, space: int, counts: list[int], losing: int) -> dict:
    """The contract's fields of an exact par sheet up to the losing count, lines in paytable order."""
    return {
        "game": table.game,
        "wager": table.wager,
        "paytable": table.letter,
        "method": "exact",
        "space": space,
        "lines": [
            {"line": line.key, "pays": line.pays.text, "count": n} for line, n in zip(table.lines, counts)
        ],
        "losing_count": losing,
    }


def _envy(table: Paytable, meter_args: Iterable[str], other_seats: int, progress: Progress | None) -> dict:
    """The Envy Bonus with the Progressive wager it is paid to (RULINGS R3, R18a, R24, R24c, R29).

    ``lines`` count the hand of one other seat; every one of ``other_seats`` other seats is assumed
    to hold a Progressive wager and to keep its cards on the layout, so each seat with a Progressive
    wager receives, on average, ``other_seats`` times the Envy of one other seat.  The Envy is paid
    to the Progressive wager and has no stake of its own: ``return`` is the Progressive wager's
    return (the Progressive paytable of the same letter -- the only one R18a allows for HCF) plus
    that Envy; ``envy_return`` is the Envy's share, ``envy_per_other_seat`` its share per seat.
    """
    progressive = paytable(table.game, "progressive", table.letter)
    meters = parse_meters(progressive, meter_args)
    space, counts, losing, per_seat = _exact_return(table, {}, progress)
    _, _, _, progressive_return = _exact_return(progressive, meters, progress)
    ret = progressive_return + other_seats * per_seat
    out: dict = {
        **_exact_head(table, space, counts, losing),
        "other_seats": other_seats,
        "envy_per_other_seat": _six(per_seat),
        "envy_return": _six(other_seats * per_seat),
        "progressive_paytable": progressive.letter,
        "progressive_return": _six(progressive_return),
        "return": _six(ret),
        "house_edge": _six(1 - ret),
        "return_exact": f"{ret.numerator}/{ret.denominator}",
        "meters": {m: meter_display(a) for m, a in meters.items()},
        "progressive_unit": PROGRESSIVE_UNIT,
    }
    return out


#: What one unit of the return is, per base game, and the initial wagers of that many units.
BASE_UNIT: dict[str, tuple[str, int]] = {
    UTH: ("the Ante; the equal Blind is placed too (2 units initially), as the Wizard of Odds counts it", 2),
    JHE: ("the Ante; the equal X-tra Bonus is placed too (2 units initially), as for UTH", 2),
    HCF: ("the Ante (1 unit initially)", 1),
    RET: ("one Ante; the two equal Antes are placed (2 units initially), as for UTH", 2),
}


def _simulated(
    game: str,
    wager: str,
    table: Paytable | None,
    rounds: int,
    seed: int,
    progress: Progress | None,
    workers: int | None,
) -> dict:
    from games.simulation import Spec, simulate
    from games.strategy import STRATEGY_NAMES

    letter = table.letter if table is not None else None
    tally = simulate(Spec(game, wager, letter), rounds, seed, progress, workers)
    mean = tally.mean()
    low, high = tally.ci95()
    lines = table.lines if table is not None else ()
    out: dict = {
        "game": game,
        "wager": wager,
        "paytable": letter,
        "method": "simulation",
        "rounds": rounds,
        "seed": seed,
        "lines": [{"line": line.key, "pays": line.pays.text, "count": tally.lines[i]} for i, line in enumerate(lines)],
        "return": _six_dec(1 + mean),
        "house_edge": _six_dec(-mean),
        "ci95": [_six_dec(Decimal(repr(-high))), _six_dec(Decimal(repr(-low)))],
    }
    if wager == "base":
        unit, initial = BASE_UNIT[game]
        wagered = tally.wagered / rounds
        out["unit"] = unit
        out["strategy"] = STRATEGY_NAMES[game]
        out["house_edge_per_initial_wagers"] = _six_dec(-mean / initial)
        out["average_wagered"] = _six_dec(wagered)
        out["element_of_risk"] = _six_dec(-mean / wagered)
        out["wagers"] = {k: _six_dec(v / rounds) for k, v in tally.wagers.items()}
        out["decisions"] = dict(sorted(tally.decisions.items()))
        out["outcomes"] = dict(sorted(tally.outcomes.items()))
        out["line_counts"] = _LINE_COUNTS_MEANING[game]
    else:
        out["losing_count"] = tally.outcomes["losing"]
    return out


_LINE_COUNTS_MEANING = {
    UTH: "rounds in which the player beat the dealer, by the Blind line the hand made",
    JHE: "rounds in which the player beat the dealer, by the X-tra Bonus line the hand made",
    HCF: "none: the Ante and Raise pay 1 to 1 (HCF ch.12 §A)",
    RET: "Run hands settled (two per round played to the end), by the Run line made",
}


def _six_dec(x: Decimal) -> Decimal:
    """``x`` rounded half up to six decimals."""
    return x.quantize(Decimal("0.000001"), rounding=ROUND_HALF_UP)


def _six(x: Fraction) -> Decimal:
    """``x`` rounded half up to six decimals, exactly (never through float)."""
    return Decimal(math.floor(x * 10**6 + Fraction(1, 2))).scaleb(-6)
