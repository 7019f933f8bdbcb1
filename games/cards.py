"""Cards and the 52-card deck (UTH, JHE, HCF and RET ch.3 §A: one deck of 52 cards).

A card is written rank then suit: ranks ``2 3 4 5 6 7 8 9 T J Q K A``, suits
``c d h s`` (``As``, ``Td``, ``2c``).  Parsing is strict: a card that is not
written exactly so is refused with a message saying what was wrong, never
guessed (``10s``, ``aS``, ``Ah `` are all refused).

Cards are interned: there are exactly 52 ``Card`` objects, so identity,
equality and hashing are cheap and a card can be used as a dict key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from games.money import shown

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
SUIT_NAMES = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
RANK_NAMES = {
    2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9",
    10: "10", 11: "jack", 12: "queen", 13: "king", 14: "ace",
}  # fmt: skip

ACE, KING, QUEEN, JACK, TEN, NINE = 14, 13, 12, 11, 10, 9


class CardError(ValueError):
    """A card that cannot be read, or a card used twice."""


class Card:
    """One of the 52 cards.  ``rank`` is 2..14 (ace high), ``suit`` one of ``cdhs``."""

    __slots__ = ("rank", "suit", "index", "text")

    rank: int
    suit: str
    index: int  # 0..51, rank-major: (rank - 2) * 4 + suit position
    text: str

    def __new__(cls, rank: int, suit: str) -> Card:  # pragma: no cover - only via the table below
        raise TypeError("use parse_card() or the CARDS table; cards are interned")

    @classmethod
    def _make(cls, rank: int, suit: str) -> Card:
        card = object.__new__(cls)
        object.__setattr__(card, "rank", rank)
        object.__setattr__(card, "suit", suit)
        object.__setattr__(card, "index", (rank - 2) * 4 + SUIT_CHARS.index(suit))
        object.__setattr__(card, "text", RANK_CHARS[rank - 2] + suit)
        return card

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("cards are immutable")

    def __repr__(self) -> str:
        return f"Card({self.text})"

    def __str__(self) -> str:
        return self.text

    def __reduce__(self) -> tuple[Callable[[object], Card], tuple[str]]:
        return (parse_card, (self.text,))


#: The 52 cards in index order (2c 2d 2h 2s 3c ... As).
DECK: tuple[Card, ...] = tuple(Card._make(r, s) for r in range(2, 15) for s in SUIT_CHARS)
_BY_TEXT: dict[str, Card] = {c.text: c for c in DECK}


def parse_card(text: object) -> Card:
    """Read one card such as ``"As"``; raise ``CardError`` saying what is wrong."""
    if not isinstance(text, str):
        raise CardError(f"a card must be a string like 'As', not {shown(text)}")
    card = _BY_TEXT.get(text)
    if card is not None:
        return card
    if len(text) != 2:
        raise CardError(
            f"unknown card {shown(text)}: a card is two characters, rank ({RANK_CHARS}) then suit ({SUIT_CHARS}), "
                "e.g. 'Td'"
        )
    rank, suit = text[0], text[1]
    if rank not in RANK_CHARS:
        raise CardError(f"unknown card {shown(text)}: rank {rank!r} is not one of {' '.join(RANK_CHARS)}")
    raise CardError(f"unknown card {shown(text)}: suit {suit!r} is not one of {' '.join(SUIT_CHARS)}")


def parse_cards(texts: Iterable[object]) -> list[Card]:
    return [parse_card(t) for t in texts]


def card_texts(cards: Iterable[Card]) -> list[str]:
    return [c.text for c in cards]


def check_distinct(groups: Sequence[tuple[str, Sequence[Card]]]) -> None:
    """Refuse a card that appears twice among all the named groups of a round.

    ``groups`` is ``[(field name, cards), ...]``; the error names both places.
    """
    seen: dict[Card, str] = {}
    for name, cards in groups:
        for card in cards:
            if card in seen:
                where = seen[card]
                if where == name:
                    raise CardError(f"{name}: card {card.text} appears twice (one deck: every card at most once per "
                        "round)")
                raise CardError(
                    f"{name}: card {card.text} is already in {where} (one deck: every card at most once per round)"
                )
            seen[card] = name
