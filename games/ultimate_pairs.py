"""The Ultimate Pairs wager of UTH (UTH ch.7 §F(5), UTH ch.12 §E) and RET (RET ch.7 §E(2)(b), RET ch.12 §E).

It is settled on the player's first two cards alone; one line of UTH paytable B
also needs the dealer's two cards (RULINGS R22).
"""

from __future__ import annotations

from collections.abc import Sequence

from games.cards import ACE, JACK, KING, QUEEN, Card

#: the lines this wager makes (``ultimate_pairs_made``), in a person's words: the same at UTH and RET (web/words.py)
WORDS: dict[str, str] = {
    "pair_of_aces": "Pair of aces",
    "ace_and_king_of_the_same_suit": "Ace and king of the same suit",
    "ace_and_queen_or_jack_of_the_same_suit": "Ace and queen or jack of the same suit",
    "ace_and_king_of_different_suits": "Ace and king of different suits",
    "pair_of_jacks_queens_or_kings": "Pair of jacks, queens or kings",
    "ace_and_queen_or_jack_of_different_suits": "Ace and queen or jack of different suits",
    "pair_of_tens_or_less": "Pair of tens or less",
    "pair_of_player_aces_of_hearts_and_diamonds": "Player's pair of aces, hearts and diamonds",
    "pair_of_player_aces_and_dealer_aces": "Player's pair of aces and dealer's pair of aces",
}


def ultimate_pairs_made(player: Sequence[Card], dealer: Sequence[Card] = ()) -> frozenset[str]:
    """The Ultimate Pairs lines two cards make (RULINGS R22)."""
    a, b = player
    made: set[str] = set()
    if a.rank == b.rank:
        r = a.rank
        if r == ACE:
            made.add("pair_of_aces")
            if {a.suit, b.suit} == {"h", "d"}:
                made.add("pair_of_player_aces_of_hearts_and_diamonds")
            if len(dealer) == 2 and all(c.rank == ACE for c in dealer):
                made.add("pair_of_player_aces_and_dealer_aces")
        elif r in (JACK, QUEEN, KING):
            made.add("pair_of_jacks_queens_or_kings")
        else:  # 2s to 10s: "a pair of tens or less" (R22)
            made.add("pair_of_tens_or_less")
        return frozenset(made)
    high, low = (a, b) if a.rank > b.rank else (b, a)
    if high.rank == ACE and low.rank in (KING, QUEEN, JACK):
        suited = "of_the_same_suit" if high.suit == low.suit else "of_different_suits"
        if low.rank == KING:
            made.add(f"ace_and_king_{suited}")
        else:
            made.add(f"ace_and_queen_or_jack_{suited}")
    return frozenset(made)
