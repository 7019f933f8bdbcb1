"""High Card Flush (MLGCA v1.0), "HCF".

Each player makes an Ante (HCF ch.7 §F(1)) and may add a Flush Bonus (§F(2)), a
Straight Flush Bonus (§F(3)) and a Progressive Jackpot wager (§F(4)).  Each
player and the dealer receive seven cards (HCF ch.10 §B).  After looking at the
seven cards a player folds or places a Raise of 1×, 2× or 3× the Ante, as far
as the player's own longest flush allows (HCF ch.11 §B(1)-(3), RULINGS R16).

Hands (HCF ch.6):

* The High Card Flush hand is the longest flush among the seven cards, two to
  seven cards of one suit (HCF ch.6 §C, RULINGS R14).  Between two suits of equal
  length the one with the higher cards, compared highest first, forms the hand;
  two hands of equal length compare their flush cards highest first (HCF ch.6 §D).
* The Straight Flush Bonus and Progressive hands are runs of consecutive ranks
  in one suit (HCF ch.6 §E); the ace plays high (Q-K-A) or low (A-2-3), never
  around the corner (K-A-2), and the length is that of the longest run
  (RULINGS R17).  Progressive paytables D and E also pay the suited
  9-10-J-Q-K-A (R18); Straight Flush Bonus paytable G also pays four of a kind
  (R19).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from games.cards import ACE, NINE, SUIT_CHARS, Card, card_texts
from games.facts import DealingFacts, KeptAlive, TableClauses
from games.game import Game, Street
from games.paytables import high_card_flush as paytables
from games.procedure import PaymentPass, Reveal
from games.round import Round, RoundError, Seat, SeatSettlement, Settlement, WagerResult
from games.settlement import (
    by_paytable,
    compare,
    lose,
    push,
    settlement_order,
    versus,
    win,
)

RAISE_MULTIPLES = (1, 2, 3)
SIDE_WAGERS = ("flush_bonus", "straight_flush_bonus", "progressive")
SUITED_NINE_TO_ACE = "suited_nine_ten_jack_queen_king_ace"
FOUR_OF_A_KIND = "four_of_a_kind"
_NINE_TO_ACE = frozenset(range(NINE, ACE + 1))


# -- the High Card Flush hand (HCF ch.6 §C-§D, RULINGS R14) ---------------------------------------


@dataclass(frozen=True)
class FlushHand:
    """A player's or the dealer's High Card Flush hand: the flush cards, best first.

    ``value`` orders hands: the flush length first, then the ranks of the flush
    cards highest first (HCF ch.6 §D(1): the hand holding the highest card the other
    does not hold is higher; for two sets of equal size that is the same as
    comparing highest first).  Equal values tie (HCF ch.6 §D(2)); suits never rank
    (HCF ch.6 §B).
    """

    value: int
    cards: tuple[Card, ...]

    @property
    def length(self) -> int:
        return len(self.cards)

    @property
    def name(self) -> str:
        return f"flush_{len(self.cards)}"  # settle contract: flush_7 .. flush_2

    @property
    def high(self) -> int:
        """The rank of the highest card of the flush."""
        return self.cards[0].rank

    @property
    def ranks(self) -> tuple[int, ...]:
        return tuple(c.rank for c in self.cards)


def _flush_value(ranks: Sequence[int]) -> int:
    # length, then up to seven ranks of 4 bits each; equal lengths have equally many ranks,
    # so the padding never decides.
    value = len(ranks)
    for r in ranks[:7]:
        value = (value << 4) | r
    return value << 4 * max(0, 7 - len(ranks))


def flush_hand(cards: Sequence[Card]) -> FlushHand:
    """The highest High Card Flush hand of ``cards`` (HCF ch.6 §C-§D, HCF ch.11 §B(5)(b), RULINGS R14).

    Seven cards always hold at least two of one suit, so the hand is at least a
    two-card flush.  When two suits are equal in length *and* in every rank the
    hands are the same in value; the suit first in ``c d h s`` is shown.
    """
    by_suit: dict[str, list[Card]] = {s: [] for s in SUIT_CHARS}
    for c in sorted(cards, key=_rank, reverse=True):  # each suit's cards highest first
        by_suit[c.suit].append(c)
    best: tuple[int, list[int]] | None = None
    best_cards: list[Card] = []
    for suited in by_suit.values():
        key = (len(suited), [c.rank for c in suited])
        if best is None or key > best:
            best, best_cards = key, suited
    if len(best_cards) < 2:
        raise ValueError(f"no two cards of one suit among {card_texts(cards)}: not a High Card Flush hand")
    assert best is not None
    return FlushHand(_flush_value(best[1]), tuple(best_cards))


def _rank(card: Card) -> int:
    return card.rank


def dealer_qualifies(dealer: FlushHand) -> bool:
    """At least a three-card flush nine high, or any flush of four or more (HCF ch.11 §B(5)(c)-(d), RULINGS R15)."""
    return dealer.length >= 4 or (dealer.length == 3 and dealer.high >= NINE)


def max_raise(flush_length: int) -> int:
    """The largest Raise, in Antes, the player's own longest flush allows (HCF ch.11 §B(1)-(3), RULINGS R16)."""
    if flush_length >= 6:
        return 3
    if flush_length == 5:
        return 2
    return 1


