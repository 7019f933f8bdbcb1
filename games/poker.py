"""Five-card poker hands: the best five of five, six or seven cards.

Rankings are those of UTH ch.6, JHE ch.6 and RET ch.6 (identical in the three games):
nine categories from royal flush down to one pair, then high card; an ace is
high, or low only in A-2-3-4-5 (UTH ch.6 §B, JHE ch.6 §B); suits never rank (UTH ch.6 §C).
Two hands of one category compare by the ranks that form the category, then
by the remaining cards highest first (RULINGS R8, reading UTH ch.6 §E(1)).

The evaluator works on the whole set of cards at once (no loop over the 21
five-card subsets): it counts ranks and suits, and finds the category directly.
``value`` is a single integer: comparing two values compares the hands, equal
values tie.  ``best_hand`` also returns the five cards, best first, for display.

The par sheets' simulations value millions of hands, so ``value`` and
``best_hand`` remember what they found (see ``_memo_key``): a hand without a
flush is valued by its ranks alone, a flush by its suit's ranks alone, so each
multiset of ranks and each suit's rank set is evaluated once per process by
``_value_and_ranks`` and looked up afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from games.cards import ACE, DECK, SUIT_CHARS, Card

# Categories, lowest to highest.  A royal flush is the ace-high straight flush;
# it has its own category number so that its name is a lookup.
HIGH_CARD = 0
PAIR = 1
TWO_PAIR = 2
THREE_OF_A_KIND = 3
STRAIGHT = 4
FLUSH = 5
FULL_HOUSE = 6
FOUR_OF_A_KIND = 7
STRAIGHT_FLUSH = 8
ROYAL_FLUSH = 9

CATEGORY_NAMES = (
    "high_card",
    "pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "royal_flush",
)
CATEGORY_BY_NAME = {name: i for i, name in enumerate(CATEGORY_NAMES)}
#: each category in a person's words (the screens' words, web/words.py)
WORDS: dict[str, str] = {
    "high_card": "High card",
    "pair": "Pair",
    "two_pair": "Two pair",
    "three_of_a_kind": "Three of a kind",
    "straight": "Straight",
    "flush": "Flush",
    "full_house": "Full house",
    "four_of_a_kind": "Four of a kind",
    "straight_flush": "Straight flush",
    "royal_flush": "Royal flush",
}

_WHEEL_MASK = (1 << 14) | (1 << 2) | (1 << 3) | (1 << 4) | (1 << 5)


def _pack(category: int, ranks: Sequence[int]) -> int:
    """One integer that orders hands: the category, then up to five ranks (4 bits each)."""
    value = category
    for i in range(5):
        value = (value << 4) | (ranks[i] if i < len(ranks) else 0)
    return value


def category_of(value: int) -> int:
    return value >> 20


def straight_top(rank_mask: int) -> int:
    """Top rank of the highest five-card straight in a bit mask of ranks (bit r = rank r), or 0.

    The ace also counts as 1 for the A-2-3-4-5 straight, whose top card is the 5.
    """
    if rank_mask & (1 << ACE):
        rank_mask |= 1 << 1
    for top in range(14, 4, -1):
        if (rank_mask >> (top - 4)) & 0x1F == 0x1F:
            return top
    return 0


def straight_ranks(top: int) -> list[int]:
    """The ranks of the straight whose top card is ``top``, highest first (the ace last in A-5)."""
    return [r if r >= 2 else ACE for r in range(top, top - 5, -1)]


def _value_and_ranks(cards: Sequence[Card]) -> tuple[int, int, list[int], str | None]:
    """(category, packed value, the ranks to show in order, flush suit or None)."""
    counts = [0] * 15
    suit_counts = {"c": 0, "d": 0, "h": 0, "s": 0}
    for c in cards:
        counts[c.rank] += 1
        suit_counts[c.suit] += 1

    flush_suit = None
    for s, n in suit_counts.items():
        if n >= 5:
            flush_suit = s
            break

    if flush_suit is not None:
        cat, val, ranks = _flush_of(sorted((c.rank for c in cards if c.suit == flush_suit), reverse=True))
        if cat >= STRAIGHT_FLUSH:
            return cat, val, ranks, flush_suit
        by_ranks = _by_ranks(counts)
        if by_ranks[0] > FLUSH:  # four of a kind, full house
            return (*by_ranks, None)
        return cat, val, ranks, flush_suit
    return (*_by_ranks(counts), None)


def _flush_of(suited: list[int]) -> tuple[int, int, list[int]]:
    """(category, packed value, ranks to show) of the flush of one suit's ranks (five or more, highest first)."""
    mask = 0
    for r in suited:
        mask |= 1 << r
    top = straight_top(mask)
    if top:
        cat = ROYAL_FLUSH if top == ACE else STRAIGHT_FLUSH
        return cat, _pack(cat, (top,)), straight_ranks(top)
    top5 = suited[:5]
    return FLUSH, _pack(FLUSH, top5), top5


