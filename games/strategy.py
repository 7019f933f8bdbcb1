"""The player's strategy for each base game, as the par sheets play it (``tablectl analyze --wager base``).

Each strategy decides from what the player has seen at that decision, exactly
as the rules show it (``Game.streets``), and returns the wager multiple (a
multiple of the Ante, 0 = check) or ``FOLD``.  Hands are evaluated with the
game's own code (``games.poker``, ``games.high_card_flush``).  The sources and
derivations are in ``docs/analysis.md``; in short:

* UTH (``uth_preflop``, ``uth_flop``, ``uth_river``): the Wizard of Odds'
  published basic strategy for Ultimate Texas Hold 'Em (Michael Shackleford,
  wizardofodds.com/games/ultimate-texas-hold-em/, "Strategy").  Never 3×.
* HCF (``hcf_raise``): the Charles Mousseau strategy as published by the
  Wizard of Odds (wizardofodds.com/games/high-card-flush/, and its "Advanced
  Strategy" page): the largest Raise allowed with a four-card or longer flush,
  1× with a three-card flush of T-8-6 or better, otherwise fold.
* JHE (``jhe_first``, ``jhe_second``, ``jhe_third``): derived here -- no
  published strategy was found.  The UTH strategy above at the second and last
  decisions; at the first (3×, one community card shown) a list derived from the
  UTH 4× list and tuned by simulation (see ``jhe_first``).
* RET (``RetStrategy``): derived here -- no published strategy was found.  The
  Run wagers are bet 3× when the expected value of a Run hand with these two
  cards is positive (computed exactly over every three other cards), folds are
  decided on those values and the seen cards, and the last decision (the
  Center wager) is taken exactly, over the 46 possible center cards.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations_with_replacement
from math import comb
from math import prod as prod_of
from typing import Protocol

from games.cards import ACE, DECK, JACK, KING, QUEEN, TEN, Card
from games.high_card_flush import FlushHand, flush_hand, max_raise
from games.paytable import Odds, Paytable, Push
from games.poker import PAIR, TWO_PAIR, PokerHand, best_hand, category_of, lines_made, value

FOLD = -1
CHECK = 0


def _ranks(hole: Sequence[Card]) -> tuple[int, int, bool]:
    a, b = hole
    hi, lo = (a.rank, b.rank) if a.rank >= b.rank else (b.rank, a.rank)
    return hi, lo, a.suit == b.suit


# == Ultimate Texas Hold 'Em: the Wizard of Odds' basic strategy ==================================


def uth_raise_4x(hole: Sequence[Card]) -> bool:
    """Before the flop, bet 4×: a pair of 3s or better; any ace; K-x suited; K-5+ offsuit;
    Q-6+ suited; Q-8+ offsuit; J-8+ suited; J-10 offsuit.  Otherwise check (never 3×)."""
    hi, lo, suited = _ranks(hole)
    if hi == lo:
        return hi >= 3
    if hi == ACE:
        return True
    if hi == KING:
        return suited or lo >= 5
    if hi == QUEEN:
        return lo >= (6 if suited else 8)
    if hi == JACK:
        return lo >= (8 if suited else TEN)
    return False


def uth_preflop(hole: Sequence[Card]) -> int:
    return 4 if uth_raise_4x(hole) else CHECK


def uth_flop(hole: Sequence[Card], flop: Sequence[Card]) -> int:
    """After the flop, bet 2×: two pair or better; a hidden pair (a hole card paired, except
    pocket deuces); four to a flush with a hole card of that suit of 10 or better.  Otherwise check.

    "Two pair or better" is read literally on the player's five cards (hole and flop).
    """
    cards = [*hole, *flop]
    if category_of(value(cards)) >= TWO_PAIR:
        return 2
    a, b = hole
    if a.rank == b.rank:
        if a.rank > 2:
            return 2
    elif any(h.rank == f.rank for h in hole for f in flop):
        return 2
    for h in hole:
        if h.rank >= TEN and sum(c.suit == h.suit for c in cards) >= 4:
            return 2
    return CHECK


def uth_hidden_pair_or_better(hole: Sequence[Card], board: Sequence[Card]) -> bool:
    """A pair or better that the two hole cards make: the player's hand is at least a pair and of a
    higher category than the board alone (so a pair, trips, two pair, straight, flush ... that the
    board does not give the dealer too).  A same-category improvement (a higher straight than the
    board's) is left to the count of outs, which then finds few."""
    player = category_of(value([*hole, *board]))
    return player >= PAIR and player > category_of(value(board))


def uth_dealer_outs(hole: Sequence[Card], board: Sequence[Card]) -> int:
    """The cards the dealer could hold that, with the five community cards, beat the player's hand.

    Only one dealer card is considered with the board (the Wizard of Odds' "outs").  A card's rank
    decides, except in a suit of which the board holds four or five cards, where each card counts
    on its own (it may make a flush or a straight flush).
    """
    mine = value([*hole, *board])
    seen = {*hole, *board}
    flushy = {s for s in "cdhs" if sum(c.suit == s for c in board) >= 4}
    by_rank: dict[int, bool] = {}
    outs = 0
    for c in DECK:
        if c in seen:
            continue
        if c.suit in flushy:
            beats = value([*board, c]) > mine
        else:
            known = by_rank.get(c.rank)
            if known is None:
                known = by_rank[c.rank] = value([*board, c]) > mine
            beats = known
        outs += beats
    return outs


def uth_river(hole: Sequence[Card], board: Sequence[Card]) -> int:
    """After the river, bet 1×: a hidden pair or better, or fewer than 21 dealer outs.  Otherwise fold."""
    if uth_hidden_pair_or_better(hole, board) or uth_dealer_outs(hole, board) < 21:
        return 1
    return FOLD


# == Jackpot Hold 'Em: derived from the UTH strategy ===============================================


def jhe_first(hole: Sequence[Card], shown: Card) -> int:
    """One community card shown (RULINGS R11), bet 3×: a pair of 3s or better in the hand; a hole card
    paired by the shown card (not a pair of deuces); any ace; K-x suited; K-8+ offsuit; Q-8+ suited;
    Q-10+ offsuit; J-10 suited.  Otherwise check.

    Derivation (docs/analysis.md): the JHE Play and X-tra Bonus mirror the UTH Play and Blind (R12),
    so the UTH 4× list was the starting point; the first bet is smaller (3× against 4×) and made
    with one card more in view.  Lists tighter and looser than the UTH one were compared by
    simulation on common deals (the same seed, 300,000 rounds each, the later decisions as below);
    this one returned the most: 0.5 % of the Ante more than the UTH list, 0.9 % more than a looser one.
    """
    hi, lo, suited = _ranks(hole)
    if any(h.rank == shown.rank and h.rank > 2 for h in hole):
        return 3
    if hi == lo:
        return 3 if hi >= 3 else CHECK
    if hi == ACE:
        return 3
    if hi == KING:
        return 3 if suited or lo >= 8 else CHECK
    if hi == QUEEN:
        return 3 if lo >= (8 if suited else TEN) else CHECK
    if hi == JACK:
        return 3 if suited and lo == TEN else CHECK
    return CHECK


def jhe_second(hole: Sequence[Card], shown: Sequence[Card]) -> int:
    """Three community cards shown, bet 2×: the UTH flop rule on those three cards."""
    return uth_flop(hole, shown)


def jhe_third(hole: Sequence[Card], board: Sequence[Card]) -> int:
    """Five community cards shown, bet 1× or fold: the UTH river rule."""
    return uth_river(hole, board)


# == High Card Flush: the Charles Mousseau strategy ==================================================

#: the weakest three-card flush raised: ten, eight, six (compared highest card first)
MOUSSEAU_THREE_CARD = (TEN, 8, 6)


def hcf_raise(cards: Sequence[Card]) -> int:
    """Raise the most the player's flush allows (R16) with a four-card or longer flush, 1× with a
    three-card flush of T-8-6 or better (ranks compared highest first), otherwise fold."""
    hand: FlushHand = flush_hand(cards)
    if hand.length >= 4:
        return max_raise(hand.length)
    if hand.length == 3 and hand.ranks >= MOUSSEAU_THREE_CARD:
        return 1
    return FOLD


# == Run 'Em Twice: derived ===========================================================================


def _run_return(table: Paytable, hand: PokerHand) -> tuple[Fraction | int, int]:
    """(net of a 1-unit Run wager, net of its 1-unit Ante) for a Run hand (R27, RET ch.12 §A-§B)."""
    line = table.line_for(lines_made(hand))
    if line is None:
        return -1, -1
    if isinstance(line.pays, Push):
        return 0, 0
    assert isinstance(line.pays, Odds) and line.pays.word == "to", line
    pays = Fraction(line.pays.numerator, line.pays.denominator)
    return (int(pays) if pays.denominator == 1 else pays), 1


class RetDecisions(Protocol):
    """A Run 'Em Twice strategy's three decisions (R26), each a multiple or FOLD."""

    def first(self, hole: Sequence[Card]) -> int: ...

    def second(self, hole: Sequence[Card], left: Card, right: Card, first_bet: int) -> int: ...

    def center(self, hole: Sequence[Card], cross: tuple[Card, None, Card, Card, Card],
               bets: tuple[int, int]) -> int: ...


def ret_bets(strategy: RetDecisions, hole: Sequence[Card], cross: Sequence[Card]) -> tuple[int, ...]:
    """The multiples bet in a round dealt ``hole`` and ``cross`` (left, center, right, top, bottom, R25),
    each decision seeing only what is shown by then; fewer than three: folded at the next."""
    left, _, right, top, bottom = cross
    bets: list[int] = []
    k = strategy.first(hole)
    if k != FOLD:
        bets.append(k)
        k = strategy.second(hole, left, right, k)
        if k != FOLD:
            bets.append(k)
            k = strategy.center(hole, (left, None, right, top, bottom), (bets[0], bets[1]))
            if k != FOLD:
                bets.append(k)
    return tuple(bets)


class RetStrategy:
    """A derived strategy for Run 'Em Twice (no published one was found); see ``docs/analysis.md``.

    Decisions (R26): each is 1×-3× an Ante or fold; a bet's return is linear in its size, so only
    1× and 3× are ever chosen.

    1. 1st Run wager (two cards seen).  ``e_run``, ``e_ante``: the exact expected net of a 1-unit Run
       wager and of its Ante on a Run hand made of these two cards and three other cards, over all
       C(50,3) of them.  k = 3 if e_run > 0 else 1.  Continue when the two Run hands,
       2·(e_ante + k·e_run), plus ``LATER`` (what the Center wager and the later decisions are
       worth) come to more than the -2 of folding: only 3-2, 4-2, 5-2, 4-3, 5-3, 5-4 offsuit fold.
    2. 2nd Run wager (two cards and the horizontal outside cards seen).  The 2nd Run hand is the two
       cards and three unseen cards: k = 3 if e_run > 0 else 1 (the removal of the two seen cards is
       ignored).  Continue when the 1st Run hand (exact, over its 48 possible center cards), the 2nd
       (e_ante + k·e_run) and ``LATER`` come to more than folding loses (the Antes and 1st Run wager).
    3. Center wager (all but the center card seen): exact, over the 46 possible center cards, with
       the Run, Ante and Center settled as the game settles them (R27, R28): bet 3× when the
       Center's expected net is positive, else 1×; fold when even that loses more than folding.

    ``LATER`` = 1/2 an Ante was chosen by simulation on common deals (the same seed, 200,000 rounds
    each): 0 (the Center ignored) returned 6.5 % of an Ante less, 1/4 0.9 % less, 3/4 2.0 % less.
    """

    #: the value credited, at the first two decisions, to the Center wager and the options to come
    LATER = Fraction(1, 2)

    _SHARED: dict[tuple[str, str], RetStrategy] = {}

    @classmethod
    def for_table(cls, table: Paytable) -> RetStrategy:
        """One strategy per Run paytable and process, so that its tables are computed once."""
        key = (table.game, table.letter)
        if key not in cls._SHARED:
            cls._SHARED[key] = cls(table)
        return cls._SHARED[key]

    def __init__(self, table: Paytable):
        self.table = table
        self._holes: dict[tuple[int, int, bool], tuple[Fraction, Fraction]] = {}
        self._hands: dict[tuple[int, bool], tuple[int, Fraction | int, int]] = {}

    def hole_returns(self, hole: Sequence[Card]) -> tuple[Fraction, Fraction]:
        """(e_run, e_ante) of a Run hand made of ``hole`` and three random other cards (exact)."""
        key = _ranks(hole)
        got = self._holes.get(key)
        if got is None:
            got = self._holes[key] = self._hole_returns(*key)
        return got

    def run(self, cards: Sequence[Card]) -> tuple[int, Fraction | int, int]:
        """(poker value, net of a 1-unit Run wager, net of its Ante) of a five-card Run hand.

        A five-card hand's value and lines depend on its ranks and on whether it is of one suit only,
        so one hand of each such class is evaluated (``games.poker``) and kept.  The class is keyed by
        the product of one prime per rank (unique for each multiset of ranks) and the flush flag.
        """
        prod = 1
        for c in cards:
            prod *= _PRIME[c]
        suit = cards[0].suit
        return self._run(prod, all(c.suit == suit for c in cards), cards)

    def _run(self, prod: int, flush: bool, cards: Sequence[Card]) -> tuple[int, Fraction | int, int]:
        got = self._hands.get((prod, flush))
        if got is None:
            hand = best_hand(list(cards))
            got = self._hands[(prod, flush)] = (hand.value, *_run_return(self.table, hand))
        return got

    def bets(self, hole: Sequence[Card], cross: Sequence[Card]) -> tuple[int, ...]:
        """The round's multiples under this strategy (``ret_bets``)."""
        return ret_bets(self, hole, cross)

    def first(self, hole: Sequence[Card]) -> int:
        e_run, e_ante = self.hole_returns(hole)
        k = 3 if e_run > 0 else 1
        return k if 2 * (e_ante + k * e_run) + self.LATER > -2 else FOLD

    def second(self, hole: Sequence[Card], left: Card, right: Card, first_bet: int) -> int:
        e_run, e_ante = self.hole_returns(hole)
        k = 3 if e_run > 0 else 1
        a, b = hole
        seen = {a, b, left, right}
        known, suit = _partial((a, b, left, right))
        total: Fraction | int = 0
        n = 0
        for c in DECK:
            if c not in seen:
                _, run, ante = self._run(known * _PRIME[c], c.suit == suit, (a, b, left, c, right))
                total += ante + first_bet * run
                n += 1
        if Fraction(total, n) + e_ante + k * e_run + self.LATER > -(2 + first_bet):
            return k
        return FOLD

    def center(self, hole: Sequence[Card], cross: tuple[Card, None, Card, Card, Card], bets: tuple[int, int]) -> int:
        """``cross`` is left, center (None: unseen), right, top, bottom; ``bets`` the two Run multiples."""
        left, _, right, top, bottom = cross
        a, b = hole
        seen = {a, b, left, right, top, bottom}
        k1, k2 = bets
        known1, suit1 = _partial((a, b, left, right))
        known2, suit2 = _partial((a, b, top, bottom))
        fixed: Fraction | int = 0  # the Antes and Run wagers, summed over the centers
        center: Fraction | int = 0  # a 1-unit Center wager, summed over the centers
        n = 0
        for c in DECK:
            if c in seen:
                continue
            p = _PRIME[c]
            v1, r1, a1 = self._run(known1 * p, c.suit == suit1, (a, b, left, c, right))
            v2, r2, a2 = self._run(known2 * p, c.suit == suit2, (a, b, top, c, bottom))
            fixed += a1 + k1 * r1 + a2 + k2 * r2
            # R28: wins at the higher hand's odds when either wins; pushes when neither wins and one pushes
            if r1 > 0 or r2 > 0:
                center += r1 if v1 >= v2 else r2
            elif r1 < 0 and r2 < 0:
                center -= 1
            n += 1
        k = 3 if center > 0 else 1
        if Fraction(fixed + k * center, n) > -(2 + k1 + k2):
            return k
        return FOLD

    def _hole_returns(self, hi: int, lo: int, suited: bool) -> tuple[Fraction, Fraction]:
        """Exact (e_run, e_ante) over the C(50,3) sets of three other cards, counted by their ranks.

        For three ranks the number of card sets is the product of the ways to take each rank from the
        suits still unseen; of these, one is a flush when the two cards are suited and the three ranks
        are distinct and not the two cards' (its three cards are then the suited ones).
        """
        held = Counter((hi, lo))
        run_total: Fraction | int = 0
        ante_total = n = 0
        for extra in combinations_with_replacement(range(2, ACE + 1), 3):
            distinct = set(extra)
            ways = 1
            for r in distinct:
                ways *= comb(4 - held[r], extra.count(r))
            if not ways:
                continue
            flushes = int(suited and len(distinct) == 3 and hi not in distinct and lo not in distinct)
            ranks = (hi, lo, *extra)
            prod = prod_of(_PRIMES[r - 2] for r in ranks)
            for count, flush in ((ways - flushes, False), (flushes, True)):
                if count:
                    # the class of the hand (its ranks' product and whether it is one suit), as ``run`` keys it;
                    # its cards are made only the first time the class is met
                    got = self._hands.get((prod, flush))
                    if got is None:
                        got = self._run(prod, flush, _suited(ranks) if flush else _unsuited(ranks))
                    _, run, ante = got
                    run_total += count * run
                    ante_total += count * ante
                    n += count
        assert n == comb(50, 3)
        return Fraction(run_total) / n, Fraction(ante_total, n)


def _unsuited(ranks: Sequence[int]) -> tuple[Card, ...]:
    """Five cards of these ranks, not all of one suit."""
    used: Counter[int] = Counter()
    cards = []
    for r in ranks:
        cards.append(_CARD[(r, "cdhs"[used[r]])])
        used[r] += 1
    if len({c.suit for c in cards}) == 1:
        cards[0] = _CARD[(cards[0].rank, "d")]
    return tuple(cards)


def _suited(ranks: Sequence[int]) -> tuple[Card, ...]:
    return tuple(_CARD[(r, "s")] for r in ranks)


_CARD = {(c.rank, c.suit): c for c in DECK}
_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
_PRIME = {c: _PRIMES[c.rank - 2] for c in DECK}


def _partial(cards: Sequence[Card]) -> tuple[int, str | None]:
    """The rank-prime product of some cards of a Run hand, and their common suit (None if mixed)."""
    prod = 1
    for c in cards:
        prod *= _PRIME[c]
    suit = cards[0].suit
    return prod, suit if all(c.suit == suit for c in cards) else None


#: the strategies, by game, named in the output
STRATEGY_NAMES = {
    "ultimate_texas_holdem": "Wizard of Odds basic strategy (wizardofodds.com/games/ultimate-texas-hold-em/)",
    "high_card_flush": "Charles Mousseau strategy, as published by the Wizard of Odds "
    "(wizardofodds.com/games/high-card-flush/advanced-strategy/)",
    "jackpot_holdem": "derived from the Wizard of Odds UTH basic strategy (docs/analysis.md)",
    "run_em_twice": "derived: Run wagers by the exact value of the two cards, Center decided exactly "
    "(docs/analysis.md)",
}
