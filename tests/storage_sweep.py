"""Storage faults across whole runs of a table, in process: the disk fills (or fails) at journal writes.

``Disk`` stands in for the journal's test hook (``controller.journal.store._test_kill_point``, called
before every write) and for the reserve's allocation (``controller.service.storage.os.posix_fallocate``):
armed, it fails the n-th journal write from now as SQLite fails it -- ``database or disk is full`` or
``disk I/O error`` -- and every write after it, until the fault goes:

* ``full``: the disk is full; deleting the reserve beside the journal frees room (P104), so the writes take
  again once the daemon has given it up -- but the reserve cannot be made again (no new round opens) until
  the floor frees space (``free()``);
* ``full_no_reserve``: full, and what the reserve frees is taken at once by something else: every write
  fails until ``free()``;
* ``io``: an I/O error: every write fails until ``free()`` (the reserve is not given up for it).

``StorageSweep`` plays the scripted dealer of ``make run`` (``kill_sweep.Sweep``'s play: progressive wagers,
a royal now and then, card devices failing, voids) and puts a fault at random writes.  During each fault
the dealer keeps pressing; after it the checks are those of the kill-point sweep plus:

* the daemon is alive after every fault, and takes every press (refused while the fault lasts);
* every press refused during it names its cause (``told``: ``refused``, ``journal_fault`` and the disk's
  cause in ``also``, or ``disk_full`` with P104 while no new round opens);
* while the journal cannot be written, nothing is journaled and the round the status shows is the round
  the journal holds (``RoundController.restore``): no decision, card or reveal from a glitch;
* the meters add up to the cent (``kill_invariants``): nothing lost, nothing doubled.
"""

from __future__ import annotations

import asyncio
import errno
import json
import random
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.journal.store import Journal
from controller.round.machine import RoundController
from controller.service.storage import reserve_path
from controller.table import setup_from_journal
from daemon_harness import DaemonEnded
from kill_sweep import Killer, Sweep

MODES = ("full", "full_no_reserve", "io")
ERRORS = {"full": "database or disk is full", "full_no_reserve": "database or disk is full", "io": "disk I/O error"}
MAX_STEPS = 80  # dealer steps to reach an armed fault (not counted when not reached)
HALT_STEPS = 6  # dealer presses made while a fault lasts, at most


class Disk:
    """The journal's writes and the reserve's room, failing as a full or failing disk does (see the module)."""

    def __init__(self, journal_path: Path) -> None:
        self.reserve = reserve_path(journal_path)
        self.mode: str | None = None  # the fault now, or None
        self.at: int | None = None  # the armed fault: the n-th write from now
        self.seen = 0
        self.failed = 0  # writes failed since the fault began
        self.no_room = False  # the reserve cannot be made (the disk is full)
        self.armed_mode = "full"

    def arm(self, n: int, mode: str) -> None:
        self.at, self.seen, self.armed_mode = n, 0, mode

    def hook(self, journal: Journal, when: str, kinds: list[str]) -> None:
        if when != "before":
            return
        if self.at is not None:
            self.seen += 1
            if self.seen == self.at:
                self.mode, self.at, self.failed = self.armed_mode, None, 0
                self.no_room = self.mode != "io"
        if self.mode == "full" and not self.reserve.exists():
            self.mode = None  # the reserve's room is the journal's now
        if self.mode is not None:
            self.failed += 1
            raise sqlite3.OperationalError(ERRORS[self.mode])

    def free(self) -> None:
        """The floor frees space (or the disk answers again): every write takes, the reserve can be made."""
        self.mode, self.no_room = None, False

    def fallocate(self, real: Any) -> Any:
        def fallocate(fd: int, offset: int, length: int) -> None:
            if self.no_room:
                raise OSError(errno.ENOSPC, "No space left on device")
            real(fd, offset, length)
        return fallocate


@dataclass
class StorageResult:
    game: str
    faults: int = 0
    by_mode: Counter[str] = field(default_factory=Counter)
    refusals: int = 0  # presses refused during the faults, each naming its cause
    writes_failed: int = 0
    held_back: int = 0  # faults after which a round waited for room
    violations: list[str] = field(default_factory=list)
    rounds_closed: int = 0
    unreached: int = 0

    def line(self) -> dict[str, Any]:
        return {"variant": "storage", "game": self.game, "faults": self.faults, "by_mode": dict(self.by_mode),
                "refusals": self.refusals, "writes_failed": self.writes_failed, "held_back": self.held_back,
                "rounds_closed": self.rounds_closed, "unreached": self.unreached, "violations": self.violations}


def journal_round(path: Path, round_id: str) -> dict[str, Any]:
    """The public view of ``round_id`` rebuilt from the journal."""
    with Journal.read_only(path) as j:
        events = j.events(round_id)
    r = asyncio.run(RoundController.restore(round_id, setup_from_journal(events[0].data),
                                            [(e.kind, e.data) for e in events]))
    return r.public_view()


