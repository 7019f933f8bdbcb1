"""Simulated automatic card shuffler: ``python -m simulators.shuffler [--transport pty] [--seed N]``.

Two decks, A and B (``--decks 1`` for one): each SHUFFLE brings the other deck into play (UTH ch.3 §B(3):
one deck is shuffled and stored while the other is used), shuffled from a seeded random generator and
counted (UTH ch.5 §E).  It delivers stacks of N cards, reading each card, and can hold a stack aside until
released (the dealer's cards: UTH ch.10 §B(4), JHE ch.10 §B(3)).  Its control commands (``set_deck``,
``fault``, ``door``, ``shuffle`` ...), besides the line faults of ``simulators.serial_device``: docs/protocols-serial.md
§9.  ``--shuffle KIND`` (or the ``shuffle`` command) shuffles as ``simulators.shuffles`` does (issue 28): a deck
goes back in as the shuffle monitor assumes (P110), the stub first, then the cards delivered.
"""

from __future__ import annotations

import argparse
import asyncio
import random
from typing import Any

import structlog

from drivers.framing import CARD_FACE_UP, CARD_UNREADABLE, NO_CARD, Frame, decode_card, encode_card
from drivers.serial_protocol import KIND_SHUFFLER, ErrorCode, Fault
from drivers.shuffler import (
    DELIVER,
    HELD,
    HOLD,
    MAX_STACK,
    RELEASE,
    RESULT_COUNT_WRONG,
    RESULT_OK,
    SHUFFLE,
    SHUFFLE_DONE,
    STACK,
    ShufflerState,
    encode_shuffle_done,
    encode_stack,
    encode_status,
)
from simulators import shuffles
from simulators.card_faults import CardFaults
from simulators.control import ControlError
from simulators.serial_device import Refuse, SimulatedDevice, main

log = structlog.get_logger(__name__)

FULL_DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"]
def parse_cards(value: Any) -> list[int]:
    if not isinstance(value, list) or not 1 <= len(value) <= 255:
        raise ControlError('"cards" is a list of 1..255 cards such as "As"')
    try:
        return [encode_card(c) for c in value]
    except (ValueError, TypeError) as exc:
        raise ControlError(str(exc)) from None


