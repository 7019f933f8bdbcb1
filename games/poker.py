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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from games.cards import ACE, Card

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
        suited = sorted((c.rank for c in cards if c.suit == flush_suit), reverse=True)
        mask = 0
        for r in suited:
            mask |= 1 << r
        top = straight_top(mask)
        if top:
            cat = ROYAL_FLUSH if top == ACE else STRAIGHT_FLUSH
            return cat, _pack(cat, (top,)), straight_ranks(top), flush_suit

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
        return FOUR_OF_A_KIND, _pack(FOUR_OF_A_KIND, (quads, kicker)), [quads] * 4 + [kicker], None
    if trips and (trips2 or pairs):
        pair = max(trips2, pairs[0] if pairs else 0)
        return FULL_HOUSE, _pack(FULL_HOUSE, (trips, pair)), [trips] * 3 + [pair] * 2, None
    if flush_suit is not None:
        top5 = suited[:5]
        return FLUSH, _pack(FLUSH, top5), top5, flush_suit
    top = straight_top(mask)
    if top:
        return STRAIGHT, _pack(STRAIGHT, (top,)), straight_ranks(top), None
    if trips:
        kickers = singles[:2]
        return THREE_OF_A_KIND, _pack(THREE_OF_A_KIND, [trips] + kickers), [trips] * 3 + kickers, None
    if len(pairs) >= 2:
        hi, lo = pairs[0], pairs[1]
        kicker = max(pairs[2] if len(pairs) > 2 else 0, singles[0] if singles else 0)
        return TWO_PAIR, _pack(TWO_PAIR, (hi, lo, kicker)), [hi, hi, lo, lo, kicker], None
    if pairs:
        kickers = singles[:3]
        return PAIR, _pack(PAIR, [pairs[0]] + kickers), [pairs[0]] * 2 + kickers, None
    return HIGH_CARD, _pack(HIGH_CARD, singles[:5]), singles[:5], None


def value(cards: Sequence[Card]) -> int:
    """The hand value of the best five of ``cards`` (5 to 7 cards); higher is better."""
    return _value_and_ranks(cards)[1]


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
    _cat, val, ranks, flush_suit = _value_and_ranks(cards)
    pool = [c for c in cards if flush_suit is None or c.suit == flush_suit]
    chosen: list[Card] = []
    for r in ranks:
        for c in pool:
            if c.rank == r and c not in chosen:
                chosen.append(c)
                break
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
    made = {hand.name}
    category = hand.category
    if category < STRAIGHT:
        made.add("less_than_a_straight")
    if category == PAIR:
        pair = hand.ranks[0]
        if pair >= 10:
            made.add("pair_of_tens_or_better")
        if pair >= 11:
            made.add("pair_of_jacks_or_better")
        if 6 <= pair <= 10:
            made.add("pair_of_6s_to_10s")
        if pair >= 6:
            made.add("pair_of_6s_or_better")
    return frozenset(made)
