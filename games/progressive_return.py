"""The return of a Progressive wager, with its Envy Bonus, from exact hand counts held as data.

Cheap enough for every daemon start: the table configuration refuses a progressive whose return
at its reset amounts is 100 % or more of the wager (RULINGS R24d), and ``tablectl analyze`` gives
the same figures with its par sheet of a progressive (``games.analysis``).  Nothing here
enumerates hands; the counts are the standard closed forms, and tests/test_analysis.py checks
them against the full enumeration of ``games.analysis`` for every Progressive and Envy table.

The hands counted:

* UTH, JHE and RET: the Progressive Payout Hand and the Envy Bonus Qualifying Hand are five
  cards -- the player's two and the flop (UTH, R24a), the first three community cards revealed
  (JHE, R24a), the horizontal line (RET's 1st Run hand, R29) -- so C(52,5) equally likely hands,
  counted by category (``FIVE_CARD_CATEGORIES``).  Every hand of a category makes the same
  Progressive and Envy lines except the royal flush, split by suit in JHE (R13): each class is
  one representative hand, whose lines the game's own code decides.
* HCF: the player's seven cards (R18a), C(52,7), counted by the longest straight flush run
  (R17) with the suited 9-A apart (R18): ``HCF_SEVEN_CARD_RUNS``.

Returns are per unit wagered, stake included, at a Progressive unit ``u`` (R2, R3, R4): a line
"X for 1" returns X, "X to 1" X + 1, a dollar amount D stated for a $1 wager D (it scales with
the unit), a percentage p of a meter p x meter rounded half up to the cent, divided by ``u``
(it does not scale).  The Envy Bonus a seat receives at a full table is the sum over the five
other seats of what each seat's hand earns; its expectation is five times that of one other
seat, whatever the seats share (the community cards): exact by linearity.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from decimal import Decimal
from fractions import Fraction
from math import comb

from games import high_card_flush
from games.cards import ACE, DECK, Card, parse_card
from games.jackpot_holdem import jackpot_lines_made
from games.money import display, round_cents
from games.paytable import FixedAmount, FixedPerUnit, MeterPercent, Odds, Pays, Paytable, Push
from games.paytables import paytable
from games.poker import CATEGORY_NAMES, PAIR, ROYAL_FLUSH, best_hand, lines_made
from games.registry import GAMES

UTH, JHE, HCF, RET = "ultimate_texas_holdem", "jackpot_holdem", "high_card_flush", "run_em_twice"


#: A full table (six seats, RULINGS R1): a seat's Envy Bonus comes from the five others (R24d).
FULL_TABLE_OTHER_SEATS = 5

# -- five cards: the standard closed forms, high card .. royal flush -----------------------------
_RANK_SETS = comb(13, 5) - 10  # five distinct ranks that are not a straight
FIVE_CARD_CATEGORIES: tuple[int, ...] = (
    _RANK_SETS * (4**5 - 4),  # high card: no straight, not all one suit
    13 * comb(4, 2) * comb(12, 3) * 4**3,  # one pair
    comb(13, 2) * comb(4, 2) ** 2 * 11 * 4,  # two pair
    13 * comb(4, 3) * comb(12, 2) * 4**2,  # three of a kind
    10 * (4**5 - 4),  # straight, not all one suit
    4 * _RANK_SETS,  # flush, not a straight
    13 * comb(4, 3) * 12 * comb(4, 2),  # full house
    13 * 12 * 4,  # four of a kind
    4 * 9,  # straight flush, not the royal
    4,  # royal flush
)
FIVE_CARD_HANDS = comb(52, 5)
assert sum(FIVE_CARD_CATEGORIES) == FIVE_CARD_HANDS

# -- seven cards, High Card Flush: by the longest straight flush run (R17, R18) -------------------
SEVEN_CARD_HANDS = comb(52, 7)
#: (a hand of the class, the number of seven-card hands in it).  The seven-card run: 4 suits x 8
#: runs (A-7 .. 8-A).  The suited 9-A without the suit's 8: 4 x 45.  Another six-card run: 4 x (the
#: A-6 run and a 7th card other than that suit's 7: 45; the seven middle runs 2-7 .. 8-K, 44 each).
#: Five, four and three: counted suit by suit (games.analysis, checked by a test).
HCF_SEVEN_CARD_RUNS: tuple[tuple[str, int], ...] = (
    ("2h 3h 4h 5h 6h 7h 8h", 4 * 8),
    ("9h Th Jh Qh Kh Ah 2c", 4 * 45),
    ("2h 3h 4h 5h 6h 7h Kc", 4 * (45 + 7 * 44)),
    ("2h 3h 4h 5h 6h 9c Kd", 39960),
    ("2h 3h 4h 5h 9c Kd 7s", 676196),
    ("2h 3h 4h 9c Kd 7s Js", 8642932),
)

# One five-card hand per category (the pair by its rank, the royal by its suit).
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
        hand += [next(c for c in DECK if c.rank == k and c.suit == s) for k, s in zip(kickers, "hsc", strict=False)]
    else:
        hand = _cards(_REPRESENTATIVE[CATEGORY_NAMES[category]])
    assert best_hand(hand).category == category, (category, hand)
    return hand


Classes = list[tuple[frozenset[str], int]]


def hand_classes(
    made_of: Callable[[list[Card]], frozenset[str]],
    categories: list[int] | tuple[int, ...],
    pair_by_rank: Mapping[int, int],
    royal_by_suit: Mapping[str, int],
) -> Classes:
    """(lines made, count) for every class of hands: the category, the pair's rank, the royal's suit."""
    classes: Classes = []
    for cat in range(10):
        if cat == PAIR:
            for r in range(2, ACE + 1):
                classes.append((made_of(representative_hand(PAIR, pair_rank=r)), pair_by_rank[r]))
        elif cat == ROYAL_FLUSH:
            for suit, n in royal_by_suit.items():
                classes.append((made_of(representative_hand(cat, royal_suit=suit)), n))
        else:
            classes.append((made_of(representative_hand(cat)), categories[cat]))
    return classes


def best_five_lines(cards: list[Card]) -> frozenset[str]:
    return lines_made(best_hand(cards))


def jackpot_lines(cards: list[Card]) -> frozenset[str]:
    return jackpot_lines_made(best_hand(cards))


def five_card_lines_of(game: str) -> Callable[[list[Card]], frozenset[str]]:
    """What decides a five-card Progressive or Envy hand's lines: JHE splits the royal by suit (R13)."""
    return jackpot_lines if game == JHE else best_five_lines