def _by_ranks(counts: Sequence[int]) -> tuple[int, int, list[int]]:
    """(category, packed value, ranks to show) of the best hand of these ranks, suits aside
    (``counts[r]``: the cards of rank r, r = 2..14)."""
    quads = trips = 0
    trips2 = 0
    pairs: list[int] = []
    singles: list[int] = []
    mask = 0
    for r in range(14, 1, -1):
        n = counts[r]
        if not n:
            continue
        mask |= 1 << r
        if n == 4:
            quads = r
        elif n == 3:
            if trips:
                trips2 = r
            else:
                trips = r
        elif n == 2:
            pairs.append(r)
        else:
            singles.append(r)

    if quads:
        kicker = max([r for r in range(14, 1, -1) if counts[r] and r != quads][:1] or [0])
        return FOUR_OF_A_KIND, _pack(FOUR_OF_A_KIND, (quads, kicker)), [quads] * 4 + [kicker]
    if trips and (trips2 or pairs):
        pair = max(trips2, pairs[0] if pairs else 0)
        return FULL_HOUSE, _pack(FULL_HOUSE, (trips, pair)), [trips] * 3 + [pair] * 2
    top = straight_top(mask)
    if top:
        return STRAIGHT, _pack(STRAIGHT, (top,)), straight_ranks(top)
    if trips:
        kickers = singles[:2]
        return THREE_OF_A_KIND, _pack(THREE_OF_A_KIND, [trips] + kickers), [trips] * 3 + kickers
    if len(pairs) >= 2:
        hi, lo = pairs[0], pairs[1]
        kicker = max(pairs[2] if len(pairs) > 2 else 0, singles[0] if singles else 0)
        return TWO_PAIR, _pack(TWO_PAIR, (hi, lo, kicker)), [hi, hi, lo, lo, kicker]
    if pairs:
        kickers = singles[:3]
        return PAIR, _pack(PAIR, [pairs[0]] + kickers), [pairs[0]] * 2 + kickers
    return HIGH_CARD, _pack(HIGH_CARD, singles[:5]), singles[:5]


# -- remembered values -----------------------------------------------------------------------------
#
# Each card adds one integer to a hand's key (``_memo_key``), so that the sum over the cards holds at once:
#   bits 0-30    the multiset of ranks: 5 ** (rank - 2) per card (a rank is held at most four times, so
#                the base-5 digits never carry): two hands have these bits equal iff their ranks are;
#   bits 32-47   the number of cards of each suit, a 4-bit digit per suit in ``SUIT_CHARS`` order (at
#                most seven cards: no digit carries);
#   bits 64-127  the ranks of each suit, a 16-bit mask per suit (bit r = rank r; the cards are
#                distinct, so the sum of their bits is their union).
# Without five cards of one suit a hand's value is that of its ranks; with them, it is the higher of
# the flush (or straight flush) that suit's ranks make and of what the ranks make (RULINGS R8: the
# categories are ordered, and suits never rank, UTH ch.6 §C).  Both are remembered; their first
# occurrence is evaluated by ``_by_ranks`` and ``_flush_of``, the two halves of ``_value_and_ranks``.

_RANKS_FIELD = (1 << 31) - 1
_SUIT_COUNTS_SHIFT = 32
_FIVE_OF_A_SUIT = 0x8888  # (suit counts + 3 in every digit) & this: a digit of five or more
_SUIT_MASKS_SHIFT = 64
_CARD_KEY: dict[Card, int] = {
    c: 5 ** (c.rank - 2)
    + (1 << (_SUIT_COUNTS_SHIFT + 4 * SUIT_CHARS.index(c.suit)))
    + (1 << (_SUIT_MASKS_SHIFT + 16 * SUIT_CHARS.index(c.suit) + c.rank))
    for c in DECK
}
_RANKS_VALUE: dict[int, int] = {}  # rank multiset (bits 0-30 of a key) -> value of those ranks, no flush
_FLUSH_VALUE: dict[int, int] = {}  # one suit's rank mask (5 or more ranks) -> value of its flush
_SHOWN: dict[int, tuple[tuple[int, int], ...]] = {}  # value -> the ranks best_hand shows: (rank, cards), in order


def _memo_key(cards: Sequence[Card]) -> int:
    return sum(map(_CARD_KEY.__getitem__, cards))


