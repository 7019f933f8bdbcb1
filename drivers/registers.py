"""Register maps of the two Modbus devices, as data.

One source of truth for both ends of the wire: the drivers (``drivers.progressive``,
``drivers.panel``) read and write these addresses, the simulators
(``simulators.progressive``, ``simulators.panel``) serve them, and
``docs/protocols-modbus.md`` describes them for people.  Addresses are the
zero-based protocol addresses that go into the Modbus PDU (no 4xxxx/3xxxx
"register numbers").

Encodings:

* ``bit``: one coil or discrete input.
* ``u16``: one register, unsigned.
* ``u32``: two consecutive registers, unsigned, high word first (big-endian
  words, big-endian bytes: the Modbus convention).  Money is always a ``u32``
  in cents.

A driver knows bytes and registers, never game rules: nothing here names a game.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

PROTOCOL_VERSION = 1
"""Value of every device's ``version`` input register for the maps below."""


class Table(enum.Enum):
    """The four Modbus data tables."""

    COIL = "coil"  # read FC1, write FC5/FC15, controller -> device
    DISCRETE_INPUT = "discrete_input"  # read FC2, device -> controller
    HOLDING_REGISTER = "holding_register"  # read FC3, write FC6/FC16, controller -> device
    INPUT_REGISTER = "input_register"  # read FC4, device -> controller

    @property
    def is_bits(self) -> bool:
        return self in (Table.COIL, Table.DISCRETE_INPUT)

    @property
    def writable(self) -> bool:
        return self in (Table.COIL, Table.HOLDING_REGISTER)


KIND_WIDTH = {"bit": 1, "u16": 1, "u32": 2}


@dataclass(frozen=True)
class Point:
    """One named datum of a device."""

    name: str
    table: Table
    address: int
    kind: str  # "bit" | "u16" | "u32"
    doc: str

    @property
    def width(self) -> int:
        """Number of addresses the point occupies."""
        return KIND_WIDTH[self.kind]

    @property
    def addresses(self) -> range:
        return range(self.address, self.address + self.width)


