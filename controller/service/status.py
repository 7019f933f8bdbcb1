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
from pathlib import Path
from typing import Any

from controller.irregularities import clause
from controller.round import actions
from controller.round import chips as round_chips
from controller.round.machine import Phase
from controller.service.deal import Deal
from controller.service.devices import Devices
from controller.service.panel import Panel
from controller.service.progressive import ProgressiveSystem
from controller.service.remedies import Remedies
from controller.service.session import Session
from controller.service.storage import Storage

HEARTBEAT_S = 5.0  # the daemon writes the status at least this often (``updated``: its last heartbeat)


def _action(action: str, button: str | None, key: bool, why: str, **more: Any) -> dict[str, Any]:
    return {"action": action, "button": button, "key": key, "why": why, **more}


class Status:
    def __init__(self, s: Session, path: Path, *, devices: Devices, deal: Deal, progressive: ProgressiveSystem,
                 remedies: Remedies, panel: Panel, storage: Storage) -> None:
        self.s = s
        self.path = path
        self.storage = storage  # a status that cannot be written is a storage fault (P104)
        self.panel = panel  # the conditions the declaration of the actions names (``Panel.holds``)
        self.devices = devices
        self.deal = deal
        self.progressive = progressive
        self.remedies = remedies  # its irregularity menu

    def next_action(self) -> dict[str, Any] | None:
        """What the dealer must do next (see the module's docstring); None when nothing can be done."""
        s = self.s
        p = self  # the parts this status was given
        short = s.game.short
        menu = p.remedies.menu
        if p.storage.halted:  # nothing is done until a write succeeds: the floor is called (P97)
            return _action("storage_fault", None, False, "P97", cause=p.storage.cause)
        if menu is not None:
            if menu.chosen is None:
                return _action("pick_irregularity", "seat_1", False, "P41", options=len(menu.options))
            where = clause(menu.chosen.what.split(":")[0], short)
            if menu.chosen.needs_seat and menu.seat is None:
                return _action("pick_seat", None, False, where)
            return _action("confirm_irregularity", "confirm", True, where)
        if p.deal.expecting:
            return _action("draw_cards", None, False, s.game.cite("draw"), cards=p.deal.expecting, to=p.deal.next_place)
        r = s.round
        step = s.life.next_step()
        if step and (r is None or r.phase is Phase.WAGERS):
            return _action(step[0], step[1], step[2], step[3])
        if r is None:
            if p.storage.round_held_back:
                return _action("free_storage", None, False, "P104", cause="disk_full")  # no round opens (P104)
            return None
        # the round's phase: what the declaration of the table's actions offers (controller.round.actions)
        a = actions.offered(r.phase, p.panel.holds)
        if a is None or a.offer is None:
            return None
        more: dict[str, Any] = {}
        if a.name == actions.DECIDE:
            seat = r.to_act()
            if seat is None:
                return None
            more = {"seat": seat.seat, "buttons": actions.decision_buttons(r.public_view().get("to_act") or {})}
        return _action(a.name, a.offer.button, a.offer.key, actions.cite(a.offer, s.game), **more)

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
            "meters": {k: str(v) for k, v in s.meters.values().items()},
            # a linked progressive: every hit awaiting validation anywhere on the link (issue: linked tables)
            "link_pending": s.meters.pending_elsewhere(),
            "round": self.round_view(),
            # progressive wins held until a floor supervisor validates them (public: the round is settled)
            "validation": [h.public() for h in p.progressive.validation],
            "progressive_wagers": ("disabled: " + p.progressive.off) if p.progressive.off else "enabled",
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

    def publish(self) -> None:
        """Write the status file, atomically.  A write the disk refuses does not stop the daemon (P104): the
        reserve is given up when the disk is full and the write tried once more; a status still not written
        halts the table (the dealer's screen would show an older one) until one is, on the next press or timer."""
        for _ in range(3):
            try:
                write_status(self.path, json.dumps(self.status(), default=str))
            except OSError as e:
                self.storage.status_failed(self.path, e)
                continue
            said_failed = self.storage.status_fault is not None
            self.storage.status_written()
            if not said_failed:
                return
            # the status just written says its write failed: written once more, as the table is now


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
