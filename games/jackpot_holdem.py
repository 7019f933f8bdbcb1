"""Jackpot Hold 'Em (MLGCA v1.0), "JHE".

Each player makes an Ante and an equal X-tra Bonus (JHE ch.7 §F(1)), and may add
a Player Bonus (§F(2)) and a Progressive Payout Wager (§F(3)).  Each player
and the dealer receive two cards; five community cards are shared (JHE ch.8 §D,
JHE ch.10 §B).  The Play wager (R9: the "Player Wager" of JHE ch.7 §F(1)) is 3× the
Ante with one community card shown (JHE ch.11 §B, §C(1)), 2× with three (§E(1)),
1× with five, or the player folds (§G) -- RULINGS R11.

Settlement (JHE ch.11 §I, JHE ch.12 §A-§B, RULINGS R12): the dealer qualifies with a
pair or better.  When it does not, the Ante is returned and the X-tra Bonus
and Play are settled by comparing hands; when it does, all three are settled
by the comparison.  A winning X-tra Bonus pays by its paytable, and a winning
hand below a straight pushes it.  Player Bonus (JHE ch.11 §J, JHE ch.12 §C) is paid
on the player's best five of seven, Progressive (JHE ch.11 §K, JHE ch.12 §D) on the
best five of the two cards and the first three community cards revealed
(RULINGS R24a), whatever the dealer holds, also for a folded player (JHE ch.11
§G(3)-(4), R7).
There is no Envy Bonus in JHE.
"""

from __future__ import annotations

from games.cards import card_texts
from games.facts import DealingFacts, KeptAlive, TableClauses
from games.game import Game, Street, require_equal
from games.holdem import against_dealer, dealer_qualifies, flop_hand
from games.paytables import jackpot_holdem as paytables
from games.poker import ROYAL_FLUSH, PokerHand, best_hand, lines_made
from games.procedure import PaymentPass, Reveal
from games.round import Round, SeatSettlement, Settlement, WagerResult
from games.settlement import (
    by_paytable,
    settlement_order,
)


def jackpot_lines_made(hand: PokerHand) -> frozenset[str]:
    """Every paytable line key a JHE hand makes.

    Beside ``games.poker.lines_made`` the Progressive paytables split the
    royal flush by suit (JHE ch.12 §D(2)-(6)(a)-(b), RULINGS R13): diamonds, or
    spades, hearts or clubs.  The royal's suit is that of its five cards
    (seven cards cannot hold two royal flushes).
    """
    made = set(lines_made(hand))
    if hand.category == ROYAL_FLUSH:
        suit = hand.cards[0].suit
        made.add("royal_flush_diamonds" if suit == "d" else "royal_flush_spades_hearts_or_clubs")
    return frozenset(made)


