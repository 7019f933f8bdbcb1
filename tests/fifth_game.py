"""A fifth game that exists only in the tests: One Card High ("OCH"), to show that a game is one module.

It is made up (no regulator prints it), so its clauses cite its own made-up chapters, numbered as the
four real games number theirs.  Each player makes an Ante (OCH ch.7 §F(1)) and receives one card; the
dealer receives one, face down.  Having seen the card, the player makes a Play wager equal to the
Ante or folds, losing the Ante (OCH ch.11 §B).  The dealer's card is then turned up (§C) and each
Ante and Play is settled against it, 1 to 1 (OCH ch.12 §A): the higher rank wins, aces high, and
equal ranks push (§D).  No side wager, no paytable, no Progressive.

Built from the games' building blocks (``games.game.Game``, ``games.facts``, ``games.procedure``,
``games.settlement``) and registered in ``games.registry`` only for the test that plays it
(``registered``): tests/test_fifth_game.py, docs/new-game.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from games.cards import card_texts
from games.facts import DealingFacts, TableClauses
from games.game import Game, Street
from games.procedure import PaymentPass, Reveal
from games.registry import BY_SHORT, GAMES
from games.round import Round, SeatSettlement, Settlement, WagerResult
from games.settlement import compare, lose, settlement_order, versus


class OneCardHigh(Game):
    name = "one_card_high"
    short = "OCH"
    title = "One Card High"
    words = {"ante": "Ante", "play": "Play"}  # its own codes in words (web/words.py)
    hole_cards = 1
    dealer_cards = 1
    community_cards = 0
    wagers = ("ante",)
    antes = ("ante",)
    decision_wagers = ("play",)
    decision_keys = ("play", "fold")
    paytable_of = {}
    # OCH ch.11 §B: one decision, the card seen: a Play equal to the Ante, or fold.
    streets = (Street("play", 0, (1,), may_check=False, may_fold=True, clause="OCH ch.11 §B"),)

    meters = ()
    meter_minimums = {}
    # No community cards; the dealer's card comes in the deal (OCH ch.10 §B(2)), turned up at §C.
    dealing = DealingFacts(community=(), schedule=((), ()), dealer_clause="OCH ch.10 §B(2)",
                           seats_clause="OCH ch.10 §B(1)")
    payment_passes = (PaymentPass(("ante", "play"), "OCH ch.11 §D"),)
    reveals = (Reveal("dealer", ("dealer",), "OCH ch.11 §C"),)
    irregularities = {
        "face_up": "OCH ch.13 §B",
        "wrong_number_of_cards": "OCH ch.13 §D",
        "dealer_card_exposed": "OCH ch.13 §E",
        "shuffle_failed": "OCH ch.13 §G",
        "deal_failed": "OCH ch.13 §H",
        "in_service": "OCH ch.13 §I",
        "out_of_order": "OCH ch.13 §I",
        "stub_count": "OCH ch.8 §G, OCH ch.10 §C",
        "player_left": "OCH ch.7 §C(2)",
    }
    clauses = TableClauses(
        ante="OCH ch.7 §F(1)", wagers="OCH ch.7 §F", even_money="OCH ch.12 §A", payout_limit="OCH ch.12 §B",
        progressive_system="OCH ch.2 §C", adjacent_boxes="OCH ch.7 §G, RULINGS R1", dealer_hand="OCH ch.7 §F(1)",
        progressive_validation="OCH ch.11 §E", idle="OCH ch.5 §G",
        opening="OCH ch.4", inspection="OCH ch.4 §A", spread="OCH ch.4 §B-§C", turned_down="OCH ch.4 §C",
        preinspected="OCH ch.4 §F", one_deck="OCH ch.3 §A", two_decks="OCH ch.3 §B", deck_change="OCH ch.3 §C",
        deck_change_by_hand="OCH ch.3 §C(1)", deck_change_from_shoe="OCH ch.3 §C(2)", shuffle="OCH ch.5 §A",
        shuffle_after_round="OCH ch.5 §A(2)", deck_count="OCH ch.5 §C", cut="OCH ch.5 §E", recut="OCH ch.5 §F",
        progressive_needs_ante="OCH ch.7 §F(2)", no_more_bets="OCH ch.8 §C", lockout="OCH ch.8 §C(1)",
        progressive_count="OCH ch.8 §C(2)", draw="OCH ch.8 §D", found_face_up="OCH ch.13 §A",
        hand_needs_shuffler="OCH ch.9 §A(1)", completion="OCH ch.11", paytables="OCH ch.12",
        seats="OCH ch.2 §A", stacks="OCH ch.10 §B", irregularity_chapter="OCH ch.13",
        procedure={"manual_shoe": "OCH ch.8", "hand": "OCH ch.9", "automated_shoe": "OCH ch.10",
                   "shuffler": "OCH ch.10"},
        stub_count={"manual_shoe": "OCH ch.8 §G", "hand": "OCH ch.9 §C", "automated_shoe": "OCH ch.10 §C",
                    "shuffler": "OCH ch.10 §C"},
    )

    def validate(self, round: Round) -> None:
        """One Ante and no companion wager (OCH ch.7 §F): nothing beyond the contract's checks."""

    def settle(self, round: Round) -> Settlement:
        (dealer,) = round.dealer
        seats: list[SeatSettlement] = []
        for seat in settlement_order(round.seats):  # OCH ch.11 §D: from the dealer's right (R1)
            (card,) = seat.cards
            ante = seat.wagers["ante"]
            results: dict[str, WagerResult] = {}
            if seat.decision.fold:
                results["ante"] = lose(ante)  # OCH ch.11 §B: a fold loses the Ante
            else:
                c = compare(card.rank, dealer.rank)  # OCH ch.11 §D: aces high, equal ranks push
                results["ante"] = versus(ante, c)
                results["play"] = versus(self.decision_amounts(seat)["play"], c)
            seats.append(self.seat_result(seat, {"hand": "high_card", "cards": card_texts(seat.cards)}, results))
        return self.finish(round, seats, None, dealer={"hand": "high_card", "cards": card_texts(round.dealer)})


GAME = OneCardHigh()


@contextmanager
def registered() -> Iterator[OneCardHigh]:
    """One Card High in ``games.registry`` (by name and by short name) while the block runs, then gone:
    no other test sees a fifth game."""
    GAMES[GAME.name] = GAME
    BY_SHORT[GAME.short] = GAME
    try:
        yield GAME
    finally:
        del GAMES[GAME.name], BY_SHORT[GAME.short]
