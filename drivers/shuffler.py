"""Driver of the automatic card shuffler (card-reading, two-deck, stack dealing).

The messages (docs/protocols-serial.md, "Shuffler"); the encoders and
decoders below are used by both this driver and ``simulators.shuffler``:

=========  ======  =====================================================
SHUFFLE    0x20    shuffle the next deck and count it
DELIVER    0x21    n: deliver a stack of n cards (1..52)
HOLD       0x22    n: set the next n cards aside (the dealer's stack)
RELEASE    0x23    deliver the stack held aside
SHUFFLE_DONE 0xA0  ref, deck, count, result (0 count right, 1 count wrong)
STACK      0xA1    ref, deck, first position, n, n x (card code, flags)
HELD       0xA2    ref, n
STATUS     0x91    ref, state, faults, deck, position, remaining, held
=========  ======  =====================================================

The driver knows stacks and counts, not games: how many cards a stack has,
or which stack is the dealer's, is the caller's business.  It refuses to
guess: an unreadable card, a card seen twice in one deck, or a deck count
other than ``deck_size`` raise an error instead of returning cards.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Unpack

import structlog

from drivers.framing import CARD_FACE_UP, CARD_UNREADABLE, Frame, decode_card
from drivers.health import DeviceError, ProtocolError
from drivers.serial_link import SerialDevice, SerialOptions
from drivers.serial_protocol import (
    KIND_SHUFFLER,
    STATUS_REQ,
    CardCountError,
    DuplicateCardError,
    Fault,
    UnreadableCardError,
    parse_reply_header,
)

log = structlog.get_logger(__name__)

SHUFFLE = 0x20
DELIVER = 0x21
HOLD = 0x22
RELEASE = 0x23
SHUFFLE_DONE = 0xA0
STACK = 0xA1
HELD = 0xA2

MAX_STACK = 52
DECK_LETTERS = {0: None, 1: "A", 2: "B"}
DECK_CODES = {"A": 1, "B": 2}

RESULT_OK = 0
RESULT_COUNT_WRONG = 1


class ShufflerState(enum.IntEnum):
    IDLE = 0  # no shuffled deck in play: SHUFFLE first
    READY = 1  # a counted deck is in play
    FAULT = 2  # jammed or door open: the dealer must clear it


# -- payloads (both ends)


def encode_shuffle_done(deck: str, count: int, result: int) -> bytes:
    return bytes((DECK_CODES[deck], min(count, 255), result))


def encode_stack(deck: str, first_position: int, cards: list[tuple[int, int]]) -> bytes:
    body = bytearray((DECK_CODES[deck], first_position, len(cards)))
    for code, flags in cards:
        body += bytes((code, flags))
    return bytes(body)


def encode_status(state: int, faults: int, deck: str | None, position: int, remaining: int, held: int) -> bytes:
    return bytes((state, faults, DECK_CODES.get(deck or "", 0), position, remaining, held))


# -- results


@dataclass(frozen=True, slots=True)
class ShuffleResult:
    count: int  # cards the device counted after the shuffle
    deck: str  # "A" or "B": the deck now in play


@dataclass(frozen=True, slots=True)
class Stack:
    """A stack the shuffler delivered, as its card reader read it."""

    cards: tuple[str, ...]  # e.g. ("As", "Td"), in delivery order
    face_up: tuple[bool, ...]  # per card: it came out face up
    deck: str
    first_position: int  # position of cards[0] in the deck since its shuffle (1-based)

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[str]:
        return iter(self.cards)

    def __repr__(self) -> str:  # card values are secret until dealt: not in reprs
        return (
            f"Stack(deck={self.deck}, first_position={self.first_position}, "
            f"n={len(self.cards)}, face_up={sum(self.face_up)})"
        )


@dataclass(frozen=True, slots=True)
class ShufflerStatus:
    state: ShufflerState
    faults: Fault
    deck: str | None
    position: int  # cards dealt from the deck in play since its shuffle
    remaining: int
    held: int  # cards held aside (0 = none)


class Shuffler(SerialDevice):
    """``await shuffler.shuffle()``, ``deliver(n)``, ``hold(n)``, ``release()``, ``status()``."""

    KIND = KIND_SHUFFLER

    def __init__(self, url: str, *, deck_size: int = 52, shuffle_timeout: float = 30.0,
                 **kwargs: Unpack[SerialOptions]) -> None:
        super().__init__(url, **kwargs)
        self.deck_size = deck_size
        self.shuffle_timeout = shuffle_timeout
        self._dealt: dict[str, int] = {}  # card -> position, for the deck in play

    def positions(self) -> dict[str, int]:
        """Each card delivered from the deck in play: its position in that deck (1-based), as read."""
        return dict(self._dealt)

    async def shuffle(self) -> ShuffleResult:
        """Shuffle and count the next deck; return which deck is in play and its count.

        Raises :class:`CardCountError` (with ``count`` and ``deck``) when the
        device counted other than ``deck_size`` cards: that deck must not be
        dealt (the device refuses to deliver from it too).
        """
        frame = await self._exchange(SHUFFLE, timeout=self.shuffle_timeout)
        body = self._expect(frame, SHUFFLE_DONE, 4)
        deck = self._deck(body[1])
        count, result = body[2], body[3]
        self._dealt = {}
        log.info("deck shuffled", device=self.name, deck=deck, count=count)
        count_wrong = result != RESULT_OK or count != self.deck_size
        self._faults = (self._faults | Fault.COUNT_WRONG) if count_wrong else (self._faults & ~Fault.COUNT_WRONG)
        self._update_health()
        if count_wrong:
            raise CardCountError(
                self.name, f"deck {deck} counted {count} cards, expected {self.deck_size}", count, deck=deck
            )
        return ShuffleResult(count, deck)

    async def deliver(self, n: int) -> Stack:
        """Deliver a stack of ``n`` cards and return them as read."""
        self._check_n(n)
        frame = await self._exchange(DELIVER, bytes((n,)))
        return self._stack(frame, n)

    async def hold(self, n: int) -> None:
        """Set the next ``n`` cards aside inside the device until :meth:`release`."""
        self._check_n(n)
        frame = await self._exchange(HOLD, bytes((n,)))
        body = self._expect(frame, HELD, 2)
        if body[1] != n:
            raise ProtocolError(self.name, f"asked to hold {n} cards, device holds {body[1]}")

    async def release(self) -> Stack:
        """Deliver the stack held aside and return its cards."""
        frame = await self._exchange(RELEASE)
        return self._stack(frame, None)

    async def status(self) -> ShufflerStatus:
        frame = await self._exchange(STATUS_REQ)
        body = parse_reply_header(self.name, frame, 7)
        try:
            state = ShufflerState(body[1])
        except ValueError:
            raise ProtocolError(self.name, f"unknown shuffler state {body[1]}") from None
        return ShufflerStatus(state, Fault(body[2]), DECK_LETTERS.get(body[3]), body[4], body[5], body[6])

    # -- internals

    def _check_n(self, n: int) -> None:
        if not isinstance(n, int) or not 1 <= n <= MAX_STACK:
            raise ValueError(f"a stack has 1..{MAX_STACK} cards, not {n!r}")

    def _expect(self, frame: Frame, type_: int, minimum: int) -> bytes:
        if frame.type != type_:
            raise ProtocolError(self.name, f"expected reply 0x{type_:02X}, got 0x{frame.type:02X}")
        return parse_reply_header(self.name, frame, minimum)

    def _deck(self, code: int) -> str:
        deck = DECK_LETTERS.get(code)
        if deck is None:
            raise ProtocolError(self.name, f"unknown deck code {code}")
        return deck

    def _stack(self, frame: Frame, expected: int | None) -> Stack:
        body = self._expect(frame, STACK, 4)
        deck, first, n = self._deck(body[1]), body[2], body[3]
        if len(body) != 4 + 2 * n or (expected is not None and n != expected):
            raise ProtocolError(self.name, f"stack of {n} cards in {len(body)} bytes (asked for {expected})")
        cards: list[str] = []
        face_up: list[bool] = []
        for i in range(n):
            code, flags = body[4 + 2 * i], body[5 + 2 * i]
            position = first + i
            if flags & CARD_UNREADABLE:
                raise UnreadableCardError(self.name, f"card at position {position} of deck {deck} unreadable", position)
            try:
                card = decode_card(code)
            except ValueError as exc:
                raise ProtocolError(self.name, f"position {position}: {exc}") from None
            cards.append(card)
            face_up.append(bool(flags & CARD_FACE_UP))
        stack = Stack(tuple(cards), tuple(face_up), deck, first)
        # Card values are secret until the rules reveal them: never logged, not even at debug level.
        log.debug("stack delivered", device=self.name, deck=deck, first_position=first, size=len(cards))
        duplicate: DuplicateCardError | None = None
        for position, card in enumerate(cards, first):
            seen = self._dealt.setdefault(card, position)
            if seen != position and duplicate is None:
                duplicate = DuplicateCardError(
                    self.name,
                    f"deck {deck}: the card at position {position} was already dealt at position {seen}",
                    card,
                    position,
                    stack,
                )
        if duplicate is not None:
            raise duplicate
        if any(face_up):
            log.info(
                "face-up card in stack",
                device=self.name,
                deck=deck,
                positions=[first + i for i, f in enumerate(face_up) if f],
            )
        return stack


__all__ = [
    "DeviceError",
    "Shuffler",
    "ShuffleResult",
    "ShufflerState",
    "ShufflerStatus",
    "Stack",
]
