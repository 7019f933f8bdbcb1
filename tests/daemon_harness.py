"""One harness for daemon tests: a whole simulated table (the simulators, the daemon, a dealer).

    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:     # most tests
    with simulated_table("ultimate_texas_holdem", tmp_path, monkeypatch) as t:      # the outer check
        t.controls["shuffler"]("set_deck", cards=[...]); t.start_daemon(); t.open_table()
        t.press("no_more_bets"); t.until(predicate, "what"); t.status()["next_action"] ...

Both give the same table (``SimulatedTable``); a test switches by its one line.

* ``simulated_table``: the daemon is ``tablectl run`` in its own process, as systemd runs it; each
  simulator of ``simulators/`` is its own process; the dealer reads the status file.  The outer check.
* ``table_in_process``: the same simulator objects served on loopback ports over their real
  protocols, and ``controller.daemon.TableDaemon`` run as a task, all in one event loop that the
  table runs in a thread of the test's process; a simulator's control commands are its
  ``control()`` coroutine called directly; the dealer waits on each status the daemon publishes
  (an event), never on a timer.  No process starts: a test takes a fraction of the time.
* ``simulated_table(..., simulators="in_process")``: between the two -- the daemon a process, the
  simulators those of ``table_in_process`` in the test's process (a test of the daemon's process: a kill).

``t.daemon`` answers like a process in both (``poll()``, ``wait()``, ``terminate()``, ``kill()``,
``send_signal()``); in process a daemon ended by the journal's test kill point (``raise``) reads
as exit 137, like the process ``os._exit(137)`` ends.  ``t.start_daemon()`` after a stop starts a
new daemon on the same journal and the same running simulators (a restart).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import weakref
from collections import defaultdict
from collections.abc import Callable, Coroutine, Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import structlog

from controller import logs
from controller.config.problems import ENV_PREFIX
from controller.config.table import TableConfig, load_config
from controller.daemon import TableDaemon
from controller.journal.rows import Event
from controller.journal.store import KILL_AT_ENV, Journal, KilledForTest
from demo.dealer import Control, Dealer
from demo.run import demo_key, simulator_options, start_simulator, stop_processes
from drivers.device import Link, device_type
from simulators.control import ControlError
from simulators.panel import PanelSim
from simulators.progressive import ProgressiveSim
from simulators.serial_device import SerialDeviceServer
from simulators.serial_device import arguments as serial_arguments
from simulators.shoe import ShoeSim
from simulators.shuffler import ShufflerSim

if TYPE_CHECKING:
    import pytest

T = TypeVar("T")

ROOT = Path(__file__).resolve().parent.parent
SCHEMES = {"shuffler": "socket", "shoe": "socket", "progressive": "tcp", "panel": "tcp"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


_CONFIGS: dict[tuple[Any, ...], TableConfig] = {}  # the last few read by table_config


def table_config(path: Path) -> TableConfig:
    """``load_config(path)`` as a process started now reads it (the file and the ``TABLE_`` environment
    now), read once per file contents and environment: an in-process sweep restarts a daemon on one
    table a hundred times, and the configuration is frozen (a daemon cannot change it for the next)."""
    key = (str(path.resolve()), path.read_bytes(),
           tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith(ENV_PREFIX))))
    cfg = _CONFIGS.get(key)
    if cfg is None:
        cfg = load_config(path)  # a problem raises (ConfigError): nothing kept
        if len(_CONFIGS) >= 8:
            del _CONFIGS[next(iter(_CONFIGS))]
        _CONFIGS[key] = cfg
    return cfg


def phase(s: dict[str, Any]) -> str | None:
    return (s.get("round") or {}).get("phase")


def round_id(s: dict[str, Any]) -> str | None:
    return (s.get("round") or {}).get("round_id")


def journal(t: SimulatedTable, round_id: str | None) -> tuple[list[Event], list[Event]]:
    """The round's journal events and the table's."""
    with Journal(t.journal_path) as j:
        return j.events(round_id), j.events(None)


def meter_sum(events: Iterable[Event]) -> dict[str, Decimal]:
    """What the ``meter_add`` events among ``events`` added to each meter, in total."""
    total: dict[str, Decimal] = defaultdict(Decimal)
    for e in events:
        if e.kind == "meter_add":
            for meter, value in e.data["meters"].items():
                total[meter] += Decimal(str(value))
    return dict(total)


def at_rest(s: dict[str, Any]) -> bool:
    """Nothing is being dealt: no card asked of the shoe, the round not in the middle of a press's work."""
    return not s.get("expecting_cards") and phase(s) not in ("dealing", "no_more_bets", "reveal")


