"""Simulated dealer's button panel (Modbus TCP or RTU over a pty): ``python -m simulators.panel [--rtu]``.

Its firmware debounces each contact (``DEBOUNCE_MS``); each debounced press increments ``press_seq`` and the
button's counter and is written into the press ring (docs/protocols-modbus.md §5).  The contact is simulated
as a waveform in the panel's own time base, so a bouncing press is debounced the same way however loaded the
host is.  Its control commands (``press``, ``key``, ``reboot``, ``glitch``, ``outputs``): docs/protocols-modbus.md §7.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

from pymodbus.constants import ExcCodes

from drivers.registers import BUTTONS, LAMPS, PANEL, PANEL_RING_SIZE, Table, button_code
from simulators.control import ControlError
from simulators.modbus_device import ModbusDeviceSim, now

DEBOUNCE_MS = 5.0
BOUNCE_STEP_MS = 0.3
DEFAULT_HOLD_MS = 60.0
BUZZ_SECONDS = 0.2


def contact_waveform(bounce: int, hold_ms: float) -> list[tuple[float, bool]]:
    """(time in ms, contact closed) transitions of one press; open after the last."""
    t = 0.0
    wave = [(t, True)]
    for _ in range(bounce):
        wave += [(t + BOUNCE_STEP_MS, False), (t + 2 * BOUNCE_STEP_MS, True)]
        t += 2 * BOUNCE_STEP_MS
    t = max(t, hold_ms)
    wave.append((t, False))
    for _ in range(bounce):
        wave += [(t + BOUNCE_STEP_MS, True), (t + 2 * BOUNCE_STEP_MS, False)]
        t += 2 * BOUNCE_STEP_MS
    return wave


def debounce(wave: list[tuple[float, bool]], window_ms: float = DEBOUNCE_MS, stable: bool = False) -> int:
    """Presses the firmware registers for a contact waveform: the debounced
    state follows the contact only after it held still for ``window_ms``; each
    open -> closed change of the debounced state is one press."""
    presses = 0
    for i, (t, closed) in enumerate(wave):
        held = (wave[i + 1][0] if i + 1 < len(wave) else float("inf")) - t
        if held >= window_ms and closed != stable:
            stable = closed
            presses += closed
    return presses


class PanelSim(ModbusDeviceSim):
    """Dealer's button panel with debounced press counters, lights, buzzer and key switch."""

    MAP = PANEL

    def __init__(self, unit: int | None = None) -> None:
        self.buzz_count = 0
        self._buzz_off: asyncio.TimerHandle | None = None
        super().__init__(unit)

    def power_up(self) -> None:
        super().power_up()
        self.store.set("boot_id", random.randrange(1, 0x10000))
        self.buzz_count = 0

    # ---- firmware -----------------------------------------------------------------

    def register_press(self, button: str) -> int:
        seq: int = (self.store.get("press_seq") + 1) & 0xFFFF
        self.store.set("press_seq", seq)
        self.store.set(f"count.{button}", (self.store.get(f"count.{button}") + 1) & 0xFFFF)
        self.store.set(f"ring.{(seq - 1) % PANEL_RING_SIZE}", button_code(button))
        return seq

    def on_write(self, table: Table, address: int, values: list[Any]) -> ExcCodes | None:
        buzzer = self.MAP["buzzer"].address
        err = super().on_write(table, address, values)
        if table is Table.COIL and address <= buzzer < address + len(values) and values[buzzer - address]:
            self.buzz_count += 1
            if self._buzz_off is not None:
                self._buzz_off.cancel()
            self._buzz_off = asyncio.get_running_loop().call_later(
                BUZZ_SECONDS, lambda: self.store.set("buzzer", False))
        return err

    # ---- the physical side ----------------------------------------------------------

    async def control(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        if name == "press":
            buttons = list(args["buttons"]) if "buttons" in args else [args["button"]] * int(args.get("count", 1))
            for b in buttons:
                if b not in BUTTONS:
                    raise ControlError(f"no button {b!r}")
            bounce = int(args.get("bounce", 0))
            hold = float(args.get("hold_ms", DEFAULT_HOLD_MS))
            registered = 0
            for b in buttons:
                for _ in range(debounce(contact_waveform(bounce, hold))):
                    self.register_press(b)
                    registered += 1
            return {"registered": registered, "seq": self.store.get("press_seq"), "at": now()}
        if name == "key":
            on = bool(args.get("on", True))
            supervisor = int(args.get("supervisor", 0)) if on else 0
            self.store.set("key_switch", on)
            self.store.set("supervisor_id", supervisor)
            return {}
        if name == "glitch":
            point = str(args.get("point", ""))
            if point not in {"press_seq", *(f"count.{b}" for b in BUTTONS)}:
                raise ControlError(f"glitch: no counter {point!r} (count.BUTTON or press_seq)")
            self.store.set(point, int(args["value"]) & 0xFFFF)
            return {point: self.store.get(point)}
        if name == "reboot":
            self.power_up()
            return {"boot_id": self.store.get("boot_id")}
        if name == "outputs":
            return {"lights": {n: self.store.get(f"light.{n}") for n in BUTTONS + LAMPS},
                    "buzzer": self.store.get("buzzer"), "buzz_count": self.buzz_count}
        return await super().control(name, args)


if __name__ == "__main__":
    raise SystemExit(PanelSim.main())
