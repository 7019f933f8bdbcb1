"""A whole simulated table for daemon tests: the simulators on free ports, the daemon, a dealer.

    with simulated_table("ultimate_texas_holdem", tmp_path) as t:
        t.dealer.step() ...; t.controls["shuffler"]("set_deck", cards=[...]); t.status()

The daemon is ``tablectl run`` in its own process, as systemd would run it;
the devices are the simulators of ``simulators/`` over their real protocols.
"""

from __future__ import annotations

import contextlib
import os
import random
import socket
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from controller.config import TableConfig, load_config
from controller.demo import Control, Dealer, simulator_options, start_simulator, stop_processes
from controller.journal import Journal

ROOT = Path(__file__).resolve().parent.parent
SCHEMES = {"shuffler": "socket", "shoe": "socket", "progressive": "tcp", "panel": "tcp"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def phase(s: dict) -> str | None:
    return (s.get("round") or {}).get("phase")


def round_id(s: dict) -> str | None:
    return (s.get("round") or {}).get("round_id")


def journal(t: SimulatedTable, round_id: str | None):
    """The round's journal events and the table's."""
    with Journal(t.journal_path) as j:
        return j.events(round_id), j.events(None)


def meter_sum(events) -> dict[str, Decimal]:
    """What the ``meter_add`` events among ``events`` added to each meter, in total."""
    total: dict[str, Decimal] = defaultdict(Decimal)
    for e in events:
        if e.kind == "meter_add":
            for meter, value in e.data["meters"].items():
                total[meter] += Decimal(str(value))
    return dict(total)


def at_rest(s: dict) -> bool:
    """Nothing is being dealt: no card asked of the shoe, the round not in the middle of a press's work."""
    return not s.get("expecting_cards") and phase(s) not in ("dealing", "no_more_bets", "reveal")


@dataclass
class SimulatedTable:
    cfg: TableConfig
    config_path: Path
    state_dir: Path
    controls: dict[str, Control]
    dealer: Dealer
    procs: list[subprocess.Popen] = field(default_factory=list)
    daemon: subprocess.Popen | None = None

    @property
    def journal_path(self) -> Path:
        return self.state_dir / "table.journal"

    def status(self) -> dict:
        return self.dealer.status()

    def start_daemon(self) -> None:
        command = [sys.executable, "-m", "controller.cli", "run", "--config", str(self.config_path)]
        self.daemon = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                       env=os.environ.copy())
        self.procs.append(self.daemon)

    def open_table(self, steps: int = 200) -> None:
        for _ in range(steps):
            if self.status().get("state") == "open" and not self.status().get("next_step"):
                return
            if self.daemon is not None and self.daemon.poll() is not None:
                raise AssertionError(f"the daemon stopped (exit {self.daemon.returncode}) before the table opened")
            self.dealer.step()
        raise AssertionError(f"the table did not open in {steps} steps: {self.status()}")

    def press(self, button: str, *, key: bool = False) -> dict:
        """Press ``button`` (with the floor supervisor's key turned); the status once the daemon took it."""
        if key:
            return self.dealer.with_key(self.status(), button)
        return self.dealer.press(self.status(), button)

    def until(self, predicate, what: str, steps: int = 200) -> dict:
        """Let the dealer draw cards (shoe tables) until ``predicate(status)``; no other action."""
        for _ in range(steps):
            s = self.status()
            if s and predicate(s):
                return s
            self.dealer.wait_change(s, what) if not s.get("expecting_cards") else self.dealer.step()
        raise AssertionError(f"never reached {what}: {self.status()}")


@contextlib.contextmanager
def simulated_table(game: str, state_dir: Path, monkeypatch, seed: int = 1,
                    add_devices: tuple[str, ...] = (), config: Path | None = None) -> Iterator[SimulatedTable]:
    """The example table of ``game`` (config/, or the ``config`` file given), plus ``add_devices`` its
    configuration does not have.  Each simulator picks a free port itself (no port chosen here can be
    taken by another test in between); the daemon is pointed at what it says."""
    path = config or ROOT / "config" / f"{game}.toml"
    text = path.read_text()
    procs: list[subprocess.Popen] = []
    configured = load_config(path)  # the devices as the file configures them (the decks in the shuffler)
    try:
        controls = {}
        for device in SCHEMES:
            if f"\n{device} =" in text or device in add_devices:
                controls[device] = start_simulator(device, 0, procs, simulator_options(device, configured))
                monkeypatch.setenv(f"TABLE_DEVICES__{device.upper()}", controls[device].url)
            else:
                monkeypatch.setenv(f"TABLE_DEVICES__{device.upper()}", "null")
        monkeypatch.setenv("TABLE_JOURNAL", str(state_dir / "table.journal"))
        monkeypatch.setenv("TABLE_LOG_FORMAT", "json")
        cfg = load_config(path)
        dealer = Dealer(cfg, state_dir / "table.status.json", controls, random.Random(seed))
        t = SimulatedTable(cfg, path, state_dir, controls, dealer, procs)
        yield t
    finally:
        stop_processes(procs, timeout=15)