def clause_id(text: str) -> str:
    """A clause as a plain-ASCII test id: "UTH ch.11 §J(2)(c)" -> "UTH-ch11-J2c"."""
    return re.sub(r"[^A-Za-z0-9-]", "", text.replace(" ch.", "-ch").replace(" §", "-").replace(" ", "-"))


# ------------------------------------------------------------------ driving a round step by step (one seat)

SEAT = 2  # the seat a scripted round is played at unless a test says otherwise


def next_round(t: SimulatedTable, old: str | None, *, load_shoe: bool = True) -> tuple[list[str], dict[str, Any]]:
    """Do every step the daemon requires (with the key where it says so) until a round other than
    ``old`` takes wagers; return the steps done and that status.  A shoe table gets a fresh deck, another each
    round (seed 11 the first, then 12, 13 ...: a deck loaded again would be a replay to the shuffle monitor)."""
    if load_shoe and "shoe" in t.controls:
        t.controls["shoe"]("clear")
        t.controls["shoe"]("load", seed=11 + t.shoe_decks)
        t.shoe_decks += 1
    steps: list[str] = []
    for _ in range(30):
        assert t.daemon is not None and t.daemon.poll() is None, "the daemon exited"
        s = t.status()
        if s.get("next_step"):
            step = s["next_step"]
            steps.append(step["step"])
            t.press(step["button"], key=step["key"])
        elif phase(s) == "wagers" and round_id(s) != old:
            return steps, s
        else:
            t.dealer.wait_change(s, "a new round")
    raise AssertionError(f"no new round after {steps}: {t.status()}")


def first_round(t: SimulatedTable, *, shoe_seed: int | None = None) -> dict[str, Any]:
    """Start the daemon, do the opening steps (ch.4, ch.5 §A-§F); the first round's wagers (a shoe
    table's shoe loaded with the deck of ``shoe_seed`` when given)."""
    t.start_daemon()
    _, s = next_round(t, None, load_shoe=False)
    if shoe_seed is not None and "shoe" in t.controls:
        t.controls["shoe"]("load", seed=shoe_seed)
    return s


def bet(t: SimulatedTable, s: dict[str, Any], seats: tuple[int, ...] = (SEAT,),
        progressive: tuple[int, ...] = (SEAT,)) -> str:
    """The table minimum on each Ante at ``seats``; a progressive wager at ``progressive`` (accepted);
    the dealer leaves the bets to the test.  The round's id."""
    game = t.cfg.game_rules
    areas = [w for w in game.wagers if w != "progressive"]  # bet-sensor area i = wager i
    cents = int(t.cfg.limits(game.antes[0])[0] * 100)
    t.controls["progressive"]("set_bets", bets={str(n): {str(areas.index(a)): cents for a in game.antes}
                                                for n in seats})
    for n in progressive:
        assert t.controls["progressive"]("wager", seat=n)["accepted"]
    rid = round_id(s)
    assert rid is not None, s  # wagers are taken in a round
    t.dealer.bets_for = rid
    return rid


def no_more_bets(t: SimulatedTable, *, progressive: bool = True) -> dict[str, Any]:
    """No more bets: the round takes no more wagers; seat 2's progressive wager is in it or not."""
    s = t.press("no_more_bets")
    assert phase(s) == "no_more_bets", s["message"]
    assert ("progressive" in s["round"]["seats"][str(SEAT)]["wagers"]) == progressive, s["round"]
    return s


