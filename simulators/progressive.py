"""Simulated progressive table game system (Modbus TCP or RTU over a pty).

    python -m simulators.progressive            # Modbus TCP on a free loopback port
    python -m simulators.progressive --rtu      # Modbus RTU on a new /dev/pts/N, 115200 8N1

Prints ``listening <url> control tcp://127.0.0.1:<port>`` and serves.  The
device behaves as ``docs/protocols-modbus.md`` says: wagers are accepted only
while the lock-out is off; a wager tried during lock-out is not recognised and
sets that seat's late-attempt flag; the ``clear`` register clears flags.

Control commands (besides those of ``simulators.modbus_device``):

  {"cmd": "wager", "seat": 3}          a player places a progressive wager at seat 3
        -> {"accepted": true} | {"accepted": false, "late": true}
  {"cmd": "set_bets", "seat": 2, "area": 0, "cents": 2500}   one bet sensor
  {"cmd": "set_bets", "bets": {"2": {"0": 2500, "1": 500}}}  every sensor (others 0)
  {"cmd": "stick_lockout", "on": true} fault: the lock-out output ignores writes
  {"cmd": "sign", "on": false}         fault: the meter sign is unplugged; writes to the
        meter registers are refused (exception 4, server device failure) until "on": true
  {"cmd": "outputs"}                   what the controller set: lock-out (and when
        it was last switched on, CLOCK_MONOTONIC), lights, meters, flags
"""

from __future__ import annotations

from typing import Any

from pymodbus.constants import ExcCodes

from drivers.registers import (
    BET_AREAS,
    CLEAR_LATE_SHIFT,
    METERS,
    PROGRESSIVE,
    SEATS,
    U32_MAX,
    Table,
    check_area,
    check_seat,
)
from simulators.control import ControlError
from simulators.modbus_device import ModbusDeviceSim, now


class ProgressiveSim(ModbusDeviceSim):
    """Progressive table game system with per-seat wagering devices and bet sensors."""

    MAP = PROGRESSIVE

    def __init__(self, unit: int | None = None) -> None:
        self.lockout_stuck = False
        self.lockout_on_at: float | None = None
        self.lockout_writes = 0
        self.sign_on = True
        super().__init__(unit)

    def power_up(self) -> None:
        super().power_up()
        self.lockout_stuck = False
        self.lockout_on_at = None
        self.lockout_writes = 0
        self.sign_on = True

    # ---- what the master writes -------------------------------------------

    def on_write(self, table: Table, address: int, values: list[Any]) -> ExcCodes | None:
        lockout = self.MAP["lockout"].address
        clear = self.MAP["clear"].address
        if table is Table.COIL and address <= lockout < address + len(values):
            self.lockout_writes += 1
            if self.lockout_stuck:  # the relay does not move: keep the old state
                values = list(values)
                values[lockout - address] = self.store.get("lockout")
            elif values[lockout - address] and not self.store.get("lockout"):
                self.lockout_on_at = now()
        meters = self.MAP["meter.0"].address
        if (table is Table.HOLDING_REGISTER and not self.sign_on
                and address < meters + 2 * METERS and meters < address + len(values)):
            return ExcCodes.DEVICE_FAILURE  # the sign behind the controller does not take the amounts
        if table is Table.HOLDING_REGISTER and address == clear:
            self._clear(int(values[0]))
            if len(values) > 1:
                super().on_write(table, address + 1, values[1:])
            return None
        return super().on_write(table, address, values)

    def _clear(self, mask: int) -> None:
        for s in SEATS:
            if mask & (1 << (s - 1)):
                self.store.set(f"accepted.{s}", False)
            if mask & (1 << (CLEAR_LATE_SHIFT + s - 1)):
                self.store.set(f"late.{s}", False)
        # the command register always reads 0

    # ---- the physical side ------------------------------------------------------

    async def control(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        if name == "wager":
            seat = check_seat(int(args["seat"]))
            if self.store.get("lockout"):
                self.store.set(f"late.{seat}", True)
                return {"accepted": False, "late": True}
            self.store.set(f"accepted.{seat}", True)
            return {"accepted": True}
        if name == "set_bets":
            if "bets" in args:
                for s in SEATS:
                    for a in range(BET_AREAS):
                        self.store.set(f"bet.{s}.{a}", 0)
                for seat, areas in args["bets"].items():
                    for area, cents in areas.items():
                        self._set_bet(int(seat), int(area), int(cents))
            else:
                self._set_bet(int(args["seat"]), int(args["area"]), int(args["cents"]))
            return {}
        if name == "stick_lockout":
            self.lockout_stuck = bool(args.get("on", True))
            return {}
        if name == "sign":
            self.sign_on = bool(args.get("on", True))
            return {}
        if name == "outputs":
            return {
                "lockout": self.store.get("lockout"),
                "lockout_on_at": self.lockout_on_at,
                "lockout_writes": self.lockout_writes,
                "lights": {"accepted": [s for s in SEATS if self.store.get(f"light.accepted.{s}")],
                           "winner": [s for s in SEATS if self.store.get(f"light.winner.{s}")]},
                "meters": [self.store.get(f"meter.{m}") for m in range(METERS)],
                "accepted": [s for s in SEATS if self.store.get(f"accepted.{s}")],
                "late": [s for s in SEATS if self.store.get(f"late.{s}")],
            }
        return await super().control(name, args)

    def _set_bet(self, seat: int, area: int, cents: int) -> None:
        check_seat(seat)
        check_area(area)
        if not 0 <= cents <= U32_MAX:
            raise ControlError(f"cents {cents} out of range")
        self.store.set(f"bet.{seat}.{area}", cents)


if __name__ == "__main__":
    raise SystemExit(ProgressiveSim.main())
