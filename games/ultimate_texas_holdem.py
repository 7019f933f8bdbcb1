"""Ultimate Texas Hold 'Em Poker (MLGCA v1.5), "UTH".

Each player makes an Ante and an equal Blind (UTH ch.7 §F(1)), may add Trips
(§F(2)), Progressive (§F(3)), Six Card Bonus (§F(4), only with Trips, R21b),
Ultimate Pairs (§F(5)), Bad Beat (§F(6)) and Play the Board (§F(7)).  Each
player and the dealer receive two cards; five community cards are shared.  The
Play wager is 4× or 3× the Ante before the flop (UTH ch.11 §B(1)), 2× after it
(§D(1)), 1× after the river or fold (§F).  Progressive and the Envy Bonus
(UTH ch.11 §J, UTH ch.12 §D-§E) are read on the two cards and the flop (RULINGS R24a);
everything else on the best five of all seven.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from games.cards import ACE, JACK, KING, NINE, QUEEN, TEN, Card, card_texts
from games.facts import DealingFacts, KeptAlive, TableClauses
from games.game import Game, Street, require_equal
from games.holdem import against_dealer, dealer_qualifies, flop_hand
from games.paytables import ultimate_texas_holdem as paytables
from games.poker import PokerHand, best_hand, lines_made
from games.procedure import PaymentPass, Reveal
from games.round import Round, RoundError, SeatSettlement, Settlement, WagerResult
from games.settlement import (
    by_paytable,
    compare,
    lose,
    settlement_order,
)
from games.ultimate_pairs import ultimate_pairs_made

SUPER_ROYAL_RANKS = frozenset({ACE, KING, QUEEN, JACK, TEN, NINE})


def six_card_bonus_made(player: Sequence[Card], bonus_box: Sequence[Card]) -> frozenset[str]:
    """Lines of the Six Card Bonus (UTH ch.6 §F, UTH ch.7 §F(4), RULINGS R21).

    The six cards are the player's two and the four of the Six Card Bonus box;
    the super royal is A-K-Q-J-10-9 of one suit among them, every other line
    is the best five of the six.
    """
    six = list(player) + list(bonus_box)
    made = set(lines_made(best_hand(six)))
    for suit in "cdhs":
        if SUPER_ROYAL_RANKS <= {c.rank for c in six if c.suit == suit}:
            made.add("super_royal")
            made.add("super_royal_diamonds" if suit == "d" else "super_royal_hearts_spades_or_clubs")
    return frozenset(made)


class UltimateTexasHoldem(Game):
    name = "ultimate_texas_holdem"
    short = "UTH"
    title = "Ultimate Texas Hold 'Em"
    # the wagers as UTH ch.7 and UTH ch.12 name them; the decisions by when they are asked (UTH ch.11 §C-§E)
    words = {
        "ante": "Ante", "blind": "Blind", "play": "Play", "trips": "Trips", "six_card_bonus": "Six Card Bonus",
        "ultimate_pairs": "Ultimate Pairs", "bad_beat": "Bad Beat", "play_the_board": "Play the Board",
        "progressive": "Progressive", "envy": "Envy Bonus",
        "before_the_flop": "Before the flop", "after_the_flop": "After the flop",
        "after_the_river": "After the river",
        "meter": "Progressive meter", "mega": "Mega meter", "major": "Major meter", "minor": "Minor meter",
        "bonus_box": "Six Card Bonus box",
    }
    hole_cards = 2
    dealer_cards = 2
    community_cards = 5
    bonus_cards = 4
    wagers = (
        "ante",
        "blind",
        "trips",
        "six_card_bonus",
        "ultimate_pairs",
        "bad_beat",
        "play_the_board",
        "progressive",
    )
    antes = ("ante", "blind")
    decision_wagers = ("play",)
    decision_keys = ("play", "fold")
    paytable_of = {
        "blind": "blind",
        "trips": "trips",
        "six_card_bonus": "six_card_bonus",
        "ultimate_pairs": "ultimate_pairs",
        "bad_beat": "bad_beat",
        "play_the_board": "play_the_board",
        "progressive": "progressive",
    }
    # R6 and UTH ch.12 §F(2): neither Progressive, Envy nor the Six Card Bonus is capped.
    not_covered = frozenset({"progressive", "envy", "six_card_bonus"})
    has_envy = True
    streets = (
        Street("before_the_flop", 0, (4, 3), may_check=True, may_fold=False, clause="UTH ch.11 §B(1)"),
        Street("after_the_flop", 3, (2,), may_check=True, may_fold=False, clause="UTH ch.11 §D(1)"),
        Street("after_the_river", 5, (1,), may_check=False, may_fold=True, clause="UTH ch.11 §F"),
    )

    # -- the rest of the rules (games.facts) ----------------------------------------------
    meters = paytables.METERS
    meter_minimums = paytables.METER_MINIMUMS
    dealing = DealingFacts(
        community=(0, 1, 2, 3, 4),
        schedule=((), (0, 1, 2), (3, 4), ()),  # UTH ch.11 §B; the flop §C(2); the last two §E(2); §G
        community_at_streets=True,
        burn_by_hand=True,
        dealer_stack_first=True,
        dealer_may_stay=True,
        bonus_clause="UTH ch.10 §B(1)",
        community_clause="UTH ch.10 §B(2)",
        dealer_clause="UTH ch.10 §B(3)",
        held_clause="UTH ch.10 §B(4)",
        seats_clause="UTH ch.10 §B(3)",
    )
    # UTH ch.11 §H the Ante, Blind and Play; §I then Trips and the Six Card Bonus; §J then the
    # Progressive and its Envy Bonus (§J(2)(e)).  Ultimate Pairs, Bad Beat and Play the Board are not
    # named in UTH ch.11: settled with the side wagers, after the Six Card Bonus and before §J (P65).
    payment_passes = (
        PaymentPass(("ante", "blind", "play", "trips", "six_card_bonus", "ultimate_pairs", "bad_beat",
                     "play_the_board", "progressive", "envy"), "UTH ch.11 §H-§J"),
    )
    reveals = (
        Reveal("flop", ("community:0", "community:1", "community:2"), "UTH ch.11 §C(2)"),
        Reveal("turn_and_river", ("community:3", "community:4"), "UTH ch.11 §E(2)"),
        Reveal("dealer", ("dealer",), "UTH ch.11 §G(1)"),
    )
    irregularities = {
        "face_up": "UTH ch.13 §B",  # more than one card face up while dealing
        "exposed_after_initial": "UTH ch.13 §C",  # found face up after everyone had the initial cards
        "wrong_number_of_cards": "UTH ch.13 §E",
        "dealer_card_exposed": "UTH ch.13 §F-§G",
        "shuffle_failed": "UTH ch.13 §H",  # the shuffler jams or stops while shuffling: reshuffle
        "deal_failed": "UTH ch.13 §I",  # the device the cards come out of jams or fails to deal
        "in_service": "UTH ch.13 §J",
        "out_of_order": "UTH ch.13 §J",
        "stub_count": "UTH ch.8 §E-§G",
        "player_left": "UTH ch.7 §C(2)",
    }
    kept_alive = {
        "exposed_after_initial": KeptAlive("UTH ch.13 §C", frozenset({"trips"})),
        "dealer_card_exposed": KeptAlive("UTH ch.13 §G", frozenset({"trips"})),
    }
    # UTH ch.8 §C(3): the Progressive chips go to the rack before the deal;
    # UTH ch.11 §F(2): a fold's Ante and Blind are collected at once.
    collected_at_no_more_bets = {"progressive": "UTH ch.8 §C(3)"}
    collected_at_fold = "UTH ch.11 §F(2)"
    clauses = TableClauses(
        ante="UTH ch.7 §F(1)",
        wagers="UTH ch.7 §F",
        even_money="UTH ch.12 §A",
        payout_limit="UTH ch.12 §F(1)",
        progressive_system="UTH ch.2 §C",
        adjacent_boxes="UTH ch.7 §G, RULINGS R1",
        dealer_hand="UTH ch.7 §F(1)",
        progressive_validation="UTH ch.11 §J(2)(c)",
        idle="UTH ch.5 §H",
        opening="UTH ch.4", inspection="UTH ch.4 §A", spread="UTH ch.4 §B-§C", turned_down="UTH ch.4 §C",
        preinspected="UTH ch.4 §F", one_deck="UTH ch.3 §A(1)", two_decks="UTH ch.3 §B", deck_change="UTH ch.3 §C",
        deck_change_by_hand="UTH ch.3 §C(1)", deck_change_from_shoe="UTH ch.3 §C(2)", shuffle="UTH ch.5 §A",
        shuffle_after_round="UTH ch.5 §A(2)", deck_count="UTH ch.5 §E", cut="UTH ch.5 §F", recut="UTH ch.5 §G",
        progressive_needs_ante="UTH ch.7 §F(3)(a)", no_more_bets="UTH ch.8 §C",
        lockout="UTH ch.8 §C(2)", progressive_count="UTH ch.8 §C(3)", draw="UTH ch.8 §D",
        found_face_up="UTH ch.13 §A", hand_needs_shuffler="UTH ch.9 §A(1)", completion="UTH ch.11",
        paytables="UTH ch.12", seats="UTH ch.2 §A", stacks="UTH ch.10 §B",
        irregularity_chapter="UTH ch.13",
        procedure={"manual_shoe": "UTH ch.8", "hand": "UTH ch.9", "automated_shoe": "UTH ch.10",
                   "shuffler": "UTH ch.10"},
        stub_count={"manual_shoe": "UTH ch.8 §E", "hand": "UTH ch.9 §C", "automated_shoe": "UTH ch.10 §C",
                    "shuffler": "UTH ch.10 §C"},
    )

    def validate(self, round: Round) -> None:
        for seat in round.seats:
            require_equal(seat, "blind", "ante", "UTH ch.7 §F(1): Ante and Blind in equal amounts")
            if "six_card_bonus" in seat.wagers and "trips" not in seat.wagers:
                raise RoundError(
                    f"seats[{seat.index}].wagers.six_card_bonus",
                    "needs a Trips wager at the same seat (UTH ch.7 §F(4)(b), RULINGS R21b)",
                )

    def settle(self, round: Round) -> Settlement:
        community = list(round.community)
        dealer = best_hand(list(round.dealer) + community)
        meters = self.open_meters(round)
        board_made = lines_made(best_hand(community))

        seats: list[SeatSettlement] = []
        envy_made: dict[int, frozenset[str]] = {}
        for seat in settlement_order(round.seats):
            # UTH ch.11 §H: the player's two and the five community cards
            hand = best_hand(list(seat.cards) + community)
            made = lines_made(hand)
            # R24a: the Progressive Payout Hand and the Envy Bonus Qualifying Hand are the two cards and the flop.
            progressive_made = envy_made[seat.seat] = lines_made(flop_hand(seat.cards, community))
            w = seat.wagers
            results: dict[str, WagerResult] = {}
            # UTH ch.11 §F(2) a fold; §H the Ante, Blind and Play against the dealer (games.holdem).
            against_dealer(
                results, seat, self.decision_amounts(seat), "blind", self.table(round, "blind"), hand, made, dealer
            )
            # UTH ch.11 §I: side wagers on the player's final hand, whatever the outcome against the dealer (R7).
            if "trips" in w:
                results["trips"] = by_paytable(w["trips"], self.table(round, "trips"), made)
            if "six_card_bonus" in w:
                results["six_card_bonus"] = by_paytable(
                    w["six_card_bonus"],
                    self.table(round, "six_card_bonus"),
                    six_card_bonus_made(seat.cards, round.bonus_cards),
                )
            if "ultimate_pairs" in w:
                results["ultimate_pairs"] = by_paytable(
                    w["ultimate_pairs"],
                    self.table(round, "ultimate_pairs"),
                    ultimate_pairs_made(seat.cards, round.dealer),
                )
            if "bad_beat" in w:
                results["bad_beat"] = self._bad_beat(round, w["bad_beat"], hand, dealer)
            if "play_the_board" in w:
                results["play_the_board"] = by_paytable(
                    w["play_the_board"], self.table(round, "play_the_board"), board_made
                )
            self.settle_progressive(round, meters, seat, progressive_made, results)  # UTH ch.11 §J, R24a
            seats.append(self.seat_result(seat, {"hand": hand.name, "cards": card_texts(hand.cards)}, results))

        dealer_shown = {"hand": dealer.name, "cards": card_texts(dealer.cards), "qualifies": dealer_qualifies(dealer)}
        return self.finish(round, seats, meters, envy_made=envy_made, dealer=dealer_shown)

    def _bad_beat(self, round: Round, amount: Decimal, hand: PokerHand, dealer: PokerHand) -> WagerResult:
        """RULINGS R24b: paid by the losing hand's line when it is three of a kind or better."""
        c = compare(hand.value, dealer.value)
        if c == 0:
            return lose(amount)
        losing = hand if c < 0 else dealer
        return by_paytable(amount, self.table(round, "bad_beat"), lines_made(losing))


GAME = UltimateTexasHoldem()