def told(s: dict[str, Any]) -> dict[str, Any]:
    """What the dealer was told last, as data (the status's ``told``, controller.service.told)."""
    assert s.get("told") is not None, s
    said: dict[str, Any] = s["told"]
    return said


def said_as_told(s: dict[str, Any]) -> None:
    """The sentences and their data agree: every citation ``told`` (``notice_told``) gives is in the
    ``message`` (``notice``) as written."""
    for data, words in (("told", "message"), ("notice_told", "notice")):
        t = s.get(data)
        if t is not None:
            missing = [c for c in t["clauses"] if c not in s[words]]
            assert not missing, (missing, s[words], t)


def deal(t: SimulatedTable) -> dict[str, Any]:
    """Confirm the count: the cards are dealt (drawn from the shoe as asked); the status once at rest."""
    before = (t.status().get("told") or {}).get("n")
    t.press("confirm")
    return t.until(lambda s: at_rest(s) and told(s)["n"] != before, "the deal")


def deal_a_round(t: SimulatedTable, *, shoe_seed: int | None = None) -> tuple[str, dict[str, Any]]:
    """The first round dealt: seat 2's bets and progressive wager, no more bets, the deal.  The
    round's id and the status once the cards are out."""
    s = first_round(t, shoe_seed=shoe_seed)
    rid = bet(t, s)
    no_more_bets(t)
    return rid, deal(t)


def smallest_decision(to_act: dict[str, Any]) -> str:
    """The smallest decision that keeps the seat in: check, else the smallest bet (else fold)."""
    if to_act.get("check"):
        return "check"
    if to_act.get("multiples"):
        return f"bet_{min(to_act['multiples'])}x"
    return "fold"


def play_out(t: SimulatedTable) -> dict[str, Any]:
    """Each seat to act takes the smallest decision until the round leaves its decisions."""
    for _ in range(30):
        s = t.until(at_rest, "the round at rest")
        if phase(s) != "decisions" or not s["round"].get("to_act"):
            return s
        t.press(smallest_decision(s["round"]["to_act"]))  # "check" twice in a row is a new decision all the same
    raise AssertionError(f"the round never ended: {t.status()}")


def confirm(t: SimulatedTable) -> dict[str, Any]:
    """The dealer paid and collected (or returned every wager) as shown, a held progressive win validated
    with the key, and confirms: the round closes."""
    s = t.status()
    if s.get("validation"):
        s = t.press("confirm", key=True)
    t.controls["progressive"]("set_bets", bets={})
    return t.press("confirm")