class JackpotHoldem(Game):
    name = "jackpot_holdem"
    short = "JHE"
    title = "Jackpot Hold 'Em"
    # the wagers as JHE ch.7 and JHE ch.12 name them; the decisions by the community cards shown (RULINGS R11)
    words = {
        "ante": "Ante", "xtra_bonus": "X-tra Bonus", "player_bonus": "Player Bonus", "play": "Play",
        "progressive": "Progressive",
        "one_card_shown": "One community card shown", "three_cards_shown": "Three community cards shown",
        "five_cards_shown": "Five community cards shown",
        "star": "Star meter", "spade": "Spade meter", "heart": "Heart meter", "diamond": "Diamond meter",
        "club": "Club meter",
    }
    hole_cards = 2
    dealer_cards = 2
    community_cards = 5
    wagers = ("ante", "xtra_bonus", "player_bonus", "progressive")
    antes = ("ante", "xtra_bonus")
    decision_ruling = "RULINGS R11"
    decision_wagers = ("play",)
    decision_keys = ("play", "fold")
    paytable_of = {
        "xtra_bonus": "xtra_bonus",
        "player_bonus": "player_bonus",
        "progressive": "progressive",
    }
    # JHE ch.12 §F(2), R6: every JHE wager is capped except the Progressive (the default).
    has_envy = False
    # R11: the first community card is shown before the first decision (JHE ch.11 §B).
    streets = (
        Street("one_card_shown", 1, (3,), may_check=True, may_fold=False, clause="JHE ch.11 §C(1)"),
        Street("three_cards_shown", 3, (2,), may_check=True, may_fold=False, clause="JHE ch.11 §E(1)"),
        Street("five_cards_shown", 5, (1,), may_check=False, may_fold=True, clause="JHE ch.11 §G"),
    )

    # -- the rest of the rules (games.facts) ----------------------------------------------
    meters = paytables.METERS
    meter_minimums = paytables.METER_MINIMUMS
    dealing = DealingFacts(
        community=(0, 1, 2, 3, 4),
        schedule=((0,), (1, 2), (3, 4), ()),  # JHE ch.11 §B (R11), §D, §F; §H
        dealer_stack_first=True,
        dealer_may_stay=True,
        community_clause="JHE ch.10 §B(1)",
        dealer_clause="JHE ch.10 §B(2)",
        held_clause="JHE ch.10 §B(3)",
        seats_clause="JHE ch.10 §B(2)",
    )
    # JHE ch.11 §I the Ante, X-tra Bonus and Play; §J then the Player Bonus; §K then the Progressive.
    payment_passes = (
        PaymentPass(("ante", "xtra_bonus", "play", "player_bonus", "progressive"), "JHE ch.11 §I-§K"),
    )
    # RULINGS R11: one community card before the first decision, then two, then the final two.
    reveals = (
        Reveal("first_community_card", ("community:0",), "JHE ch.11 §B"),
        Reveal("next_two_community_cards", ("community:1", "community:2"), "JHE ch.11 §D"),
        Reveal("final_two_community_cards", ("community:3", "community:4"), "JHE ch.11 §F"),
        Reveal("dealer", ("dealer",), "JHE ch.11 §H(1)"),
    )
    irregularities = {
        "face_up": "JHE ch.13 §B",
        "exposed_after_initial": "JHE ch.13 §C",  # RULINGS R10
        "wrong_number_of_cards": "JHE ch.13 §E",
        "dealer_card_exposed": "JHE ch.13 §F-§G",
        "shuffle_failed": "JHE ch.13 §H",
        "deal_failed": "JHE ch.13 §I",
        "in_service": "JHE ch.13 §J",
        "out_of_order": "JHE ch.13 §J",
        "stub_count": "JHE ch.8 §E-§G",
        "player_left": "JHE ch.7 §C(2)",
    }
    # RULINGS R10: the "Same Suit Wager" of JHE ch.13 is the Player Bonus.
    kept_alive = {
        "exposed_after_initial": KeptAlive("JHE ch.13 §C", frozenset({"player_bonus"})),
        "dealer_card_exposed": KeptAlive("JHE ch.13 §G", frozenset({"player_bonus"})),
    }
    # JHE ch.8 §C(3): the Progressive chips go to the rack before the deal;
    # JHE ch.11 §G(2): a fold's Ante and X-tra Bonus are collected at once.
    collected_at_no_more_bets = {"progressive": "JHE ch.8 §C(3)"}
    collected_at_fold = "JHE ch.11 §G(2)"
    clauses = TableClauses(
        ante="JHE ch.7 §F(1)",
        wagers="JHE ch.7 §F",
        even_money="JHE ch.12 §A",
        payout_limit="JHE ch.12 §F(1)",
        progressive_system="JHE ch.2 §C",
        adjacent_boxes="JHE ch.7 §G, RULINGS R1",
        dealer_hand="JHE ch.7 §F(1)",
        progressive_validation="JHE ch.11 §K(2)(c)",
        idle="JHE ch.5 §H",
        opening="JHE ch.4", inspection="JHE ch.4 §A", spread="JHE ch.4 §B-§C", turned_down="JHE ch.4 §C",
        preinspected="JHE ch.4 §F", one_deck="JHE ch.3 §A(1)", two_decks="JHE ch.3 §B", deck_change="JHE ch.3 §C",
        deck_change_by_hand="JHE ch.3 §C(1)", deck_change_from_shoe="JHE ch.3 §C(2)", shuffle="JHE ch.5 §A",
        shuffle_after_round="JHE ch.5 §A(2)", deck_count="JHE ch.5 §E", cut="JHE ch.5 §F", recut="JHE ch.5 §G",
        progressive_needs_ante="JHE ch.7 §F(3)(a)", no_more_bets="JHE ch.8 §C",
        lockout="JHE ch.8 §C(2)", progressive_count="JHE ch.8 §C(3)", draw="JHE ch.8 §D",
        found_face_up="JHE ch.13 §A", hand_needs_shuffler="JHE ch.9 §A(1)", completion="JHE ch.11",
        paytables="JHE ch.12", seats="JHE ch.2 §A", stacks="JHE ch.10 §B",
        irregularity_chapter="JHE ch.13",
        procedure={"manual_shoe": "JHE ch.8", "hand": "JHE ch.9", "automated_shoe": "JHE ch.10",
                   "shuffler": "JHE ch.10"},
        stub_count={"manual_shoe": "JHE ch.8 §E", "hand": "JHE ch.9 §C", "automated_shoe": "JHE ch.10 §C",
                    "shuffler": "JHE ch.10 §C"},
    )

    def validate(self, round: Round) -> None:
        for seat in round.seats:
            require_equal(seat, "xtra_bonus", "ante", "JHE ch.7 §F(1): Ante and X-tra Bonus in equal amounts")

    def settle(self, round: Round) -> Settlement:
        community = list(round.community)
        dealer = best_hand(list(round.dealer) + community)
        meters = self.open_meters(round)

        seats: list[SeatSettlement] = []
        for seat in settlement_order(round.seats):  # JHE ch.11 §I(1)-(2): from the dealer's right (R1)
            # The player's two cards and the five community cards (JHE ch.11 §I(2)(b)); listed first so
            # that the player's own cards are shown where two could serve.
            hand = best_hand(list(seat.cards) + community)
            made = jackpot_lines_made(hand)
            w = seat.wagers
            results: dict[str, WagerResult] = {}
            # JHE ch.11 §G(2) a fold; §I the Ante, X-tra Bonus and Play against the dealer (R12, games.holdem).
            against_dealer(
                results,
                seat,
                self.decision_amounts(seat),
                "xtra_bonus",
                self.table(round, "xtra_bonus"),
                hand,
                made,
                dealer,
            )
            if "player_bonus" in w:
                # JHE ch.11 §J(2): paid whatever the dealer holds; JHE ch.11 §G(3)(a): also for a folded player (R7).
                results["player_bonus"] = by_paytable(w["player_bonus"], self.table(round, "player_bonus"), made)
            # JHE ch.11 §K, JHE ch.12 §E(11); §G(4)(a): folded too.  R24a: on the two cards and the first
            # three community cards revealed (JHE ch.11 §B, §D), the diamond royal (R13) read on those five.
            self.settle_progressive(round, meters, seat, jackpot_lines_made(flop_hand(seat.cards, community)), results)
            seats.append(self.seat_result(seat, {"hand": hand.name, "cards": card_texts(hand.cards)}, results))

        dealer_shown = {"hand": dealer.name, "cards": card_texts(dealer.cards), "qualifies": dealer_qualifies(dealer)}
        return self.finish(round, seats, meters, dealer=dealer_shown)  # JHE ch.12 §F, R6: the payout limit


GAME = JackpotHoldem()
