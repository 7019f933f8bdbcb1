"""Driver of the dealer's button panel (Modbus RTU or TCP).

The panel debounces its buttons and counts presses; this driver polls and turns new presses into
``ButtonPress`` events, in press order, exactly once each, flagging those made while the panel could not be
reached (``after_outage``).  The counters are checked, not believed: an implausible reading is a fault, never
a press.  How (the press ring, a power-up, the plausibility rules): docs/protocols-modbus.md §5.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from drivers.health import DeviceError, Health
from drivers.modbus import ModbusDevice
from drivers.registers import (
    BUTTONS,
    LAMPS,
    PANEL,
    PANEL_HEADER_COUNT,
    PANEL_RING_BASE,
    PANEL_RING_SIZE,
    Table,
)

__all__ = ["ButtonPress", "InputFault", "KeySwitch", "PanelDriver"]

BET_MULTIPLES = {"bet_1x": 1, "bet_2x": 2, "bet_3x": 3, "bet_4x": 4}

MAX_PRESS_RATE = 10  # presses a second: more than any dealer's fingers on a debounced panel
# Presses allowed on top of the rate, however short the time: the ring the panel keeps between two
# polls, the most the protocol was built to carry in order (a poll or two missed, a quick burst).
PRESS_BURST = PANEL_RING_SIZE
MAX_PENDING = 256  # presses waiting for the controller: far more than a round needs
# A debounced button pressed by a finger: one press of it between two polls 25 ms apart at the most.
PRESSES_PER_POLL = 1
# The key switch's bit is a request of its own; the header's supervisor_id moves whenever a key with an ID
# is turned, so the bit is read when it moves, while a change waits to be read twice, and at least this
# often (a key of ID 0), not at every poll (docs/protocols-modbus.md §5, the driver's step 1).
KEY_REFRESH = 1.0  # seconds
# A press is taken within ~50 ms however long the panel was left alone, within 25 ms while the dealer is
# pressing (a round's decisions come in runs); the quiet table's polls are half as many, the most of the
# daemon's idle CPU (issue 24).  One press of a button per poll still holds: no finger presses a
# debounced button twice in 50 ms (MAX_PRESS_RATE).
QUIET_POLL_INTERVAL = 0.05  # seconds between polls after QUIET_AFTER without a press
QUIET_AFTER = 2.0  # seconds



@dataclass(frozen=True)
class InputFault:
    """Panel input that cannot be true: ``kind`` is ``counter_jump`` or ``queue_full``; ``reason`` in words."""

    kind: str
    reason: str


FaultListener = Callable[[InputFault], None]


@dataclass(frozen=True)
class ButtonPress:
    button: str  # a name of drivers.registers.BUTTONS, with bet_Nx reported as "bet"
    multiple: int | None = None  # 1..4 for "bet", else None
    seq: int = 0  # the panel's press number (mod 65536); 0 when recovered from counters
    after_outage: bool = False  # pressed while the panel could not be reached
    seen_at: float = 0.0  # time.monotonic() when the driver saw it

    @classmethod
    def of(cls, raw_button: str, **kw: Any) -> ButtonPress:
        if raw_button in BET_MULTIPLES:
            return cls("bet", BET_MULTIPLES[raw_button], **kw)
        return cls(raw_button, None, **kw)


@dataclass(frozen=True)
class KeySwitch:
    on: bool
    supervisor_id: int  # 0 when off


class PanelDriver(ModbusDevice):
    MAP = PANEL
    POLL_INTERVAL = 0.025

    def __init__(self, *args: Any, press_rate: float = MAX_PRESS_RATE, press_burst: int = PRESS_BURST,
                 presses_per_poll: int = PRESSES_PER_POLL, quiet_poll_interval: float = QUIET_POLL_INTERVAL,
                 quiet_after: float = QUIET_AFTER, **kw: Any) -> None:
        super().__init__(*args, **kw)
        # poll_interval while the dealer is pressing, quiet_poll_interval after quiet_after s without a press
        self.quiet_poll_interval = max(quiet_poll_interval, self.poll_interval)
        self.quiet_after = quiet_after
        self._pressed_at = -math.inf  # when the last press was taken (monotonic)
        self.press_rate, self.press_burst = press_rate, press_burst  # what a person can press (module doc)
        self.presses_per_poll = presses_per_poll  # of one button, per poll (module doc)
        self._polls = 0  # polls tried since the counts were last taken, failed ones included
        self._queue: asyncio.Queue[ButtonPress] = asyncio.Queue(MAX_PENDING)
        self._fault_listeners: list[FaultListener] = []
        self._counted_at = 0.0  # when the counters were last taken as they are (monotonic)
        self._boot: int | None = None
        self._seq = 0
        self._counts: list[int] = []
        self._missed_poll = False
        self._key: KeySwitch | None = None
        self._key_seen: KeySwitch | None = None  # the key as the last poll that read it read it
        self._key_read_at = 0.0  # when a poll last read the key switch (monotonic)
        self._supervisor_polled: int | None = None  # supervisor_id as the last poll's header read it
        self._key_callbacks: list[Callable[[KeySwitch], None]] = []

    # ---- events ---------------------------------------------------------------

    async def next_press(self, timeout: float | None = None) -> ButtonPress:
        return await asyncio.wait_for(self._queue.get(), timeout)

    async def presses(self) -> AsyncIterator[ButtonPress]:
        while True:
            yield await self._queue.get()

    def pending(self) -> int:
        return self._queue.qsize()

    def add_fault_listener(self, callback: FaultListener) -> Callable[[], None]:
        """Call ``callback(fault)`` for every panel input that cannot be true (no press is made of it);
        returns a function that removes it."""
        self._fault_listeners.append(callback)
        return lambda: self._fault_listeners.remove(callback) if callback in self._fault_listeners else None

    def _fault(self, kind: str, reason: str, **fields: object) -> None:
        self._log.warning("panel input refused", fault=kind, reason=reason, **fields)
        for cb in list(self._fault_listeners):
            try:
                cb(InputFault(kind, reason))
            except Exception:  # noqa: BLE001 - a listener's bug must not stop the poll loop
                self._log.exception("fault callback failed")

    @property
    def key(self) -> KeySwitch | None:
        """The key switch as of the last poll (``None`` before the first)."""
        return self._key

    def on_key_change(self, callback: Callable[[KeySwitch], None]) -> None:
        self._key_callbacks.append(callback)

    # ---- commands -------------------------------------------------------------

    async def key_switch(self) -> KeySwitch:
        """Read the supervisor key switch now: the switch and the ID are two reads, so a key turned between
        them would read (on, 0) or the last supervisor's ID; read until two readings in a row agree."""
        last: KeySwitch | None = None
        for _ in range(5):
            (on,) = await self.read_bits(Table.DISCRETE_INPUT, self.MAP["key_switch"].address, 1)
            (sup,) = await self.read_regs(Table.INPUT_REGISTER, self.MAP["supervisor_id"].address, 1)
            key = KeySwitch(bool(on), sup if on else 0)
            if key == last:
                return key
            last = key
        raise DeviceError(self.name, "the key switch reads differently at every read")

    async def set_light(self, name: str, on: bool) -> None:
        """Light of a button (``"no_more_bets"``, ``"bet_2x"``...) or a lamp
        (``"ready"``, ``"fault"``)."""
        if name not in BUTTONS and name not in LAMPS:
            raise ValueError(f"no light named {name!r}; lights: {', '.join(BUTTONS + LAMPS)}")
        await self.write_point(f"light.{name}", bool(on))

    async def lights(self) -> dict[str, bool]:
        names = [p for p in self.MAP.in_table(Table.COIL) if p.name.startswith("light.")]
        bits = await self.read_bits(Table.COIL, 0, self.MAP.span(Table.COIL))
        return {p.name[len("light."):]: bits[p.address] for p in names}

    async def buzz(self) -> None:
        """Sound the 'refused' buzzer once."""
        await self.write_point("buzzer", True)

    # ---- polling --------------------------------------------------------------

    def _poll_every(self) -> float:
        quiet = time.monotonic() - self._pressed_at >= self.quiet_after
        return self.quiet_poll_interval if quiet else self.poll_interval

    async def _poll(self) -> None:
        self._polls += 1
        key_on: bool | None = None  # None: this poll did not read the key switch
        try:
            header = await self.read_regs(Table.INPUT_REGISTER, 0, PANEL_HEADER_COUNT, command=False)
            supervisor = header[3]
            now = time.monotonic()
            if (self._key is None or self._key_seen != self._key or supervisor != self._supervisor_polled
                    or now - self._key_read_at >= KEY_REFRESH):
                (key_on,) = await self.read_bits(Table.DISCRETE_INPUT, self.MAP["key_switch"].address, 1,
                                                 command=False)
                self._key_read_at = now
            self._supervisor_polled = supervisor
        except Exception:
            self._missed_poll = True
            raise
        hb, version, seq, _, boot = header[0:5]
        counts = header[PANEL_HEADER_COUNT - len(BUTTONS):]
        self._note_heartbeat(hb, version)
        if self.health is Health.OFFLINE:
            # it answers but its heartbeat stopped (or it speaks another version): an OFFLINE panel
            # reports no presses; those made meanwhile come when it is back, flagged after_outage
            self._missed_poll = True
            return
        if key_on is not None:
            self._take_key(KeySwitch(bool(key_on), supervisor if key_on else 0))
        if self._boot is None:  # first contact: what was pressed before is history
            self._boot, self._seq, self._counts = boot, seq, counts
            self._missed_poll = False
            self._counted_at, self._polls = time.monotonic(), 0
            return
        if self._boot != boot:  # the panel powered up again: its counting restarted from 0
            self._log.warning("panel restarted; press counting starts again", boot_id=boot)
            self._boot, self._seq, self._counts = boot, 0, [0] * len(BUTTONS)
        await self._emit_new(seq, counts)
        self._counted_at, self._polls = time.monotonic(), 0

    def _take_key(self, key: KeySwitch) -> None:
        """A reading of the key switch.  The switch and the supervisor's ID are two reads: a turn between
        them reads (on, 0) once, so a change is believed when two readings in a row agree (a reading that
        differs is read again at the very next poll)."""
        seen, self._key_seen = self._key_seen, key
        if key != self._key and (key == seen or self._key is None):
            first = self._key is None
            self._key = key
            if not first:
                for cb in list(self._key_callbacks):
                    try:
                        cb(key)
                    except Exception:  # noqa: BLE001 - a listener's bug must not stop the poll loop
                        self._log.exception("key callback failed")

    async def _emit_new(self, seq: int, counts: list[int]) -> None:
        new = (seq - self._seq) & 0xFFFF
        deltas = Counter({BUTTONS[i]: (c - o) & 0xFFFF
                          for i, (c, o) in enumerate(zip(counts, self._counts, strict=False)) if c != o})
        if not new and not deltas:
            self._missed_poll = False
            return
        after_outage = self._missed_poll
        now = time.monotonic()
        names: list[str] | None = None
        why = self._impossible(new, deltas, now)
        if why is None and new <= PANEL_RING_SIZE:
            ring = await self._read_ring(self._seq, new)
            names = [BUTTONS[c - 1] for c in ring if 1 <= c <= len(BUTTONS)]
            if len(names) != len(ring) or Counter(names) != deltas:
                why = f"the press ring {ring} does not tell the counters' presses {dict(deltas)}"
        if why is not None:
            # a glitched register or noise, not fingers: nothing is pressed, the counts are the new baseline
            self._seq, self._counts = seq, counts
            self._missed_poll = False
            self._fault("counter_jump", f"{why}; no press taken from them", presses=new, counters=dict(deltas))
            return
        if names is not None:
            presses = [ButtonPress.of(n, seq=(self._seq + 1 + k) & 0xFFFF, after_outage=after_outage, seen_at=now)
                       for k, n in enumerate(names)]
        else:  # more presses than the ring holds since the last poll (an outage): the counters, by button
            self._log.warning("more presses than the ring holds since last poll; order by button", presses=new)
            presses = [ButtonPress.of(b, seq=0, after_outage=after_outage, seen_at=now)
                       for b in BUTTONS for _ in range(deltas.get(b, 0))]
        self._seq, self._counts = seq, counts
        self._missed_poll = False
        self._pressed_at = now
        for p in presses:
            self._log.debug("button press", button=p.button, multiple=p.multiple, seq=p.seq)
            try:
                self._queue.put_nowait(p)
            except asyncio.QueueFull:
                self._fault("queue_full", f"{MAX_PENDING} presses wait untaken; press {p.button} dropped",
                            button=p.button)

    def _impossible(self, new: int, deltas: Counter[str], now: float) -> str | None:
        """Why these counts cannot be presses, or None (docs/protocols-modbus.md §5 (6))."""
        polls = max(self._polls, 1)
        if new != sum(deltas.values()):
            return f"the press number advanced by {new} but the counters by {sum(deltas.values())}"
        button, most = max(deltas.items(), key=lambda kv: kv[1])
        if most > self.presses_per_poll * polls:
            return (f"the {button} counter advanced by {most} in {polls} poll(s), more than "
                    f"{self.presses_per_poll} a poll")
        possible = self.press_burst + math.ceil(self.press_rate * (now - self._counted_at))
        if new > possible:
            return (f"press counters jumped by {new} presses in {now - self._counted_at:.1f} s, more than a "
                    f"person can press ({possible})")
        return None

    async def _read_ring(self, last_seq: int, new: int) -> list[int]:
        """Codes of presses last_seq+1 .. last_seq+new, in press order."""
        first = last_seq % PANEL_RING_SIZE  # ring slot of press number last_seq+1
        out: list[int] = []
        while len(out) < new:
            slot = (first + len(out)) % PANEL_RING_SIZE
            n = min(new - len(out), PANEL_RING_SIZE - slot)
            out += await self.read_regs(Table.INPUT_REGISTER, PANEL_RING_BASE + slot, n, command=False)
        return out