@dataclass
class SimulatedTable:
    cfg: TableConfig
    config_path: Path
    state_dir: Path
    controls: dict[str, Control]
    dealer: Dealer
    procs: list[subprocess.Popen[str]] = field(default_factory=list)
    daemon: Any = None  # a subprocess.Popen, or in process a DaemonTask (the same questions answered)
    shoe_decks: int = 0  # the decks next_round loaded into the shoe: each round its own (a seed each)

    @property
    def journal_path(self) -> Path:
        return self.state_dir / "table.journal"

    def status(self) -> dict[str, Any]:
        s = self.dealer.status()
        said_as_told(s)
        return s

    def start_daemon(self) -> None:
        command = [sys.executable, "-m", "controller.cli", "run", "--config", str(self.config_path)]
        self.daemon = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                       env=os.environ.copy())
        self.procs.append(self.daemon)

    def open_table(self, steps: int = 200, first_status_s: float = 60.0) -> None:
        # A daemon starting on a loaded machine may take seconds to publish at all: wait for its first
        # status on its own deadline, so the steps below count the dealer's actions, not the start-up.
        # (the wait is on the status seen, not on a new empty one: in process a status is "new" when it is
        # another object, and every new {} is -- the wait returned at once and spun until the first status)
        deadline = time.monotonic() + first_status_s
        while not (seen := self.status()):
            if self.daemon is not None and self.daemon.poll() is not None:
                raise AssertionError(f"the daemon stopped (exit {self.daemon.returncode}) before it published")
            if time.monotonic() > deadline:
                raise AssertionError(f"the daemon published no status in {first_status_s:.0f} s")
            self.dealer.next_status(seen, 0.5)
        for _ in range(steps):
            if self.status().get("state") == "open" and not self.status().get("next_step"):
                return
            if self.daemon is not None and self.daemon.poll() is not None:
                raise AssertionError(f"the daemon stopped (exit {self.daemon.returncode}) before the table opened")
            self.dealer.step()
        raise AssertionError(f"the table did not open in {steps} steps: {self.status()}")

    def press(self, button: str, *, key: bool = False) -> dict[str, Any]:
        """Press ``button`` (with the floor supervisor's key turned); the status once the daemon took it."""
        if key:
            return self.dealer.with_key(self.status(), button)
        return self.dealer.press(self.status(), button)

    def press_refused(self, button: str, *, supervisor: int | None = None,
                      changes: tuple[str, ...] = ()) -> dict[str, Any]:
        """Press ``button`` (with the key of ``supervisor`` turned, when given) where it must be refused:
        the daemon takes the press, buzzes the panel once and leaves the table and the round as they
        were (state, round, next step, next action; but ``changes``, when the refusal asks for a step).
        The status after it."""
        before = self.status()
        buzzes = self.controls["panel"]("outputs")["buzz_count"]
        if supervisor is None:
            s = self.dealer.press(before, button)
        else:
            self.controls["panel"]("key", on=True, supervisor=supervisor)
            try:
                s = self.dealer.press(before, button)
            finally:
                self.controls["panel"]("key", on=False)
        assert self.controls["panel"]("outputs")["buzz_count"] == buzzes + 1, s["message"]  # refused
        assert told(s)["kind"] == "refused", s["message"]
        unchanged = [k for k in ("state", "round", "next_step", "next_action") if k not in changes]
        assert {k: s[k] for k in unchanged} == {k: before[k] for k in unchanged}, s["message"]
        return s

    def until(self, predicate: Callable[[dict[str, Any]], bool], what: str, steps: int = 200) -> dict[str, Any]:
        """Let the dealer draw cards (shoe tables) until ``predicate(status)``; no other action."""
        for _ in range(steps):
            s = self.status()
            if s and predicate(s):
                return s
            self.dealer.wait_change(s, what) if not s.get("expecting_cards") else self.dealer.step()
        raise AssertionError(f"never reached {what}: {self.status()}")


@contextlib.contextmanager
def simulated_table(game: str, state_dir: Path, monkeypatch: pytest.MonkeyPatch, seed: int = 1,
                    add_devices: tuple[str, ...] = (), config: Path | None = None,
                    simulators: str = "processes") -> Iterator[SimulatedTable]:
    """The example table of ``game`` (config/, or the ``config`` file given), plus ``add_devices`` its
    configuration does not have.  Each simulator picks a free port itself (no port chosen here can be
    taken by another test in between); the daemon is pointed at what it says.

    ``simulators="in_process"``: the daemon is still ``tablectl run`` in its own process (killed by a
    signal, its sockets dropped by the kernel), but the simulators are the objects ``table_in_process``
    serves, on loopback ports over their real protocols, in an event loop of the test's process: a test
    about the daemon's process starts no simulator process (each costs most of a second of CPU)."""
    if simulators not in ("processes", "in_process"):
        raise ValueError(f"simulators: 'processes' or 'in_process', not {simulators!r}")
    path = config or ROOT / "config" / f"{game}.toml"
    text = path.read_text()
    procs: list[subprocess.Popen[str]] = []
    configured = load_config(path)  # the devices as the file configures them (the decks in the shuffler)
    loop = TableLoop() if simulators == "in_process" else None
    servers: list[Any] = []
    try:
        if loop is None:
            controls = _devices(text, add_devices, monkeypatch,
                                lambda d: start_simulator(d, 0, procs, simulator_options(d, configured)))
        else:
            controls = _devices(text, add_devices, monkeypatch, lambda d: _serve_in(loop, servers, d, configured))
        monkeypatch.setenv("TABLE_JOURNAL", str(state_dir / "table.journal"))
        demo_key(state_dir / "table.journal")  # keyed as the demo's table is (P100)
        monkeypatch.setenv("TABLE_LOG_FORMAT", "json")
        cfg = load_config(path)
        dealer = Dealer(cfg, state_dir / "table.status.json", controls, random.Random(seed))
        t = SimulatedTable(cfg, path, state_dir, controls, dealer, procs)
        yield t
    finally:
        stop_processes(procs, timeout=15)
        if loop is not None:
            _close_servers(loop, servers)


