"""Driver of the progressive table game system (Modbus RTU or TCP).

What the device is for (e.g. JHE ch.2 §C, UTH ch.8 §C): a wagering device at each
seat acknowledges a Progressive wager; the lock-out prevents the recognition of
any wager placed after "no more bets"; lights show accepted wagers and winners;
the meter signs show the progressive amounts.  The same unit carries the bet
sensors of every betting area (input registers, cents).

This driver knows registers, not rules: it does not know which game is played,
what a meter means or which betting area is which wager.  Register map:
``drivers.registers.PROGRESSIVE``; protocol: ``docs/protocols-modbus.md``.

    async with ProgressiveDriver("tcp://127.0.0.1:5020") as prog:
        await prog.lock_out(True)            # writes the coil AND reads it back
        seats = await prog.accepted_seats()  # {2, 5}
        late = await prog.late_seats()       # seats that tried after lock-out
        await prog.set_meters({0: 1_234_567})
        await prog.clear_accepted()          # end of round, while locked out
        await prog.lock_out(False)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from drivers.modbus import DeviceProtocolError, ModbusDevice
from drivers.registers import (
    BET_AREAS,
    CLEAR_LATE_SHIFT,
    METERS,
    PROG_ACCEPTED_BASE,
    PROG_BET_BASE,
    PROG_BET_SEAT_STRIDE,
    PROG_LATE_BASE,
    PROG_LIGHT_ACCEPTED_BASE,
    PROG_LIGHT_WINNER_BASE,
    PROG_METER_BASE,
    PROGRESSIVE,
    SEATS,
    U32_MAX,
    Table,
    check_meter,
    check_seat,
    regs_to_u32,
    seats_to_mask,
    u32_to_regs,
)

__all__ = ["LockoutNotConfirmed", "ProgressiveDriver", "ProgressiveStatus"]


class LockoutNotConfirmed(DeviceProtocolError):
    """The lock-out coil did not read back as written: the wagering devices
    cannot be trusted to refuse (or to accept) wagers."""


@dataclass(frozen=True)
class ProgressiveStatus:
    locked_out: bool
    accepted: frozenset[int]
    late: frozenset[int]


def _seats(bits: list[bool], base: int) -> frozenset[int]:
    return frozenset(s for s in SEATS if bits[base + s - 1])


class ProgressiveDriver(ModbusDevice):
    MAP = PROGRESSIVE
    # The poll is the device's health alone: what the rules ask at no more bets (the lock-out written and
    # read back, the accepted count) is read by the commands when the controller needs it, never from a
    # poll.  A heartbeat frozen or a device silent is still OFFLINE within 1.5 s + one poll (§3, §6:
    # ModbusDevice._interval), with four polls a second instead of ten (issue 24).
    POLL_INTERVAL = 0.25

    async def _poll(self) -> None:
        hb, version = await self.read_regs(Table.INPUT_REGISTER, 0, 2, command=False)
        self._note_heartbeat(hb, version)

    # ---- lock-out -------------------------------------------------------------

    async def lock_out(self, on: bool = True) -> None:
        """Set (``True``) or release the lock-out, then read it back.

        Raises :class:`LockoutNotConfirmed` if the device does not report the
        state written, :class:`~drivers.modbus.DeviceOffline` if it does not
        answer.
        """
        p = self.MAP["lockout"]
        await self.write_coils(p.address, [bool(on)])
        (state,) = await self.read_bits(Table.COIL, p.address, 1)
        if state != bool(on):
            self._log.error("lock-out not confirmed", wanted=bool(on), read_back=state)
            raise LockoutNotConfirmed(self.name, f"lock-out written {int(on)} but reads back {int(state)}")
        self._log.info("lock-out set" if on else "lock-out released")

    async def locked_out(self) -> bool:
        return bool(await self.read_point("lockout"))

    # ---- wagers ---------------------------------------------------------------

    async def status(self) -> ProgressiveStatus:
        """Lock-out state, accepted seats and late attempts (three reads)."""
        bits = await self.read_bits(Table.DISCRETE_INPUT, 0, PROG_LATE_BASE + len(SEATS))
        locked = await self.locked_out()
        return ProgressiveStatus(locked, _seats(bits, PROG_ACCEPTED_BASE), _seats(bits, PROG_LATE_BASE))

    async def accepted_seats(self) -> set[int]:
        """Seats whose wagering device accepted a wager (latched until cleared)."""
        bits = await self.read_bits(Table.DISCRETE_INPUT, PROG_ACCEPTED_BASE, len(SEATS))
        return set(_seats(bits, 0))

    async def late_seats(self) -> set[int]:
        """Seats where a wager was attempted during lock-out and not recognised."""
        bits = await self.read_bits(Table.DISCRETE_INPUT, PROG_LATE_BASE, len(SEATS))
        return set(_seats(bits, 0))

    async def clear_accepted(self, seats: Iterable[int] | None = None, *, late: bool = True) -> None:
        """Clear the accepted flags (and, with ``late``, the late-attempt flags)
        of ``seats`` (default: all).  Call it while locked out: a wager accepted
        between the last read and the clear would otherwise be wiped."""
        seats = list(SEATS) if seats is None else list(seats)
        mask = seats_to_mask(seats)
        if late:
            mask |= seats_to_mask(seats, CLEAR_LATE_SHIFT)
        await self.write_regs(self.MAP["clear"].address, [mask])

    # ---- lights ---------------------------------------------------------------

    async def set_light(self, seat: int, *, accepted: bool | None = None, winner: bool | None = None) -> None:
        """Switch a seat's 'accepted' and/or 'winner' light; ``None`` leaves it."""
        check_seat(seat)
        if accepted is not None:
            await self.write_coils(PROG_LIGHT_ACCEPTED_BASE + seat - 1, [bool(accepted)])
        if winner is not None:
            await self.write_coils(PROG_LIGHT_WINNER_BASE + seat - 1, [bool(winner)])

    async def set_lights(self, *, accepted: Iterable[int] = (), winner: Iterable[int] = ()) -> None:
        """Set every seat's lights at once: the seats named on, the others off."""
        acc, win = {check_seat(s) for s in accepted}, {check_seat(s) for s in winner}
        await self.write_coils(PROG_LIGHT_ACCEPTED_BASE, [s in acc for s in SEATS])
        await self.write_coils(PROG_LIGHT_WINNER_BASE, [s in win for s in SEATS])

    async def lights(self) -> dict[str, set[int]]:
        bits = await self.read_bits(Table.COIL, 0, PROG_LIGHT_WINNER_BASE + len(SEATS))
        return {"accepted": set(_seats(bits, PROG_LIGHT_ACCEPTED_BASE)),
                "winner": set(_seats(bits, PROG_LIGHT_WINNER_BASE))}

    # ---- meters ---------------------------------------------------------------

    async def set_meters(self, meters: Mapping[int, int]) -> None:
        """Write meter sign values (cents), then read them back.

        Contiguous meters go out in one write.  Raises ``ValueError`` for a bad
        index or amount before anything is sent, ``DeviceProtocolError`` on a
        read-back mismatch.
        """
        values: dict[int, int] = {}
        for index, cents in meters.items():
            check_meter(index)
            if not isinstance(cents, int) or isinstance(cents, bool) or not 0 <= cents <= U32_MAX:
                raise ValueError(f"meter {index}: amount must be 0..{U32_MAX} cents, got {cents!r}")
            values[index] = cents
        run: list[int] = []
        ends: list[int | None] = [*sorted(values), None]  # None: past the last meter, the last run ends
        for following in ends:
            if run and (following is None or following != run[-1] + 1):
                regs = [r for i in run for r in u32_to_regs(values[i])]
                await self.write_regs(PROG_METER_BASE + 2 * run[0], regs)
                run = []
            if following is not None:
                run.append(following)
        shown = await self.read_meters()
        wrong = {i: (v, shown[i]) for i, v in values.items() if shown[i] != v}
        if wrong:
            raise self._bad_reply(f"meter read-back mismatch (written, read): {wrong}")

    async def read_meters(self) -> dict[int, int]:
        regs = await self.read_regs(Table.HOLDING_REGISTER, PROG_METER_BASE, 2 * METERS)
        return {m: regs_to_u32(regs[2 * m], regs[2 * m + 1]) for m in range(METERS)}

    # ---- bet sensors ----------------------------------------------------------

    async def read_bets(self) -> dict[int, dict[int, int]]:
        """Chips sensed in every betting area: ``{seat: {area: cents}}``.

        Every seat 1..6 is a key; only areas holding chips (non-zero) appear.
        What area n means is the table layout's business, not the driver's.
        """
        regs = await self.read_regs(Table.INPUT_REGISTER, PROG_BET_BASE, len(SEATS) * PROG_BET_SEAT_STRIDE)
        out: dict[int, dict[int, int]] = {}
        for s in SEATS:
            base = (s - 1) * PROG_BET_SEAT_STRIDE
            areas = {a: regs_to_u32(regs[base + 2 * a], regs[base + 2 * a + 1]) for a in range(BET_AREAS)}
            out[s] = {a: c for a, c in areas.items() if c}
        return out
