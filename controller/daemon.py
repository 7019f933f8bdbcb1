"""The table daemon: one process, asyncio, the devices, the dealer's panel, one round at a time.

``TableDaemon.run()`` is the service loop; it owns the tasks and nothing of the rules:

1. opens the journal, starts every configured device driver and gives each
   some seconds to answer (then tells systemd READY=1); one that does not is
   named to the dealer and taken when it answers (P94);
2. recovers an open round from the journal: resumes it when every fact is on
   disk, or voids it when cards may have left the shoe or shuffler unrecorded
   (P34), and tells the dealer which;
3. serves the dealer's panel: each press is one action, refused with the
   buzzer when the rules or the round's state do not allow it; the status is
   published after each.

What a press does is the parts' (``controller.service``, one job each, sharing one
``Session``: the table's context and the dealer's channel): the devices, the panel's (phase,
button) table, the table's life, no more bets and the wager lock-out, the deal, the decisions,
the settlement, the progressive system, the remedies of each game's chapter 13, the alarms, the status.
``TableDaemon`` builds them in the order they depend on one another, each given the parts it
calls; no part reaches another any other way.

A device that stops answering during a round halts it in a safe state
(fail closed); the dealer resumes once it is back, or voids the round.
systemd's watchdog is pinged while the daemon is healthy, whatever the devices (P94); the screens read its
heartbeat (controller/liveness.py).  Cards are never logged; the status file holds the public view only.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sqlite3
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import structlog

from controller import events as ev
from controller import liveness, program
from controller.config.table import TableConfig
from controller.events import JournalEvent, JournalFault
from controller.irregularities import clause
from controller.journal.store import Journal
from controller.paths import heartbeat_file, status_file
from controller.progressive.hits import linked
from controller.round.machine import Phase, RoundController
from controller.service import clock
from controller.service.alarms import Alarms
from controller.service.deal import Deal
from controller.service.decisions import Decisions
from controller.service.devices import Devices
from controller.service.life import Life
from controller.service.lockout import WagerLockout
from controller.service.panel import Panel
from controller.service.progressive import NOT_ANSWERING, ProgressiveSystem
from controller.service.protection import Protection
from controller.service.remedies import Remedies
from controller.service.session import Session
from controller.service.settlement import Settling
from controller.service.shuffle_watch import ShuffleWatch
from controller.service.status import HEARTBEAT_S, Status
from controller.service.storage import RETRY_S, WRITE_ERRORS, Storage, cause_of, reserve_path
from controller.service.told import Told, amend, told
from controller.service.wagers import Wagers
from controller.table import TableLife, TableState, setup_from_journal
from drivers.panel import ButtonPress

FLOOR_S = 1.0  # how often the floor's requests are looked for (a file listing: no journal read)


def sd_notify(message: str) -> bool:
    """Send one notification to systemd (Type=notify); False when not run by systemd."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    # Never block the event loop on it: a full or missing receiver drops the message (a missed
    # watchdog ping is what the watchdog is for).
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
        s.setblocking(False)
        try:
            s.connect(address)
            s.send(message.encode())
        except OSError:
            return False
    return True


def _drop(path: Path) -> bool:
    """Delete the file ``path``; False when there was none (or it cannot be deleted)."""
    try:
        path.unlink()
    except OSError:
        return False
    return True


