"""What each game's chapter 11 says about the order of the round's steps the table sees.

``PAYMENT_PASSES``: the dealer's order of payment at settlement (P65).  Every
game settles from the player farthest to the dealer's right, counterclockwise
(RULINGS R1); at each seat the wagers in the order chapter 11 names them.  Run
'Em Twice goes round twice: the Five Card Bonus and Ultimate Pairs of every
player first (RET ch.11 §H), then each player's cards are turned over and the
Run, Ante and Center wagers settled (§I).

``REVEALS``: the cards the dealer turns face up during the round, in order
(P66); the round journals each when it is face up, and ``tablectl recall
--steps`` replays them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PaymentPass:
    """One pass of the dealer around the table at settlement, from the dealer's right (RULINGS R1).

    At each seat in turn the dealer settles ``wagers`` (those the seat has), in this order;
    ``shows_hand``: the player's cards are turned face up in this pass.
    """

    wagers: tuple[str, ...]
    clause: str
    shows_hand: bool = True


@dataclass(frozen=True)
class Reveal:
    """Cards the dealer turns face up together.  ``places`` are the round's places
    (``community:0``, ``community:left``, ``dealer``)."""

    name: str
    places: tuple[str, ...]
    clause: str


PAYMENT_PASSES: dict[str, tuple[PaymentPass, ...]] = {
    # UTH ch.11 §H the Ante, Blind and Play; §I then Trips and the Six Card Bonus; §J then the
    # Progressive and its Envy Bonus (§J(2)(e)).  Ultimate Pairs, Bad Beat and Play the Board are not
    # named in ch.11: settled with the side wagers, after the Six Card Bonus and before §J (P65).
    "ultimate_texas_holdem": (
        PaymentPass(("ante", "blind", "play", "trips", "six_card_bonus", "ultimate_pairs", "bad_beat",
                     "play_the_board", "progressive", "envy"), "UTH ch.11 §H-§J"),
    ),
    # JHE ch.11 §I the Ante, X-tra Bonus and Play; §J then the Player Bonus; §K then the Progressive.
    "jackpot_holdem": (
        PaymentPass(("ante", "xtra_bonus", "play", "player_bonus", "progressive"), "JHE ch.11 §I-§K"),
    ),
    # HCF ch.11 §B(5) the Ante and Raise; §B(6)-(8) then the Flush and Straight Flush Bonus; §B(9) the
    # Progressive and its Envy Bonus.
    "high_card_flush": (
        PaymentPass(("ante", "raise", "flush_bonus", "straight_flush_bonus", "progressive", "envy"),
                    "HCF ch.11 §B(5)-(9)"),
    ),
    # RET ch.11 §H: the Five Card Bonus and Ultimate Pairs of every player first (the Five Card Bonus is
    # the community cards alone; Ultimate Pairs the player's two cards, looked at, not turned over: P65);
    # §I: then each player's cards are turned over and the 1st Run, 2nd Run and Center wagers settled with
    # their Antes (ch.12 §A); §J: the Progressive on the 1st Run hand (R29) and its Envy Bonus with them.
    "run_em_twice": (
        PaymentPass(("five_card_bonus", "ultimate_pairs"), "RET ch.11 §H", shows_hand=False),
        PaymentPass(("ante_1", "first_run", "ante_2", "second_run", "center", "progressive", "envy"),
                    "RET ch.11 §I-§J"),
    ),
}

REVEALS: dict[str, tuple[Reveal, ...]] = {
    "ultimate_texas_holdem": (
        Reveal("flop", ("community:0", "community:1", "community:2"), "UTH ch.11 §C(2)"),
        Reveal("turn_and_river", ("community:3", "community:4"), "UTH ch.11 §E(2)"),
        Reveal("dealer", ("dealer",), "UTH ch.11 §G(1)"),
    ),
    # RULINGS R11: one community card before the first decision, then two, then the final two.
    "jackpot_holdem": (
        Reveal("first_community_card", ("community:0",), "JHE ch.11 §B"),
        Reveal("next_two_community_cards", ("community:1", "community:2"), "JHE ch.11 §D"),
        Reveal("final_two_community_cards", ("community:3", "community:4"), "JHE ch.11 §F"),
        Reveal("dealer", ("dealer",), "JHE ch.11 §H(1)"),
    ),
    "high_card_flush": (
        Reveal("dealer", ("dealer",), "HCF ch.11 §B(4)(b)"),
    ),
    # The cross (RULINGS R25): the outside cards of the horizontal line, of the vertical line, the center.
    "run_em_twice": (
        Reveal("horizontal_line", ("community:left", "community:right"), "RET ch.11 §C"),
        Reveal("vertical_line", ("community:top", "community:bottom"), "RET ch.11 §E"),
        Reveal("center", ("community:center",), "RET ch.11 §G"),
    ),
}
