"""The table daemon: one process, asyncio, the devices, the dealer's panel, one round at a time.

``TableDaemon.run()``:

1. opens the journal, starts every configured device driver and waits until
   each answers (then tells systemd READY=1);
2. recovers an open round from the journal: resumes it when every fact is on
   disk, or voids it when cards may have left the shoe or shuffler unrecorded
   (P34), and tells the dealer which;
3. serves the dealer's panel: each press is one action, refused with the
   buzzer when the rules or the round's state do not allow it.

The dealer's panel drives the round (controller.round):

    closed table  confirm / key+confirm / deal / shuffle   the opening steps (controller.table)
    wagers        no_more_bets   bet sensors read, lock-out set and confirmed (ch.8 §C)
    no_more_bets  confirm        the progressive count matches the chips (ch.8 §C(3)); cards are dealt
    decisions     bet_Nx / check / fold   the decision of the seat to act (R1)
    settled       key+confirm    a progressive win is held until a floor supervisor validates it
                                 (UTH ch.11 §J(2)(c) ...: controller.progressive)
    settled       confirm        paid and collected; the next round opens
    any           void_round with the supervisor's key: all hands void (R7a)

A device that stops answering during a round halts it in a safe state
(fail closed); the dealer resumes once it is back, or voids the round.
Cards are never logged; the status file holds the public view only.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import time
import uuid
from decimal import Decimal
from pathlib import Path
from collections.abc import Mapping
from typing import Any

import structlog

from controller.config import TableConfig
from controller import progressive as prog
from controller import irregularities as irr
from controller.irregularities import clause, kept_alive
from controller.journal import Journal
from controller.round import Phase, RoundController, RoundRefused
from controller.table import (
    IDLE_CLAUSE,
    Meters,
    TableLife,
    TableState,
    between_round_steps,
    opening_steps,
    reopening_steps,
    round_setup,
    setup_from_journal,
)
from drivers.panel import ButtonPress, InputFault, PanelDriver
from drivers.progressive import LockoutNotConfirmed, ProgressiveDriver
from drivers.health import DeviceError, Health
from drivers.shoe import Shoe
from drivers.serial_link import CardCountError, DeviceFault, DuplicateCardError, UnreadableCardError
from drivers.shuffler import Shuffler
from games.money import display
from games.dealing import Procedure, dealer_release_stack, initial_deal, stacks, street_deal

log = structlog.get_logger("table")

DEVICE_START_TIMEOUT = 20.0
NOT_ANSWERING = "the progressive system is not answering"
CARD_TIMEOUT = 300.0  # a dealer drawing from a shoe: after this, the round halts (fail closed)
HAND_DECK_CHANGE_HOURS = Decimal(4)  # ch.3 §C(1)
# Wagers settled on a box only ch.10 §B(1) deals (UTH Six Card Bonus), and the procedures that deal it (P55)
BOX_WAGERS = ("six_card_bonus",)
BOX_PROCEDURES = ("automated_shoe", "shuffler")

PROCEDURES = {
    "manual_shoe": Procedure.MANUAL_SHOE,
    "hand": Procedure.HAND,
    "automated_shoe": Procedure.AUTOMATED,
    "shuffler": Procedure.AUTOMATED,
}


class RoundStopped(Exception):
    """The round was stopped by an irregularity's remedy; the dealer has been told what to do."""

    def __init__(self, why: str, *, buzz: bool = True) -> None:
        super().__init__(why)
        self.buzz = buzz  # the panel buzzes for an irregularity, not for a void the supervisor asked for


class SeatSkipped(Exception):
    """Reported during a deal: ``seat`` got no card (RET ch.13 §G); the deal is re-routed without it."""

    def __init__(self, seat: int, who: str) -> None:
        super().__init__(seat, who)
        self.seat, self.who = seat, who


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


def place_key(place: tuple) -> str:
    """games.dealing's Place as the round's place string."""
    kind = place[0]
    if kind == "seat":
        return f"seat:{place[1]}"
    if kind == "community":
        return f"community:{place[1]}"
    if kind == "bonus_box":
        return "bonus"
    return kind  # dealer, burn