# ---------------------------------------------------------------------------------------------- in process


# the in-process daemon whose code is running (set in its task; every task it creates inherits it)
_DAEMON: contextvars.ContextVar[DaemonTask | None] = contextvars.ContextVar("daemon", default=None)


def _owned_task(loop: asyncio.AbstractEventLoop, coro: Any,
                context: contextvars.Context | None = None) -> asyncio.Task[Any]:
    """The table loop's task factory: a task a daemon's code creates (its drivers' polls and reconnects,
    its listeners) is counted the daemon's, to end with it as a killed process's threads end with it."""
    task: asyncio.Task[Any] = asyncio.Task(coro, loop=loop, context=context)
    owner = context.get(_DAEMON) if context is not None else _DAEMON.get()
    if owner is not None:
        owner.owned.add(task)
    return task


class TableLoop:
    """The table's event loop, run in a thread of its own: the simulators and the daemon live in it while
    the test (in the test's thread) drives them, as it drives processes, and waits on what they publish."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.loop.set_task_factory(_owned_task)
        self.thread = threading.Thread(target=self.loop.run_forever, name="table-loop", daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
        """Run ``coro`` in the table's loop; its result here (its exception raised here)."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def call_soon(self, fn: Callable[[], object]) -> None:
        self.loop.call_soon_threadsafe(fn)

    def close(self) -> None:
        async def cancel_the_rest() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        with contextlib.suppress(Exception):
            self.run(cancel_the_rest(), timeout=15)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=15)
        if not self.thread.is_alive():
            self.loop.close()


class SimControl:
    """A simulator's control commands, called directly: ``control("fault", fault="jam")`` as over its
    control port (the arguments and the reply through JSON; a refusal raises as the port's client does)."""

    def __init__(self, loop: TableLoop, handler: Callable[[str, dict[str, Any]], Coroutine[Any, Any, dict[str, Any]]],
                 url: str) -> None:
        self._loop, self._handler, self.url = loop, handler, url

    def __call__(self, cmd: str, **kw: Any) -> dict[str, Any]:
        args = json.loads(json.dumps(kw))
        try:
            reply = self._loop.run(self._handler(cmd, args))
        except ControlError:
            raise
        except (ValueError, KeyError, TypeError) as exc:  # what the control port refuses
            raise ControlError(f"{cmd} refused: {type(exc).__name__}: {exc}") from exc
        fields: dict[str, Any] = json.loads(json.dumps(reply))
        return fields  # the reply's fields, without "ok", as ControlClient gives them


