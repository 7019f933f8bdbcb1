"""Run 'Em Twice Poker (MLGCA v1.0), "RET".

A player competes only against the posted paytable (RET ch.7 §E(1)): two equal
Antes, then up to three bets of one to three times an Ante -- the 1st Run
wager (RET ch.11 §B), the 2nd Run wager (§D) and the Center wager (§F) -- or a
fold at any of those decisions (RULINGS R26).  There is no dealer hand.  The
five community cards lie in a cross (RET ch.8 §D(2), RULINGS R25): the 1st Run
hand is the player's two cards and the horizontal line (left, center, right),
the 2nd Run hand the player's two cards and the vertical line (top, center,
bottom) (RET ch.11 §I(1)-(2)).

Optional wagers (RET ch.7 §E(2)): Five Card Bonus on the five community cards
alone, Ultimate Pairs on the player's two cards, Progressive on the 1st Run
hand, with the Envy Bonus (RET ch.12 §F-§I, RULINGS R29).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from games.cards import Card, card_texts
from games.facts import DealingFacts, TableClauses
from games.game import Game, Street, require_equal
from games.paytable import Paytable
from games.paytables import run_em_twice as paytables
from games.poker import PokerHand, best_hand, lines_made
from games.procedure import PaymentPass, Reveal
from games.round import Decision, Round, RoundError, Seat, SeatSettlement, Settlement, WagerResult
from games.settlement import (
    by_paytable,
    line_result,
    lose,
    push,
    settlement_order,
    win,
)
from games.ultimate_pairs import ultimate_pairs_made

BET_MULTIPLES = (1, 2, 3)  # RET ch.11 §B(1)(a), §D, §F: one to three times an Ante (R26)
#: the three bets in the order they are made, each with the clause that offers it
BETS = (
    ("first_run", "RET ch.11 §B(1)"),
    ("second_run", "RET ch.11 §D"),
    ("center", "RET ch.11 §F"),
)
SIDE_WAGERS = ("five_card_bonus", "ultimate_pairs", "progressive")

# Places of the cross in Round.community (games.contract reads them in community_names order).
LEFT, CENTER, RIGHT, TOP, BOTTOM = range(5)


def run_hands(player: Sequence[Card], community: Sequence[Card]) -> tuple[PokerHand, PokerHand]:
    """The 1st and 2nd Run hands (RET ch.11 §I(1)-(2), RULINGS R25).

    The player's cards come first so that the cards shown favour them where two
    cards of one rank could serve (games.poker.best_hand).
    """
    first = best_hand([*player, community[LEFT], community[CENTER], community[RIGHT]])
    second = best_hand([*player, community[TOP], community[CENTER], community[BOTTOM]])
    return first, second


class RunEmTwice(Game):
    name = "run_em_twice"
    short = "RET"
    title = "Run 'Em Twice Poker"
    # the wagers as RET ch.7 and RET ch.12 name them (two Antes, RET ch.7 §E(1)); the places of the cross (R25)
    words = {
        "ante_1": "1st Ante", "ante_2": "2nd Ante", "first_run": "1st Run", "second_run": "2nd Run",
        "center": "Center", "run": "Run", "five_card_bonus": "Five Card Bonus", "ultimate_pairs": "Ultimate Pairs",
        "progressive": "Progressive", "envy": "Envy Bonus",
        "left": "Left", "right": "Right", "top": "Top", "bottom": "Bottom",
        "meter": "Progressive meter", "mega": "Mega meter", "major": "Major meter", "minor": "Minor meter",
    }
    hole_cards = 2
    dealer_cards = 0  # no dealer hand: players play against the paytable (RET ch.7 §E(1))
    community_cards = 5
    community_names = ("left", "center", "right", "top", "bottom")  # RULINGS R25
    wagers = ("ante_1", "ante_2", "five_card_bonus", "ultimate_pairs", "progressive")
    antes = ("ante_1", "ante_2")
    decision_ruling = "RULINGS R26"
    decision_wagers = ("first_run", "second_run", "center")
    decision_keys = ("bets", "fold")
    # The Run and Center wagers share the single Run paytable (RET ch.12 §B, RULINGS R27-R28).
    paytable_of = {
        "first_run": "run",
        "second_run": "run",
        "center": "run",
        "five_card_bonus": "five_card_bonus",
        "ultimate_pairs": "ultimate_pairs",
        "progressive": "progressive",
    }
    # R6, RET ch.12 §C: everything but the Progressive wager and the Envy Bonus is capped (the default).
    has_envy = True
    # RET ch.11 §B-§G: three decisions, each 1-3x an Ante or fold; no check (R26).  The two outside
    # cards of the horizontal line are shown after the first, those of the vertical line after the second.
    streets = (
        Street("first_run", 0, BET_MULTIPLES, may_check=False, may_fold=True, clause="RET ch.11 §B(1)"),
        Street("second_run", 2, BET_MULTIPLES, may_check=False, may_fold=True, clause="RET ch.11 §D"),
        Street("center", 4, BET_MULTIPLES, may_check=False, may_fold=True, clause="RET ch.11 §F"),
    )

    # -- the rest of the rules (games.facts) ----------------------------------------------
    meters = paytables.METERS
    meter_minimums = paytables.METER_MINIMUMS
    dealing = DealingFacts(
        community=("left", "center", "right", "top", "bottom"),  # RULINGS R25
        schedule=((), ("left", "right"), ("top", "bottom"), ("center",)),  # RET ch.11 §B; §C; §E; §G
        community_first=True,
        community_clause="RET ch.10 §B(1)",
        seats_clause="RET ch.10 §B(2)",
    )
    # RET ch.11 §H: the Five Card Bonus and Ultimate Pairs of every player first (the Five Card Bonus is
    # the community cards alone; Ultimate Pairs the player's two cards, looked at, not turned over: P65);
    # §I: then each player's cards are turned over and the 1st Run, 2nd Run and Center wagers settled with
    # their Antes (RET ch.12 §A); §J: the Progressive on the 1st Run hand (R29) and its Envy Bonus with them.
    payment_passes = (
        PaymentPass(("five_card_bonus", "ultimate_pairs"), "RET ch.11 §H", shows_hand=False),
        PaymentPass(("ante_1", "first_run", "ante_2", "second_run", "center", "progressive", "envy"),
                    "RET ch.11 §I-§J"),
    )
    # The cross (RULINGS R25): the outside cards of the horizontal line, of the vertical line, the center.
    reveals = (
        Reveal("horizontal_line", ("community:left", "community:right"), "RET ch.11 §C"),
        Reveal("vertical_line", ("community:top", "community:bottom"), "RET ch.11 §E"),
        Reveal("center", ("community:center",), "RET ch.11 §G"),
    )
    irregularities = {
        "face_up": "RET ch.13 §A",  # any card face up voids every hand
        "wrong_number_of_cards": "RET ch.13 §C, §F",
        "shuffle_failed": "RET ch.13 §D",
        "deal_failed": "RET ch.13 §D",
        "in_service": "RET ch.13 §E",
        "out_of_order": "RET ch.13 §E",
        "stub_count": "RET ch.8 (stub count)",
        "skipped": "RET ch.13 §G",
        "player_left": "RET ch.7 §B(3)",
    }
    face_up_voids_at = 1  # RET ch.13 §A: the first card face up voids every hand
    # RET ch.8 §C(3): the Progressive chips go to the rack before the deal;
    # RET ch.11 §B(2), §D(1), §F(1): a fold's Antes and the Run wagers made are collected at once.
    collected_at_no_more_bets = {"progressive": "RET ch.8 §C(3)"}
    collected_at_fold = "RET ch.11 §B(2), §D(1), §F(1)"
    # RET ch.10 has no stub-count clause; its RET ch.8 §E and RET ch.9 §C set the same five rounds.  RET prints
    # no adjacent-boxes clause: its boxes are the seats (R1).  RET has no validation clause in RET ch.11:
    # read like the others, RET ch.12 §F.  RET ch.5 prints the shuffler's count of the deck under its §B.
    clauses = TableClauses(
        ante="RET ch.7 §E(1)",
        wagers="RET ch.7 §E",
        even_money="RET ch.12 §A",
        payout_limit="RET ch.12 §C",
        progressive_system="RET ch.2 §B(6)",
        adjacent_boxes="RULINGS R1",
        dealer_hand="RET ch.7 §E(1)",
        progressive_validation="RET ch.12 §F",
        idle="RET ch.5 §F",
        opening="RET ch.4", inspection="RET ch.4 §A", spread="RET ch.4 §B-§C", turned_down="RET ch.4 §C",
        preinspected="RET ch.4 §F", one_deck="RET ch.3 §A", two_decks="RET ch.3 §B", deck_change="RET ch.3 §C",
        deck_change_by_hand="RET ch.3 §C(1)", deck_change_from_shoe="RET ch.3 §C(2)", shuffle="RET ch.5 §A",
        shuffle_after_round="RET ch.5 §A(2)", deck_count="RET ch.5 §B", cut="RET ch.5 §D", recut="RET ch.5 §E",
        progressive_needs_ante="RET ch.7 §E(2)(c)", no_more_bets="RET ch.8 §C",
        lockout="RET ch.8 §C(2)", progressive_count="RET ch.8 §C(3)", draw="RET ch.8 §D",
        found_face_up="RET ch.13 §A", hand_needs_shuffler="RET ch.9 §A(1)", completion="RET ch.11",
        paytables="RET ch.12", seats="RET ch.2 §A(1)", stacks="RET ch.10 §B",
        irregularity_chapter="RET ch.13",
        procedure={"manual_shoe": "RET ch.8", "hand": "RET ch.9", "automated_shoe": "RET ch.10",
                   "shuffler": "RET ch.10"},
        idle_clears_shoe="RET ch.5 §F(1)",
        stub_count={"manual_shoe": "RET ch.8 §E", "hand": "RET ch.9 §C", "automated_shoe": "RET ch.8 §E, RET ch.9 §C",
                    "shuffler": "RET ch.8 §E, RET ch.9 §C"},
    )

    # -- input -------------------------------------------------------------------------
    def parse_decision(self, obj: Mapping[str, Any], where: str) -> Decision:
        fold = obj.get("fold", False)
        if fold is not False and fold is not True:
            raise RoundError(f"{where}.fold", "must be true or false")
        field = f"{where}.bets"
        if "bets" not in obj:
            raise RoundError(
                field,
                'missing: the decisions are "bets": [k1, k2, k3] (1st Run, 2nd Run, Center), or the bets made '
                'before a fold with "fold": true ("bets": [] folds at the first decision) '
                "(RET ch.11 §B, §D, §F, RULINGS R26)",
            )
        bets = obj["bets"]
        if not isinstance(bets, list):
            raise RoundError(field, f"must be a list of one to three multiples of an Ante, not {bets!r} (RULINGS R26)")
        if len(bets) > len(BETS):
            raise RoundError(
                field,
                f"at most three bets (1st Run, 2nd Run, Center), not {len(bets)} (RET ch.7 §E(1), RET ch.11 §B, §D, "
                    "§F)",
            )
        for i, k in enumerate(bets):
            if isinstance(k, bool) or not isinstance(k, int) or k not in BET_MULTIPLES:
                wager, clause = BETS[i]
                raise RoundError(
                    field,
                    f"bet {i + 1} ({wager.replace('_', ' ')}) must be 1, 2 or 3 times the Ante, not {k!r} "
                    f"({clause}, RULINGS R26)",
                )
        if fold and len(bets) == len(BETS):
            raise RoundError(
                field,
                "three bets were made, so there is no decision left to fold at (RET ch.11 §F-§G, RULINGS R26)",
            )
        if not fold and len(bets) < len(BETS):
            wager, clause = BETS[len(bets)]
            raise RoundError(
                field,
                f"holds {len(bets)} bet(s): at the next decision the player either places the "
                f"{wager.replace('_', ' ')} wager or folds; give it or \"fold\": true ({clause}, RULINGS R26)",
            )
        return Decision(multiples=tuple(bets), fold=fold)

    def validate(self, round: Round) -> None:
        for seat in round.seats:
            require_equal(seat, "ante_2", "ante_1", "RET ch.7 §E(1): two ante wagers of equal amounts, RULINGS R26")

    # -- settlement ----------------------------------------------------------------------
    def settle(self, round: Round) -> Settlement:
        community = list(round.community)
        run_table = self.table(round, "first_run")
        meters = self.open_meters(round)
        # RET ch.12 §D, RULINGS R29: the Five Card Bonus is the five community cards alone.
        board_made = lines_made(best_hand(community))

        seats: list[SeatSettlement] = []
        envy_made: dict[int, frozenset[str]] = {}
        for seat in settlement_order(round.seats):
            first, second = run_hands(seat.cards, community)
            # R29: the Progressive hand and the Envy Bonus Qualifying Hand are the 1st Run hand alone.
            progressive_made = envy_made[seat.seat] = lines_made(first)
            w = seat.wagers
            results: dict[str, WagerResult] = {}
            self._main(results, seat, run_table, first, second)
            # RET ch.11 §H, §B(3), §D(2), §F(2): side wagers are settled whatever the player did (R7).
            if "five_card_bonus" in w:
                results["five_card_bonus"] = by_paytable(
                    w["five_card_bonus"], self.table(round, "five_card_bonus"), board_made
                )
            if "ultimate_pairs" in w:
                # RET ch.7 §E(2)(b): the player's two cards only (R22, R29); there are no dealer cards.
                results["ultimate_pairs"] = by_paytable(
                    w["ultimate_pairs"], self.table(round, "ultimate_pairs"), ultimate_pairs_made(seat.cards)
                )
            # RET ch.12 §F(5): that hand's highest line (R5, R29).
            self.settle_progressive(round, meters, seat, progressive_made, results)
            hands = {
                "first_run": {"hand": first.name, "cards": card_texts(first.cards)},
                "second_run": {"hand": second.name, "cards": card_texts(second.cards)},
            }
            seats.append(self.seat_result(seat, hands, results))

        return self.finish(round, seats, meters, envy_made=envy_made)

    def _main(
        self,
        results: dict[str, WagerResult],
        seat: Seat,
        run_table: Paytable,
        first: PokerHand,
        second: PokerHand,
    ) -> None:
        """The Antes, Run wagers and Center wager, in the contract's output order."""
        ante_1, ante_2 = seat.wagers["ante_1"], seat.wagers["ante_2"]
        # R26: the 1st Run on the 1st Ante, the 2nd Run on the 2nd, the Center on an Ante (P22).
        amounts = list(self.decision_amounts(seat).values())
        if seat.decision.fold:
            # RET ch.11 §B(2), §D(1), §F(1): a fold loses both Antes and the Run wagers already made (R7, R26).
            results["ante_1"] = lose(ante_1)
            if len(amounts) > 0:
                results["first_run"] = lose(amounts[0])
            results["ante_2"] = lose(ante_2)
            if len(amounts) > 1:
                results["second_run"] = lose(amounts[1])
            return
        # RET ch.12 §B, RULINGS R27: each Run wager by the Run paytable (a pair of 6s to 10s pushes,
        # anything below loses); RET ch.12 §A: its Ante wins 1 to 1, pushes or loses with it.
        first_run = line_result(amounts[0], run_table.line_for(lines_made(first)))
        second_run = line_result(amounts[1], run_table.line_for(lines_made(second)))
        results["ante_1"] = _ante_follows(ante_1, first_run)
        results["first_run"] = first_run
        results["ante_2"] = _ante_follows(ante_2, second_run)
        results["second_run"] = second_run
        results["center"] = self._center(amounts[2], run_table, first, second, first_run, second_run)

    @staticmethod
    def _center(
        amount: Decimal,
        run_table: Paytable,
        first: PokerHand,
        second: PokerHand,
        first_run: WagerResult,
        second_run: WagerResult,
    ) -> WagerResult:
        """RULINGS R28, RET ch.11 §I(3)(b)-(d).

        Wins when either Run hand wins, at the Run paytable odds of the higher
        of the two hands; pushes when neither wins and at least one pushes;
        loses when both lose.
        """
        results = (first_run.result, second_run.result)
        if "win" in results:
            higher = first if first.value >= second.value else second
            return line_result(amount, run_table.line_for(lines_made(higher)))
        if "push" in results:
            return push(amount)
        return lose(amount)


def _ante_follows(ante: Decimal, run: WagerResult) -> WagerResult:
    """RET ch.12 §A, RULINGS R27: the Ante wins 1 to 1 when its Run hand wins, pushes on a push, else loses."""
    if run.result == "win":
        return win(ante, ante)
    if run.result == "push":
        return push(ante)
    return lose(ante)


GAME = RunEmTwice()