# -- straight flushes (HCF ch.6 §E, RULINGS R17-R19) -----------------------------------------------


@dataclass(frozen=True)
class StraightFlushRun:
    """The longest run of consecutive ranks in one suit; ``cards`` highest first (an ace low last)."""

    cards: tuple[Card, ...]

    @property
    def length(self) -> int:
        return len(self.cards)


def straight_flush_run(cards: Sequence[Card]) -> StraightFlushRun:
    """The longest straight flush run among ``cards`` (RULINGS R17).

    The ace counts as rank 1 as well as 14, so Q-K-A and A-2-3 are runs; ranks
    1 and 14 are not adjacent, so K-A-2 is not.  Of two runs of equal length the
    one with the higher top card is shown (the length alone is what pays).
    """
    masks = dict.fromkeys(SUIT_CHARS, 0)  # bit r: rank r of that suit held; the ace at 14 and 1
    for c in cards:
        masks[c.suit] |= 1 << c.rank | (2 if c.rank == ACE else 0)
    best: tuple[int, int, str] = (0, 0, "")  # (length, top rank, suit)
    for suit, mask in masks.items():
        # After k - 1 steps of ``m &= m >> 1`` bit r is set where ranks r .. r + k - 1 are all held:
        # the last step before none is left gives the longest run, its highest start the highest top.
        run, m = 0, mask
        while m:
            run += 1
            start = m.bit_length() - 1
            m &= m >> 1
        if run and (run, start + run - 1) > best[:2]:
            best = (run, start + run - 1, suit)
    length, top, suit = best
    by_rank = {c.rank: c for c in cards if c.suit == suit}
    return StraightFlushRun(tuple(by_rank[r if r != 1 else ACE] for r in range(top, top - length, -1)))


def has_suited_nine_to_ace(cards: Sequence[Card]) -> bool:
    """9-10-J-Q-K-A of one suit among the cards (progressive D and E, RULINGS R18)."""
    return any(_NINE_TO_ACE <= {c.rank for c in cards if c.suit == s} for s in SUIT_CHARS)


def has_four_of_a_kind(cards: Sequence[Card]) -> bool:
    """Four cards of one rank among the seven (Straight Flush Bonus G, RULINGS R19)."""
    ranks = [c.rank for c in cards]
    return any(ranks.count(r) >= 4 for r in set(ranks))