class TableDaemon:
    def __init__(self, cfg: TableConfig, *, status_path: Path | None = None) -> None:
        self.base_cfg = cfg  # as configured; self.cfg is the mode in use (a device out of order: P43)
        self.cfg = cfg
        self._drivers: dict[str, Any] = {}
        self.no_card_source: str | None = None
        self.closed_wagers: list[str] = []  # offered, but closed while a fallback procedure cannot deal them (P55)
        self.game = cfg.game_rules
        self.journal = Journal(cfg.journal)
        self.life = TableLife(cfg, self.journal)
        self.meters = Meters(cfg, self.journal)
        self.status_path = status_path or Path(cfg.journal).with_suffix(".status.json")
        self.log = log.bind(table=cfg.id)
        structlog.contextvars.bind_contextvars(table=cfg.id)
        self.round: RoundController | None = None
        self.shuffler: Shuffler | None = None
        self.shoe: Shoe | None = None
        self.progressive: ProgressiveDriver | None = None
        self.panel: PanelDriver | None = None
        self.message = ""  # what the dealer is told now
        self._stop = asyncio.Event()
        self._device_trouble: str | None = None
        self._watchdog_paused_logged = False
        self.procedure = PROCEDURES[cfg.dealing.procedure]
        self.expecting = 0  # cards the daemon waits for from the shoe now (shown to the dealer)
        self.next_place: str | None = None  # where the next card of a deal goes (shown to the dealer)
        self._deferred: list[ButtonPress] = []  # pressed during a deal, taken once it is done
        self.notice: str | None = None  # what the dealer must know until the round closes
        self.presses_handled = 0  # presses taken since start (the status shows it: a press is done)
        self._progressive_reset_pending = False  # the last round's flags and lock-out not yet cleared
        self._tasks: set[asyncio.Task] = set()
        self._streets_dealt = 0
        self._face_up_this_round = 0
        self.validation: list[prog.Hit] = []  # progressive wins of the settled round awaiting validation
        self.progressive_off: str | None = None  # why progressive wagers are disabled now, or None
        self._sign_trouble: str | None = None  # the last meter sign update failed
        self._late_journaled: set[int] = set()
        self.irregularity: dict[str, Any] | None = None  # the panel's irregularity menu while open (P41)
        for e in self.journal.events(None):  # progressive wagers disabled when the daemon stopped stay so
            if e.kind == prog.DISABLED:
                self.progressive_off = e.data["reason"]
            elif e.kind == prog.ENABLED:
                self.progressive_off = None
        if not cfg.devices.panel:
            raise SystemExit(f"{cfg.id}: devices.panel is needed: the dealer drives the table from it")

    # ------------------------------------------------------------------ life cycle

    async def run(self) -> None:
        await self._start_devices()
        sd_notify("READY=1")
        watchdog = asyncio.create_task(self._watchdog())
        try:
            await self._recover()
            self._publish()
            assert self.panel is not None
            while not self._stop.is_set():
                press_task = asyncio.ensure_future(self._next_press())
                stop_task = asyncio.ensure_future(self._stop.wait())
                done, _ = await asyncio.wait({press_task, stop_task}, return_when=asyncio.FIRST_COMPLETED)
                if press_task not in done:
                    press_task.cancel()
                    break
                # a press may wait on a device (a card drawn from the shoe): a stop must not wait for it;
                # what it journaled is recovered as after a crash
                handler = asyncio.ensure_future(self._on_press(press_task.result()))
                done, _ = await asyncio.wait({handler, stop_task}, return_when=asyncio.FIRST_COMPLETED)
                if handler not in done:
                    handler.cancel()
                    break
                stop_task.cancel()
                try:
                    handler.result()
                finally:
                    self.presses_handled += 1
                self._publish()
        finally:
            watchdog.cancel()
            await self._close_devices()
            self.journal.close()

    def stop(self) -> None:
        self._stop.set()

    async def _next_press(self) -> ButtonPress:
        """The next press: first those pressed during a deal and kept for after it, in order."""
        assert self.panel is not None
        if self._deferred:
            return self._deferred.pop(0)
        return await self.panel.next_press()

    async def _start_devices(self) -> None:
        d = self.cfg.devices
        self.panel = PanelDriver(d.panel)
        starting: list[Any] = [self.panel]
        if d.shuffler:
            self.shuffler = self._drivers["shuffler"] = Shuffler(d.shuffler)
            starting.append(self.shuffler)
        if d.shoe:
            self.shoe = self._drivers["shoe"] = Shoe(d.shoe)
            starting.append(self.shoe)
        if d.progressive:
            self.progressive = ProgressiveDriver(d.progressive)
            starting.append(self.progressive)
        for dev in starting:
            await dev.start()
        for dev in starting:
            try:
                await dev.wait_health(Health.ONLINE, Health.DEGRADED, timeout=DEVICE_START_TIMEOUT)
            except TimeoutError:
                raise SystemExit(f"{self.cfg.id}: {type(dev).__name__} at its configured address does not answer") from None
        if self.progressive is not None:
            self.progressive.add_health_listener(lambda h, reason: self._on_health("progressive system", h, reason))
        self.panel.add_health_listener(lambda h, reason: self._on_health("dealer panel", h, reason))
        self.panel.add_fault_listener(self._on_panel_fault)
        if self.shuffler is not None:
            self.shuffler.add_health_listener(lambda h, reason: self._on_health("shuffler", h, reason))
        if self.shoe is not None:
            self.shoe.add_health_listener(lambda h, reason: self._on_health("shoe", h, reason))
        self.log.info("devices online", devices=[type(d).__name__ for d in starting])
        self._apply_mode()

    def _apply_mode(self) -> None:
        """Deal the way the rules allow with the devices in service (ch.13 §J; P43).

        A device marked out of order is not used.  Cards from the shuffler (stacks, or by hand) go
        to the card-reading shoe with the cards shuffled and cut by hand; cards from a shoe go to
        dealing by hand from the shuffler (ch.9 §A(1) needs it).  With neither, no round is dealt:
        nobody can enter cards the daemon cannot read (fail closed)."""
        base = self.base_cfg
        out = self.life.out_of_order
        self.shuffler = None if "shuffler" in out else self._drivers.get("shuffler")
        self.shoe = None if "shoe" in out else self._drivers.get("shoe")
        devices, dealing = base.devices, base.dealing
        self.no_card_source = None
        if "shuffler" in out and devices.shuffler:
            devices = devices.model_copy(update={"shuffler": None})
            if dealing.procedure in ("shuffler", "hand"):
                if self.shoe is not None:
                    dealing = dealing.model_copy(update={"procedure": "manual_shoe", "dealer_cards": "dealt", "decks": 1})
                else:
                    self.no_card_source = "the shuffler is out of order and no card-reading shoe is in service"
        if "shoe" in out and devices.shoe:
            devices = devices.model_copy(update={"shoe": None})
            if dealing.procedure in ("manual_shoe", "automated_shoe"):
                if self.shuffler is not None:
                    dealing = dealing.model_copy(update={"procedure": "hand"})
                else:
                    self.no_card_source = "the shoe is out of order and no shuffler is in service"
        update: dict[str, Any] = {"devices": devices, "dealing": dealing}
        if dealing.procedure == "hand" and dealing.deck_change_hours > HAND_DECK_CHANGE_HOURS:
            # ch.3 §C(1): cards dealt by hand are changed at least every four hours, whatever the
            # procedure configured (P43)
            update["dealing"] = dealing = dealing.model_copy(update={"deck_change_hours": HAND_DECK_CHANGE_HOURS})
        self.closed_wagers = [w for w in base.wagers if w in BOX_WAGERS and dealing.procedure not in BOX_PROCEDURES]
        if self.closed_wagers:
            # UTH ch.10 §B(1) alone deals the Six Card Bonus box; chapters 8 and 9 do not (P55): the
            # wager is closed while the table deals another way, its chips refused at no more bets
            update["wagers"] = {w: c for w, c in base.wagers.items() if w not in self.closed_wagers}
        self.cfg = base.model_copy(update=update) if out else base
        self.life.cfg = self.cfg
        self.procedure = PROCEDURES[self.cfg.dealing.procedure]

    async def _close_devices(self) -> None:
        self._stop.set()  # closing devices is not a device failure
        for dev in (self.panel, *self._drivers.values(), self.progressive):  # out of order ones too
            if dev is not None:
                await dev.close()

    def _on_health(self, device: str, health: Health, reason: str) -> None:
        if self._stop.is_set() or device in self.life.out_of_order:
            return  # a device out of order is not used: its health does not stop the table
        progressive = device == "progressive system" and self.cfg.progressive.enabled
        if health is Health.OFFLINE:
            self._device_trouble = f"{device} not answering"
            self.log.error("device offline", device=device, reason=reason)
            if progressive and self.progressive_off is None:
                self._progressive_disabled(NOT_ANSWERING)  # for the following rounds, until it is back
        elif self._device_trouble and self._device_trouble.startswith(device):
            self._device_trouble = None
            self.log.info("device back", device=device)
        if progressive and health is not Health.OFFLINE and self._progressive_reset_pending:
            task = asyncio.ensure_future(self._reset_progressive())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        if progressive and health is not Health.OFFLINE and self.progressive_off == NOT_ANSWERING:
            self._progressive_enabled()
            self._tell("progressive wagers enabled again: the progressive system answers")
        self._publish()

    def _on_panel_fault(self, fault: InputFault) -> None:
        """Panel input that cannot be true (a counter jump no person could press, a full press queue): no
        press is made of it; journaled, and the dealer told to check the panel."""
        self.life.record("device_input_refused", {"device": "dealer panel", "fault": fault.kind,
                                                  "reason": fault.reason})
        self._tell(f"the dealer panel sent what no one pressed ({fault.kind}): nothing was taken from it; "
                   "press again what you meant, and call a technician if it repeats")
        self._publish()

    async def _watchdog(self) -> None:
        """WATCHDOG=1 only while the devices are healthy: a stuck or blind daemon gets restarted."""
        usec = int(os.environ.get("WATCHDOG_USEC", "0"))
        if not usec:
            return
        while True:
            await asyncio.sleep(usec / 2e6)
            if self._device_trouble is None:
                sd_notify("WATCHDOG=1")
            elif not self._watchdog_paused_logged:
                self._watchdog_paused_logged = True
                self.log.error("watchdog pings paused", reason=self._device_trouble)
            if self._device_trouble is None:
                self._watchdog_paused_logged = False

    # ------------------------------------------------------------------ recovery

    async def _recover(self) -> None:
        open_id = self.journal.open_round()
        if open_id is None:
            await self._check_progressive_reset()
            if self.life.state is TableState.OPEN and not self.life.required:
                await self._new_round()
            return
        events = self.journal.events(open_id)
        setup = setup_from_journal(events[0].data)
        self.round = await RoundController.restore(open_id, setup, [(e.kind, e.data) for e in events],
                                                   journal=self.journal)
        structlog.contextvars.bind_contextvars(round_id=open_id)
        phase = self.round.phase
        if phase is Phase.HALTED:
            phase = self.round.halted_from or phase
        partial = self._recover_streets()
        if phase is Phase.DEALING or partial:
            # P34: cards may have left the shoe or shuffler unrecorded: the deal cannot be trusted.
            if self.round.phase is Phase.HALTED:
                await self.round.resume_round("restart")
            await self._void(f"the daemon restarted during the deal (P34; {clause('deal_failed', self.game.short)})")
            self._tell("restarted during the deal: round VOIDED, return all wagers, then confirm")
        else:
            self._tell(f"restarted: round {open_id} RESUMED in {self.round.phase.value}")
            if self.round.phase is Phase.SETTLED:
                # settled but not yet validated: the same waiting state as before the restart
                await self._hold_for_validation(restarted=True)
        self.log.warning("round recovered after a restart", round_id=open_id, phase=self.round.phase.value)
        await self._check_progressive_reset()

    async def _check_progressive_reset(self) -> None:
        """At start between rounds: a lock-out still on means the last round's reset never happened
        (the daemon stopped, or the system did not answer): its flags are not new wagers."""
        if self.progressive is None or not self.cfg.progressive.enabled:
            return
        if self.round is not None and self.round.phase is not Phase.WAGERS:
            return
        try:
            locked = await self.progressive.locked_out()
        except DeviceError:
            self._progressive_reset_pending = True
            return
        if locked:
            self._progressive_reset_pending = True
            await self._reset_progressive()

    def _recover_streets(self) -> bool:
        """How many streets' cards a resumed round has had dealt; True when one was dealt only in part."""
        r = self.round
        assert r is not None
        self._streets_dealt = 0
        if self.procedure is Procedure.AUTOMATED:
            return False
        for k in range(1, len(self.game.streets) + 1):
            places = [p for p in street_deal(self.game, self.procedure, k) if p[0] == "community"]
            dealt = [p for p in places if r._community_index(str(p[1])) in r.community]
            if places and len(dealt) == len(places):
                self._streets_dealt = k
            elif dealt:
                return True
            else:
                break
        return False

    # ------------------------------------------------------------------ the panel

    def _tell(self, message: str) -> None:
        self.message = message
        self.log.info("dealer", say=message, round_id=self.round.round_id if self.round else None)

    async def _refuse(self, why: str) -> None:
        self._tell(f"refused: {why}")
        await self._buzz()

    async def _buzz(self) -> None:
        if self.panel is not None:
            try:
                await self.panel.buzz()
            except DeviceError:
                pass

    async def _on_press(self, press: ButtonPress) -> None:
        if press.after_outage:
            await self._refuse(f"{press.button} was pressed while the panel was unreachable: press it again")
            return
        try:
            try:
                if press.button == "void_round":
                    self.irregularity = None
                    await self._void_pressed()
                elif press.button == "irregularity" or self.irregularity is not None:
                    await self._irregularity_press(press)
                elif self.life.required and (self.round is None or self.round.phase is Phase.WAGERS):
                    await self._table_step(press)
                else:
                    await self._round_press(press)
            except DeviceError as e:
                await self._device_error(e)
        except RoundRefused as e:
            await self._refuse(str(e))
        except RoundStopped as e:
            if e.buzz:
                await self._buzz()  # the dealer has been told what happened and what to do

    async def _supervisor(self) -> str | None:
        assert self.panel is not None
        key = await self.panel.key_switch()
        return f"supervisor {key.supervisor_id}" if key.on else None

    async def _table_step(self, press: ButtonPress) -> None:
        """The next required step of the table (opening, between rounds, reopening after idle)."""
        step = self.life.next_step()
        assert step is not None
        name, button, needs_key, clause = step
        if press.button != button:
            raise RoundRefused(f"first: {name.replace('_', ' ')} ({clause}) with the {button} button")
        who = "dealer"
        if needs_key:
            who = await self._supervisor()
            if who is None:
                raise RoundRefused(f"{name} needs the floor supervisor's key ({clause})")
        data: dict[str, Any] = {"step": name}
        if name.startswith("shuffled") and self.shuffler is not None:
            result = await self._shuffle()
            if result is None:
                return  # the deck was removed: the opening steps start again
            data.update(deck=result.deck, count=result.count)
        self.life.record("step_done", data, who=who)
        self._tell(f"{name.replace('_', ' ')} ({clause}) by {who}")
        if self.life.required:
            return
        if self.life.state is not TableState.OPEN:
            self.life.record("table_opened", {}, who=who)
            self._tell("table open")
        if self.round is None or self.round.phase is Phase.COMPLETE:
            await self._new_round()

    async def _round_press(self, press: ButtonPress) -> None:
        r = self.round
        assert r is not None
        phase = r.phase
        b = press.button
        if phase is Phase.WAGERS and b == "no_more_bets":
            await self._no_more_bets()
        elif phase is Phase.WAGERS and b == "shuffle" and not r.seats:
            await self._no_play()
        elif phase is Phase.WAGERS and b == "undo" and not self.cfg.automated_shuffler:
            who = await self._supervisor()
            if who is None:
                raise RoundRefused("a recut is required by a floor supervisor: turn the key (ch.5 §G)")
            self.life.require(["cards_cut"], "recut required (ch.5 §G)", who=who)
            self._tell(f"recut required by {who} (ch.5 §G): cut the cards again")
        elif phase is Phase.NO_MORE_BETS and b == "confirm":
            await r.confirm_progressive_count(r.progressive_count or 0)
            await self._check_late()
            await self._deal()
        elif phase is Phase.NO_MORE_BETS and b == "undo":
            # the dealer counted a different number of progressive chips (ch.8 §C(3)): the round stops
            await r.halt_round(f"the progressive chips do not match the {r.progressive_count} wagers accepted "
                               "(ch.8 §C(3))")
            self._tell("progressive count mismatch: the supervisor resolves it, then confirms with the key, or voids")
        elif phase is Phase.DECISIONS and b in ("bet", "check", "fold"):
            seat = r.to_act()
            if seat is None:
                raise RoundRefused("no decision is pending")
            if b == "bet":
                await r.decide(seat.seat, multiple=press.multiple)
            else:
                await r.decide(seat.seat, **{b: True})
            self._tell_decision(seat.seat, b, press.multiple)
            if r.phase is Phase.REVEAL:
                await self._deal_streets(len(self.game.streets))
                await self._reveal_and_settle()
            else:
                await self._deal_streets(r.street)
        elif phase is Phase.REVEAL and b in ("deal", "confirm"):
            # every player has acted (a restart can leave the round here): deal what is left, settle
            await self._deal_streets(len(self.game.streets))
            await self._reveal_and_settle()
        elif phase in (Phase.SETTLED, Phase.VOIDED) and b == "confirm" and self.validation:
            await self._validate()
        elif phase is Phase.SETTLED and b == "confirm":
            await self._close_round()
        elif phase is Phase.VOIDED and b == "confirm":
            await self._close_round()
        elif phase is Phase.HALTED and b == "confirm":
            if self._device_trouble:
                raise RoundRefused(f"{self._device_trouble}: resume once it is back, or void the round")
            who = await self._supervisor()
            if who is None:
                raise RoundRefused("resuming a halted round needs the floor supervisor's key")
            await r.resume_round(who)
            self._tell(f"round resumed by {who}")
            if r.phase is Phase.DEALING:
                await self._void(f"the deal was interrupted ({clause('deal_failed', self.game.short)})")
        else:
            raise RoundRefused(f"{b} does nothing in {phase.value}")

    # ------------------------------------------------------------------ irregularities the dealer reports (P41)

    def _menu_phase(self) -> str:
        r = self.round
        return r.phase.value if r is not None else "wagers"

    async def _irregularity_press(self, press: ButtonPress) -> None:
        """The irregularity menu: ``irregularity`` opens it, seat button N picks option N (then, if asked,
        the seat), ``confirm`` with the floor supervisor's key applies the remedy, ``undo`` closes it."""
        b = press.button
        m = self.irregularity
        if b == "irregularity":
            options = irr.menu(self.game.short, self._menu_phase(), has_dealer=self.game.dealer_cards > 0,
                               devices=sorted(self._drivers), out_of_order=sorted(self.life.out_of_order))
            if not options:
                raise RoundRefused(f"no irregularity can be reported in {self._menu_phase()}: "
                                   "void_round with the supervisor's key if the round cannot go on")
            self.irregularity = {"options": options, "chosen": None, "seat": None}
            listed = "; ".join(f"{i} {o.label}" for i, o in enumerate(options, 1))
            self._tell(f"IRREGULARITY: {listed} -- press the seat button of its number (undo: cancel)")
            return
        assert m is not None
        if b == "undo":
            self.irregularity = None
            self._tell("irregularity menu closed: nothing changed")
            return
        chosen = m["chosen"]
        if b.startswith("seat_"):
            n = int(b.removeprefix("seat_"))
            if chosen is None:
                if not 1 <= n <= len(m["options"]):
                    raise RoundRefused(f"no option {n}: 1 to {len(m['options'])}")
                m["chosen"] = chosen = m["options"][n - 1]
                if chosen.needs_seat:
                    self._tell(f"{chosen.label}: press the seat's button (undo: cancel)")
                    return
            elif chosen.needs_seat and m["seat"] is None:
                r = self.round
                if r is None or n not in {s.seat for s in r.players}:
                    raise RoundRefused(f"seat {n} has no player in this round")
                m["seat"] = n
            else:
                raise RoundRefused("confirm with the supervisor's key, or undo")
            where = clause(chosen.what.split(":")[0], self.game.short)
            seat = f" at seat {m['seat']}" if m["seat"] else ""
            self._tell(f"{chosen.label}{seat} ({where}): a floor supervisor confirms with the key (undo: cancel)")
            return
        if b != "confirm" or chosen is None or (chosen.needs_seat and m["seat"] is None):
            raise RoundRefused("the irregularity menu is open: pick an option with the seat buttons, or undo")
        who = await self._supervisor()
        if who is None:
            raise RoundRefused("an irregularity is confirmed with the floor supervisor's key")
        self.irregularity = None
        await self._apply_irregularity(chosen.what, m["seat"], who)

    async def _apply_irregularity(self, what: str, seat: int | None, who: str) -> None:
        r = self.round
        short = self.game.short
        where = clause(what.split(":")[0], short)
        self.log.warning("irregularity reported", what=what, seat=seat, by=who)
        if what.startswith(("out_of_order:", "in_service:")):
            await self._device_service(what, who)
            return
        if what == "skipped":
            assert seat is not None
            raise SeatSkipped(seat, who)
        if what == "player_left":
            assert r is not None and seat is not None
            returned = self.cfg.abandoned_wagers == "returned"
            meters = self._without_contribution(seat) if returned else None
            await r.abandon(seat, who, returned=returned, meters=meters)
            await self._take_back_contribution(meters)
            if returned:
                self._tell(f"seat {seat}: the player left ({where}); every wager of the seat is returned -- "
                           "return them")
            else:
                self._tell(f"seat {seat}: the player left ({where}); every wager of the seat is lost -- collect them")
            if r.phase is Phase.REVEAL:
                await self._deal_streets(len(self.game.streets))
                await self._reveal_and_settle()
            return
        assert r is not None
        keep = kept_alive(what, self.game.name, short)
        if keep and any(w in s.wagers for s in r.players for w in keep):
            # UTH ch.13 §C/§G, JHE §C/§G (R10): the community cards are dealt and the kept wagers
            # settled; HCF §F: every card is already out
            await self._deal_streets(len(self.game.streets))
            await self._release_dealer_cards()
        else:
            keep = frozenset()
        labels = {"exposed_after_initial": "cards found face up after the initial deal",
                  "dealer_card_exposed": "a dealer card exposed before every player acted",
                  "wrong_number_of_cards": "a wrong number of cards dealt"}
        await self._irregular_void(f"{labels[what]}, reported by the dealer, confirmed by {who} ({where})", keep=keep)

    async def _skip_seat(self, seat: int, who: str, cards: list[tuple[str, str]]) -> None:
        """RET ch.13 §G: the seat plays the next hand; its wagers are returned (and a progressive
        wager's contribution taken back, R7a), every card dealt so far is where it really went."""
        r = self.round
        assert r is not None
        meters = self._without_contribution(seat)
        await r.skip_seat(seat, who, cards, meters)
        await self._take_back_contribution(meters)
        where = clause("skipped", self.game.short)
        self._tell(f"seat {seat} was skipped ({where}, {who}): it plays the next hand, its wagers stay for it; "
                   "dealing goes on without it")

    def _without_contribution(self, seat: int) -> dict[str, Decimal] | None:
        """The round's meters without the seat's progressive contribution (R7a), or None without one."""
        r = self.round
        assert r is not None
        if "progressive" not in r.seats[seat].wagers or not self.cfg.progressive.enabled:
            return None
        taken = self.meters.contributions(1)
        return {m: Decimal(str(v)) - taken[m] for m, v in r.setup.progressive["meters"].items()}

    async def _take_back_contribution(self, meters: Mapping[str, Decimal] | None) -> None:
        """Journal the contribution taken back with the round's new meters (R7a) and show them."""
        if meters is None:
            return
        r = self.round
        assert r is not None
        taken = {m: -v for m, v in self.meters.contributions(1).items()}
        self.journal.append(r.round_id, "meter_add", {"meters": taken})
        await self._show_meters()

    async def _device_service(self, what: str, who: str) -> None:
        """ch.13 §J (HCF §I, RET §E): a device that cannot be used is covered or signed out of order
        before the table shuffles or deals another way; journaled with who (P43)."""
        r = self.round
        if r is not None and r.phase is not Phase.WAGERS:
            raise RoundRefused("a device is taken out of (or back into) service between rounds: finish or void this one")
        kind, device = what.split(":")
        where = clause(kind, self.game.short)
        before = self.cfg.automated_shuffler
        if kind == "out_of_order":
            self.life.record("device_out_of_order", {"device": device, "clause": where}, who=who)
            if self._device_trouble and self._device_trouble.startswith(device):
                self._device_trouble = None  # not in use: its silence no longer stops the table
        else:
            self.life.record("device_in_service", {"device": device, "clause": where}, who=who)
        self._apply_mode()
        if before != self.cfg.automated_shuffler:
            # the cards are shuffled another way from now on: shuffle them that way before the next deal
            steps = ["shuffled"] if self.cfg.automated_shuffler else between_round_steps(self.cfg)
            self.life.require(steps, f"the {device} is {'back in service' if kind == 'in_service' else 'out of order'}",
                              who=who)
        mode = self.no_card_source or f"the table deals by {self.cfg.dealing.procedure.replace('_', ' ')} now"
        if self.closed_wagers and not self.no_card_source:
            mode += (f"; {', '.join(w.replace('_', ' ') for w in self.closed_wagers)} CLOSED: this procedure deals "
                     "no Six Card Bonus box (UTH ch.10 §B(1), P55) -- take no such wager")
        if self.cfg.dealing.deck_change_hours != self.base_cfg.dealing.deck_change_hours:
            mode += f"; decks changed every {self.cfg.dealing.deck_change_hours:g} h dealt by hand (ch.3 §C(1))"
        state = "out of order: cover it or sign it" if kind == "out_of_order" else "back in service"
        self._tell(f"{device} {state} ({where}, {who}); {mode}")

    def _tell_decision(self, seat: int, button: str, multiple: int | None) -> None:
        what = f"{multiple}x" if button == "bet" else button
        self._tell(f"seat {seat}: {what}")

    # ------------------------------------------------------------------ the round

    async def _no_play(self) -> None:
        """No gaming activity (UTH, JHE ch.5 §H; HCF §G; RET §F): the table goes idle, and opens again with
        the steps of chapter 4 (P67); with the supervisor's key it closes."""
        r = self.round
        assert r is not None
        who = await self._supervisor()
        idle = f"{self.game.short} {IDLE_CLAUSE[self.game.short]}"
        await r.void(f"no play at the table ({idle})")
        await r.confirm()
        if who is not None:
            self.life.record("table_closed", {}, who=who)
            self.life.require(opening_steps(self.cfg), "the table reopens with decks received (ch.4)", who=who)
            self._tell(f"table closed by {who}")
        else:
            self.life.record("table_idle", {}, who="dealer")
            self.life.require(reopening_steps(self.cfg), f"no play ({idle})")
            step = self.life.next_step()
            assert step is not None
            self._tell(f"table idle ({idle}): first {step[0].replace('_', ' ')}, then the opening steps of ch.4")
        self.round = None

    async def _new_round(self) -> None:
        round_id = time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]
        self.round = await RoundController.open(round_id, round_setup(self.cfg, self.meters), self.journal)
        structlog.contextvars.bind_contextvars(round_id=round_id)  # every log line of the round carries it
        self._late_journaled = set()
        self.notice = None
        self.validation = []
        self._tell(f"round {round_id}: place your bets")

    async def _no_more_bets(self) -> None:
        """ch.8 §C / ch.10 §A(2): no more bets; the lock-out set and confirmed before any card leaves."""
        r = self.round
        assert r is not None
        if self.no_card_source:
            raise RoundRefused(f"{self.no_card_source} ({clause('out_of_order', self.game.short)}): "
                               "no round until a device is back in service")
        self._check_deck_age()
        self._check_alternation()
        offered = self.progressive is not None and self.cfg.progressive.enabled
        if self.progressive is not None and self.progressive.health is Health.OFFLINE:
            # the bet sensors are on the progressive unit: no wager can be read, nothing is journaled
            # for the round; it stays open for wagers until the system answers again
            if offered:
                self._progressive_disabled(NOT_ANSWERING)
            raise RoundRefused("progressive wagers disabled: the progressive system is not answering "
                               "(its bet sensors too): no more bets once it is back")
        if self._progressive_reset_pending:
            await self._reset_progressive()  # the last round's accepted flags are not this round's wagers
        bets = await self.progressive.read_bets() if self.progressive else {}
        areas = [w for w in self.game.wagers if w != "progressive"]  # bet-sensor area i = wager i (docs)
        accepted: list[int] = []
        if offered:
            assert self.progressive is not None
            why = None
            if self._sign_trouble is not None:
                await self._show_meters()  # the signs must show the meters before wagers are taken on them
                if self._sign_trouble is not None:
                    why = f"the meter signs are not answering ({self._sign_trouble})"
            if why is None:
                try:
                    await self.progressive.lock_out(True)  # raises LockoutNotConfirmed if it does not read back
                    accepted = sorted(await self.progressive.accepted_seats())
                except LockoutNotConfirmed:
                    why = "the progressive system's lock-out cannot be confirmed (ch.8 §C(2))"
                except DeviceError:
                    why = NOT_ANSWERING
            if why is not None:
                accepted = []  # this round is taken without progressive wagers
                self._progressive_disabled(why)
            else:
                self._progressive_enabled()
                await self._check_late()
                try:
                    # each player sees the wager accepted; a late attempt's light stays off (ch.8 §C(2))
                    await self.progressive.set_lights(accepted=accepted)
                except DeviceError as e:
                    self.log.error("accepted lights not set", error=str(e))
        playing = {seat for seat, by_area in bets.items() if by_area}
        sensed: list[tuple[int, str, Decimal]] = []
        for seat in sorted(playing):
            if seat > self.cfg.seats:
                raise RoundRefused(f"chips at seat {seat}, but this table has {self.cfg.seats} seats")
            for area, cents in sorted(bets[seat].items()):
                wager = areas[area] if area < len(areas) else f"area {area}"
                if wager in self.closed_wagers:
                    raise RoundRefused(f"seat {seat}: chips on {wager}, closed while the table deals by "
                                       f"{self.cfg.dealing.procedure.replace('_', ' ')} (UTH ch.10 §B(1), P55)")
                if wager not in self.cfg.wagers and wager not in self.game.antes:
                    raise RoundRefused(f"seat {seat}: chips on {wager}, which this table does not offer")
                amount = Decimal(cents) / 100
                low, high = self.cfg.limits(wager)
                if not low <= amount <= high:
                    raise RoundRefused(f"seat {seat}: {wager} {amount} is outside the table limits {low}-{high}")
                sensed.append((seat, wager, amount))
        for seat, wager, amount in sensed:  # all checked first: a refusal journals nothing
            await r.place_wager(seat, wager, amount)
        meters = None
        if self.cfg.progressive.enabled:
            # the contributions go on the meters as the wagers are accepted (ch.8 §C); this round's
            # progressive hands are paid from the meters with them (R4)
            contributions = self.meters.contributions(len(accepted))
            meters = {m: v + contributions[m] for m, v in self.meters.values().items()}
        await r.announce_no_more_bets(progressive_seats=accepted, meters=meters)
        if accepted:
            self.journal.append(r.round_id, "meter_add", {"meters": self.meters.contributions(len(accepted))})
            await self._show_meters()
        said = f"no more bets: {len(playing)} players, {len(accepted)} progressive wagers accepted -- check the chips and confirm"
        if offered and self.progressive_off:
            said = (f"progressive wagers disabled: {self.progressive_off} -- return any progressive chips; "
                    f"no more bets: {len(playing)} players, no progressive wagers -- confirm")
        self._tell(said)

    async def _deal(self) -> None:
        """The initial deal: the stacks of ch.10 §B, or card by card per ch.8 §D / ch.9 §B."""
        r = self.round
        assert r is not None
        self._streets_dealt, self._face_up_this_round = 0, 0
        seats = sorted(r.seats)
        if self.shuffler is not None and self.life.last_shuffled:  # one deck or two: which one dealt (ch.3 §A-§B)
            self.life.record("deck_dealt", {"deck": self.life.last_shuffled, "round": r.round_id})
        if self.shoe is not None and self.shoe.pending:
            # cards out of the shoe before no more bets: not part of this deal (ch.8 §C-§D)
            await r.halt_round(f"{self.shoe.pending} card(s) drawn from the shoe before the deal")
            raise RoundRefused("cards were drawn before the deal: void the round and reload the shoe")
        if self.procedure is Procedure.AUTOMATED:
            held = self.cfg.dealing.dealer_cards == "in_shuffler"
            for stack in stacks(self.game, seats, dealer_in_shuffler=held):
                if stack.held:
                    assert self.shuffler is not None
                    await self.shuffler.hold(stack.size)
                    continue
                await self._deal_places(stack.places, as_stack=True)
        else:
            await self._deal_places(initial_deal(self.game, self.procedure, seats))
        nxt = r.to_act()
        self._tell(f"cards dealt; seat {nxt.seat if nxt else '-'} to act")

    async def _deal_streets(self, upto: int) -> None:
        """Cards dealt between decisions (UTH's flop and turn-and-river from a shoe or by hand)."""
        if self.procedure is Procedure.AUTOMATED:
            return
        while self._streets_dealt < upto:
            self._streets_dealt += 1
            await self._deal_places(street_deal(self.game, self.procedure, self._streets_dealt))

    async def _cards(self, n: int, *, as_stack: bool) -> list[tuple[str, bool]]:
        """``n`` cards from this table's source, each with its face-up flag."""
        if self.shuffler is not None and self.procedure is not Procedure.MANUAL_SHOE and self.shoe is None:
            if as_stack:
                stack = await self.shuffler.deliver(n)
                return list(zip(stack.cards, stack.face_up))
            out = []
            for _ in range(n):  # dealt by hand: the top card of the shuffled deck, one at a time (ch.9 §B(1))
                stack = await self.shuffler.deliver(1)
                out.append((stack.cards[0], stack.face_up[0]))
            return out
        assert self.shoe is not None
        out = []
        self.expecting = n
        self._publish()
        try:
            for _ in range(n):
                drawn = await self._next_card()
                out.append((drawn.card, drawn.face_up))
                self.expecting -= 1
        finally:
            self.expecting = 0
        return out

    async def _next_card(self):
        """The next card out of the shoe.  Meanwhile the panel is served for what can happen during a
        deal -- the irregularity menu (P41) and void_round -- and refuses anything else."""
        assert self.shoe is not None and self.panel is not None
        deadline = time.monotonic() + CARD_TIMEOUT
        card = asyncio.ensure_future(self.shoe.next_card())
        try:
            while True:
                press = asyncio.ensure_future(self.panel.next_press())
                done, _ = await asyncio.wait({card, press}, timeout=max(0.0, deadline - time.monotonic()),
                                             return_when=asyncio.FIRST_COMPLETED)
                if press in done:
                    await self._press_while_dealing(press.result())
                else:
                    press.cancel()  # a queue get: cancelling it loses no press
                if card in done:
                    return card.result()
                if not done:
                    raise DeviceError("shoe", f"no card drawn in {CARD_TIMEOUT:.0f} s")
                self._publish()
        finally:
            card.cancel()

    async def _press_while_dealing(self, press: ButtonPress) -> None:
        self.presses_handled += 1  # counted as taken (a press kept for after the deal is counted then)
        try:
            if press.button == "void_round":
                self.irregularity = None
                await self._void_pressed()
                raise RoundStopped("voided by the supervisor", buzz=False)
            if press.button == "irregularity" or self.irregularity is not None:
                await self._irregularity_press(press)
            else:
                self._deferred.append(press)  # e.g. a decision pressed while the dealer's cards still come
                self.presses_handled -= 1
        except RoundRefused as e:
            await self._refuse(str(e))

    async def _deal_places(self, places, *, as_stack: bool = False) -> None:
        """Deal one card to each place, in order (a face-up card is not used: ch.13 §A-§B)."""
        r = self.round
        assert r is not None
        places = list(places)
        todo = list(places)
        dealt: list[tuple[str, str]] = []  # (place, card) of this deal so far, in order
        while todo:
            self.next_place = place_key(todo[0])  # public: where the next card goes
            try:
                got = await self._cards(len(todo) if as_stack else 1, as_stack=as_stack)
            except SeatSkipped as e:
                # RET ch.13 §G (P44): the cards of this deal went to the places without the seat
                order = [p for p in places if not (p[0] == "seat" and p[1] == e.seat)]
                if len(dealt) > len(order):
                    raise RoundRefused("more cards dealt than the places without that seat: "
                                       "a wrong number of cards voids the round instead") from None
                moved = [(place_key(p), card) for p, (_, card) in zip(order, dealt)]
                await self._skip_seat(e.seat, e.who, moved)
                dealt, todo = moved, order[len(moved):]
                continue
            finally:
                self.next_place = None
            for card, face_up in got:
                if r.has_card(card):
                    await self._card_of_another_deck("the same card came out twice this round")
                if face_up:
                    await self._face_up_card(card)
                    if as_stack and self.shoe is None:
                        await self._face_up_in_stack("a card came out of the shuffler face up inside a stack")
                    continue
                place = place_key(todo.pop(0))
                await r.card(place, card)
                dealt.append((place, card))

    async def _face_up_card(self, card: str) -> None:
        """ch.13 §A: a card found face up is not used; §B: a second one voids every hand (RET: the first)."""
        self._face_up_this_round += 1
        r = self.round
        assert r is not None
        await r.discard(card, "found face up while dealing (ch.13 §A)")  # journaled: the round stays reconstructable
        if self.game.name == "run_em_twice" or self._face_up_this_round > 1:
            what = "a card" if self.game.name == "run_em_twice" else f"{self._face_up_this_round} cards"
            await self._irregular_void(f"{what} found face up while dealing ({clause('face_up', self.game.short)})")
        self._tell("a card came out face up: it is not used, place it in the discard rack (ch.13 §A)")

    async def _count_stub(self) -> None:
        """ch.8 §E-§G: the stub is counted -- here by the card-reading shoe, every round.

        The cards the shoe counts as drawn must be the cards this round journaled, and
        drawn + left must be a whole deck; otherwise the round stops for the supervisor
        (all hands void; a deck that is not 52 cards is removed, ch.8 §G(1)-(2)).
        """
        r = self.round
        assert r is not None and self.shoe is not None
        st = await self.shoe.status()
        deck = st.position + st.remaining
        if st.position != r.cards_out() or deck != 52:
            # §G(1): misdealt with 52 cards in the deck: void; §G(2): the deck is wrong: void and remove it
            why = (f"stub count: the shoe has {st.position} cards drawn and {st.remaining} left, "
                   f"the round took {r.cards_out()} ({clause('stub_count', self.game.short)})")
            if self.shuffler is not None and self.life.last_count is not None:
                # a known real-world failure: the shuffler counted a whole deck that is not one
                why += f"; the shuffler counted {self.life.last_count} after its last shuffle"
            await self._irregular_void(why, remove_deck=f"{deck} cards in it" if deck != 52 else None)

    async def _release_dealer_cards(self) -> None:
        """The dealer's cards held in the shuffler (UTH ch.10 §B(4)) come out now."""
        r = self.round
        assert r is not None
        if self.cfg.dealing.dealer_cards == "in_shuffler" and len(r.dealer) < self.game.dealer_cards:
            assert self.shuffler is not None
            stack = dealer_release_stack(self.game)
            released = await self.shuffler.release()
            if any(released.face_up):
                await self._face_up_in_stack("a dealer card came out of the shuffler face up")
            for place, card in zip(stack.places, released):
                if r.has_card(card):
                    await self._card_of_another_deck("the same card came out twice this round")
                await r.card(place_key(place), card)

    async def _reveal_and_settle(self) -> None:
        r = self.round
        assert r is not None
        if self.shoe is not None:
            await self._count_stub()
        await self._release_dealer_cards()
        await r.settle()
        # the meters are not touched here: a progressive win is paid from them only once validated
        shows = f"dealer shows {' '.join(r.public_view()['dealer'])}; " if self.game.dealer_cards else ""
        self._tell(f"{shows}pay and collect in this order: {self._order_told()}; then confirm")
        self._log_settlement()
        await self._hold_for_validation()

    def _order_told(self) -> str:
        """The order of payment as the dealer is told it: each pass (P65) with its seats, from the right."""
        r = self.round
        assert r is not None and r.payments is not None
        passes: list[tuple[str, list[str], list[int]]] = []  # (clause, wagers, seats)
        for p in r.payments:
            if not passes or passes[-1][0] != p["clause"]:
                passes.append((p["clause"], [], []))
            passes[-1][2].append(p["seat"])
            passes[-1][1].extend(w["wager"] for w in p["wagers"] if w["wager"] not in passes[-1][1])
        return "; then ".join(f"{', '.join(w.replace('_', ' ') for w in wagers)} at seat "
                              f"{', '.join(map(str, seats))} ({where})" for where, wagers, seats in passes)

    def _log_settlement(self) -> None:
        """Each step of the order of payment (P65), in order."""
        r = self.round
        assert r is not None and r.settlement is not None and r.payments is not None
        hands = {s.seat: s.hand for s in r.settlement.seats}
        nets = {s.seat: s.net for s in r.settlement.seats}
        for step, p in enumerate(r.payments, 1):
            wagers = ", ".join(f"{w['wager']} {w['result']} {display(Decimal(w['net'])):+}" for w in p["wagers"])
            hand = hands[p["seat"]]
            shown = hand.get("hand") or " / ".join(f"{k} {v['hand']}" for k, v in hand.items())
            self.log.info("settle", round_id=r.round_id, step=step, seat=p["seat"], clause=p["clause"],
                          hand=shown if p["shows_hand"] else None, wagers=wagers,
                          seat_net=str(display(nets[p["seat"]])))

    # ------------------------------------------------------------------ the progressive system

    def _hits(self) -> list[prog.Hit]:
        r = self.round
        assert r is not None and r.settlement is not None
        return prog.hits(self.game, r.settlement, r.setup.progressive, r.setup.paytables)

    async def _hold_for_validation(self, restarted: bool = False) -> None:
        """UTH ch.11 §J(2)(a)-(c) (JHE ch.11 §K(2), HCF ch.11 §B(9)): the winner lit, the payout held."""
        r = self.round
        assert r is not None
        self.validation = prog.pending(self.journal, r.round_id, self._hits())
        if not self.validation:
            return
        clause = prog.VALIDATION_CLAUSE.get(self.game.name, "ch.11")
        wins = "; ".join(h.describe() for h in self.validation)
        self._tell(f"{'restarted: ' if restarted else ''}PROGRESSIVE WIN held for validation: {wins} -- verify the "
                   f"hand and the winner light; a floor supervisor validates with the key and confirm ({clause})")
        self.log.warning("progressive win held for validation", round_id=r.round_id,
                         hits=[h.public() for h in self.validation])
        if self.progressive is not None:
            try:
                await self.progressive.set_lights(accepted=sorted(r.progressive_seats()),
                                                  winner=sorted({h.seat for h in self.validation}))
            except DeviceError as e:  # the dealer verifies the light: the supervisor sees it is off
                self.log.error("winner light not set", error=str(e))

    async def _validate(self) -> None:
        """The floor supervisor validated the held payouts: journal them, pay the meters, update the signs."""
        r = self.round
        assert r is not None
        clause = prog.VALIDATION_CLAUSE.get(self.game.name, "ch.11")
        who = await self._supervisor()
        if who is None:
            seats = ", ".join(str(s) for s in sorted({h.seat for h in self.validation}))
            raise RoundRefused(f"progressive win at seat {seats} held: a floor supervisor validates it with the "
                               f"key ({clause})")
        prog.record_validation(self.journal, r.round_id, self.validation, who)
        paid = "; ".join(h.describe() for h in self.validation)
        self.validation = []
        expected = r.settlement.meters if r.settlement is not None else {}
        now = self.meters.values()
        if any(now.get(m) != v for m, v in expected.items() if m in now):
            self.log.error("meters after validation differ from the settlement", meters={k: str(v) for k, v in now.items()})
        await self._show_meters()
        self._tell(f"progressive payout validated by {who}: pay {paid}; pay and collect as shown, then confirm")

    def _progressive_disabled(self, why: str) -> None:
        r = self.round
        if self.progressive_off != why:
            self.journal.append(None, prog.DISABLED, {"round": r.round_id if r else None, "reason": why})
            self.log.error("progressive wagers disabled", reason=why)
        self.progressive_off = why
        self._tell(f"progressive wagers disabled: {why}")

    def _progressive_enabled(self) -> None:
        if self.progressive_off is None:
            return
        r = self.round
        self.journal.append(None, prog.ENABLED, {"round": r.round_id if r else None})
        self.log.info("progressive wagers enabled again")
        self.progressive_off = None

    async def _check_late(self) -> None:
        """Wagers tried after the lock-out (ch.8 §C(2)): not recognised, journaled with the round."""
        r = self.round
        if r is None or self.progressive is None or not self.cfg.progressive.enabled or self.progressive_off:
            return
        try:
            st = await self.progressive.status()
        except DeviceError as e:
            self.log.error("late wagers not read", error=str(e))
            return
        late = set(st.late)
        if r.phase is not Phase.WAGERS:
            # a wager the system took after no more bets was not this round's (ch.8 §C(2))
            late |= set(st.accepted) - set(r.progressive_seats())
            if not st.locked_out:
                await self._lockout_lost()
        new = sorted(late - self._late_journaled)
        if new:
            self.journal.append(None, prog.LATE_WAGER, {"round": r.round_id, "seats": new})
            self._late_journaled |= set(new)
            self.log.warning("late progressive wager", seats=new)

    async def _lockout_lost(self) -> None:
        """The progressive system no longer holds the lock-out it confirmed at no more bets (it was
        power cycled): set it again, and the lights and signs it lost; journaled, the dealer told."""
        r = self.round
        assert r is not None and self.progressive is not None
        self.journal.append(None, prog.LOCKOUT_LOST, {"round": r.round_id})
        self.log.error("progressive lock-out lost during the round")
        try:
            await self.progressive.lock_out(True)
            await self.progressive.set_lights(accepted=r.progressive_seats())
        except (DeviceError, LockoutNotConfirmed) as e:
            self.log.error("lock-out not set again", error=str(e))
        await self._show_meters()
        self.notice = ("the progressive system lost its lock-out during this round (restarted?); it is set "
                       "again: a progressive wager placed meanwhile does not count (ch.8 §C(2))")
        self._tell(f"{self.message} -- NOTE: {self.notice}")

    async def _reset_progressive(self) -> None:
        """After a round: lights off, the accepted and late flags cleared, the lock-out released.

        Until that is done, the flags still say what the last round accepted: a system that did not
        answer is reset as soon as it answers again, and before any no more bets reads it."""
        if self.progressive is None or not self.cfg.progressive.enabled:
            return
        try:
            await self.progressive.set_lights()
            await self.progressive.clear_accepted()
            await self.progressive.lock_out(False)
        except DeviceError as e:
            self._progressive_reset_pending = True
            self.log.error("progressive system not reset after the round", error=str(e))
        else:
            if self._progressive_reset_pending:
                self.log.info("progressive system reset after its outage")
            self._progressive_reset_pending = False

    async def _close_round(self) -> None:
        r = self.round
        assert r is not None
        if r.phase is Phase.SETTLED:
            await self._check_late()
        await r.confirm()
        removed = bool(self.life.required)  # a deck removed by the irregularity that voided the round
        await self._reset_progressive()
        if removed:
            self.round = None
            step = self.life.next_step()
            self._tell(f"round closed; the deck was removed: first {step[0].replace('_', ' ') if step else 'new decks'}")
            return
        if self.cfg.automated_shuffler:
            # ch.5 §A(2): after each round (two decks alternate, ch.3 §B)
            if await self._shuffle() is None:
                self.round = None
                return
        steps = between_round_steps(self.cfg)
        if steps:  # shuffled and cut by hand before the next round (ch.5 §A(2), §D(2), §F)
            self.life.require(steps, "after the round (ch.5 §A(2))")
            self.round = None
            self._tell("shuffle the cards and cut them for the next round")
            return
        await self._new_round()

    async def _shuffle(self):
        """The automated shuffler shuffles and counts; anything but 52 cards removes the deck (ch.5 §E)."""
        assert self.shuffler is not None
        try:
            result = await self.shuffler.shuffle()
            self.life.record("deck_shuffled", {"deck": result.deck, "count": result.count})
            return result
        except CardCountError as e:
            self.life.record("deck_removed", {"deck": e.deck, "count": e.count, "clause": "ch.5 §E"})
            self.life.require(opening_steps(self.cfg), f"deck {e.deck} removed: {e.count} cards counted (ch.5 §E)")
            self._tell(f"deck {e.deck} counted {e.count} cards: remove it from the table (ch.5 §E); "
                       "new decks go through the opening steps")
            return None
        except DeviceError as e:
            # jammed, stopped or did not complete the shuffle -- or did not answer: no round is dealt
            # from it; the cards are taken out and shuffled again (UTH ch.13 §H, HCF ch.13 §G)
            where = clause("shuffle_failed", self.game.short)
            self.log.error("shuffle failed", error=str(e))
            if not self.life.required:
                self.life.require(["shuffled"], f"the shuffle failed ({where})")
            self._tell(f"the shuffle failed: {e} ({where}): clear the shuffler, put all the cards back in it, "
                       "and shuffle again (the shuffle button)")
            return None

    def _check_alternation(self) -> None:
        """Only the decks received and inspected are dealt (ch.3 §A(1): one deck, or §B: two; ch.4 §A-§E):
        a deck the shuffler brings into play that the table never inspected -- the other deck of a
        two-deck shuffler at a one-deck table -- deals no round; the decks go through the opening steps.
        ch.3 §B: with two decks, each is used every other round.  The shuffler alternates by itself,
        but a shuffle that failed and was repeated can bring back the deck the last round used."""
        if self.shuffler is None:
            return
        deck = self.life.last_shuffled
        if deck is not None and self.life.decks_in_use and deck not in self.life.decks_in_use:
            inspected = ", ".join(self.life.decks_in_use)
            why = f"deck {deck} is in play, but the table inspected only deck {inspected} (ch.3 §A(1), ch.4 §A)"
            self.life.record("deck_removed", {"deck": deck, "reason": why, "clause": "ch.3 §A(1), ch.4 §A"})
            self.life.require(opening_steps(self.cfg), why)
            self._tell(f"{why}: remove every deck not inspected from the shuffler and the table; "
                       "the decks go through the opening steps")
            raise RoundRefused(f"{why}: it deals no round -- the decks go through the opening steps")
        if self.cfg.dealing.decks != 2:
            return
        if deck is not None and deck == self.life.last_dealt:
            self.life.require(["shuffled"], f"deck {deck} dealt the last round (ch.3 §B)")
            raise RoundRefused(f"deck {deck} is in the shuffler's play position, and the last round was dealt "
                               f"from it: the decks alternate every round (ch.3 §B) -- shuffle (the other deck)")

    def _check_deck_age(self) -> None:
        """ch.3 §C: decks are changed at least every 4 hours dealt by hand, 8 from a shoe (configured)."""
        age = self.life.deck_age_hours()
        limit = float(self.cfg.dealing.deck_change_hours)
        if age is not None and age > limit:
            self.life.record("deck_expired", {"hours": f"{age:.3f}", "limit": str(self.cfg.dealing.deck_change_hours),
                                              "clause": "ch.3 §C"})
            self.life.require(opening_steps(self.cfg), f"the decks are older than {limit:g} h (ch.3 §C)")
            raise RoundRefused(f"the decks have been in use {age:.2f} h, the limit is {limit:g} h (ch.3 §C): "
                               "change them (the opening steps) before dealing")

    async def _void_pressed(self) -> None:
        who = await self._supervisor()
        if who is None:
            raise RoundRefused("voiding a round needs the floor supervisor's key")
        if self.round is None or self.round.phase in (Phase.SETTLED, Phase.COMPLETE, Phase.VOIDED):
            raise RoundRefused("no open round to void")
        await self._void(f"voided by {who}")

    async def _void(self, reason: str, keep: frozenset[str] = frozenset()) -> None:
        r = self.round
        assert r is not None
        await r.void(reason, keep)
        # a player who left lost the progressive wager (P42): its contribution stays
        accepted = sum(1 for s in r.players if "progressive" in s.wagers)
        if accepted and "progressive" not in keep:  # R7a: the returned progressive wagers' contributions go back
            taken = {m: -v for m, v in self.meters.contributions(accepted).items()}
            self.journal.append(r.round_id, "meter_add", {"meters": taken})
            await self._show_meters()
        self._tell(f"round void ({reason}): return every wager, then confirm")

    async def _irregular_void(self, reason: str, *, keep: frozenset[str] = frozenset(),
                              remove_deck: str | None = None, device: str | None = None) -> None:
        """P40: an irregularity whose remedy leaves nobody a choice: all hands void (R7a), except the
        wagers the clause keeps alive, settled on the cards; the dealer is told what to do and confirms.
        Raises RoundStopped: nothing more happens in this round."""
        r = self.round
        assert r is not None
        await self._void(reason, keep)
        self.log.warning("irregularity", round_id=r.round_id, reason=reason, kept=sorted(keep),
                         deck_removed=bool(remove_deck), device=device)
        todo = "return every wager" if not keep else f"settle {', '.join(sorted(keep))} as shown, return every other wager"
        todo += "; the cards are reshuffled with those dealt"
        if remove_deck:
            # ch.8 §G(2), ch.5 §E: a deck that is not 52 cards of one deck leaves the table
            self.life.record("deck_removed", {"reason": remove_deck, "round": r.round_id, "irregularity": reason})
            self.life.require(opening_steps(self.cfg), f"deck removed: {remove_deck}")
            todo += f"; REMOVE THE DECK from the table ({remove_deck}): new decks go through the opening steps"
        self._tell(f"IRREGULARITY: {reason}: all hands void -- {todo}; then confirm")
        if keep:
            self._log_settlement()
            await self._hold_for_validation()
        raise RoundStopped(reason)

    async def _card_of_another_deck(self, seen: str) -> None:
        """P40: a card seen twice in one round means a card of another deck is in this one: every hand
        void, and the deck leaves the table as one that is not 52 cards of one deck (ch.8 §G(2))."""
        await self._irregular_void(f"{seen}: a card from another deck (P40; {clause('stub_count', self.game.short)})",
                                   remove_deck="a card of another deck is in it")

    async def _face_up_in_stack(self, what: str) -> None:
        """P35: a stack cannot skip a card as a shoe can (ch.13 §A): every hand void."""
        await self._irregular_void(f"{what} (P35; {clause('face_up', self.game.short)})")

    async def _device_error(self, e: DeviceError) -> None:
        """A device reported a fault: the rules' remedy when they name it (P40), otherwise fail closed (halt)."""
        r = self.round
        dealing = r is not None and r.phase in (Phase.DEALING, Phase.DECISIONS, Phase.REVEAL)
        if dealing and isinstance(e, DuplicateCardError):
            await self._card_of_another_deck(f"the {e.device} read a card twice")
        if dealing and isinstance(e, UnreadableCardError):
            # never guessed: a card nobody can name is a failure to deal (P40)
            await self._irregular_void(f"the {e.device} could not read a card ({clause('deal_failed', self.game.short)})",
                                       device=e.device)
        if dealing and isinstance(e, DeviceFault) and not isinstance(e, CardCountError):
            # a jam, an empty device, an open door while the cards come out of it: a failure to deal
            await self._irregular_void(f"the {e.device} failed to deal: {e} ({clause('deal_failed', self.game.short)})",
                                       device=e.device)
        await self._device_failed(str(e))

    async def _device_failed(self, error: str) -> None:
        """Fail closed: the round stops where it is; the dealer is told."""
        self.log.error("device failed", error=error)
        r = self.round
        if r is not None and r.phase in (Phase.WAGERS, Phase.NO_MORE_BETS, Phase.DEALING, Phase.DECISIONS, Phase.REVEAL):
            await r.halt_round(error)
        self._tell(f"HALTED: {error} -- fix the device and confirm with the supervisor's key, or void")
        if self.panel is not None:
            try:
                await self.panel.buzz()
            except DeviceError:
                pass

    async def _show_meters(self) -> None:
        if self.progressive is None:
            return
        names = list(self.cfg.progressive.meters)
        values = self.meters.values()
        try:
            await self.progressive.set_meters({i: int(values[m] * 100) for i, m in enumerate(names)})
        except DeviceError as e:
            self._sign_trouble = str(e)  # progressive wagers are disabled at the next no more bets
            self.log.error("meter sign not updated", error=str(e))
        else:
            self._sign_trouble = None

    # ------------------------------------------------------------------ status

    def status(self) -> dict[str, Any]:
        """The public state: nothing hidden is in here (hole cards, undealt cards)."""
        devices = {}
        for name, dev in (("panel", self.panel), ("shuffler", self.shuffler), ("shoe", self.shoe),
                          ("progressive", self.progressive)):
            if dev is not None:
                devices[name] = dev.health.value
        step = self.life.next_step()
        return {
            "table": self.cfg.id,
            "game": self.cfg.game,
            "state": self.life.state.value,
            "next_step": {"step": step[0], "button": step[1], "key": step[2], "clause": step[3]} if step else None,
            "message": self.message,
            "notice": self.notice,
            "presses_handled": self.presses_handled,
            "expecting_cards": self.expecting,
            "next_card_to": self.next_place if self.expecting else None,
            "devices": devices,
            "out_of_order": sorted(self.life.out_of_order),
            "closed_wagers": list(self.closed_wagers),
            "dealing": self.cfg.dealing.procedure if not self.no_card_source else f"none: {self.no_card_source}",
            "irregularity_menu": ([o.label for o in self.irregularity["options"]]
                                  if self.irregularity and self.irregularity["chosen"] is None else None),
            # systemd's watchdog is pinged only while no device is offline (a blind daemon gets restarted)
            "watchdog": "pinging" if self._device_trouble is None else f"paused: {self._device_trouble}",
            "meters": {k: str(v) for k, v in self.meters.values().items()},
            "round": self.round.public_view() if self.round else None,
            # progressive wins held until a floor supervisor validates them (public: the round is settled)
            "validation": [h.public() for h in self.validation],
            "progressive_wagers": ("disabled: " + self.progressive_off) if self.progressive_off else "enabled",
            "updated": time.time(),
        }

    def _publish(self) -> None:
        tmp = self.status_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.status(), default=str))
        os.replace(tmp, self.status_path)


__all__ = ["TableDaemon", "sd_notify"]
