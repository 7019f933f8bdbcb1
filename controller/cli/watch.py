"""``tablectl watch DEVICE URL``: a device's real driver, one line per thing it reports, commands on stdin.

Owns the watch: the ``Watcher`` (one driver, its event printers, the commands each device type
takes on standard input, listed in ``COMMANDS``), reading standard input in a thread, the drivers'
log level, and closing the driver with a limit so a stuck driver cannot hang the watch.  Card
values print as ``**`` unless ``--show-cards`` (simulators and bench tests only).  Registered with
``sim`` and ``inject`` by controller/cli/device.py.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any, TextIO

from drivers.device import DEVICES as DEVICE_TYPES
from drivers.health import DeviceError, DeviceOffline, Health, stop_task

EXIT_OK, EXIT_REFUSED = 0, 2
EXIT_STUCK = 3  # the driver did not stop when closed

MASK = "**"
SLOW = 0.1  # seconds: a command slower than this says how long it took
STOP_WAIT = 1.0  # seconds to wait for a task being stopped before cancelling it again
STOP_ATTEMPTS = 4

SHOW_CARDS_HELP = (
    "print card values. FOR SIMULATORS AND BENCH TESTS ONLY: at a live table card values "
    "(hole cards, the undealt order) are secret; without this option they print as **"
)

COMMANDS = {
    "shuffler": [
        ("shuffle", "shuffle and count the next deck"),
        ("deliver N", "deliver a stack of N cards (1..52)"),
        ("hold N", "set the next N cards aside (the dealer's stack)"),
        ("release", "deliver the stack held aside"),
        ("status", "state, faults, deck, position, remaining, held"),
        ("link", "link counters (retransmissions, NAKs, CRC errors, garbage bytes)"),
    ],
    "shoe": [
        ("status", "state, faults, position, remaining"),
        ("link", "link counters (retransmissions, NAKs, CRC errors, garbage bytes)"),
    ],
    "progressive": [
        ("lockout on|off", "set or release the lock-out (read back)"),
        ("clear", "clear every accepted and late-attempt flag"),
        ("light SEAT accepted|winner on|off", "a seat's light"),
        ("meter INDEX CENTS", "write a meter sign (read back)"),
        ("meters", "read the meter signs"),
        ("bets", "read the bet sensors"),
        ("status", "lock-out, accepted seats, late attempts"),
    ],
    "panel": [
        ("light NAME on|off", "a button's light (no_more_bets, bet_2x, ...) or a lamp (ready, fault)"),
        ("buzz", "sound the 'refused' buzzer once"),
        ("lights", "which lights are on"),
        ("key", "read the supervisor key switch"),
    ],
}
COMMANDS.update({name: [] for name in DEVICE_TYPES if name not in COMMANDS})  # a new device type: health only
COMMON_COMMANDS = [("help", "this list"), ("quit", "close the driver and exit (also Ctrl-C or end of input)")]


class Usage(Exception):
    """A command line typed wrong."""


def _on_off(word: str) -> bool:
    if word in ("on", "1", "true"):
        return True
    if word in ("off", "0", "false"):
        return False
    raise Usage(f"{word!r}: on or off")


def _int(word: str, what: str) -> int:
    try:
        return int(word)
    except ValueError:
        raise Usage(f"{what}: {word!r} is not a number") from None


def _seats(seats: Any) -> str:
    return ", ".join(str(s) for s in sorted(seats)) or "none"


def _money(cents: int) -> str:
    return f"${cents // 100:,}.{cents % 100:02d}"


def _faults(faults: Any) -> str:
    names = [f.name for f in type(faults) if f.value and f in faults]
    return "|".join(n for n in names if n) or "none"


Command = Callable[[list[str]], Awaitable[str]]
TERMINATED: Any = "\0terminated"  # put on the input queue by SIGTERM (no typed line holds a NUL)


class Watcher:
    """One driver, its event printers and its stdin commands."""

    def __init__(self, device: str, url: str, show_cards: bool, out: TextIO) -> None:
        self.device = device
        self.url = url
        self.show_cards = show_cards
        self.out = out
        self.dev: Any = None
        self.tasks: list[asyncio.Task[None]] = []
        self.health_printed = False
        self.closing = False
        self.stuck = False  # the driver would not stop: exit without asyncio's final wait for it
        self.commands: dict[str, tuple[Command, str]] = {}

    # -- output

    def emit(self, text: str) -> None:
        now = time.time()
        stamp = time.strftime("%H:%M:%S", time.localtime(now)) + f".{int(now % 1 * 1000):03d}"
        print(f"{stamp} {text}", file=self.out, flush=True)

    def card(self, text: str) -> str:
        return text if self.show_cards else MASK

    def error(self, exc: BaseException) -> str:
        from drivers.serial_link import DuplicateCardError

        text = f"{type(exc).__name__}: {exc}"
        if isinstance(exc, DuplicateCardError) and self.show_cards:
            text += f" (card {exc.card})"
        return text

    def health_line(self, health: Any, reason: str | None) -> None:
        self.health_printed = True
        self.emit(f"health {health.name}" + (f": {reason}" if reason else ""))

    # -- life cycle

    async def run(self, lines: asyncio.Queue[str | None]) -> None:
        mode = "card values SHOWN (--show-cards: simulators and bench tests only)" if self.show_cards else (
            "card values masked"
        )
        self.emit(f"watching {self.device} at {self.url}; {mode}; type 'help' for commands")
        await getattr(self, f"_setup_{self.device}", self._setup_any)()
        self.tasks.append(asyncio.create_task(self._remind_offline()))
        try:
            while True:
                line = await lines.get()
                if line is None:
                    self.emit("end of input: closing the driver")
                    return
                if line is TERMINATED:
                    self.emit("terminated: closing the driver")
                    return
                words = line.split()
                if not words:
                    continue
                if words[0] in ("quit", "exit"):
                    self.emit("quit: closing the driver")
                    return
                await self.command(words)
        except asyncio.CancelledError:
            self.emit("interrupted: closing the driver")
            raise
        finally:
            self.closing = True
            stopped = True
            for task in self.tasks:
                stopped &= await _stop(task)
            if self.dev is not None:
                stopped &= await _stop(asyncio.ensure_future(self.dev.close()), cancel=False)
            if stopped:
                self.emit("driver closed")
            else:
                self.stuck = True
                self.emit("the driver did not stop when cancelled (a driver bug); exiting without waiting for it")

    async def command(self, words: list[str]) -> None:
        name, rest = words[0], words[1:]
        if name == "help":
            for usage, text in COMMANDS[self.device] + COMMON_COMMANDS:
                self.emit(f"  {usage:34} {text}")
            return
        entry = self.commands.get(name)
        if entry is None:
            known = ", ".join(usage for usage, _ in COMMANDS[self.device] + COMMON_COMMANDS)
            self.emit(f"{name}: unknown command for the {self.device}; commands: {known}")
            return
        fn, usage = entry
        started = time.monotonic()
        try:
            result = await fn(rest)
        except Usage as e:
            self.emit(f"{name}: usage: {usage} ({e})")
            return
        except (DeviceError, ValueError) as e:
            self.emit(f"{' '.join(words)}: ERROR {self.error(e)}")
            return
        except Exception as e:  # noqa: BLE001 - a driver bug is shown, the watch goes on
            self.emit(f"{' '.join(words)}: ERROR (unexpected) {type(e).__name__}: {e}")
            return
        took = time.monotonic() - started
        self.emit(f"{' '.join(words)}: {result}" + (f" (took {took:.2f} s)" if took >= SLOW else ""))

    def add(self, usage: str, fn: Command) -> None:
        self.commands[usage.split()[0]] = (fn, usage)

    async def _remind_offline(self) -> None:
        """A device that cannot be reached at all changes no state: say so once."""
        await asyncio.sleep(3.0)
        if not self.health_printed and self.dev.health is Health.OFFLINE:
            self.health_line(Health.OFFLINE, self.dev.health_reason or "not connected yet")

    # -- serial devices

    def _serial_health(self, new: Any, reason: str) -> None:
        """The serial drivers give no reason for DEGRADED: say which fault is latched, or the link counters."""
        from drivers.serial_link import DEGRADING_FAULTS

        if new is Health.OFFLINE:
            reason = reason or "not connected"
        elif new is Health.DEGRADED:
            latched = self.dev.faults & DEGRADING_FAULTS
            if latched:
                reason = f"device reports {_faults(latched)}"
            else:
                reason = "the link needed repair (" + self._link_counters() + ")"
        self.health_line(new, reason or None)

    def _link_counters(self) -> str:
        stats = self.dev.link_stats
        if stats is None:
            return "not connected"
        link, dec = stats
        return (
            f"retransmissions {link.retransmissions}, NAKs sent {link.naks_sent}, NAKs received "
            f"{link.naks_received}, CRC errors {dec.crc_errors}, garbage bytes {dec.garbage_bytes}"
        )

    async def _link(self, args: list[str]) -> str:
        return self._link_counters()

    def _stack(self, stack: Any) -> str:
        last = stack.first_position + len(stack) - 1
        cards = " ".join(self.card(c) for c in stack.cards)
        text = f"deck {stack.deck}, positions {stack.first_position}-{last} ({len(stack)} cards): {cards}"
        up = [stack.first_position + i for i, f in enumerate(stack.face_up) if f]
        if up:
            text += f"; FACE UP at position{'s' if len(up) > 1 else ''} {', '.join(map(str, up))}"
        return text

    async def _setup_shuffler(self) -> None:
        from drivers.shuffler import Shuffler

        dev = self.dev = Shuffler(self.url)
        dev.add_health_listener(self._serial_health)

        def n_of(args: list[str]) -> int:
            if len(args) != 1:
                raise Usage("one number")
            return _int(args[0], "N")

        async def shuffle(args: list[str]) -> str:
            r = await dev.shuffle()
            return f"deck {r.deck} in play, {r.count} cards counted"

        async def deliver(args: list[str]) -> str:
            return self._stack(await dev.deliver(n_of(args)))

        async def hold(args: list[str]) -> str:
            n = n_of(args)
            await dev.hold(n)
            return f"{n} cards held aside"

        async def release(args: list[str]) -> str:
            return self._stack(await dev.release())

        async def status(args: list[str]) -> str:
            s = await dev.status()
            return (
                f"state {s.state.name}, faults {_faults(s.faults)}, deck {s.deck or '-'}, position {s.position}, "
                f"remaining {s.remaining}, held {s.held}"
            )

        self.add("shuffle", shuffle)
        self.add("deliver N", deliver)
        self.add("hold N", hold)
        self.add("release", release)
        self.add("status", status)
        self.add("link", self._link)
        await dev.start()

    async def _setup_shoe(self) -> None:
        from drivers.shoe import Shoe

        dev = self.dev = Shoe(self.url)
        dev.add_health_listener(self._serial_health)

        async def status(args: list[str]) -> str:
            s = await dev.status()
            return (
                f"state {s.state.name}, faults {_faults(s.faults)}, position {s.position}, "
                f"remaining {s.remaining}"
            )

        self.add("status", status)
        self.add("link", self._link)
        await dev.start()
        self.tasks.append(asyncio.create_task(self._shoe_cards()))

    async def _shoe_cards(self) -> None:
        from drivers.serial_link import UnreadableCardError

        shoe = self.dev
        while True:
            try:
                drawn = await shoe.next_card()
            except DeviceOffline:
                await shoe.wait_health(Health.ONLINE, Health.DEGRADED)  # the health line said it
                continue
            except UnreadableCardError as e:
                self.emit(f"card #{e.position} UNREADABLE: {self.error(e)}")
                continue
            except DeviceError as e:
                self.emit(f"fault {self.error(e)}")
                continue
            self.emit(f"card #{drawn.position} {self.card(drawn.card)} {'FACE-UP' if drawn.face_up else 'face-down'}")

    # -- Modbus devices

    def _modbus_health(self, health: Any, reason: str) -> None:
        self.health_line(health, reason)

    async def _setup_progressive(self) -> None:
        from drivers.progressive import ProgressiveDriver

        dev = self.dev = self._modbus(ProgressiveDriver)

        async def lockout(args: list[str]) -> str:
            if len(args) != 1:
                raise Usage("on or off")
            on = _on_off(args[0])
            await dev.lock_out(on)
            return f"lock-out {'on' if on else 'off'}, confirmed by read-back"

        async def clear(args: list[str]) -> str:
            await dev.clear_accepted()
            return "accepted and late-attempt flags cleared"

        async def light(args: list[str]) -> str:
            if len(args) != 3 or args[1] not in ("accepted", "winner"):
                raise Usage("three words")
            seat, on = _int(args[0], "SEAT"), _on_off(args[2])
            await dev.set_light(seat, **{args[1]: on})
            return f"seat {seat} {args[1]} light {'on' if on else 'off'}"

        async def meter(args: list[str]) -> str:
            if len(args) != 2:
                raise Usage("two numbers")
            index, cents = _int(args[0], "INDEX"), _int(args[1], "CENTS")
            await dev.set_meters({index: cents})
            return f"meter {index} shows {_money(cents)} (read back)"

        async def meters(args: list[str]) -> str:
            return ", ".join(f"{i}: {_money(c)}" for i, c in (await dev.read_meters()).items())

        async def bets(args: list[str]) -> str:
            sensed = await dev.read_bets()
            parts = [
                f"seat {seat} area {area} {_money(cents)}"
                for seat, areas in sorted(sensed.items())
                for area, cents in sorted(areas.items())
            ]
            return "; ".join(parts) or "no chips sensed"

        async def status(args: list[str]) -> str:
            s = await dev.status()
            return (
                f"lock-out {'on' if s.locked_out else 'off'}, accepted seats {_seats(s.accepted)}, "
                f"late attempts {_seats(s.late)}"
            )

        self.add("lockout on|off", lockout)
        self.add("clear", clear)
        self.add("light SEAT accepted|winner on|off", light)
        self.add("meter INDEX CENTS", meter)
        self.add("meters", meters)
        self.add("bets", bets)
        self.add("status", status)
        await dev.start()
        self.tasks.append(asyncio.create_task(self._progressive_poll()))

    async def _progressive_poll(self) -> None:
        dev = self.dev
        last: Any = None
        while not self.closing:  # also when a cancel is lost in the driver's I/O (see _stop)
            if dev.health is not Health.OFFLINE:
                try:
                    s = await dev.status()
                except DeviceError:
                    s = None
                if s is not None and last is None:
                    self.emit(
                        f"lock-out {'ON' if s.locked_out else 'OFF'}; accepted seats {_seats(s.accepted)}; "
                        f"late attempts {_seats(s.late)}"
                    )
                elif s is not None:
                    if s.locked_out != last.locked_out:
                        self.emit(f"lock-out {'ON' if s.locked_out else 'OFF'}")
                    for seat in sorted(s.accepted - last.accepted):
                        self.emit(f"wager accepted at seat {seat}")
                    for seat in sorted(s.late - last.late):
                        self.emit(f"LATE wager attempt at seat {seat}: placed during lock-out, not recognised")
                    if last.accepted - s.accepted:
                        self.emit(f"accepted flag cleared: seats {_seats(last.accepted - s.accepted)}")
                    if last.late - s.late:
                        self.emit(f"late-attempt flag cleared: seats {_seats(last.late - s.late)}")
                if s is not None:
                    last = s
            await asyncio.sleep(0.2)

    async def _setup_panel(self) -> None:
        from drivers.panel import PanelDriver

        dev = self.dev = self._modbus(PanelDriver)
        dev.on_key_change(self._key_line)

        async def light(args: list[str]) -> str:
            if len(args) != 2:
                raise Usage("two words")
            on = _on_off(args[1])
            await dev.set_light(args[0], on)
            return f"light {args[0]} {'on' if on else 'off'}"

        async def buzz(args: list[str]) -> str:
            await dev.buzz()
            return "buzzer sounded"

        async def lights(args: list[str]) -> str:
            on = [name for name, lit in (await dev.lights()).items() if lit]
            return "on: " + (", ".join(on) or "none")

        async def key(args: list[str]) -> str:
            k = await dev.key_switch()
            return f"key switch {'ON, supervisor ' + str(k.supervisor_id) if k.on else 'OFF'}"

        self.add("light NAME on|off", light)
        self.add("buzz", buzz)
        self.add("lights", lights)
        self.add("key", key)
        await dev.start()
        if dev.key is not None:
            self._key_line(dev.key, initial=True)
        self.tasks.append(asyncio.create_task(self._panel_presses()))

    def _key_line(self, key: Any, initial: bool = False) -> None:
        what = f"ON, supervisor {key.supervisor_id}" if key.on else "OFF"
        self.emit(f"key switch {what}" + (" (at start)" if initial else ""))

    async def _panel_presses(self) -> None:
        async for press in self.dev.presses():
            name = f"bet x{press.multiple}" if press.button == "bet" else press.button
            seq = f"press #{press.seq}" if press.seq else "recovered from the counters"
            outage = "; pressed while the panel could not be reached" if press.after_outage else ""
            self.emit(f"press {name} ({seq}{outage})")

    # -- a device type without commands of its own here: its health

    async def _setup_any(self) -> None:
        dev = self.dev = DEVICE_TYPES[self.device].driver()(self.url)
        dev.add_health_listener(self.health_line)
        await dev.start()

    def _modbus(self, cls: Any) -> Any:
        dev = cls(self.url)  # raises ValueError for a bad URL
        dev.add_health_listener(self._modbus_health)
        return dev


async def _stop(task: asyncio.Future[Any], *, cancel: bool = True) -> bool:
    """``drivers.health.stop_task`` with a limit (a stuck driver must not hang the watch); False if it never ends.

    A crash of the task while it closes is printed, not lost.
    """
    if not await stop_task(task, cancel=cancel, wait=STOP_WAIT, attempts=STOP_ATTEMPTS):
        return False
    if not task.cancelled() and (exc := task.exception()) is not None:
        print(f"tablectl watch: while closing: {type(exc).__name__}: {exc}", file=sys.stderr)
    return True


def _stdin_lines(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[str | None], fd: int) -> None:
    """Read lines from ``fd`` in a thread (works for ttys, pipes and files); None at the end."""

    def put(item: str | None) -> bool:
        try:
            loop.call_soon_threadsafe(queue.put_nowait, item)
            return True
        except RuntimeError:  # the loop is closed: nobody listens any more
            return False

    def read() -> None:
        buf = b""
        while True:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                chunk = b""
            if not chunk:
                if buf.strip():
                    put(buf.decode(errors="replace"))
                put(None)
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if not put(line.decode(errors="replace")):
                    return

    threading.Thread(target=read, name="stdin", daemon=True).start()


LOG_LEVELS = {"off": logging.CRITICAL,  # the drivers log nothing at CRITICAL
              "error": logging.ERROR, "warning": logging.WARNING,
              "info": logging.INFO, "debug": logging.DEBUG}


def _configure_logging(level: str) -> None:
    import structlog

    structlog.configure(
        wrapper_class=structlog.make_filtering_bound_logger(LOG_LEVELS[level]),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),  # stdout carries the events
    )


def cmd_watch(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    if args.log_level == "debug" and not args.show_cards:
        print("tablectl watch: --log-level debug logs card values; it needs --show-cards", file=stderr)
        return EXIT_REFUSED
    _configure_logging(args.log_level)
    watcher = Watcher(args.device, args.url, args.show_cards, stdout)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        lines: asyncio.Queue[str | None] = asyncio.Queue()
        try:
            loop.add_signal_handler(signal.SIGTERM, lambda: lines.put_nowait(TERMINATED))
        except (NotImplementedError, RuntimeError):  # pragma: no cover - not the main thread
            pass
        try:
            fd = stdin.fileno()
        except (AttributeError, OSError, ValueError):
            fd = None
        if fd is None:  # an in-memory stdin (tests): its lines, then the end
            for line in stdin.read().splitlines():
                lines.put_nowait(line)
            lines.put_nowait(None)
        else:
            _stdin_lines(loop, lines, fd)
        await watcher.run(lines)
        if watcher.stuck:  # asyncio.run would wait for the driver's task forever
            stdout.flush()
            stderr.flush()
            os._exit(EXIT_STUCK)

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass  # asyncio.run cancelled the watch, which closed the driver
    except ValueError as e:  # a URL the driver cannot use
        print(f"tablectl watch: {e}", file=stderr)
        return EXIT_REFUSED
    return EXIT_OK
