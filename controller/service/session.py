"""The session every part of the daemon shares: the table's context and the dealer's channel.

One ``Session`` per running daemon.  It holds what is common to the parts and nothing else:

* the table's context: the configuration (``base_cfg`` as configured, ``cfg`` the mode in use while
  a device is out of order, P43, changed only by ``use_mode``), the game, the journal, the table's
  life and meters, and the open round (``round``, with ``open_round()`` for the parts that need one);
* the dealer's channel: what the dealer is told (``tell``, ``refuse``, ``buzz``), the note that stays
  until the round closes (``notice``), the supervisor's key (``supervisor``), publishing the status
  (``publish``) and background work (``spawn``).  The buzzer and the key are on the panel: its
  driver is given once it is started (``attach_panel``).

No part is reached through the session: each is given the parts it calls when it is built
(``controller.daemon`` wires them).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import structlog

from controller import events as ev
from controller.config.table import TableConfig
from controller.journal import segments as journal_segments
from controller.journal.store import Journal, JournalError
from controller.progressive import control
from controller.progressive.hits import linked as prog_linked
from controller.progressive.link import table_meters
from controller.round.machine import Phase, RoundController
from controller.service.refused import Refused
from controller.service.told import Told, told
from controller.supervisors import SupervisorList
from controller.table import TableLife
from drivers.health import DeviceError
from drivers.panel import PanelDriver
from games.game import Game

log = structlog.get_logger("table")


class Session:
    def __init__(self, cfg: TableConfig) -> None:
        self.base_cfg = cfg  # as configured; ``cfg`` is the mode in use (a device out of order: P43)
        self._cfg = cfg
        self.game: Game = cfg.game_rules
        self.journal = Journal(cfg.journal, checkpoint_every=cfg.journal_options.checkpoint_every)
        self.supervisors = SupervisorList(cfg.supervisors.ids)
        self.life = TableLife(cfg, self.journal)
        # a roll-over a crash cut short (P60), completed with the table's life and a linked table's outbox
        # (P98): the link's meters first (they journal nothing); a table's own after (they may journal)
        linked = prog_linked(cfg.progressive) is not None
        meters = table_meters(cfg, self.journal) if linked else None
        approved = control.last_parameters(self.journal)  # carried by the checkpoint a roll-over begins with (P114)
        if approved is not None:
            control.keep(self.journal, approved)
        journal_segments.complete(self.journal)
        self.meters = meters if meters is not None else table_meters(cfg, self.journal)  # (controller/link)
        # the parameters are those last approved, or the daemon does not start (P114)
        control.check_at_start(self.journal, cfg, self.life.state)
        self.log = log.bind(table=cfg.id)
        structlog.contextvars.bind_contextvars(table=cfg.id)
        self.round: RoundController | None = None
        self.message = ""  # what the dealer is told now
        self.told: Told | None = None  # the same, as data (controller.service.told)
        self.told_count = 0  # sentences said since start (``told["n"]``)
        self.notice: str | None = None  # what the dealer must know until the round closes
        self.notice_told: Told | None = None  # the same, as data (``controller.service.told``)
        self.watchdog_trouble: str | None = None  # why systemd's watchdog is not pinged now (the daemon's own)
        self.program: dict[str, Any] | None = None  # the program's check (controller/program.py, P115)
        self.program_refused: str | None = None  # why play is refused for the program (P115), or None
        self.clock: str | None = None  # the clock's last check (controller/service/clock.py: synchronised ...)
        self.presses_handled = 0  # presses taken since start (the status shows it: a press is done)
        self.panel: PanelDriver | None = None  # the buzzer and the supervisor's key (``attach_panel``)
        self._publish: Callable[[], None] = lambda: None
        self._spawn: Callable[[Coroutine[Any, Any, None]], None] = lambda coro: coro.close()

    @property
    def cfg(self) -> TableConfig:
        """The configuration in use: as configured, or the mode a device out of order leaves (P43)."""
        return self._cfg

    def use_mode(self, cfg: TableConfig) -> None:
        """Deal by ``cfg`` from now on (UTH ch.13 §J; P43: ``Devices.apply_mode`` derives it): the one
        place the configuration in use changes, the table's life with it (its steps and decks follow it)."""
        self._cfg = cfg
        self.life.cfg = cfg

    def attach_panel(self, panel: PanelDriver) -> None:
        """The dealer's panel, started (``Devices.start``): its buzzer and the supervisor's key."""
        self.panel = panel

    async def between_rounds(self) -> None:
        """Roll the journal over to a new segment when one is due, archive, retain (P60, P62): only here,
        between two rounds.  A segment that cannot be sealed or archived leaves the open one as it is (it is
        whole) and is tried again after the next round; a failed write to the journal is the daemon's fault.
        The copies run in a thread (P78): the daemon answers its status, watchdog and devices meanwhile."""
        o = self.cfg.journal_options
        if not o.segment_daily and o.segment_max_mb is None:
            return
        assert self.round is None or self.round.phase is Phase.COMPLETE, "a roll-over inside a round"
        max_bytes = int(o.segment_max_mb * 1_000_000) if o.segment_max_mb is not None else None
        try:
            seg = await asyncio.to_thread(journal_segments.between_rounds, self.journal, by_day=o.segment_daily,
                                          max_bytes=max_bytes, archive_dir=o.archive_dir, retain_days=o.retain_days)
        except (JournalError, OSError) as e:
            self.log.error("journal segment not sealed", error=str(e))
            return
        if seg is not None:
            self.log.info("journal segment sealed", segment=seg.path.name, first=seg.first, last=seg.last)

    # ------------------------------------------------------------------ the round

    def open_round(self) -> RoundController:
        """The open round; the parts that act on a round are only called with one."""
        assert self.round is not None, "no open round"
        return self.round

    def stopped(self) -> bool:
        """The round was stopped by a remedy or the supervisor (all hands void): nothing more is dealt."""
        return self.round is not None and self.round.phase is Phase.VOIDED

    # ------------------------------------------------------------------ the dealer

    def tell(self, message: str, said: Told | None = None) -> None:
        """Tell the dealer ``message``; ``said`` is what it says as data (``controller.service.told``),
        built from the same values (the same citations) the sentence is written from."""
        self.message = message
        self.told_count += 1
        self.told = {**(said if said is not None else told("info")), "n": self.told_count}
        self.log.info("dealer", say=message, round_id=self.round.round_id if self.round else None)

    async def refuse(self, why: str, code: str = "refused", clauses: tuple[str, ...] = ()) -> None:
        self.tell(f"refused: {why}", told("refused", cause=code, clauses=clauses))
        await self.buzz()

    async def buzz(self) -> None:
        panel = self.panel
        if panel is not None:
            try:
                await panel.buzz()
            except DeviceError:
                pass

    async def supervisor(self, action: str) -> str | None:
        """Who turned the floor supervisor's key for ``action``, or None when it is off.

        Only a supervisor on the configured list (P93): a key turned with an unknown ID, or 0, is
        refused and journaled with the action it tried; nothing of the action is done."""
        panel = self.panel
        assert panel is not None
        key = await panel.key_switch()
        if not key.on:
            return None
        if not await self.supervisors.known(key.supervisor_id):
            r = self.round
            self.journal.record(ev.SupervisorRefused(action=action, supervisor_id=key.supervisor_id,
                                                     round=r.round_id if r else None))
            self.log.warning("supervisor key refused", action=action, supervisor_id=key.supervisor_id)
            raise Refused(f"the supervisor's key of ID {key.supervisor_id} is not a known supervisor's "
                          f"(P93): {action.replace('_', ' ')} not done")
        return f"supervisor {key.supervisor_id}"

    # ------------------------------------------------------------------ the status

    def on_publish(self, publish: Callable[[], None]) -> None:
        self._publish = publish

    def publish(self) -> None:
        self._publish()

    # ------------------------------------------------------------------ background work

    def on_spawn(self, spawn: Callable[[Coroutine[Any, Any, None]], None]) -> None:
        self._spawn = spawn

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` beside the presses (the service loop owns the task)."""
        self._spawn(coro)
