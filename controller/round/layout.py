"""The cards on the layout of one round: who plays, where each card may go, which cards are out.

Owns the places of the layout (``seat:N``, ``dealer``, ``community:I`` or RET's
``community:left``..., ``bonus``, ``burn``), whether a place is free and a card
new this round (a card seen twice is from another deck, UTH ch.13), and the count of
cards out of the deck for the stub count.  ``RoundController`` is a ``Layout``.
"""

from __future__ import annotations

from controller.round.state import ALLOWED, Answer, RoundRefused, SeatState, no
from games.cards import Card, parse_card
from games.game import Game
from games.registry import irregularity_clause


class Layout:
    """The seats and cards of a round; the round machine adds the phases and the journal."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.seats: dict[int, SeatState] = {}
        self.dealer: list[Card] = []
        self.community: dict[int, Card] = {}
        self.bonus_box: list[Card] = []
        self.discarded: list[Card] = []  # cards out of the deck but not used (UTH ch.13 §A)
        self.burned = 0

    @property
    def players(self) -> list[SeatState]:
        """Seats in the round, clockwise from seat 1 (RULINGS R1); a player who left is no longer one."""
        return [self.seats[n] for n in sorted(self.seats) if not self.seats[n].out]

    def _new_card(self, card: str) -> Answer:
        if parse_card(card) in self._all_cards():
            # a card twice in one round: a card from another deck
            return no("card_seen", f"{card} was already dealt this round: a card from another deck")
        return ALLOWED

    def cards_out(self) -> int:
        """Every card this round took from the deck: dealt, burned, discarded."""
        return len(self._dealt_cards()) + self.burned + len(self.discarded)

    def progressive_seats(self) -> list[int]:
        """Seats whose progressive wager the system accepted and that are still in the round."""
        return [s.seat for s in self.players if "progressive" in s.wagers]

    def has_card(self, card: str) -> bool:
        """True when ``card`` already left the deck this round (dealt, burned face down aside, discarded)."""
        return parse_card(card) in self._all_cards()

    def _all_cards(self) -> set[Card]:
        """Every card out of the deck this round that is known: on the layout, or discarded."""
        return set(self._dealt_cards()) | set(self.discarded)

    def _dealt_cards(self) -> list[Card]:
        """The cards on the layout: the seats', the dealer's, the community, the bonus box."""
        out = list(self.dealer) + list(self.community.values()) + list(self.bonus_box)
        for st in self.seats.values():
            out += st.cards
        return out

    def _community_index(self, key: str) -> int:
        names = self.game.community_names
        if names:
            if key not in names:
                raise RoundRefused(f"community place {key!r}: one of {', '.join(names)} (RULINGS R25)", "place")
            return names.index(key)
        i = int(key)
        if not 0 <= i < self.game.community_cards:
            raise RoundRefused(f"community place {key}: 0 to {self.game.community_cards - 1}", "place")
        return i

    def _place_free(self, place: str) -> Answer:
        kind, _, rest = place.partition(":")
        g = self.game
        if kind == "seat":
            s = self.seats.get(int(rest))
            if s is None:
                return no("place", f"{place}: no player at that seat (only seats with the required wagers get cards)")
            if len(s.cards) >= g.hole_cards:
                return no("place", f"{place}: already has {g.hole_cards} cards "
                                   f"({irregularity_clause(g, 'wrong_number_of_cards')})")
        elif kind == "dealer":
            if len(self.dealer) >= g.dealer_cards:
                return no("place", f"dealer already has {g.dealer_cards} cards")
        elif kind == "community":
            try:
                i = self._community_index(rest)
            except RoundRefused as e:
                return e.answer
            if i in self.community:
                return no("place", f"{place} already dealt")
        elif kind == "bonus":
            if len(self.bonus_box) >= g.bonus_cards:
                return no("place", "the Six Card Bonus box is full")
        elif kind != "burn":
            return no("place", f"unknown place {place!r}")
        return ALLOWED

    def _playing(self, seat: int) -> Answer:
        s = self.seats.get(seat)
        if s is None or s.out:
            return no("seat", f"seat {seat} is not playing this round")
        return ALLOWED