class PublishedStatus:
    """The statuses the daemon publishes, as it publishes them (the loop's thread), for the test's thread."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self.latest: dict[str, Any] = {}
        self.daemon: DaemonTask | None = None  # the daemon publishing (a wait ends when it does)

    def publish(self, text: str) -> None:
        s = json.loads(text)
        with self._cond:
            self.latest = s
            self._cond.notify_all()

    def ended(self) -> None:
        with self._cond:
            self._cond.notify_all()

    def wait_after(self, seen: dict[str, Any], timeout: float) -> dict[str, Any]:
        """The first status published after ``seen``; DaemonEnded if the daemon ends first (``seen``
        itself after ``timeout``)."""
        with self._cond:
            self._cond.wait_for(lambda: self.latest is not seen or self._gone(), timeout)
            if self.latest is seen and self._gone():
                assert self.daemon is not None
                raise DaemonEnded(self.daemon)
            return self.latest

    def _gone(self) -> bool:
        return self.daemon is not None and self.daemon.task.done()


class DaemonEnded(Exception):
    """The dealer waited on a daemon that has ended (killed at a kill point, stopped, crashed)."""

    def __init__(self, daemon: DaemonTask) -> None:
        super().__init__(f"the daemon ended (exit {daemon.returncode}: {daemon.exception()!r})")
        self.returncode = daemon.returncode


class PublishedDealer(Dealer):
    """The scripted dealer of ``make run``, looking at the status as the daemon publishes it."""

    def __init__(self, cfg: TableConfig, published: PublishedStatus, controls: dict[str, Any],
                 rng: random.Random) -> None:
        super().__init__(cfg, Path("/nonexistent"), controls, rng)
        self.published = published

    def status(self) -> dict[str, Any]:
        return self.published.latest

    def next_status(self, s: dict[str, Any], timeout: float) -> None:
        self.published.wait_after(s, timeout)


class DaemonTask:
    """A ``TableDaemon`` run as a task of the table's loop, answering what the tests ask of a daemon process."""

    KILLED = 137  # the exit of a daemon the journal's test kill point ends (os._exit(137), as from SIGKILL)

    def __init__(self, loop: TableLoop, cfg: TableConfig, status_path: Path, published: PublishedStatus) -> None:
        self._loop = loop
        self.owned: weakref.WeakSet[asyncio.Task[Any]] = weakref.WeakSet()  # the tasks its code created
        started: concurrent.futures.Future[TableDaemon] = concurrent.futures.Future()

        async def main() -> None:
            _DAEMON.set(self)
            # built and run in one task, as `tablectl run` does (the log's context is bound in it)
            try:
                daemon = TableDaemon(cfg, status_path=status_path)
            except BaseException as e:
                started.set_exception(e)
                raise
            # exactly what it wrote, and said at once: what it publishes only once recovered, as its process does
            daemon.status_file.on_written(published.publish)
            started.set_result(daemon)
            try:
                await daemon.run()
            finally:
                self._end_as_a_process(daemon)

        self.task: asyncio.Task[None] = loop.run(self._create(main()))
        published.daemon = self
        self.task.add_done_callback(lambda _: published.ended())
        self.daemon: TableDaemon | None = None
        with contextlib.suppress(BaseException):
            self.daemon = started.result(timeout=60)

    def _end_as_a_process(self, daemon: TableDaemon) -> None:
        """What the kernel does when a daemon's process ends: nothing of it runs on and its connections
        close.  A killed daemon's own clean-up is cut short where the cancel finds it (``run``'s ``finally``
        closing its devices): left alone, its drivers polled and reconnected on, and a serial simulator, which
        serves the newest connection, dropped the next daemon's link for each of the killed one's reconnects
        -- the next daemon's device silent at start for DEVICE_START_TIMEOUT (10 s), then backing off up to
        5 s a reconnect.  No byte is written here: a killed process says nothing on its way out."""
        for task in [*daemon._tasks, *self.owned]:
            if task is not asyncio.current_task():
                task.cancel()
        for dev in daemon.devices.started.values():
            link = getattr(dev, "_link", None)  # a serial device's link (drivers.serial_link)
            if link is not None:
                link.close()
            bus = getattr(dev, "bus", None)  # a Modbus device's connection (drivers.modbus)
            if bus is not None:
                bus.close()

    @staticmethod
    async def _create(coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        return asyncio.get_running_loop().create_task(coro)

    @property
    def returncode(self) -> int | None:
        if not self.task.done():
            return None
        if self.task.cancelled():
            return -signal.SIGKILL
        e = self.task.exception()
        if e is None:
            return 0
        return self.KILLED if isinstance(e, KilledForTest) else 1

    def exception(self) -> BaseException | None:
        """Why the daemon ended, if it ended by an exception (not a cancel)."""
        return self.task.exception() if self.task.done() and not self.task.cancelled() else None

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        async def ended() -> None:
            await asyncio.wait({self.task})

        try:
            self._loop.run(ended(), timeout=timeout if timeout is not None else 3600)
        except concurrent.futures.TimeoutError:
            raise subprocess.TimeoutExpired("TableDaemon.run", timeout or 0) from None
        code = self.returncode
        assert code is not None
        return code

    def terminate(self) -> None:
        """As SIGTERM: the daemon stops (its devices closed, its journal closed)."""
        if self.daemon is not None:
            self._loop.call_soon(self.daemon.stop)

    def kill(self) -> None:
        """As near SIGKILL as a task comes: cancelled wherever it waits (its ``finally`` still runs)."""
        self._loop.call_soon(self.task.cancel)

    def send_signal(self, sig: int) -> None:
        self.kill() if sig == signal.SIGKILL else self.terminate()


@dataclass
class InProcessTable(SimulatedTable):
    loop: TableLoop | None = None
    published: PublishedStatus | None = None

    def start_daemon(self) -> None:
        """A new ``TableDaemon`` on the journal and the running simulators (a restart after a stop)."""
        assert self.loop is not None and self.published is not None
        if self.daemon is not None and self.daemon.poll() is None:
            raise AssertionError("a daemon is running: stop it first (t.daemon.terminate(); t.daemon.wait())")
        kill_at = os.environ.get(KILL_AT_ENV, "")
        if kill_at and (kill_at.split(":") + ["", ""])[2] not in ("raise", "full"):
            raise AssertionError(f"{KILL_AT_ENV}={kill_at}: in process only ':raise' or ':full' "
                                 "(an exit would end the test run)")
        cfg = table_config(self.config_path)  # read now, as a started process reads it (the environment now)
        self.daemon = DaemonTask(self.loop, cfg, self.state_dir / "table.status.json", self.published)

    def stop_daemon(self, timeout: float = 30.0) -> int:
        """Stop the daemon as SIGTERM does and wait for it; its exit."""
        assert self.daemon is not None
        self.daemon.terminate()
        code: int = self.daemon.wait(timeout)
        return code


SIMULATORS: dict[str, Callable[[], Any]] = {"shuffler": ShufflerSim, "shoe": ShoeSim,
                                             "progressive": ProgressiveSim, "panel": PanelSim}


# The Modbus devices' URLs' query (drivers.modbus.parse_url): "" as configured, or ``quick_faults``'s
MODBUS_QUERY = ""
QUICK_STALE_S = 0.5  # a Modbus device's heartbeat unchanged this long is OFFLINE (the driver's tests' figure)
QUICK_TIMEOUT_S = 0.15  # a Modbus request unanswered this long is tried again, then failed


def quick_faults(monkeypatch: pytest.MonkeyPatch) -> None:
    """For a test of the faults of the Modbus devices (a heartbeat frozen, a device silent): the in-process
    daemon's drivers find them sooner -- a heartbeat stale after QUICK_STALE_S, not 1.5 s, a request given
    up after QUICK_TIMEOUT_S, not 0.3 s (the URL's ``timeout``) -- and the test waits that much less for
    each.  The same detection, the same checks; the product's defaults unchanged."""
    from drivers.modbus import ModbusDevice

    defaults = ModbusDevice.__init__.__kwdefaults__
    assert defaults is not None and "heartbeat_stale_after" in defaults
    monkeypatch.setitem(defaults, "heartbeat_stale_after", QUICK_STALE_S)
    monkeypatch.setattr(sys.modules[__name__], "MODBUS_QUERY", f"?timeout={QUICK_TIMEOUT_S}")


def _devices(text: str, add_devices: tuple[str, ...], monkeypatch: pytest.MonkeyPatch,
             start: Callable[[str], Any]) -> dict[str, Any]:
    """Each device the configuration ``text`` names (or ``add_devices`` adds) started by ``start``, which gives
    its control, and the daemon pointed at its URL; every other device none.  The controls, by device."""
    controls: dict[str, Any] = {}
    for device in SCHEMES:
        if f"\n{device} =" in text or device in add_devices:
            controls[device] = start(device)
            query = MODBUS_QUERY if device_type(device).link is not Link.SERIAL else ""
            monkeypatch.setenv(f"TABLE_DEVICES__{device.upper()}", controls[device].url + query)
        else:
            monkeypatch.setenv(f"TABLE_DEVICES__{device.upper()}", "null")
    return controls


def _serve_in(loop: TableLoop, servers: list[Any], name: str, cfg: TableConfig) -> SimControl:
    """Simulator ``name`` served in ``loop`` (kept in ``servers``, to be closed with it): its control."""
    server, handler, url = loop.run(_serve(name, cfg))
    servers.append(server)
    return SimControl(loop, handler, url)


async def _serve(name: str, cfg: TableConfig) -> tuple[Any, Any, str]:
    """Simulator ``name`` served in the running loop: (the device, what its control commands go to, its URL)."""
    device = SIMULATORS[name]()
    if device_type(name).link is Link.SERIAL:
        args = serial_arguments(device, simulator_options(name, cfg))  # the options its process would get
        device.configure(args)
        server = SerialDeviceServer(device, seed=args.seed, ack_timeout=args.ack_timeout)
        return server, server.control, await server.start()
    url = await device.serve_tcp()
    device.heartbeat = asyncio.get_running_loop().create_task(device._heartbeat())
    return device, device.control, url


@contextlib.contextmanager
def table_in_process(game: str, state_dir: Path, monkeypatch: pytest.MonkeyPatch, seed: int = 1,
                     add_devices: tuple[str, ...] = (), config: Path | None = None) -> Iterator[InProcessTable]:
    """``simulated_table`` in one process: the simulators and the daemon in the table's event loop."""
    path = config or ROOT / "config" / f"{game}.toml"
    text = path.read_text()
    configured = table_config(path)
    loop = TableLoop()
    servers: list[Any] = []
    t: InProcessTable | None = None
    logging_before = structlog.get_config()
    # the daemon's logs as `tablectl run` sets them up (its format, INFO and above), not structlog's
    # default (every debug line rendered for a console): back as they were after the table
    logs.configure(configured.log_format)
    try:
        controls = _devices(text, add_devices, monkeypatch, lambda d: _serve_in(loop, servers, d, configured))
        monkeypatch.setenv("TABLE_JOURNAL", str(state_dir / "table.journal"))
        demo_key(state_dir / "table.journal")  # keyed as the demo's table is (P100)
        cfg = table_config(path)
        published = PublishedStatus()
        dealer = PublishedDealer(cfg, published, controls, random.Random(seed))
        t = InProcessTable(cfg, path, state_dir, controls, dealer, loop=loop, published=published)
        yield t
    finally:
        if t is not None and t.daemon is not None and t.daemon.poll() is None:
            with contextlib.suppress(Exception):
                t.stop_daemon(timeout=15)
        _close_servers(loop, servers)
        structlog.configure(**logging_before)


def _close_servers(loop: TableLoop, servers: list[Any]) -> None:
    """Close the simulators ``_serve`` served in ``loop``, then the loop."""
    async def close() -> None:
        for server in servers:
            await server.close()

    with contextlib.suppress(Exception):
        loop.run(close(), timeout=15)
    loop.close()