class TableDaemon:
    def __init__(self, cfg: TableConfig, *, status_path: Path | None = None, config_path: Path | None = None) -> None:
        if not cfg.devices.panel:
            raise SystemExit(f"{cfg.id}: devices.panel is needed: the dealer drives the table from it")
        with Journal(cfg.journal) as journal:  # P90: a broken or foreign journal is refused before it is read
            if linked(cfg.progressive) is not None:  # the link's head of the journal first: nothing written yet
                from controller.progressive.link.anchor import check_at_start as second_anchor

                second_anchor(cfg, journal)  # (P121: a link that does not answer is not waited for)
            try:
                journal.check_at_start(cfg.id, cfg.game, archive_dir=cfg.journal_options.archive_dir)
            except sqlite3.OperationalError as e:
                # a disk found full at start: the reserve left by the daemon before is given up, once (P104)
                if cause_of(e) != "disk_full" or not _drop(reserve_path(journal.path)):
                    raise
                journal.check_at_start(cfg.id, cfg.game, archive_dir=cfg.journal_options.archive_dir)
        self.session = s = Session(cfg)
        # the parts, each built after those it calls and given them (``tests/test_service_wiring.py``)
        self.storage = storage = Storage(s)
        self.devices = devices = Devices(s, storage)
        self.progressive = progressive = ProgressiveSystem(s, devices)
        self.lockout = lockout = WagerLockout(s, devices, progressive)
        self.lifecycle = life = Life(s, devices, lockout, progressive, storage)
        self.wagers = wagers = Wagers(s, devices, life, progressive, lockout)
        # a press while a deal waits on the shoe goes to the panel, built last (it calls the deal)
        self.deal = deal = Deal(s, devices, progressive, on_press=lambda press: self.panel.during_deal(press))
        self.settling = settling = Settling(s, devices, deal, progressive)
        self.remedies = remedies = Remedies(s, devices, deal, settling, progressive)
        self.decisions = decisions = Decisions(s, deal, settling)
        # the alarms ask the status whether the next action needs the key (a key turned for it acknowledges none)
        self.alarms = alarms = Alarms(s, devices, life, progressive, remedies, storage,
                                      key_wanted=lambda: self.status_file.key_wanted())
        self.shuffle_watch = ShuffleWatch(s, devices, alarms)  # issue 28: after the alarms, which it adds to
        # game protection: the witnesses' findings and streaks, journaled and latched as alarms (issue 28)
        self.protection = Protection(s, settling, alarms, remedies)
        self.panel = Panel(s, devices=devices, life=life, wagers=wagers, lockout=lockout, deal=deal,
                           decisions=decisions, settling=settling, progressive=progressive, remedies=remedies)
        self.status_file = Status(s, status_path or status_file(cfg.journal), devices=devices,
                                  deal=deal, progressive=progressive, remedies=remedies, panel=self.panel,
                                  storage=storage, alarms=alarms)
        s.on_publish(self._publish)
        s.on_spawn(self._spawn)
        self._stop = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()
        self._busy = asyncio.Lock()  # a press, or the storage's retry: one at a time
        self.heartbeat_path = heartbeat_file(cfg.journal)
        self._serving = False  # the table recovered and its status published: a heartbeat fault is published
        self.release = program.installed()  # the manifest and the packages it names (P115)
        self.config_path = config_path  # its digest is journaled with the program's (P115)
        self._program_checked: JournalEvent | None = None  # the check at start, journaled after the recovery

    @property
    def journal_fault(self) -> str | None:
        """Why the journal cannot be written now (P97), or None."""
        return self.storage.fault

    # the table as the command line and the tests look at it
    @property
    def cfg(self) -> TableConfig:
        return self.session.cfg

    @property
    def life(self) -> TableLife:
        return self.session.life

    @property
    def journal(self) -> Journal:
        return self.session.journal

    def status(self) -> dict[str, Any]:
        return self.status_file.status()

    # ------------------------------------------------------------------ the service loop

    async def run(self) -> None:
        beat = asyncio.create_task(self._beat())  # beating from the start: the devices may take seconds
        cancelled = False
        try:
            await self._serve()
        except asyncio.CancelledError:
            cancelled = True
            raise
        finally:
            beat.cancel()
            if not cancelled:  # stopped, or ended by an error: the screens say so now; cancelled is as killed
                liveness.stopped(self.heartbeat_path)

    async def _serve(self) -> None:
        s = self.session
        await self.devices.start()
        sd_notify("READY=1")
        watchdog = asyncio.create_task(self._watchdog())
        heartbeat = asyncio.create_task(self._heartbeat())
        retry = asyncio.create_task(self._storage_retry())
        clock_check: asyncio.Task[None] | None = None
        floor: asyncio.Task[None] | None = None
        program_check: asyncio.Task[None] | None = None
        try:
            self.storage.hold_reserve()  # room to finish a round when the disk fills (P104)
            await self._check_program(at_start=True)
            if s.program_refused is None:  # a program that does not verify recovers nothing: no play (P115)
                try:
                    await self._recover()
                    if self._program_checked is not None:
                        s.journal.record(self._program_checked)
                        self._program_checked = None
                except WRITE_ERRORS as e:  # the recovery's own write (a void, P34): tried again as any (P97)
                    await self._journal_failed(e, pressed=False)
            self.shuffle_watch.start()  # the monitor as the journal left it, before the alarms read its findings
            self.alarms.start()  # the round recovered: the alarms follow the table from here
            clock_check = asyncio.create_task(self._clock())  # at start, then every hour (P109)
            floor = asyncio.create_task(self._floor_requests())  # the floor's pages' requests (issue 28)
            program_check = asyncio.create_task(self._program_checks())  # every [program] check_hours (P115)
            self._serving = True
            s.publish()
            while not self._stop.is_set():
                press_task = asyncio.ensure_future(self.panel.next_press())
                stop_task = asyncio.ensure_future(self._stop.wait())
                done, _ = await asyncio.wait({press_task, stop_task}, return_when=asyncio.FIRST_COMPLETED)
                if press_task not in done:
                    press_task.cancel()
                    break
                # a press may wait on a device (a card drawn from the shoe): a stop must not wait for it;
                # what it journaled is recovered as after a crash
                handler = asyncio.ensure_future(self._take(press_task.result()))
                done, _ = await asyncio.wait({handler, stop_task}, return_when=asyncio.FIRST_COMPLETED)
                if handler not in done:
                    handler.cancel()
                    break
                stop_task.cancel()
                handler.result()
                s.publish()
        finally:
            watchdog.cancel()
            heartbeat.cancel()
            retry.cancel()
            for task in (clock_check, program_check, floor):
                if task is not None:
                    task.cancel()
            self._stop.set()
            await self.devices.close()
            s.journal.close()

    async def _take(self, press: ButtonPress) -> None:
        async with self._busy:
            try:
                if self.session.program_refused is not None:  # fail closed until a technician clears it (P115)
                    await self._refuse_for_program(press.button)
                    return
                if self.storage.halted:
                    if not await self._storage_writable():
                        await self._refuse_for_storage(press.button)
                    return  # the press found the storage writable again: the dealer is told where the table is
                if self.storage.round_held_back and self.session.round is None:
                    await self._round_held_back(press.button)
                    return
                await self.panel.on_press(press)
                self.shuffle_watch.after_press()  # a round just over: its deck to the shuffle monitor
            except WRITE_ERRORS as e:
                await self._journal_failed(e)
            finally:
                self.session.presses_handled += 1

    # ------------------------------------------------------------------ program verification (P115)

    async def _check_program(self, *, at_start: bool = False) -> None:
        """The installed program against its release's manifest (controller/program.py), journaled.  A mismatch
        (or no manifest outside development) refuses every press and is kept beside the journal: it survives
        a restart until a technician clears it (``tablectl verify-program --clear``) and the program verifies;
        the clearance is journaled here, at the start that finds it."""
        s = self.session
        cfg = s.base_cfg
        boot = program.take_boot_check(self.release) if at_start else None  # made before the import (P122)
        c = boot if boot is not None else await asyncio.to_thread(program.check, self.release)
        kept = program.read_refusal(cfg.journal)
        try:
            if kept is not None and kept.get("journaled") is False:  # kept by a start that could not journal (P122)
                s.journal.record(ev.ProgramChecked(
                    state=str(kept.get("state") or program.MISMATCH), release=kept.get("release"),
                    digest=kept.get("digest"), problems=tuple(kept.get("problems") or ())[:50] or None,
                    refused_at=kept.get("at"), not_started=kept.get("not_started")))
                kept["journaled"] = True
                program.write_refusal(cfg.journal, kept)
            if kept is not None and kept.get("cleared") and not c.refuses and at_start:
                cleared = kept["cleared"]
                by = str(cleared.get("by") or "unknown")
                s.journal.record(ev.ProgramCleared(by=by, reason=str(cleared.get("reason") or ""),
                                                   refused_at=kept.get("at")), who=by)
                program.refusal_file(cfg.journal).unlink(missing_ok=True)
                s.log.warning("program refusal cleared", by=by)
                kept = None
            checked = ev.ProgramChecked(state=c.state, release=c.release, digest=c.digest, files=c.files,
                                        problems=c.problems[:50] or None,
                                        config_digest=program.config_digest(self.config_path))
            if at_start and kept is None and not c.refuses:
                self._program_checked = checked  # journaled once the round is recovered, as the clock's (P109)
            else:
                s.journal.record(checked)
        except WRITE_ERRORS as e:
            await self._journal_failed(e, pressed=False)
        if c.refuses and kept is None:
            kept = {"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "state": c.state,
                    "release": c.release, "digest": c.digest, "problems": list(c.problems[:50])}
            try:
                program.write_refusal(cfg.journal, kept)
            except OSError as e:  # not kept: still refused now, and found again at the next start
                s.log.error("program refusal not kept", error=str(e))
        s.program = {"state": c.state, "release": c.release, "digest": c.digest, "files": c.files,
                     "refused": kept is not None, "problems": list(c.problems[:10] if c.refuses else
                                                               (kept or {}).get("problems", [])[:10])}
        if kept is not None:
            if s.program_refused is None:
                s.log.error("program not verified: play refused", state=c.state, problems=len(c.problems))
            s.program_refused = c.state if c.refuses else str(kept.get("state") or program.MISMATCH)
            s.tell("the program does not match its release: play refused -- call a technician (P115)",
                   told("refused", cause="program_refused", clauses=["P115"]))

    async def _program_checks(self) -> None:
        """Every ``[program] check_hours``."""
        while True:
            await asyncio.sleep(self.session.base_cfg.program.check_hours * 3600)
            await self.check_program()

    async def check_program(self) -> None:
        """One check while serving, between presses (a few hundred files read in a thread); a mismatch refuses
        from the next press on, the round where it stands (recovered once cleared, as after a restart)."""
        async with self._busy:
            await self._check_program()
            self.session.publish()

    async def _refuse_for_program(self, button: str) -> None:
        s = self.session
        s.tell(f"refused: {button}: the program does not match its release -- call a technician (P115)",
               told("refused", cause="program_refused", clauses=["P115"]))
        await s.buzz()

    # ------------------------------------------------------------------ storage faults (fail closed, P97, P104)

    def _fault_said(self) -> str:
        st = self.storage
        what = "the journal" if st.fault is not None else "the status" if st.status_fault is not None else \
            "the heartbeat"
        return (f"{what} cannot be written ({st.fault or st.status_fault or st.heartbeat_fault}): the round is "
                "halted, nothing is dealt "
                "or paid until it can -- call the floor supervisor (P97)")

    def _fault_told(self) -> Told:
        """A refusal for storage names its cause: ``journal_fault`` (or ``status_fault``, ``heartbeat_fault``), and
        the disk's condition in ``also`` (``disk_full``, ``io_error``, ``read_only``, ``storage_error``)."""
        st = self.storage
        code = "journal_fault" if st.fault is not None else "status_fault" if st.status_fault is not None else \
            "heartbeat_fault"
        return told("refused", cause=code, clauses=["P97"], also=[st.cause or "storage_error"])

    async def _refuse_for_storage(self, button: str) -> None:
        s = self.session
        s.tell(f"refused: {button}: {self._fault_said()}", self._fault_told())
        await s.buzz()

    async def _journal_failed(self, e: BaseException, *, pressed: bool = True) -> None:
        """A journal write failed (disk full, read-only, I/O error): what it would have recorded did not
        happen (every event is journaled before it takes effect), so the table stops where the journal
        stands; every press is refused until the journal takes a write again (P97).  A full disk gives up
        the reserve (P104): the next try is likely to take."""
        s = self.session
        self.storage.journal_failed(e)
        await self.lockout.hold_for_storage()  # no progressive wager taken that the journal cannot record
        s.tell(f"refused: {self._fault_said()}", self._fault_told())
        if pressed:
            await s.buzz()

    async def _storage_writable(self) -> bool:
        """Try the write the fault waits for (the fault itself, journaled); once it is on disk the table is
        recovered from the journal exactly as after a restart: a deal cut short is voided (P34), the
        progressive system is made to say what the journal says.  A status that could not be written is
        written again.  True when both are."""
        s, st = self.session, self.storage
        if st.fault is not None:
            problem = st.fault
            try:
                s.journal.record(JournalFault(problem=problem))
            except WRITE_ERRORS as e:
                st.journal_failed(e)
                return False
            s.log.warning("journal writable again", problem=problem)
            st.journal_written()
            await self.lockout.end_storage_hold()  # before the recovery reads the coil as an unjournaled no more bets
            s.round = None
            await self._recover()
            s.tell(f"the journal can be written again: {s.message}", amend(s.told, "journal_writable"))
        if st.status_fault is not None:
            s.publish()
            if st.status_fault is not None:
                return False
            s.tell(f"the status can be written again: {s.message}", amend(s.told, "status_writable"))
        if st.heartbeat_fault is not None:
            self._touch()
            if st.heartbeat_fault is not None:
                return False
        return True

    async def _round_held_back(self, button: str) -> None:
        """A press while no round opens for want of room (P104): the round opens if there is room now (the press
        is not acted on: it was made with no round on the screen), else the press is refused, saying why."""
        s = self.session
        if self.storage.hold_reserve():
            await self.lifecycle.new_round()
            return
        s.tell(f"refused: {button}: the table's disk is full: no new round until the floor frees space -- call "
               "the floor supervisor (P104)", told("refused", cause="disk_full", clauses=["P104"]))
        await s.buzz()

    async def _storage_retry(self) -> None:
        """While a write fails, try again every RETRY_S without waiting for a press; with the reserve given
        up and no round open, make it again and open the next round once it is made (P104)."""
        s, st = self.session, self.storage
        while True:
            await asyncio.sleep(RETRY_S)
            if not st.halted and not st.round_held_back:
                continue
            async with self._busy:
                try:
                    if st.halted:
                        if not await self._storage_writable():
                            continue
                    elif s.round is None and st.hold_reserve():
                        await self.lifecycle.new_round()  # the round held back for want of room (P104)
                except WRITE_ERRORS as e:
                    await self._journal_failed(e, pressed=False)
                s.publish()

    def stop(self) -> None:
        self._stop.set()

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        async def guarded() -> None:
            try:
                await coro
            except WRITE_ERRORS as e:  # background work's write failed: the table halts as for a press's (P97)
                await self._journal_failed(e, pressed=False)
                self.session.publish()

        task = asyncio.ensure_future(guarded())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _clock(self) -> None:
        """Whether the kernel holds the clock synchronised, journaled at start and every CHECK_S (P109): the
        round's page tells surveillance how far its times can be trusted.  A syscall, no waiting; between
        presses, as a press's write; a write the disk refuses is a storage fault as any (P97)."""
        while True:
            async with self._busy:
                if not self.storage.halted:
                    checked = clock.read_kernel()
                    self.session.clock = checked.state  # an open table warns while it is not synchronised
                    try:
                        self.session.journal.record(checked)
                    except WRITE_ERRORS as e:
                        await self._journal_failed(e, pressed=False)
                    self.session.publish()
            await asyncio.sleep(clock.CHECK_S)

    async def _floor_requests(self) -> None:
        """The floor's requests (a device out of service, issue 28), looked for every FLOOR_S between presses; a
        write the disk refuses is a storage fault as a press's (P97)."""
        while True:
            await asyncio.sleep(FLOOR_S)
            async with self._busy:
                if self.storage.halted:
                    continue
                try:
                    if await self.protection.floor_requests():
                        self.session.publish()
                except WRITE_ERRORS as e:
                    await self._journal_failed(e, pressed=False)
                    self.session.publish()

    async def _heartbeat(self) -> None:
        """The status is written at least every HEARTBEAT_S: its age tells `tablectl status` the daemon is alive.
        Not before the table is recovered (``_serving``): a status of the journal's state before the recovery voids
        a deal cut short would show meters and cards the recovery is about to take back (the liveness heartbeat
        says the daemon is alive meanwhile)."""
        while True:
            await asyncio.sleep(HEARTBEAT_S)
            self.session.publish()

    async def _beat(self) -> None:
        """The heartbeat touched every BEAT_S from this loop (controller/liveness.py): a daemon stopped, frozen or
        blocked is "not running" on every screen within STALE_S."""
        while True:
            if self._touch():
                self.session.publish()  # a heartbeat fault begun or ended: the status's storage says so
            await asyncio.sleep(liveness.BEAT_S)

    def _publish(self) -> None:
        """The status written, once the table is recovered (``_serving``).  Before, the journal's state is not yet
        the table's: a deal cut short is about to be voided, its contributions taken back (R7a, P34), and a status
        (a device coming online during the start publishes one) would show meters and signs the recovery takes
        back a moment later.  Until then the screens keep the last status, the liveness heartbeat saying the daemon
        is alive."""
        if self._serving:
            self.status_file.publish()

    def _touch(self) -> bool:
        """One heartbeat; a touch that fails is a storage fault as a status's is (P104): the screens say "do not
        deal", the daemon refuses every press until a touch takes.  True when a fault began or ended."""
        try:
            liveness.beat(self.heartbeat_path)
        except OSError as e:
            return self.storage.heartbeat_failed(self.heartbeat_path, e)
        return self.storage.heartbeat_written()

    async def _watchdog(self) -> None:
        """WATCHDOG=1 while the daemon itself is healthy: its event loop runs (this task is scheduled) and
        its journal reads.  A device fault is not the daemon's: the rules handle it (the round halted,
        progressive wagers disabled, the dealer told), a restart would not make a cable answer (P94)."""
        usec = int(os.environ.get("WATCHDOG_USEC", "0"))
        if not usec:
            return
        s = self.session
        while True:
            await asyncio.sleep(usec / 2e6)
            try:
                s.journal.last_seq()
            except sqlite3.Error as e:  # a read: the watchdog's own question
                why: str | None = f"the journal cannot be read: {e}"
            else:
                why = None
                sd_notify("WATCHDOG=1")
            if why != s.watchdog_trouble:
                s.watchdog_trouble = why
                if why is not None:
                    s.log.error("watchdog pings paused", reason=why)
                s.publish()

    # ------------------------------------------------------------------ recovery

    async def _recover(self) -> None:
        s = self.session
        await self.progressive.show_meters()  # the signs show the journal's meters first (P49)
        finished = s.life.recover()
        if finished is not None:
            s.log.warning("table life recovered after a restart", what=finished)
        open_id = s.journal.open_round()
        if open_id is None:
            await self.lockout.check_at_start()
            if s.life.state is TableState.OPEN and not s.life.required:
                await self.lifecycle.new_round()
            return
        events = s.journal.events(open_id)
        setup = setup_from_journal(events[0].data)
        r = s.round = await RoundController.restore(open_id, setup, [(e.kind, e.data) for e in events],
                                                    journal=s.journal)
        structlog.contextvars.bind_contextvars(round_id=open_id)
        phase = r.phase
        if phase is Phase.HALTED:
            phase = r.halted_from or phase
        partial = self.deal.recover_streets()
        # the street's cards were due (its last decision journaled) but none is: the deal had begun, a card
        # may have left the shuffler or shoe unrecorded -- the same as a deal cut short (P34); resuming
        # would wait for cards no press deals
        due = phase is Phase.DECISIONS and r.street_cards_missing()
        if phase is Phase.DEALING or partial or due:
            # P34: cards may have left the shoe or shuffler unrecorded: the deal cannot be trusted.
            if r.can_resume():
                await r.resume_round("restart")
            where = clause("deal_failed", s.game.short)
            await self.settling.void(f"the daemon restarted during the deal (P34; {where})",
                                      cause="restarted_during_deal")
            s.tell("restarted during the deal: round VOIDED, return all wagers, then confirm",
                   told("voided", cause="restarted_during_deal"))
        else:
            s.tell(f"restarted: round {open_id} RESUMED in {r.phase.value}", told("resumed", cause="restarted"))
            if r.phase is Phase.SETTLED:
                # settled but not yet validated: the same waiting state as before the restart
                await self.progressive.hold_for_validation(restarted=True)
        s.log.warning("round recovered after a restart", round_id=open_id, phase=r.phase.value)
        await self.lockout.check_at_start()


__all__ = ["NOT_ANSWERING", "TableDaemon", "sd_notify"]