def lines_made(cards: Sequence[Card]) -> dict[str, frozenset[str]]:
    """The paytable line keys the seven cards make, for each wager paid by a table.

    A longer flush or run makes every shorter one too: HCF ch.6 §C and §E define
    each length only by "cards of the same suit (in consecutive rank)", and a
    six-card flush or a five-card run contains such hands of every shorter
    length; the wagers are on "a four-card flush or higher" / "a three-card
    straight flush or higher" (HCF ch.7 §F(2)-(4)).  Paying stays right because
    RULINGS R5 pays only the highest line made, and ``Paytable.line_for`` walks
    the table in its printed order, highest first: the line of the longest run
    is paid whenever the table prints it (a five-card run on Progressive B pays
    the $900 five-card line, not the $50 four-card one), and a table that
    printed no line for that length would pay the next lower line it prints
    rather than nothing.  The suited 9-A sits above the six-card line in
    Progressive D and E (R18), and four of a kind between the four- and
    three-card lines of Straight Flush Bonus G (R19), as printed.

    Keys: ``flush_bonus``, ``straight_flush_bonus``, ``progressive``, ``envy``.
    """
    flush = flush_hand(cards).length
    run = straight_flush_run(cards).length
    flushes = frozenset(f"flush_{k}" for k in range(4, flush + 1))  # HCF ch.7 §F(2): four-card or higher
    straights = {f"straight_flush_{k}" for k in range(3, run + 1)}  # HCF ch.7 §F(3)-(4): three-card or higher
    if has_suited_nine_to_ace(cards):
        straights.add(SUITED_NINE_TO_ACE)
    bonus = set(straights)
    if has_four_of_a_kind(cards):
        bonus.add(FOUR_OF_A_KIND)
    return {
        "flush_bonus": flushes,
        "straight_flush_bonus": frozenset(bonus),
        "progressive": frozenset(straights),
        "envy": frozenset(straights),  # HCF ch.12 §E(5): the Envy tables list straight flushes only
    }


# -- the game ---------------------------------------------------------------------------------