class StorageSweep:
    def __init__(self, t: Any, disk: Disk, rng: random.Random, game: str) -> None:
        self.t, self.disk, self.rng = t, disk, rng
        self.play = Sweep(t, Killer(), rng, game)  # its dealer's play and its checks, never armed to kill
        self.result = StorageResult(game)
        self._last_n = -1  # the last refusal counted (``told["n"]``)

    def _violation(self, what: str) -> None:
        self.result.violations.append(f"fault {self.result.faults}: {what}")

    def _step(self) -> None:
        try:
            self.play.step()
        except DaemonEnded as e:
            self._violation(f"the daemon ended: {e}")
            raise

    def _check_halted(self) -> None:
        """While the journal takes no write, the status's round is the journal's (compared only when no status
        was published meanwhile: the daemon's retry may have taken a write in between)."""
        s = self.t.status()
        r = s.get("round")
        if r is None or s["storage"]["state"] != "halted":
            return
        view = json.loads(json.dumps(journal_round(self.t.journal_path, r["round_id"]), default=str))
        if self.t.status() is s and r != view:
            self._violation(f"the status's round is not the journal's: {r} != {view}")

    def _refusal(self, s: dict[str, Any]) -> None:
        told = s.get("told") or {}
        if told.get("kind") != "refused" or told["n"] == self._last_n:
            return
        self._last_n = told["n"]
        self.result.refusals += 1
        if told["cause"] == "journal_fault":
            if not told["also"] or told["also"][0] not in ("disk_full", "io_error") or "P97" not in told["clauses"]:
                self._violation(f"a refusal that does not name the storage's cause: {told}")
        elif told["cause"] == "disk_full":
            if "P104" not in told["clauses"]:
                self._violation(f"a refusal for want of room that does not cite P104: {told}")
        elif told["cause"] in ("does_nothing", "no_round"):
            self._violation(f"a press refused during a storage fault for another reason: {told}")

    def fault_once(self) -> None:
        t, rng, disk, r = self.t, self.rng, self.disk, self.result
        mode = rng.choice(MODES)
        disk.arm(rng.randint(1, 30), mode)
        for _ in range(MAX_STEPS):
            if disk.mode is not None:
                break
            self._step()
        else:
            disk.at = None
            r.unreached += 1
            return
        r.faults += 1
        r.by_mode[mode] += 1
        # the press whose write failed was refused; the status says why
        self._until(lambda s: s["storage"]["state"] != "ok", "the halt shown")
        self._refusal(t.status())
        for _ in range(rng.randint(1, HALT_STEPS)):
            if disk.mode is None:
                break
            self._check_halted()
            self._step()
            if t.daemon.poll() is not None:
                self._violation(f"the daemon ended: {t.daemon.exception()!r}")
                return
            self._refusal(t.status())
        r.writes_failed += disk.failed
        if disk.mode is not None or rng.random() < 0.5:
            disk.free()  # the floor frees space: the next press or the daemon's retry takes a write
        self._until(lambda s: s["storage"]["state"] != "halted", "the table writable again")
        if t.status()["storage"]["state"] == "low":
            r.held_back += 1
            for _ in range(rng.randint(0, 4)):  # the round in progress finishes, no new one opens
                self._step()
                self._refusal(t.status())
            disk.free()
        for _ in range(MAX_STEPS * 2):  # the reserve is made again when the round in progress has closed
            if t.status()["storage"]["state"] == "ok":
                break
            self._step()
        self._until(lambda s: s["storage"]["state"] == "ok", "the reserve made again")
        assert t.daemon.poll() is None
        self.play.check(f"fault {r.faults} ({mode})")

    def _until(self, predicate: Any, what: str) -> dict[str, Any]:
        """The status once ``predicate`` holds (the dealer plays on meanwhile: the next press retries too)."""
        t = self.t
        for _ in range(60):
            s: dict[str, Any] = t.status()
            if s and predicate(s):
                return s
            try:
                t.dealer.wait_change(s, what, timeout=5)
            except TimeoutError:
                pass
        raise AssertionError(f"never reached {what}: {t.status()}")


def storage_sweep(t: Any, disk: Disk, rng: random.Random, game: str, faults: int) -> StorageResult:
    """``faults`` storage faults over one table's run; then a round closes with the disk sound."""
    sw = StorageSweep(t, disk, rng, game)
    t.start_daemon()
    t.open_table()
    while sw.result.faults < faults:
        sw.fault_once()
    closed = len(t.dealer.closed)
    for _ in range(400):
        if len(t.dealer.closed) > closed:
            break
        sw._step()
    sw.play.check("at the end")
    sw.result.rounds_closed = len(t.dealer.closed)
    return sw.result


__all__ = ["Disk", "MODES", "StorageResult", "StorageSweep", "storage_sweep"]