@dataclass(frozen=True)
class DeviceMap:
    """The register map of one device type."""

    name: str
    default_unit: int
    points: tuple[Point, ...]
    # worked out from the points in __post_init__ (not arguments, not compared)
    _by_name: Mapping[str, Point] = field(init=False, repr=False, compare=False)
    _spans: Mapping[Table, int] = field(init=False, repr=False, compare=False)
    _defined: frozenset[tuple[Table, int]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        seen: dict[tuple[Table, int], str] = {}
        names: set[str] = set()
        for p in self.points:
            if p.name in names:
                raise ValueError(f"{self.name}: duplicate point name {p.name}")
            names.add(p.name)
            if p.kind == "bit" and not p.table.is_bits or p.kind != "bit" and p.table.is_bits:
                raise ValueError(f"{self.name}: {p.name}: kind {p.kind} does not fit {p.table.value}")
            for a in p.addresses:
                if (p.table, a) in seen:
                    raise ValueError(f"{self.name}: {p.name} overlaps {seen[p.table, a]} at {p.table.value} {a}")
                seen[p.table, a] = p.name
        object.__setattr__(self, "_by_name", MappingProxyType({p.name: p for p in self.points}))
        # asked at every request a device or its simulator answers (tens a second): worked out once
        spans: dict[Table, int] = {}
        for p in self.points:
            spans[p.table] = max(spans.get(p.table, 0), p.address + p.width)
        object.__setattr__(self, "_spans", MappingProxyType(spans))
        object.__setattr__(self, "_defined", frozenset(seen))

    @property
    def by_name(self) -> Mapping[str, Point]:
        return self._by_name

    def __getitem__(self, name: str) -> Point:
        return self.by_name[name]

    def in_table(self, table: Table) -> list[Point]:
        return sorted((p for p in self.points if p.table is table), key=lambda p: p.address)

    def span(self, table: Table) -> int:
        """One past the highest address used in ``table`` (0 when unused)."""
        return self._spans.get(table, 0)

    def defined(self, table: Table, address: int) -> bool:
        return (table, address) in self._defined


# --------------------------------------------------------------------------
# value helpers
# --------------------------------------------------------------------------

U16_MAX = 0xFFFF
U32_MAX = 0xFFFF_FFFF


def u32_to_regs(value: int) -> list[int]:
    """``value`` as two registers, high word first."""
    if not 0 <= value <= U32_MAX:
        raise ValueError(f"{value} does not fit an unsigned 32-bit register pair")
    return [(value >> 16) & U16_MAX, value & U16_MAX]


def regs_to_u32(hi: int, lo: int) -> int:
    return ((hi & U16_MAX) << 16) | (lo & U16_MAX)


def seats_to_mask(seats: Iterable[int], base_bit: int = 0) -> int:
    mask = 0
    for s in seats:
        check_seat(s)
        mask |= 1 << (base_bit + s - 1)
    return mask


# --------------------------------------------------------------------------
# progressive table game system
# --------------------------------------------------------------------------

SEATS = range(1, 7)
METERS = 8
BET_AREAS = 8

PROG_ACCEPTED_BASE = 0  # discrete inputs 0..5
PROG_LATE_BASE = 8  # discrete inputs 8..13
PROG_LIGHT_ACCEPTED_BASE = 8  # coils 8..13
PROG_LIGHT_WINNER_BASE = 16  # coils 16..21
PROG_METER_BASE = 16  # holding registers 16..31
PROG_BET_BASE = 32  # input registers 32..127
PROG_BET_SEAT_STRIDE = 2 * BET_AREAS  # 16 registers per seat

CLEAR_LATE_SHIFT = 8
"""In the ``clear`` command register, bit ``s-1`` clears seat s's accepted flag,
bit ``8+s-1`` its late-attempt flag."""


def check_seat(seat: int) -> int:
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in SEATS:
        raise ValueError(f"seat must be 1..{SEATS[-1]}, got {seat!r}")
    return seat


def check_meter(index: int) -> int:
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < METERS:
        raise ValueError(f"meter index must be 0..{METERS - 1}, got {index!r}")
    return index


def check_area(area: int) -> int:
    if not isinstance(area, int) or isinstance(area, bool) or not 0 <= area < BET_AREAS:
        raise ValueError(f"betting area must be 0..{BET_AREAS - 1}, got {area!r}")
    return area


def bet_address(seat: int, area: int) -> int:
    return PROG_BET_BASE + (check_seat(seat) - 1) * PROG_BET_SEAT_STRIDE + 2 * check_area(area)


def meter_address(index: int) -> int:
    return PROG_METER_BASE + 2 * check_meter(index)


def _progressive_points() -> tuple[Point, ...]:
    pts: list[Point] = [
        Point("lockout", Table.COIL, 0, "bit",
              "1 = lock-out: the seats' wagering devices do not recognise wagers "
              "(set at \"no more bets\"); 0 = wagers accepted"),
    ]
    for s in SEATS:
        pts.append(Point(f"light.accepted.{s}", Table.COIL, PROG_LIGHT_ACCEPTED_BASE + s - 1, "bit",
                         f"seat {s} 'wager accepted' light"))
    for s in SEATS:
        pts.append(Point(f"light.winner.{s}", Table.COIL, PROG_LIGHT_WINNER_BASE + s - 1, "bit",
                         f"seat {s} 'progressive winner' light"))
    for s in SEATS:
        pts.append(Point(f"accepted.{s}", Table.DISCRETE_INPUT, PROG_ACCEPTED_BASE + s - 1, "bit",
                         f"seat {s} wagering device accepted a wager (latched until cleared)"))
    for s in SEATS:
        pts.append(Point(f"late.{s}", Table.DISCRETE_INPUT, PROG_LATE_BASE + s - 1, "bit",
                         f"seat {s}: a wager was attempted while locked out and not recognised "
                         "(latched until cleared)"))
    pts.append(Point("clear", Table.HOLDING_REGISTER, 0, "u16",
                     "command: write a mask; bit s-1 clears accepted.s, bit 8+s-1 clears late.s; reads 0"))
    for m in range(METERS):
        pts.append(Point(f"meter.{m}", Table.HOLDING_REGISTER, PROG_METER_BASE + 2 * m, "u32",
                         f"meter sign {m}: amount shown, cents"))
    pts.append(Point("heartbeat", Table.INPUT_REGISTER, 0, "u16",
                     "incremented by the device every 100 ms, wraps 65535 -> 0"))
    pts.append(Point("version", Table.INPUT_REGISTER, 1, "u16",
                     f"protocol version of this map ({PROTOCOL_VERSION})"))
    for s in SEATS:
        for a in range(BET_AREAS):
            pts.append(Point(f"bet.{s}.{a}", Table.INPUT_REGISTER,
                             PROG_BET_BASE + (s - 1) * PROG_BET_SEAT_STRIDE + 2 * a, "u32",
                             f"bet sensor, seat {s}, betting area {a}: value of chips, cents"))
    return tuple(pts)


PROGRESSIVE = DeviceMap("progressive", default_unit=1, points=_progressive_points())


# --------------------------------------------------------------------------
# dealer's button panel
# --------------------------------------------------------------------------

BUTTONS: tuple[str, ...] = (
    "no_more_bets",
    "deal",
    "seat_1", "seat_2", "seat_3", "seat_4", "seat_5", "seat_6",
    "check",
    "bet_1x", "bet_2x", "bet_3x", "bet_4x",
    "fold",
    "confirm",
    "undo",
    "void_round",
    "shuffle",
    "irregularity",  # added after protocol version 1's first 18 buttons: a panel without it never reports it
)
"""Button index i is reported as code i+1 in the press ring."""

#: each button as its key cap reads (the screens' words, web/words.py)
WORDS: dict[str, str] = {
    "no_more_bets": "No more bets", "deal": "Deal", **{f"seat_{n}": f"Seat {n}" for n in range(1, 7)},
    "check": "Check", **{f"bet_{k}x": f"Bet {k}x" for k in range(1, 5)}, "fold": "Fold", "confirm": "Confirm",
    "undo": "Undo", "void_round": "Void the round", "shuffle": "Shuffle", "irregularity": "Irregularity",
}

LAMPS: tuple[str, ...] = ("ready", "fault")
"""Indicator lamps that are not a button's own light."""

PANEL_COUNTER_BASE = 5  # input registers 5..23
PANEL_RING_BASE = 32  # input registers 32..95
PANEL_RING_SIZE = 64
PANEL_HEADER_COUNT = PANEL_COUNTER_BASE + len(BUTTONS)  # input registers 0..23, read every poll
PANEL_LIGHT_BASE = 16  # coils 16..34
PANEL_LAMP_BASE = 1  # coils 1..2


def button_code(button: str) -> int:
    return BUTTONS.index(button) + 1


def _panel_points() -> tuple[Point, ...]:
    pts: list[Point] = [
        Point("buzzer", Table.COIL, 0, "bit",
              "write 1: sound the 'refused' buzzer once (about 200 ms); the device clears it"),
    ]
    for i, lamp in enumerate(LAMPS):
        pts.append(Point(f"light.{lamp}", Table.COIL, PANEL_LAMP_BASE + i, "bit", f"'{lamp}' lamp"))
    for i, b in enumerate(BUTTONS):
        pts.append(Point(f"light.{b}", Table.COIL, PANEL_LIGHT_BASE + i, "bit", f"light in the {b} button"))
    pts.append(Point("key_switch", Table.DISCRETE_INPUT, 0, "bit", "1 = floor supervisor key turned on"))
    pts += [
        Point("heartbeat", Table.INPUT_REGISTER, 0, "u16",
              "incremented by the device every 100 ms, wraps 65535 -> 0"),
        Point("version", Table.INPUT_REGISTER, 1, "u16", f"protocol version of this map ({PROTOCOL_VERSION})"),
        Point("press_seq", Table.INPUT_REGISTER, 2, "u16",
              "number of presses registered since power-up, wraps 65535 -> 0"),
        Point("supervisor_id", Table.INPUT_REGISTER, 3, "u16",
              "id of the supervisor key in the switch, 0 when the key is off"),
        Point("boot_id", Table.INPUT_REGISTER, 4, "u16",
              "changes at every power-up (counters restart from 0)"),
    ]
    for i, b in enumerate(BUTTONS):
        pts.append(Point(f"count.{b}", Table.INPUT_REGISTER, PANEL_COUNTER_BASE + i, "u16",
                         f"presses of {b} since power-up (debounced), wraps 65535 -> 0"))
    for k in range(PANEL_RING_SIZE):
        pts.append(Point(f"ring.{k}", Table.INPUT_REGISTER, PANEL_RING_BASE + k, "u16",
                         "button code of press number n is at ring[(n-1) % 64]; 0 = empty"))
    return tuple(pts)


PANEL = DeviceMap("panel", default_unit=2, points=_panel_points())

MAPS: dict[str, DeviceMap] = {"progressive": PROGRESSIVE, "panel": PANEL}
