"""The table's devices: start-up, health, and the dealing mode while one is out of order (UTH ch.13 §J; P43).

Owns the drivers (panel, shuffler, shoe, progressive system), waits at start-up until each answers,
listens to their health (a device offline halts nothing by itself and is named to the dealer; one
silent at start does not stop the daemon, P94), and derives the configuration in use from the devices in service
(``apply_mode``): ``session.cfg`` (through ``Session.use_mode``), ``no_card_source`` and ``closed_wagers``.
A part that follows one device's health subscribes to it (``on_health_of``) when it is built.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from controller import events as ev
from controller.irregularities import clause
from controller.service.faults import FaultEpisodes
from controller.service.session import Session
from controller.service.storage import Storage
from controller.service.told import told
from drivers.device import DEVICE_TYPES
from drivers.health import Health
from drivers.panel import InputFault, PanelDriver
from drivers.progressive import ProgressiveDriver
from drivers.shoe import Shoe
from drivers.shuffler import Shuffler
from games.dealing import Procedure

PANEL = "dealer panel"  # the panel as the journal and the dealer name it
DEVICE_START_TIMEOUT = 10.0  # each device's time to answer at start; one that answers later is taken then
# Wagers settled on a box only UTH ch.10 §B(1) deals (UTH Six Card Bonus), and the procedures that deal it (P55)
BOX_WAGERS = ("six_card_bonus",)
BOX_PROCEDURES = ("automated_shoe", "shuffler")
# the devices the cards come from: each can be signed out of order and dealt around (UTH ch.13 §J, P43)
CARD_DEVICES = ("shuffler", "shoe")

PROCEDURES = {
    "manual_shoe": Procedure.MANUAL_SHOE,
    "hand": Procedure.HAND,
    "automated_shoe": Procedure.AUTOMATED,
    "shuffler": Procedure.AUTOMATED,
}

HealthListener = Callable[[Health], None]


class Devices:
    def __init__(self, s: Session, storage: Storage) -> None:
        self.s = s
        self.storage = storage  # what a device's news could not journal (a full disk) halts the table (P97)
        self.drivers: dict[str, Any] = {}  # the configured card devices (CARD_DEVICES), in service or not
        self.started: dict[str, Any] = {}  # every configured device by its registry name, the panel first
        self.shuffler: Shuffler | None = None  # None while out of order
        self.shoe: Shoe | None = None
        self.progressive: ProgressiveDriver | None = None
        self.panel: PanelDriver | None = None
        self.no_card_source: str | None = None
        self.closed_wagers: list[str] = []  # offered, but closed while a fallback procedure cannot deal them (P55)
        self.procedure = PROCEDURES[s.cfg.dealing.procedure]
        self.trouble: str | None = None  # the device not answering now
        self.stopping = False  # closing devices is not a device failure
        self._listeners: dict[str, list[HealthListener]] = {}  # by the device's title (``on_health_of``)
        self.faults = FaultEpisodes(s.life.record)  # the panel's input faults, journaled once an episode

    async def start(self) -> None:
        """Build each configured device's driver through the registry (``drivers.device``), start them and
        wait until each answers or ``DEVICE_START_TIMEOUT`` passes."""
        s = self.s
        types = [t for t in DEVICE_TYPES if getattr(s.cfg.devices, t.name, None)]
        built = {t.name: t.driver()(getattr(s.cfg.devices, t.name)) for t in types}
        named: dict[Any, str] = {built[t.name]: t.title for t in types}
        panel = built["panel"]  # always configured (P46)
        assert isinstance(panel, PanelDriver)
        self.panel = panel
        s.attach_panel(panel)  # the dealer's channel: the buzzer and the supervisor's key
        progressive = built.get("progressive")
        assert progressive is None or isinstance(progressive, ProgressiveDriver)
        self.progressive = progressive
        self.drivers = {name: dev for name, dev in built.items() if name in CARD_DEVICES}
        self.shuffler = self.drivers.get("shuffler")
        self.shoe = self.drivers.get("shoe")
        self.started = {"panel": panel, **{name: dev for name, dev in built.items() if dev is not panel}}
        starting: list[Any] = list(self.started.values())
        for dev in starting:
            await dev.start()
        answered = await asyncio.gather(*(self._answers(dev) for dev in starting))
        for dev in starting:
            dev.add_health_listener(lambda h, reason, name=named[dev]: self.on_health(name, h, reason))
        self.panel.add_fault_listener(self.on_panel_fault)
        self.apply_mode()
        silent = [named[dev] for dev, ok in zip(starting, answered, strict=True) if not ok]
        s.log.info("devices started", devices=[type(d).__name__ for d in starting], not_answering=silent)
        # P94: a device that does not answer does not stop the daemon (a restart would not make it answer):
        # the table comes up, says which one is silent and what waits for it; it is taken when it answers
        # (a silent progressive system: its wagers disabled, NJAC 13:69E-1.39B; its bet sensors too, so no
        # round until it answers, P37)
        for name in silent:
            self.on_health(name, Health.OFFLINE, "not answering at start")
        if silent:
            s.tell(f"not answering at start: {', '.join(silent)} -- {self.waiting_for()}",
                   told("devices_silent", device=", ".join(silent)))

    def on_health_of(self, device: str, listener: HealthListener) -> None:
        """Call ``listener`` with each health of ``device`` (its title: "progressive system") the table
        takes: not while it is out of order, nor while the devices close."""
        self._listeners.setdefault(device, []).append(listener)

    def waiting_for(self) -> str:
        """What the table cannot do while ``trouble`` lasts (said to the dealer)."""
        if self.progressive is not None and self.progressive.health is Health.OFFLINE:
            return ("progressive wagers disabled and no wager can be read (the bet sensors are on its unit): "
                    "no round until it answers")
        return ("the table waits for it (a card device can be signed out of order, "
                f"{clause('out_of_order', self.s.game.short)})")

    @staticmethod
    async def _answers(dev: Any) -> bool:
        try:
            await dev.wait_health(Health.ONLINE, Health.DEGRADED, timeout=DEVICE_START_TIMEOUT)
        except TimeoutError:
            return False
        return True

    @property
    def shoe_reads_the_cards(self) -> bool:
        """Whether the cards of a deal are read by the card-reading shoe, not reported by the shuffler.

        Dealt from the shuffler's stacks (UTH ch.10 §B) the shuffler reports every card it delivers,
        the dealer's held cards included, whatever other device the table has: a card-reading shoe
        configured beside it is the fallback for when the shuffler is out of order (P43).  Otherwise
        the shoe reads the cards whenever it is in service (UTH ch.8; by hand from the shuffler, UTH ch.9)."""
        if self.shoe is None:
            return False
        return not (self.shuffler is not None and self.s.cfg.dealing.procedure == "shuffler")

    def apply_mode(self) -> None:
        """Deal the way the rules allow with the devices in service (UTH ch.13 §J; P43).

        A device marked out of order is not used.  Cards from the shuffler (stacks, or by hand) go
        to the card-reading shoe with the cards shuffled and cut by hand; cards from a shoe go to
        dealing by hand from the shuffler (UTH ch.9 §A(1) needs it).  With neither, no round is dealt:
        nobody can enter cards the daemon cannot read (fail closed)."""
        s = self.s
        base = s.base_cfg
        out = s.life.out_of_order
        self.shuffler = None if "shuffler" in out else self.drivers.get("shuffler")
        self.shoe = None if "shoe" in out else self.drivers.get("shoe")
        devices, dealing = base.devices, base.dealing
        self.no_card_source = None
        if "shuffler" in out and devices.shuffler:
            devices = devices.model_copy(update={"shuffler": None})
            if dealing.procedure in ("shuffler", "hand"):
                if self.shoe is not None:
                    dealing = dealing.model_copy(update={"procedure": "manual_shoe", "dealer_cards": "dealt",
                                                         "decks": 1})
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
        hand_hours = Decimal(s.game.deck_change_hours_by_hand)
        if dealing.procedure == "hand" and dealing.deck_change_hours > hand_hours:
            # UTH ch.3 §C(1): cards dealt by hand are changed at least every four hours, whatever the
            # procedure configured (P43)
            update["dealing"] = dealing = dealing.model_copy(update={"deck_change_hours": hand_hours})
        self.closed_wagers = [w for w in base.wagers if w in BOX_WAGERS and dealing.procedure not in BOX_PROCEDURES]
        if self.closed_wagers:
            # UTH ch.10 §B(1) alone deals the Six Card Bonus box; UTH ch.8 and UTH ch.9 do not (P55): the
            # wager is closed while the table deals another way, its chips refused at no more bets
            update["wagers"] = {w: c for w, c in base.wagers.items() if w not in self.closed_wagers}
        s.use_mode(base.model_copy(update=update) if out else base)
        self.procedure = PROCEDURES[s.cfg.dealing.procedure]

    async def close(self) -> None:
        self.stopping = True
        for dev in self.started.values():  # out of order ones too
            await dev.close()

    def health(self) -> dict[str, str]:
        """Each device in use and its health (public)."""
        in_use = {"panel": self.panel, "shuffler": self.shuffler, "shoe": self.shoe, "progressive": self.progressive}
        others = {name: dev for name, dev in self.started.items() if name not in in_use}
        return {name: dev.health.value for name, dev in {**in_use, **others}.items() if dev is not None}

    def out_of_service(self, device: str) -> None:
        """``device`` is signed out of order: its silence no longer stops the table."""
        if self.trouble and self.trouble.startswith(device):
            self.trouble = None

    def on_health(self, device: str, health: Health, reason: str) -> None:
        s = self.s
        if self.stopping or device in s.life.out_of_order:
            return  # a device out of order is not used: its health does not stop the table
        if health is Health.OFFLINE:
            self.trouble = f"{device} not answering"
            s.log.error("device offline", device=device, reason=reason)
        elif self.trouble and self.trouble.startswith(device):
            self.trouble = None
            s.log.info("device back", device=device)
        for listener in self._listeners.get(device, ()):
            try:
                listener(health)
            except sqlite3.Error as e:  # the listener's write did not happen: the table halts (P97)
                self.storage.journal_failed(e)
        s.publish()

    def panel_pressed(self) -> None:
        """A press taken from the panel: its input faults' episode, if any, ends (journaled with the count)."""
        self.faults.worked(PANEL)

    def on_panel_fault(self, fault: InputFault) -> None:
        """Panel input that cannot be true (a counter jump no person could press, a full press queue): no
        press is made of it; journaled, and the dealer told to check the panel."""
        s = self.s
        try:
            self.faults.fault(PANEL, fault.kind,
                              lambda: ev.DeviceInputRefused(device=PANEL, fault=fault.kind, reason=fault.reason))
        except sqlite3.Error as e:  # not journaled: the table halts (P97); the dealer is told of the panel still
            self.storage.journal_failed(e)
        s.tell(f"the dealer panel sent what no one pressed ({fault.kind}): nothing was taken from it; "
               "press again what you meant, and call a technician if it repeats",
               told("panel_fault", cause=fault.kind, device="dealer panel"))
        s.publish()
