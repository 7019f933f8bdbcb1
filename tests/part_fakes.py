"""Stand-ins for a daemon part's collaborators, for tests that drive one part (controller/service/) alone.

``Alarms`` keeps what the part latched, by key; ``Settling`` hands the test the listener the part gave for
settlements, to call with a settled round as the round machine would.
"""

from __future__ import annotations

from typing import Any


class Alarms:
    def __init__(self) -> None:
        self.latched: dict[str, Any] = {}

    def latch(self, key: str, condition: Any) -> None:
        self.latched[key] = condition


class Settling:
    settled: Any

    def on_irregular(self, listener: Any) -> None:
        pass

    def on_settled(self, listener: Any) -> None:
        self.settled = listener