def _ranks_value(ranks_key: int) -> int:
    """The value of a multiset of ranks (bits 0-30 of a key) without a flush: evaluated once."""
    got = _RANKS_VALUE[ranks_key] = _by_ranks([0, 0, *(ranks_key // 5**i % 5 for i in range(13))])[1]
    return got


def _flush_value(mask: int) -> int:
    """The value of the flush (or straight flush) of one suit's ranks (bit r = rank r, five or more)."""
    got = _FLUSH_VALUE.get(mask)
    if got is None:
        got = _FLUSH_VALUE[mask] = _flush_of([r for r in range(ACE, 1, -1) if mask >> r & 1])[1]
    return got


def _value_and_flush_suit(key: int) -> tuple[int, str | None]:
    """The value of a hand by its key, and the suit of its flush if the value is the flush's."""
    got = _RANKS_VALUE.get(key & _RANKS_FIELD)
    if got is None:
        got = _ranks_value(key & _RANKS_FIELD)
    fives = ((key >> _SUIT_COUNTS_SHIFT & 0xFFFF) + 0x3333) & _FIVE_OF_A_SUIT
    if not fives:
        return got, None
    s = ((fives & -fives).bit_length() - 4) // 4  # the first suit (SUIT_CHARS order) with five cards
    flush = _flush_value(key >> (_SUIT_MASKS_SHIFT + 16 * s) & 0xFFFF)
    return (flush, SUIT_CHARS[s]) if flush > got else (got, None)


def value(cards: Sequence[Card]) -> int:
    """The hand value of the best five of ``cards`` (5 to 7 cards); higher is better."""
    key = sum(map(_CARD_KEY.__getitem__, cards))
    if ((key >> _SUIT_COUNTS_SHIFT & 0xFFFF) + 0x3333) & _FIVE_OF_A_SUIT:
        return _value_and_flush_suit(key)[0]
    got = _RANKS_VALUE.get(key & _RANKS_FIELD)
    return _ranks_value(key & _RANKS_FIELD) if got is None else got


@dataclass(frozen=True)
class PokerHand:
    """The best five-card poker hand of a set of cards."""

    value: int
    cards: tuple[Card, ...]  # the five cards, best first

    @property
    def category(self) -> int:
        return self.value >> 20

    @property
    def name(self) -> str:
        return CATEGORY_NAMES[self.value >> 20]

    @property
    def ranks(self) -> tuple[int, ...]:
        """The ranks of the five cards, best first (the pair before its kickers, ...)."""
        return tuple(c.rank for c in self.cards)


def best_hand(cards: Sequence[Card]) -> PokerHand:
    """The best five-card hand of 5, 6 or 7 cards, with the five cards best first.

    Where two cards of one rank could serve, the one listed first in ``cards``
    is shown (callers list the player's own cards first).
    """
    if not 5 <= len(cards) <= 7:
        raise ValueError(f"a poker hand is the best five of 5 to 7 cards, got {len(cards)}")
    val, flush_suit = _value_and_flush_suit(_memo_key(cards))
    shown = _SHOWN.get(val)
    if shown is None:  # the ranks shown follow from the value (each is packed in it): found once per value
        _cat, again, ranks, _suit = _value_and_ranks(cards)
        assert again == val, cards
        shown = _SHOWN[val] = tuple((r, ranks.count(r)) for r in dict.fromkeys(ranks))
    # Of each rank shown, the first cards of that rank in ``cards`` (of the flush's suit, for a flush).
    pool = cards if flush_suit is None else [c for c in cards if c.suit == flush_suit]
    of_rank: dict[int, list[Card]] = {}
    for c in pool:
        if c.rank in of_rank:
            of_rank[c.rank].append(c)
        else:
            of_rank[c.rank] = [c]
    chosen: list[Card] = []
    for r, n in shown:
        chosen += of_rank[r][:n]
    return PokerHand(val, tuple(chosen))


def lines_made(hand: PokerHand) -> frozenset[str]:
    """Every paytable line key a five-card hand makes (the paytable then pays the highest, R5).

    Beside the category name this adds the lines that the rules word by a pair's
    rank or by "less than": UTH/JHE Blind and X-tra Bonus "less than a straight"
    (UTH ch.12 §B(1)(g)), Play the Board "pair of tens or better" (UTH ch.12
    §G, RULINGS R23), RET Run "pair of jacks or better" / "pair of 6s to 10s"
    (RET ch.12 §B(9)-(10), R27), RET Five Card Bonus "pair of 6s or better"
    (RET ch.12 §D(9)).
    """
    return lines_of_value(hand.value)


def lines_of_value(value: int) -> frozenset[str]:
    """``lines_made`` of the hand of this value: what a hand makes follows from its value (its
    category and, for a pair, the pair's rank, the first packed), so it is found once per value."""
    made = _LINES.get(value)
    if made is None:
        made = _LINES[value] = _lines_of_value(value)
    return made


_LINES: dict[int, frozenset[str]] = {}


def _lines_of_value(value: int) -> frozenset[str]:
    category = value >> 20
    made = {CATEGORY_NAMES[category]}
    if category < STRAIGHT:
        made.add("less_than_a_straight")
    if category == PAIR:
        pair = value >> 16 & 0xF  # the pair's rank: the first of the ranks packed after the category
        if pair >= 10:
            made.add("pair_of_tens_or_better")
        if pair >= 11:
            made.add("pair_of_jacks_or_better")
        if 6 <= pair <= 10:
            made.add("pair_of_6s_to_10s")
        if pair >= 6:
            made.add("pair_of_6s_or_better")
    return frozenset(made)
