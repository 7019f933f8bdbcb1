"""A device fault journaled once per episode, with its count when the device works again (issue 30 (10)).

A jammed shuffler failed 574 shuffles and left nothing in the journal; a register that glitches at every
poll would write a row at every poll.  The first fault of a kind opens an episode and is journaled; the
repeats are counted; the episode's end (the device worked again) is journaled with the count.
"""

from __future__ import annotations

from collections.abc import Callable

from controller import events as ev


class FaultEpisodes:
    """The open fault episodes of the devices: (device, fault) -> how many times it happened."""

    def __init__(self, record: Callable[[ev.JournalEvent], object]) -> None:
        self._record = record
        self._open: dict[tuple[str, str], int] = {}

    def fault(self, device: str, fault: str, first: Callable[[], ev.JournalEvent]) -> bool:
        """Count one fault; journal ``first()`` when it opens an episode.  True when it did."""
        key = (device, fault)
        self._open[key] = self._open.get(key, 0) + 1
        if self._open[key] == 1:
            self._record(first())
            return True
        return False

    def worked(self, device: str) -> None:
        """``device`` worked again: every episode of it ends, journaled with its count."""
        for key in [k for k in self._open if k[0] == device]:
            self._record(ev.DeviceFaultEnded(device=device, fault=key[1], count=self._open.pop(key)))

    def count(self, device: str, fault: str) -> int:
        return self._open.get((device, fault), 0)

    def episodes(self) -> list[tuple[str, str]]:
        """The open episodes, (device, fault), in the order they opened (each is an alarm: P105)."""
        return list(self._open)