class HighCardFlush(Game):
    name = "high_card_flush"
    short = "HCF"
    title = "High Card Flush"
    # the wagers as HCF ch.7 and HCF ch.12 name them (the one decision is the Raise, HCF ch.11 §B)
    words = {
        "ante": "Ante", "raise": "Raise", "flush_bonus": "Flush Bonus", "straight_flush_bonus": "Straight Flush Bonus",
        "progressive": "Progressive", "envy": "Envy Bonus", "meter": "Progressive meter",
    }
    hole_cards = 7
    dealer_cards = 7
    community_cards = 0
    wagers = ("ante", "flush_bonus", "straight_flush_bonus", "progressive")
    antes = ("ante",)
    decision_ruling = "RULINGS R16"
    decision_wagers = ("raise",)
    decision_keys = ("raise", "fold")
    paytable_of = {
        "flush_bonus": "flush_bonus",
        "straight_flush_bonus": "straight_flush_bonus",
        "progressive": "progressive",
    }
    # RULINGS R6 and HCF ch.12 §D: every wager is covered but the Progressive and the Envy Bonus.
    not_covered = frozenset({"progressive", "envy"})
    has_envy = True
    # HCF ch.11 §B: one decision, after the player has seen all seven cards: Raise or fold.
    streets = (Street("raise", 0, RAISE_MULTIPLES, may_check=False, may_fold=True, clause="HCF ch.11 §B"),)

    # -- the rest of the rules (games.facts) ----------------------------------------------
    meters = paytables.METERS
    meter_minimums = paytables.METER_MINIMUMS
    envy_letter_is_progressive_letter = True  # RULINGS R18a
    # No community cards; one decision (HCF ch.11 §B).  HCF has no option of leaving the dealer's
    # cards in the shuffler: HCF ch.10 §B(2) delivers them in the deal (HCF ch.11 §B(4)(b) only says how
    # they are exposed; P27).
    dealing = DealingFacts(
        community=(),
        schedule=((), ()),
        dealer_clause="HCF ch.10 §B(2)",
        seats_clause="HCF ch.10 §B(1)",
    )
    # HCF ch.11 §B(5) the Ante and Raise; §B(6)-(8) then the Flush and Straight Flush Bonus; §B(9) the
    # Progressive and its Envy Bonus.
    payment_passes = (
        PaymentPass(("ante", "raise", "flush_bonus", "straight_flush_bonus", "progressive", "envy"),
                    "HCF ch.11 §B(5)-(9)"),
    )
    reveals = (
        Reveal("dealer", ("dealer",), "HCF ch.11 §B(4)(b)"),
    )
    irregularities = {
        "face_up": "HCF ch.13 §B",
        "wrong_number_of_cards": "HCF ch.13 §D",
        "dealer_card_exposed": "HCF ch.13 §E-§F",
        "shuffle_failed": "HCF ch.13 §G",
        "deal_failed": "HCF ch.13 §H",
        "in_service": "HCF ch.13 §I",
        "out_of_order": "HCF ch.13 §I",
        "stub_count": "HCF ch.8 §G-§J, HCF ch.10 §C-§E",
        "player_left": "HCF ch.7 §C(2)",
    }
    kept_alive = {
        "dealer_card_exposed": KeptAlive("HCF ch.13 §F", frozenset({"flush_bonus", "straight_flush_bonus",
                                                                    "progressive"})),
    }
    # HCF ch.8 §C(2)(a): the Progressive chips go to the rack before the deal;
    # HCF ch.11 §B(4)(a): the forfeited Antes are collected before the dealer's cards are revealed.
    collected_at_no_more_bets = {"progressive": "HCF ch.8 §C(2)(a)"}
    collected_at_fold = "HCF ch.11 §B(4)(a)"
    # HCF ch.5 letters the count of the deck §C, the cut §E, the recut §F; HCF ch.8 §C numbers the lock-out (1)
    # and the count of the progressive chips (2)(b).
    clauses = TableClauses(
        ante="HCF ch.7 §F(1)",
        wagers="HCF ch.7 §F",
        even_money="HCF ch.12 §A",
        payout_limit="HCF ch.12 §D",
        progressive_system="HCF ch.2 §C",
        adjacent_boxes="HCF ch.7 §G, RULINGS R1",
        dealer_hand="HCF ch.7 §F(1)",
        progressive_validation="HCF ch.11 §B(9)(c)",
        idle="HCF ch.5 §G",
        opening="HCF ch.4", inspection="HCF ch.4 §A", spread="HCF ch.4 §B-§C", turned_down="HCF ch.4 §C",
        preinspected="HCF ch.4 §F", one_deck="HCF ch.3 §A", two_decks="HCF ch.3 §B", deck_change="HCF ch.3 §C",
        deck_change_by_hand="HCF ch.3 §C(1)", deck_change_from_shoe="HCF ch.3 §C(2)", shuffle="HCF ch.5 §A",
        shuffle_after_round="HCF ch.5 §A(2)", deck_count="HCF ch.5 §C", cut="HCF ch.5 §E", recut="HCF ch.5 §F",
        progressive_needs_ante="HCF ch.7 §F(4)(a)", no_more_bets="HCF ch.8 §C",
        lockout="HCF ch.8 §C(1)", progressive_count="HCF ch.8 §C(2)(b)", draw="HCF ch.8 §D",
        found_face_up="HCF ch.13 §A", hand_needs_shuffler="HCF ch.9 §A(1)", completion="HCF ch.11",
        paytables="HCF ch.12", seats="HCF ch.2 §A", stacks="HCF ch.10 §B",
        irregularity_chapter="HCF ch.13",
        procedure={"manual_shoe": "HCF ch.8", "hand": "HCF ch.9", "automated_shoe": "HCF ch.10",
                   "shuffler": "HCF ch.10"},
        idle_clears_shoe="HCF ch.5 §G(1)",
        stub_count={"manual_shoe": "HCF ch.8 §G", "hand": "HCF ch.9 §C(1)", "automated_shoe": "HCF ch.10 §C",
                    "shuffler": "HCF ch.10 §C"},
    )

    def legal_multiples(self, street: Street, cards: Sequence[Card]) -> tuple[int, ...]:
        """R16: the Raise allowed by the player's own longest flush."""
        allowed = max_raise(flush_hand(cards).length)
        return tuple(m for m in street.multiples if m <= allowed)

    def validate(self, round: Round) -> None:
        """Nothing beyond the contract's checks: HCF has one Ante and no companion wager (HCF ch.7 §F).

        The Progressive unit (R3), the paytable letters and the Envy table letter
        (R18a) are checked by ``games.contract``; the Raise by ``decision_legal``.
        """

    def decision_legal(self, seat: Seat, round: Round) -> None:
        if seat.decision.fold:
            return
        multiple = seat.decision.multiples[0]
        flush = flush_hand(seat.cards).length
        allowed = max_raise(flush)
        if multiple > allowed:
            limit = "exactly 1×" if allowed == 1 else f"1× to {allowed}×"
            raise RoundError(
                f"seats[{seat.index}].raise",
                f"the player's longest flush is {flush} cards, which allows a Raise of {limit} the Ante, "
                f"not {multiple}× (HCF ch.11 §B(1)-(3), RULINGS R16)",
            )

    def settle(self, round: Round) -> Settlement:
        dealer = flush_hand(round.dealer)
        qualifies = dealer_qualifies(dealer)
        meters = self.open_meters(round)

        seats: list[SeatSettlement] = []
        made_by_seat: dict[int, dict[str, frozenset[str]]] = {}
        # HCF ch.11 §B(5): counterclockwise from the dealer's right (R1); each seat's Ante and Raise,
        # then its side wagers (§B(6)-(9)), so a Progressive is paid at the meter when its turn comes (R4).
        for seat in settlement_order(round.seats):
            hand = flush_hand(seat.cards)
            made = lines_made(seat.cards)
            made_by_seat[seat.seat] = made
            w = seat.wagers
            ante = w["ante"]
            results: dict[str, WagerResult] = {}
            if seat.decision.fold:
                # HCF ch.11 §B: a player who does not raise forfeits the Ante (R7); no Raise was made.
                results["ante"] = lose(ante)
            else:
                raised = self.decision_amounts(seat)["raise"]
                if not qualifies:
                    # HCF ch.11 §B(5)(c): the Ante is paid 1 to 1 (HCF ch.12 §A) and the Raise returned.
                    results["ante"] = win(ante, ante)
                    results["raise"] = push(raised)
                else:
                    # HCF ch.11 §B(5)(d)(i)-(iii), HCF ch.12 §A: higher wins 1 to 1, lower loses, equal pushes.
                    c = compare(hand.value, dealer.value)
                    results["ante"] = versus(ante, c)
                    results["raise"] = versus(raised, c)
            # HCF ch.11 §B(6)-(8), R7: side wagers on the player's seven cards, folded or not.
            for side in ("flush_bonus", "straight_flush_bonus"):
                if side in w:
                    results[side] = by_paytable(w[side], self.table(round, side), made[side])
            self.settle_progressive(round, meters, seat, made["progressive"], results)  # HCF ch.11 §B(9)(d)
            seats.append(self.seat_result(seat, {"hand": hand.name, "cards": card_texts(hand.cards)}, results))

        return self.finish(
            round,
            seats,
            meters,
            envy_made={n: made["envy"] for n, made in made_by_seat.items()},
            dealer={"hand": dealer.name, "cards": card_texts(dealer.cards), "qualifies": qualifies},
        )


GAME = HighCardFlush()
