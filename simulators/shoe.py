"""Simulated card-reading dealing shoe: ``python -m simulators.shoe [--transport pty] [--seed N]``.

The shoe starts loaded with one deck shuffled from ``--seed``.  The dealer draws cards (control ``draw``);
the shoe reads each and reports it, keeping every report until the controller acknowledges it and sending
the unacknowledged ones again after each HELLO.  Its control commands (``load``, ``draw``, ``fault``,
``replay`` ...), besides the line faults of ``simulators.serial_device``: docs/protocols-serial.md §9.
"""

from __future__ import annotations

import asyncio
import collections
import random
from typing import Any

import structlog

from drivers.framing import CARD_FACE_UP, CARD_UNREADABLE, NO_CARD, Frame, decode_card, encode_card
from drivers.serial_protocol import KIND_SHOE, ErrorCode, Fault
from drivers.shoe import (
    CARD,
    REPORT_ACK,
    SHOE_FAULT,
    SHOE_LOADED,
    ShoeState,
    encode_card_report,
    encode_fault_report,
    encode_loaded_report,
    encode_status,
)
from simulators.card_faults import CardFaults
from simulators.control import ControlError
from simulators.serial_device import SimulatedDevice, main
from simulators.shuffler import FULL_DECK, parse_cards

log = structlog.get_logger(__name__)

class ShoeSim(SimulatedDevice):
    kind = KIND_SHOE
    name = "shoe"

    def __init__(self) -> None:
        self.rng = random.Random(0)
        self.cards: list[int] = []
        self.drawn: list[int] = []
        self.position = 0
        self.jammed = False
        self.empty_reported = False
        self.faults = CardFaults()
        self.next_rid = random.SystemRandom().randrange(0x10000)
        self.outbox: dict[int, tuple[int, bytes]] = {}  # rid -> (type, payload), until acknowledged
        self.last_report: tuple[int, bytes] | None = None
        self.to_send: collections.deque[int] = collections.deque()
        self.wake = asyncio.Event()
        self.sender: asyncio.Task[None] | None = None
        self.tasks: set[asyncio.Task[bool]] = set()

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--rid", type=int, help="first report id (default: random, as after a power-up)")

    def configure(self, args: Any) -> None:
        self.rng = random.Random(args.seed)
        if args.rid is not None:
            self.next_rid = args.rid & 0xFFFF

    def start(self) -> None:
        self.load(None)

    # -- reports

    def report(self, type_: int, body_without_rid: Any) -> None:
        rid = self.next_rid
        self.next_rid = (rid + 1) & 0xFFFF
        payload = body_without_rid(rid)
        self.outbox[rid] = (type_, payload)
        self.last_report = (type_, payload)
        self.to_send.append(rid)
        self._kick()

    def _kick(self) -> None:
        if self.sender is None:
            self.sender = asyncio.get_running_loop().create_task(self._send_reports())
        self.wake.set()

    async def _send_reports(self) -> None:
        while True:
            await self.wake.wait()
            self.wake.clear()
            while self.to_send:
                rid = self.to_send[0]
                if rid not in self.outbox:
                    self.to_send.popleft()
                    continue
                type_, payload = self.outbox[rid]
                if not await self.server.send(type_, payload):
                    break  # the controller is gone: resend after its next HELLO
                if self.to_send and self.to_send[0] == rid:
                    self.to_send.popleft()

    def on_hello(self) -> None:
        self.to_send = collections.deque(self.outbox)
        if self.outbox:
            log.info("resending unacknowledged reports", count=len(self.outbox))
        self._kick()

    def on_message(self, frame: Frame) -> bool:
        if frame.type != REPORT_ACK:
            return False
        if len(frame.payload) == 2:
            self.outbox.pop(int.from_bytes(frame.payload, "big"), None)
        return True

    # -- the shoe

    def status(self) -> bytes:
        faults = Fault.NONE
        if self.jammed:
            faults |= Fault.JAM
        if not self.cards:
            faults |= Fault.EMPTY
        state = ShoeState.FAULT if self.jammed else ShoeState.READY if self.cards else ShoeState.EMPTY
        return encode_status(state, faults, min(self.position, 255), min(len(self.cards), 255))

    def load(self, cards: list[int] | None) -> None:
        if cards is None:
            cards = [encode_card(c) for c in FULL_DECK]
            self.rng.shuffle(cards)
        self.cards, self.drawn, self.position = list(cards), [], 0
        self.jammed = self.empty_reported = False
        log.info("shoe loaded", count=len(cards))
        self.report(SHOE_LOADED, lambda rid: encode_loaded_report(rid, min(len(self.cards), 255)))

    def draw(self) -> bool:
        """One draw by the dealer; False when nothing more can come out."""
        if self.jammed:
            return False
        position = self.position + 1
        if not self.cards:
            if not self.empty_reported:
                self.empty_reported = True
                self.report(SHOE_FAULT, lambda rid: encode_fault_report(rid, position, ErrorCode.EMPTY))
                return True
            return False
        faults = self.faults.take(position)
        code = self.cards.pop(0)
        self.position = position
        if "jam" in faults:
            self.jammed = True  # the card is stuck in the shoe
            log.info("jammed", position=position)
            self.report(SHOE_FAULT, lambda rid: encode_fault_report(rid, position, ErrorCode.JAM))
            return True
        flags = 0
        if "duplicate" in faults:
            code = self.drawn[0] if self.drawn else (self.cards[-1] if self.cards else code)
        self.drawn.append(code)
        if "face_up" in faults:
            flags |= CARD_FACE_UP
        if "unreadable" in faults:
            code, flags = NO_CARD, flags | CARD_UNREADABLE
        self.report(CARD, lambda rid: encode_card_report(rid, position, code, flags))
        if "switch" in faults and self.cards:
            # a card slipped in at the shoe's mouth (issue 28): read, but it did not come out of the deck, so the
            # shoe's position does not move; the one used here is the stub's last, a card of this deck not yet out
            switched = self.cards.pop()
            self.drawn.append(switched)
            log.info("switched card", position=position)
            self.report(CARD, lambda rid: encode_card_report(rid, position, switched, 0))
        return True

    async def control(self, cmd: str, args: dict[str, Any]) -> dict[str, Any]:
        if cmd == "load":
            if "seed" in args:
                self.rng = random.Random(int(args["seed"]))
            self.load(parse_cards(args["cards"]) if "cards" in args else None)
            return {}
        if cmd == "draw":
            n = int(args.get("n", 1))
            done = 0
            while done < n and self.draw():
                done += 1
            return {"reported": done}
        if cmd == "fault":
            fault = args.get("fault")
            if self.faults.arm(args):
                return {}
            if fault == "empty":
                self.cards.clear()
            else:
                raise ControlError(f"unknown fault {fault!r}")
            return {}
        if cmd == "clear":
            self.jammed = False
            return {}
        if cmd == "replay":
            if self.last_report is None:
                raise ControlError("nothing reported yet")
            task = asyncio.get_running_loop().create_task(self.server.send(*self.last_report))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
            return {}
        if cmd == "peek":
            return {"position": self.position, "cards": [decode_card(c) for c in self.cards]}
        if cmd == "state":
            return {
                "position": self.position,
                "remaining": len(self.cards),
                "jammed": self.jammed,
                "unacknowledged": len(self.outbox),
            }
        return await super().control(cmd, args)


if __name__ == "__main__":
    main(ShoeSim(), description=__doc__.splitlines()[0] if __doc__ else "")