def line_index(table: Paytable, made: frozenset[str]) -> int:
    """The index of the line paid (R5), ``len(table.lines)`` when none is."""
    line = table.line_for(made)
    return len(table.lines) if line is None else table.lines.index(line)


def tally(table: Paytable, classes: Classes) -> tuple[list[int], int]:
    """Per-line counts in paytable order, and the losing count."""
    counts = [0] * len(table.lines)
    losing = 0
    for made, n in classes:
        i = line_index(table, made)
        if i == len(table.lines):
            losing += n
        else:
            counts[i] += n
    return counts, losing


@functools.cache
def line_counts(game: str, wager: str, letter: str) -> tuple[int, tuple[int, ...], int]:
    """(space, per-line counts, losing count) of a Progressive or Envy paytable, from the data above."""
    if wager not in ("progressive", "envy"):
        raise ValueError(f"{wager!r}: only Progressive and Envy tables are counted here")
    table = paytable(game, wager, letter)
    if game == HCF:
        space = SEVEN_CARD_HANDS
        runs = [(high_card_flush.lines_made(_cards(hand))[wager], n) for hand, n in HCF_SEVEN_CARD_RUNS]
        classes = runs + [(frozenset(), space - sum(n for _, n in runs))]
    else:
        space = FIVE_CARD_HANDS
        pairs = {r: FIVE_CARD_CATEGORIES[PAIR] // 13 for r in range(2, ACE + 1)}
        royals = {s: FIVE_CARD_CATEGORIES[ROYAL_FLUSH] // 4 for s in "cdhs"}
        classes = hand_classes(five_card_lines_of(game), FIVE_CARD_CATEGORIES, pairs, royals)
    counts, losing = tally(table, classes)
    assert sum(counts) + losing == space
    return space, tuple(counts), losing


# -- returns -----------------------------------------------------------------------------------------


def line_return(pays: Pays, meters: Mapping[str, Decimal], unit: Decimal = Decimal(1)) -> Fraction:
    """What a wager of one unit returns per unit, stake included, when the line is paid (R2, R3, R4, R21a)."""
    if isinstance(pays, Odds):
        ratio = Fraction(pays.numerator, pays.denominator)
        return ratio + 1 if pays.word == "to" else ratio
    if isinstance(pays, Push):
        return Fraction(1)
    if isinstance(pays, FixedAmount):  # R21a: net +D whatever the wager; the wager stays (not a progressive)
        return Fraction(pays.dollars) + 1
    if isinstance(pays, FixedPerUnit):  # R3: D per $1 of the unit; the wager was collected
        return Fraction(pays.dollars)
    if isinstance(pays, MeterPercent):  # R3, R4: p x meter to the cent, whatever the unit
        return Fraction(round_cents(meters[pays.meter] * pays.percent / 100)) / Fraction(unit)
    raise TypeError(type(pays).__name__)  # pragma: no cover


def table_return(
    table: Paytable, space: int, counts: tuple[int, ...] | list[int], meters: Mapping[str, Decimal],
    unit: Decimal = Decimal(1),
) -> Fraction:
    """The exact return per unit of a table whose lines are hit ``counts`` times in ``space`` outcomes."""
    total = sum(
        (n * line_return(line.pays, meters, unit) for n, line in zip(counts, table.lines, strict=False)), Fraction(0)
    )
    return total / space


def progressive_return(
    game: str,
    letter: str,
    unit: Decimal,
    meters: Mapping[str, Decimal],
    envy: str | None = None,
    other_seats: int = FULL_TABLE_OTHER_SEATS,
) -> Fraction:
    """The exact return per unit of the Progressive wager ``letter`` at a unit and meter amounts,
    with the Envy Bonus of table ``envy`` (if any) received from ``other_seats`` other seats."""
    space, counts, _ = line_counts(game, "progressive", letter)
    ret = table_return(paytable(game, "progressive", letter), space, counts, meters, unit)
    if envy is not None:
        space, counts, _ = line_counts(game, "envy", envy)
        ret += other_seats * table_return(paytable(game, "envy", envy), space, counts, {}, unit)
    return ret


def break_even_meter(
    table: Paytable,
    space: int,
    counts: tuple[int, ...] | list[int],
    meters: Mapping[str, Decimal],
    unit: Decimal = Decimal(1),
    besides: Fraction = Fraction(0),
) -> Decimal | None:
    """The least amount of the table's top meter, to the cent, at which the return reaches 1: the other
    meters at their amounts in ``meters``, ``besides`` (an Envy Bonus) added to the return.  None when
    the return at ``meters`` is 1 or more already.

    The return grows with the top meter but not in proportion (each line pays p x meter rounded half
    up to the cent, R4), so the amount is searched cent by cent, by bisection, on the exact return.
    """
    top = table.meters[0]

    def reaches(cents: int) -> bool:
        at = {**meters, top: Decimal(cents).scaleb(-2)}
        return table_return(table, space, counts, at, unit) + besides >= 1

    low = int(meters[top] * 100)
    if not any(n for n, line in zip(counts, table.lines, strict=False) if getattr(line.pays, "meter", None) == top):
        return None  # pragma: no cover - every table's top line is hit by some hand
    if reaches(low):
        return None
    high = max(2 * low, 100)
    while not reaches(high):  # the top line is paid 100 % of the top meter: the return is unbounded
        low, high = high, 2 * high
    while high - low > 1:  # reaches(high) and not reaches(low)
        mid = (low + high) // 2
        low, high = (low, mid) if reaches(mid) else (mid, high)
    return Decimal(high).scaleb(-2)


def describe(game: str, letter: str, unit: Decimal, envy: str | None) -> str:
    """The words for a configuration: "JHE Progressive E at a $1 unit", "... with Envy B at a full table"."""
    envy_words = f" with Envy {envy} at a full table" if envy is not None else ""
    return f"{GAMES[game].short} Progressive {letter}{envy_words} at a ${display(unit)} unit"


def three_decimals(x: Fraction) -> Decimal:
    """``x`` cut (not rounded) to three decimals: a return of 100 % or more never shows below 1.000."""
    return Decimal(math.floor(x * 1000)).scaleb(-3)


__all__ = [
    "break_even_meter",
    "FIVE_CARD_CATEGORIES",
    "FIVE_CARD_HANDS",
    "FULL_TABLE_OTHER_SEATS",
    "HCF_SEVEN_CARD_RUNS",
    "SEVEN_CARD_HANDS",
    "describe",
    "hand_classes",
    "line_counts",
    "line_index",
    "line_return",
    "progressive_return",
    "representative_hand",
    "table_return",
    "tally",
    "three_decimals",
]
