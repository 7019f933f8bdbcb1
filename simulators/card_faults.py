"""Card faults a test arms for given positions of a simulated card device (shuffler stacks, shoe draws).

One ``CardFaults`` per device: ``arm`` takes the control command's arguments,
``take(position)`` hands out what is armed for the card being dealt now.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from simulators.control import ControlError

#: Faults a card position can carry: the mechanism jams on it, it comes out face up,
#: it is a card of another deck (a duplicate), or it cannot be read; at the shoe, a card switched in
#: after it ("switch": read at the same position, as it did not come out of the deck; issue 28).
POSITION_FAULTS = ("jam", "face_up", "duplicate", "unreadable", "switch")


def positions(value: Any) -> list[int]:
    values = value if isinstance(value, list) else [value]
    if not values or not all(isinstance(v, int) and 1 <= v <= 255 for v in values):
        raise ControlError('"at" is a card position 1..255 or a list of them')
    return values


class CardFaults:
    def __init__(self) -> None:
        self.jam_next = False  # "jam" without "at": the next card (or shuffle) jams
        self.at: dict[int, set[str]] = {}

    def arm(self, args: Mapping[str, Any]) -> bool:
        """Arm a position fault from a ``fault`` control command; False when it is not one."""
        fault = args.get("fault")
        if fault == "jam" and "at" not in args:
            self.jam_next = True
            return True
        if fault in POSITION_FAULTS:
            for position in positions(args.get("at")):
                self.at.setdefault(position, set()).add(fault)
            return True
        return False

    def take_jam(self) -> bool:
        """Consume a pending "jam next"."""
        jam, self.jam_next = self.jam_next, False
        return jam

    def take(self, position: int) -> set[str]:
        """The faults of the card at ``position`` (a pending "jam next" included), consumed."""
        faults = self.at.pop(position, set())
        if self.take_jam():
            faults.add("jam")
        return faults