class ShufflerSim(SimulatedDevice):
    kind = KIND_SHUFFLER
    name = "shuffler"

    def __init__(self) -> None:
        self.rng = random.Random(0)
        self.letters = ["A", "B"]
        self.shuffle_seconds = 0.02
        self.in_play: str | None = None
        self.last_letter = "B"  # so that the first shuffle brings deck A into play
        self.deck: list[int] = []  # card codes of the deck in play, in dealing order
        self.position = 0  # cards dealt from it
        self.held: list[tuple[int, int]] = []
        self.held_first = 0
        self.count_wrong = False
        self.jammed_at: int | None = None
        self.door_open = False
        self.faults = CardFaults()
        self.next_shuffle_fault: str | None = None
        self.next_count: int | None = None
        self.next_order: dict[str | None, list[int]] = {}
        self.shuffle_kind = "fair"  # how it shuffles (simulators.shuffles.KINDS)
        self.last_order: dict[str, list[int]] = {}  # per deck: as it was delivered, and how far
        self.last_position: dict[str, int] = {}

    # -- configuration

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--decks", type=int, choices=(1, 2), default=2)
        parser.add_argument("--shuffle-ms", type=int, default=20, help="how long a shuffle takes")
        parser.add_argument("--shuffle", choices=shuffles.KINDS, default="fair", help="how it shuffles (issue 28)")

    def configure(self, args: argparse.Namespace) -> None:
        self.rng = random.Random(args.seed)
        self.letters = ["A", "B"][: args.decks]
        self.last_letter = self.letters[-1]
        self.shuffle_seconds = args.shuffle_ms / 1000
        self.shuffle_kind = args.shuffle

    # -- protocol

    def _faults(self) -> Fault:
        faults = Fault.NONE
        if self.jammed_at is not None:
            faults |= Fault.JAM
        if self.door_open:
            faults |= Fault.DOOR_OPEN
        if self.count_wrong:
            faults |= Fault.COUNT_WRONG
        return faults

    def status(self) -> bytes:
        if self.jammed_at is not None or self.door_open:
            state = ShufflerState.FAULT
        elif self.in_play is None or self.count_wrong:
            state = ShufflerState.IDLE
        else:
            state = ShufflerState.READY
        remaining = len(self.deck) - self.position if self.in_play else 0
        return encode_status(state, self._faults(), self.in_play, self.position, min(remaining, 255), len(self.held))

    def _check_usable(self, needs_deck: bool = True) -> None:
        if self.door_open:
            raise Refuse(ErrorCode.DOOR_OPEN)
        if self.jammed_at is not None:
            raise Refuse(ErrorCode.JAM, self.jammed_at)
        if needs_deck:
            if self.in_play is None:
                raise Refuse(ErrorCode.NOT_READY)
            if self.count_wrong:
                raise Refuse(ErrorCode.COUNT_WRONG, len(self.deck))

    async def command(self, frame: Frame) -> tuple[int, bytes]:
        if frame.type == SHUFFLE:
            return await self._shuffle()
        if frame.type in (DELIVER, HOLD):
            if len(frame.payload) != 1 or not 1 <= frame.payload[0] <= MAX_STACK:
                raise Refuse(ErrorCode.BAD_REQUEST, frame.type)
            n = frame.payload[0]
            self._check_usable()
            if frame.type == HOLD and self.held:
                raise Refuse(ErrorCode.NOT_READY)
            remaining = len(self.deck) - self.position
            if remaining < n:
                raise Refuse(ErrorCode.EMPTY, remaining)
            first = self.position + 1
            cards = self._take(n)
            if frame.type == HOLD:
                self.held, self.held_first = cards, first
                return HELD, bytes((n,))
            return STACK, encode_stack(self.in_play or "A", first, cards)
        if frame.type == RELEASE:
            self._check_usable(needs_deck=False)
            if not self.held or self.in_play is None:
                raise Refuse(ErrorCode.NOT_READY)
            cards, self.held = self.held, []
            return STACK, encode_stack(self.in_play, self.held_first, cards)
        raise Refuse(ErrorCode.BAD_REQUEST, frame.type)

    async def _shuffle(self) -> tuple[int, bytes]:
        self._check_usable(needs_deck=False)
        await asyncio.sleep(self.shuffle_seconds)  # the mechanism runs
        # the decks alternate whatever happened to the last one
        letter = self.letters[(self.letters.index(self.last_letter) + 1) % len(self.letters)]
        self.last_letter = letter
        if self.in_play is not None and len(self.deck) == 52:
            self.last_order[self.in_play], self.last_position[self.in_play] = self.deck, self.position
        self.in_play, self.deck, self.position, self.held, self.count_wrong = None, [], 0, [], False
        if self.faults.take_jam():
            self.jammed_at = 0
            raise Refuse(ErrorCode.JAM, 0)
        fault, self.next_shuffle_fault = self.next_shuffle_fault, None
        if fault == "shuffle_incomplete":
            raise Refuse(ErrorCode.SHUFFLE_INCOMPLETE)
        order = self.next_order.pop(letter, None) or self.next_order.pop(None, None)
        if order is None and self.shuffle_kind != "fair" and letter in self.last_order:
            last, dealt = self.last_order[letter], self.last_position[letter]
            order = shuffles.shuffle(self.shuffle_kind, self.rng, last[dealt:] + last[:dealt], previous=last)
        if order is None:
            order = [encode_card(c) for c in FULL_DECK]
            self.rng.shuffle(order)
        count, self.next_count = self.next_count, None
        if count is not None:
            while len(order) > count:
                order.pop()
            while len(order) < count:  # cards from another deck
                order.append(order[self.rng.randrange(len(order))])
        self.in_play, self.deck = letter, order
        self.count_wrong = len(order) != 52
        log.info("shuffled", deck=letter, count=len(order))
        result = RESULT_COUNT_WRONG if self.count_wrong else RESULT_OK
        return SHUFFLE_DONE, encode_shuffle_done(letter, len(order), result)

    def _take(self, n: int) -> list[tuple[int, int]]:
        cards = []
        for _ in range(n):
            position = self.position + 1
            faults = self.faults.take(position)
            if "jam" in faults:
                self.jammed_at = position
                self.position = position  # the jammed card is stuck in the mechanism
                log.info("jammed", position=position)
                raise Refuse(ErrorCode.JAM, position)
            code, flags = self.deck[position - 1], 0
            if "duplicate" in faults:
                earlier = self.deck[: position - 1]
                code = earlier[0] if earlier else self.deck[-1]
            if "face_up" in faults:
                flags |= CARD_FACE_UP
            if "unreadable" in faults:
                code, flags = NO_CARD, flags | CARD_UNREADABLE
            self.position = position
            cards.append((code, flags))
        return cards

    # -- control

    async def control(self, cmd: str, args: dict[str, Any]) -> dict[str, Any]:
        if cmd == "fault":
            fault = args.get("fault")
            if self.faults.arm(args):
                return {}
            if fault == "shuffle_incomplete":
                self.next_shuffle_fault = fault
            elif fault == "count":
                count = args.get("count")
                if not isinstance(count, int) or not 1 <= count <= 255:
                    raise ControlError('"count" is 1..255')
                self.next_count = count
            elif fault == "door_open":
                self.door_open = True
            else:
                raise ControlError(f"unknown fault {fault!r}")
            return {}
        if cmd == "door":
            self.door_open = bool(args.get("open", True))
            return {}
        if cmd == "clear":
            if self.jammed_at is not None:
                self.jammed_at = None
                self.in_play, self.deck, self.position, self.held = None, [], 0, []
            return {}
        if cmd == "set_deck":
            deck = args.get("deck")
            if deck is not None and deck not in self.letters:
                raise ControlError(f"deck is one of {self.letters}")
            self.next_order[deck] = parse_cards(args.get("cards"))
            return {}
        if cmd == "shuffle":
            kind = args.get("kind")
            if kind not in shuffles.KINDS:
                raise ControlError(f"kind is one of {list(shuffles.KINDS)}")
            self.shuffle_kind = str(kind)
            return {}
        if cmd == "seed":
            self.rng = random.Random(int(args["seed"]))
            return {}
        if cmd == "peek":
            return {
                "deck": self.in_play,
                "position": self.position,
                "cards": [decode_card(c) for c in self.deck[self.position :]],
            }
        if cmd == "state":
            return {
                "deck": self.in_play,
                "position": self.position,
                "remaining": len(self.deck) - self.position,
                "held": len(self.held),
                "jammed_at": self.jammed_at,
                "door_open": self.door_open,
                "count_wrong": self.count_wrong,
            }
        return await super().control(cmd, args)


if __name__ == "__main__":
    main(ShufflerSim(), description=__doc__.splitlines()[0] if __doc__ else "")
