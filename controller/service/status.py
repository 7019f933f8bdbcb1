"""The public status: what the table, its round and devices are now, and what the dealer must do next.

Owns the status file beside the journal (``tablectl status``, the web service and the tests read it),
written atomically after every press and every change a device reports.  Nothing hidden is in it: no hole
card, no undealt card, no dealer card before the rules reveal it.  ``next_action`` is the dealer's next
action as data, ``told`` the ``message`` as data: their keys, docs/architecture.md (the status).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller import steps
from controller.irregularities import clause
from controller.round import actions
from controller.round import chips as round_chips
from controller.round.decisions import offered as offered_choices
from controller.round.machine import Phase
from controller.round.settlement import payment_passes
from controller.service.alarms import Alarms
from controller.service.deal import Deal
from controller.service.devices import Devices
from controller.service.panel import Panel
from controller.service.progressive import ProgressiveSystem
from controller.service.remedies import Remedies
from controller.service.session import Session
from controller.service.storage import Storage

HEARTBEAT_S = 5.0  # the daemon writes the status at least this often (``updated``: its last heartbeat)


#: the actions and values this module writes into the status, in a person's words (web/words.py)
WORDS: dict[str, str] = {
    "storage_fault": "Storage fault: call the supervisor",
    "pick_irregularity": "Pick the irregularity",
    "pick_seat": "Pick the seat",
    "confirm_irregularity": "Supervisor confirms the irregularity",
    "draw_cards": "Draw the cards from the shoe",
    "free_storage": "Free the disk: call the supervisor",
    "pinging": "Running",
    "paused": "Paused",
    "enabled": "Enabled",
    "disabled": "Disabled",
    "none": "None",
}


def _action(action: str, button: str | None, key: bool, why: str, **more: Any) -> dict[str, Any]:
    return {"action": action, "button": button, "key": key, "why": why, **more}


class Status:
    def __init__(self, s: Session, path: Path, *, devices: Devices, deal: Deal, progressive: ProgressiveSystem,
                 remedies: Remedies, panel: Panel, storage: Storage, alarms: Alarms) -> None:
        self.s = s
        self.path = path
        self.storage = storage  # a status that cannot be written is a storage fault (P104)
        self.panel = panel  # the conditions the declaration of the actions names (``Panel.holds``)
        self.devices = devices
        self.deal = deal
        self.progressive = progressive
        self.remedies = remedies  # its irregularity menu
        self.alarms = alarms  # the table's alarms (ISA-18.2, P105)
        self._written: list[Callable[[str], None]] = []  # told each status as written (the in-process tests)

    def next_action(self) -> dict[str, Any] | None:
        """What the dealer must do next (see the module's docstring); None when nothing can be done."""
        s = self.s
        p = self  # the parts this status was given
        short = s.game.short
        menu = p.remedies.menu
        r = s.round
        if s.program_refused is not None:  # the program does not verify: a technician, nothing else (P115)
            return _action("program_refused", None, False, "P115", state=s.program_refused)
        if p.storage.halted:  # nothing is done until a write succeeds: the floor is called (P97)
            return _action("storage_fault", None, False, "P97", cause=p.storage.cause,
                           steps=steps.storage(p.storage.cause))
        if menu is not None:
            if menu.chosen is None:
                return _action("pick_irregularity", "seat_1", False, "P41", options=len(menu.options),
                               menu=steps.menu(menu.options, short), steps=steps.pick_option())
            where = clause(menu.chosen.what.split(":")[0], short)
            what = menu.chosen.what.split(":")[0]
            # the wagers on the layout its clause keeps alive (R7a, R10): none when no seat has one
            kept = frozenset(w for w in s.game.wagers_kept_alive(what) if r is not None
                             and any(w in seat.wagers for seat in r.players))
            asked = menu.chosen.needs_seat and menu.seat is None
            remedy = steps.remedy(s.game, menu.chosen, menu.seat, kept=kept, seat_asked=asked,
                                  abandoned_returned=s.cfg.abandoned_wagers == "returned")
            if asked:
                return _action("pick_seat", None, False, where, steps=remedy)
            return _action("confirm_irregularity", "confirm", True, where, seat=menu.seat, steps=remedy)
        if p.deal.expecting:
            return _action("draw_cards", None, False, s.game.cite("draw"), cards=p.deal.expecting, to=p.deal.next_place)
        step = s.life.next_step()
        if step and (r is None or r.phase is Phase.WAGERS):
            return _action(step[0], step[1], step[2], step[3])
        if r is None:
            if p.storage.round_held_back:  # no round opens (P104)
                return _action("free_storage", None, False, "P104", cause="disk_full",
                               steps=steps.storage("disk_full", round_held_back=True))
            return None
        # the round's phase: what the declaration of the table's actions offers (controller.round.actions)
        a = actions.offered(r.phase, p.panel.holds)
        if a is None or a.offer is None:
            return None
        return _action(a.name, a.offer.button, a.offer.key, actions.cite(a.offer, s.game), **self._more(a.name))

    def _more(self, name: str) -> dict[str, Any]:
        """What ``next_action`` adds to the action ``name`` the round's phase offers (docs/architecture.md)."""
        s = self.s
        p = self
        r = s.open_round()
        if name == actions.DECIDE:
            seat = r.to_act()
            assert seat is not None  # the decisions phase offers a decision while a seat is to act
            return {"seat": seat.seat, "buttons": actions.decision_buttons(r.public_view().get("to_act") or {}),
                    "choices": offered_choices(r)}
        if name in ("pay_and_collect", "return_wagers") and r.payments is not None:
            passes = [{"n": n, "clause": q.clause, "wagers": list(q.wagers), "seats": list(q.seats)}
                      for n, q in enumerate(payment_passes(s.game, r.payments), 1)]
            # the daemon is not told when the dealer finishes a pass (nothing on the panel says so): the pass
            # being paid is always given as the first; the dealer goes on in the order shown (P65)
            more: dict[str, Any] = {"passes": passes, "paying": passes[0] if passes else None}
            if name == "return_wagers":
                more["steps"] = steps.numbered(self._void_steps())
            return more
        if name == "validate_progressive":
            held = p.progressive.validation
            return {"hits": [h.public() for h in held],
                    "steps": steps.validation(s.game, (h.seat for h in held),
                                              waiting_for_link=bool(p.progressive.unclaimed))}
        if name in ("resume", "device_back"):
            trouble = p.devices.trouble  # "<device> not answering" (``Devices.on_health``)
            counted = s.game.cite("progressive_count")  # the chips did not match: the halt's reason cites it
            return {"steps": steps.halted(trouble.removesuffix(" not answering") if trouble else None,
                                          progressive_count=counted if counted in (r.halt_reason or "") else None)}
        return {}

    def _void_steps(self) -> list[dict[str, Any]]:
        """A voided round's steps (R7a): after an irregularity, what ``told`` said of it (the wagers kept alive,
        whether the deck leaves the table); otherwise every wager returned."""
        s = self.s
        said = s.told or {}
        if said.get("kind") == "irregularity":
            cause = said.get("cause")
            return steps.void(s.game, cause if cause in s.game.irregularities else None, said.get("wagers") or (),
                              where=", ".join(said.get("clauses") or ()) or None,
                              remove_deck=bool(said.get("remove_deck")))
        return steps.void(s.game, None, ())

    def key_wanted(self) -> bool:
        """Whether the dealer's next action needs the floor supervisor's key (a key turned for it acknowledges
        no alarm, P105)."""
        action = self.next_action()
        return bool(action and action["key"])

    def status(self) -> dict[str, Any]:
        """The public state: nothing hidden is in here (hole cards, undealt cards)."""
        s = self.s
        p = self  # the parts this status was given
        step = s.life.next_step()
        menu = p.remedies.menu
        return {
            "table": s.cfg.id,
            "game": s.cfg.game,
            "state": s.life.state.value,
            "next_step": {"step": step[0], "button": step[1], "key": step[2], "clause": step[3]} if step else None,
            "next_action": self.next_action(),
            "message": s.message,
            "told": s.told,  # the message as data (controller.service.told)
            "notice": s.notice,
            "notice_told": s.notice_told,  # the notice as data (controller.service.told)
            "presses_handled": s.presses_handled,
            "expecting_cards": p.deal.expecting,
            "next_card_to": p.deal.next_place if p.deal.expecting else None,
            "card_request": p.deal.card_request if p.deal.expecting else None,
            "devices": p.devices.health(),
            "out_of_order": sorted(s.life.out_of_order),
            "closed_wagers": list(p.devices.closed_wagers),
            "dealing": (s.cfg.dealing.procedure if not p.devices.no_card_source
                        else f"none: {p.devices.no_card_source}"),
            "irregularity_menu": [o.label for o in menu.options] if menu and menu.chosen is None else None,
            # systemd's watchdog is pinged while the daemon itself is healthy, whatever the devices (P94)
            "watchdog": "pinging" if s.watchdog_trouble is None else f"paused: {s.watchdog_trouble}",
            # a write the disk refuses halts the table, the reserve given up lets the round finish (P97, P104)
            "storage": p.storage.view(),
            # the clock's last check (P109); ``warning``: the table is open on a clock not synchronised
            "clock": {"state": s.clock, "warning": s.clock == "unsynchronised" and s.life.state.value != "closed"},
            "program": s.program,  # the program checked against its release's manifest (controller/program.py, P115)
            "meters": {k: str(v) for k, v in s.meters.values().items()},
            # a linked progressive: every hit awaiting validation anywhere on the link (issue: linked tables)
            "link_pending": s.meters.pending_elsewhere(),
            # a linked progressive's link not reached (why), None when reached or when the table has none (P98)
            "link_down": p.progressive.link.down if p.progressive.link is not None else None,
            "round": self.round_view(),
            # progressive wins held until a floor supervisor validates them (public: the round is settled)
            "validation": [h.public() for h in p.progressive.validation],
            "progressive_wagers": ("disabled: " + p.progressive.off) if p.progressive.off else "enabled",
            "alarms": p.alarms.now(),  # raised, acknowledged, cleared: each journaled (controller.service.alarms)
            "updated": time.time(),
            "heartbeat_every": HEARTBEAT_S,
        }

    def round_view(self) -> dict[str, Any] | None:
        """The round's public view; on a link its ``chips`` pay the progressive wins the link's amounts (P80)."""
        r = self.s.round
        if r is None:
            return None
        view = r.public_view()
        paid = self.progressive.link_paid()
        if "chips" in view and paid:
            view["chips"] = round_chips.public(round_chips.round_chips(r, paid) or {})
        return view

    def on_written(self, listener: Callable[[str], None]) -> None:
        """``listener`` is given each published status as the file then holds it (other processes read the file)."""
        self._written.append(listener)

    def publish(self) -> None:
        """Write the status file, atomically.  A write the disk refuses does not stop the daemon (P104): the
        reserve is given up when the disk is full and the write tried once more; a status still not written
        halts the table (the dealer's screen would show an older one) until one is, on the next press or timer."""
        written: str | None = None
        try:
            for _ in range(3):
                text = json.dumps(self.status(), default=str)
                try:
                    write_status(self.path, text)
                except OSError as e:
                    self.storage.status_failed(self.path, e)
                    continue
                written = text
                said_failed = self.storage.status_fault is not None
                self.storage.status_written()
                if not said_failed:
                    return
                # the status just written says its write failed: written once more, as the table is now
        finally:
            if written is not None:  # what the file holds now: the last status written
                for listener in self._written:
                    listener(written)


def write_status(path: Path, text: str) -> None:
    """``text`` as the file ``path``, whole or not at all (a temporary file renamed over it); a temporary file a
    failed write left is removed (it would hold room on a full disk)."""
    tmp = path.with_suffix(".tmp")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise
