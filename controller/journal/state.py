"""What the daemon reads of the journal on every press, kept current as events are appended (issue 14).

The meters, the rounds still open, whether progressive wagers are disabled and the last round are
derived from the events; replaying every event for them on each press made a press cost grow with the
table's history.  ``JournalState`` applies each event once, as it is appended (or, for a reader in
another process, as it is read past), and starts from the latest *checkpoint*: a ``checkpoint`` event
in the hash chain (``controller.events.Checkpoint``) holding this state, written at table close and
every ``checkpoint_every`` rounds (P58).  A journal without one (written before checkpoints) is
replayed from its first event once, at open.

Nothing here accumulates per round: the open rounds are removed when they close (normally none or
one), the meters are one amount each.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from controller import events
from controller.journal.rows import METER_ADD, METER_PAID, METER_SET

CHECKPOINT = events.Checkpoint.kind
CLOSING_KINDS = frozenset(e.kind for e in events.CLOSING)
DISABLED = events.ProgressiveDisabled.kind
ENABLED = events.ProgressiveEnabled.kind
#: the kinds whose data the state reads (the others only by their round and seq)
READS_DATA = frozenset({METER_SET, METER_ADD, METER_PAID, DISABLED, ENABLED, CHECKPOINT})


class JournalState:
    """The journal's derived state after event ``seq`` (see the module docstring)."""

    def __init__(self) -> None:
        self.seq = 0  # the last event applied
        self.meters: dict[str, Decimal] = {}
        # the hidden rate's reserve and what the limits kept off the meters (P114), by meter
        self.reserve: dict[str, Decimal] = {}
        self.overflow: dict[str, Decimal] = {}
        self.open_rounds: dict[str, int] = {}  # round -> the seq of its latest event; closed ones leave
        self.progressive_off: str | None = None  # why progressive wagers are disabled, or None
        self.last_round: str | None = None  # the round closed last
        self.rounds = 0  # rounds closed since the journal began (counted from the first checkpoint's)
        self.since_checkpoint = 0  # rounds closed since the latest checkpoint
        self.checkpoint_seq = 0  # the latest checkpoint's seq (0: none)

    def copy(self) -> JournalState:
        other = copy.copy(self)  # the amounts and strings are immutable: the dicts are what is shared
        other.meters, other.open_rounds = dict(self.meters), dict(self.open_rounds)
        other.reserve, other.overflow = dict(self.reserve), dict(self.overflow)
        return other

    def open_round(self) -> str | None:
        """The open round with the latest event (after a crash: the round to recover), or None."""
        return max(self.open_rounds, key=self.open_rounds.__getitem__) if self.open_rounds else None

    def apply(self, seq: int, round_id: str | None, kind: str, data: Mapping[str, Any] | None) -> None:
        """Apply the event ``seq`` (``data`` is needed only for the kinds in ``READS_DATA``)."""
        self.seq = seq
        if round_id is not None:
            if kind in CLOSING_KINDS:
                self.open_rounds.pop(round_id, None)
                self.last_round = round_id
                self.rounds += 1
                self.since_checkpoint += 1
            else:
                self.open_rounds[round_id] = seq
        if kind not in READS_DATA:
            return
        assert data is not None
        if kind == METER_SET:
            for name, v in data["meters"].items():
                self.meters[name] = Decimal(v)
        elif kind == METER_ADD:
            for name, v in data["meters"].items():
                self.meters[name] = self.meters.get(name, Decimal(0)) + Decimal(v)
            for account, held in (("reserve", self.reserve), ("overflow", self.overflow)):
                for name, v in (data.get(account) or {}).items():
                    held[name] = held.get(name, Decimal(0)) + Decimal(v)
        elif kind == METER_PAID:
            self.meters[data["meter"]] = Decimal(data["after"])
            if data.get("reserve") is not None:
                self.reserve[data["meter"]] = Decimal(data["reserve"])
        elif kind == DISABLED:
            self.progressive_off = data["reason"]
        elif kind == ENABLED:
            self.progressive_off = None
        elif kind == CHECKPOINT:
            self.restore(seq, events.Checkpoint.from_data(data))

    def checkpoint(self, why: str, parts: Mapping[str, Any]) -> events.Checkpoint:
        """This state as a checkpoint event; ``parts``: the state kept outside the journal (the table's life,
        a linked table's outbox: P98)."""
        return events.Checkpoint(why=why, meters=dict(self.meters), open_rounds=dict(self.open_rounds),
                                 progressive_off=self.progressive_off, last_round=self.last_round,
                                 rounds=self.rounds, table=parts.get("table"), link=parts.get("link"),
                                 alarms=parts.get("alarms"), reserve=dict(self.reserve) or None,
                                 overflow=dict(self.overflow) or None, parameters=parts.get("parameters"))

    def restore(self, seq: int, cp: events.Checkpoint) -> None:
        """Take the state a checkpoint journaled at ``seq`` holds (it is the state after ``seq - 1``)."""
        self.seq = seq
        self.meters = dict(cp.meters)
        self.reserve = dict(cp.reserve or {})
        self.overflow = dict(cp.overflow or {})
        self.open_rounds = dict(cp.open_rounds)
        self.progressive_off = cp.progressive_off
        self.last_round = cp.last_round
        self.rounds = cp.rounds
        self.since_checkpoint = 0
        self.checkpoint_seq = seq


__all__ = ["CHECKPOINT", "JournalState", "READS_DATA"]
