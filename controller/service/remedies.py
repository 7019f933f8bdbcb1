"""Each game's chapter 13: the remedies of irregularities, and the devices taken out of (or back into) service.

Two kinds of irregularity reach the daemon (``controller.irregularities`` has the clauses):

* what a device sees (a card read twice, a card it cannot read, a jam, a card face up inside a
  stack): the remedy is applied at once (P40) -- all hands void (R7a) except the wagers the clause
  keeps alive, the deck removed when it is not 52 cards of one deck; a device fault the rules do
  not name halts the round (fail closed);
* what only a person sees: the panel's irregularity menu (P41), opened with ``irregularity``, an
  option picked with seat button N (then the seat, if asked), confirmed with the floor
  supervisor's key, ``undo`` cancels.  A seat skipped (RET ch.13 §G) is answered to the deal as a
  ``SeatSkip``; a player who left (UTH ch.7 §C), a device out of order (UTH ch.13 §J; P43).

A remedy that voids the round leaves it VOIDED and buzzes: the deal and the settlement stop there.
The void itself is the settlement's (``Settling.void_irregular``), as is the remedy of what the deal
found (the deal returns it: ``controller.service.deal.Found``).
"""

from __future__ import annotations

from dataclasses import dataclass

from controller import events as ev
from controller import irregularities as irr
from controller.irregularities import clause, kept_alive
from controller.round.machine import Phase
from controller.service.deal import Deal, Found, SeatSkip, card_of_another_deck
from controller.service.devices import Devices
from controller.service.progressive import ProgressiveSystem
from controller.service.refused import Refused, ask
from controller.service.session import Session
from controller.service.settlement import Settling
from controller.service.told import told
from controller.table import between_round_steps
from drivers.health import DeviceError
from drivers.panel import ButtonPress
from drivers.serial_link import CardCountError, DeviceFault, DuplicateCardError, UnreadableCardError


@dataclass
class Menu:
    """The panel's irregularity menu while it is open (P41)."""

    options: list[irr.Option]
    chosen: irr.Option | None = None
    seat: int | None = None


class Remedies:
    def __init__(self, s: Session, devices: Devices, deal: Deal, settling: Settling,
                 progressive: ProgressiveSystem) -> None:
        self.s = s
        self.devices = devices
        self.deal = deal
        self.settling = settling
        self.progressive = progressive
        self.menu: Menu | None = None

    # ------------------------------------------------------------------ what a device sees (P40)

    async def device_error(self, e: DeviceError) -> None:
        """A device reported a fault: the rules' remedy when they name it (P40), otherwise fail closed (halt)."""
        s = self.s
        r = s.round
        short = s.game.short
        dealing = r is not None and r.phase in (Phase.DEALING, Phase.DECISIONS, Phase.REVEAL)
        void = self.settling.void_irregular
        if dealing and isinstance(e, DuplicateCardError):
            await void(card_of_another_deck(short, f"the {e.device} read a card twice"))
        elif dealing and isinstance(e, UnreadableCardError):
            # never guessed: a card nobody can name is a failure to deal (P40)
            where = clause('deal_failed', short)
            await void(Found(f"the {e.device} could not read a card ({where})", "unreadable_card", (where,),
                             device=e.device))
        elif dealing and isinstance(e, DeviceFault) and not isinstance(e, CardCountError):
            # a jam, an empty device, an open door while the cards come out of it: a failure to deal
            where = clause('deal_failed', short)
            await void(Found(f"the {e.device} failed to deal: {e} ({where})", "deal_failed", (where,),
                             device=e.device))
        else:
            await self.device_failed(str(e), device=getattr(e, "device", None))

    async def device_failed(self, error: str, device: str | None = None) -> None:
        """Fail closed: the round stops where it is; the dealer is told."""
        s = self.s
        s.log.error("device failed", error=error)
        r = s.round
        if r is not None and r.can_halt():
            await r.halt_round(error)
        s.tell(f"HALTED: {error} -- fix the device and confirm with the supervisor's key, or void",
               told("halted", cause="device_fault", device=device))
        await s.buzz()

    # ------------------------------------------------------------------ what the dealer reports (P41)

    def _menu_phase(self) -> str:
        r = self.s.round
        return r.phase.value if r is not None else "wagers"

    async def menu_press(self, press: ButtonPress) -> SeatSkip | None:
        """The irregularity menu: ``irregularity`` opens it, seat button N picks option N (then, if asked,
        the seat), ``confirm`` with the floor supervisor's key applies the remedy, ``undo`` closes it.
        A seat skipped is answered to the deal in progress."""
        s = self.s
        b = press.button
        m = self.menu
        if b == "irregularity":
            options = irr.menu(s.game.short, self._menu_phase(), has_dealer=s.game.dealer_cards > 0,
                               devices=sorted(self.devices.drivers), out_of_order=sorted(s.life.out_of_order))
            if not options:
                raise Refused(f"no irregularity can be reported in {self._menu_phase()}: "
                              "void_round with the supervisor's key if the round cannot go on", "no_irregularity")
            self.menu = Menu(options)
            listed = "; ".join(f"{i} {o.label}" for i, o in enumerate(options, 1))
            s.tell(f"IRREGULARITY: {listed} -- press the seat button of its number (undo: cancel)",
                   told("irregularity_menu", counts={"options": len(options)}))
            return None
        assert m is not None
        if b == "undo":
            self.menu = None
            s.tell("irregularity menu closed: nothing changed", told("menu_closed"))
            return None
        chosen = m.chosen
        if b.startswith("seat_"):
            n = int(b.removeprefix("seat_"))
            if chosen is None:
                if not 1 <= n <= len(m.options):
                    raise Refused(f"no option {n}: 1 to {len(m.options)}", "no_option")
                m.chosen = chosen = m.options[n - 1]
                if chosen.needs_seat:
                    s.tell(f"{chosen.label}: press the seat's button (undo: cancel)",
                           told("menu_seat", cause=chosen.what.split(":")[0]))
                    return None
            elif chosen.needs_seat and m.seat is None:
                r = s.round
                if r is None or n not in {seat.seat for seat in r.players}:
                    raise Refused(f"seat {n} has no player in this round", "no_player")
                m.seat = n
            else:
                raise Refused("confirm with the supervisor's key, or undo", "key_needed")
            where = clause(chosen.what.split(":")[0], s.game.short)
            seat = f" at seat {m.seat}" if m.seat else ""
            s.tell(f"{chosen.label}{seat} ({where}): a floor supervisor confirms with the key (undo: cancel)",
                   told("menu_confirm", cause=chosen.what.split(":")[0], clauses=(where,),
                        seats=[m.seat] if m.seat else [], device=chosen.what.partition(":")[2] or None))
            return None
        if b != "confirm" or chosen is None or (chosen.needs_seat and m.seat is None):
            raise Refused("the irregularity menu is open: pick an option with the seat buttons, or undo", "menu_open")
        who = await s.supervisor(chosen.what)
        if who is None:
            raise Refused("an irregularity is confirmed with the floor supervisor's key", "key_needed")
        self.menu = None
        return await self._apply(chosen.what, m.seat, who)

    async def _apply(self, what: str, seat: int | None, who: str) -> SeatSkip | None:
        s = self.s
        r = s.round
        short = s.game.short
        where = clause(what.split(":")[0], short)
        s.log.warning("irregularity reported", what=what, seat=seat, by=who)
        if what.startswith(("out_of_order:", "in_service:")):
            await self._device_service(what, who)
            return None
        if what == "skipped":
            assert seat is not None
            return SeatSkip(seat, who)
        assert r is not None
        if what == "player_left":
            assert seat is not None
            returned = s.cfg.abandoned_wagers == "returned"
            meters = self.progressive.without_contribution(seat) if returned else None
            ask(r.can_abandon(seat))
            await r.abandon(seat, who, returned=returned, meters=meters)
            await self.progressive.take_back_contribution(meters)
            said = told("player_left", cause="returned" if returned else "lost", clauses=(where,), seats=[seat])
            if returned:
                s.tell(f"seat {seat}: the player left ({where}); every wager of the seat is returned -- "
                       "return them", said)
            else:
                s.tell(f"seat {seat}: the player left ({where}); every wager of the seat is lost -- collect them",
                       said)
            if r.phase is Phase.REVEAL:
                await self.settling.deal_rest_and_settle()
            return None
        keep = kept_alive(what, s.game.name, short)
        if keep and any(w in seat_.wagers for seat_ in r.players for w in keep):
            # UTH ch.13 §C/§G, JHE ch.13 §C/§G (R10): the community cards are dealt and the kept wagers
            # settled; HCF ch.13 §F: every card is already out
            finished = self.settling.finished  # a remedy of what those cards showed voids the round
            if not await finished(await self.deal.all_streets()):
                return None
            if not await finished(await self.deal.release_dealer_cards()):
                return None
        else:
            keep = frozenset()
        labels = {"exposed_after_initial": "cards found face up after the initial deal",
                  "dealer_card_exposed": "a dealer card exposed before every player acted",
                  "wrong_number_of_cards": "a wrong number of cards dealt"}
        await self.settling.void_irregular(Found(f"{labels[what]}, reported by the dealer, confirmed by {who} "
                                                 f"({where})", what, (where,), keep=keep))
        return None

    async def out_of_order(self, device: str, who: str) -> None:
        """``device`` taken out of service by ``who`` from elsewhere than the panel (the floor's pages: issue 28),
        as the dealer's report with the key would take it (P43); between rounds only (``Refused`` otherwise)."""
        await self._device_service(f"out_of_order:{device}", who)

    async def _device_service(self, what: str, who: str) -> None:
        """UTH ch.13 §J (HCF ch.13 §I, RET ch.13 §E): a device that cannot be used is covered or signed out of order
        before the table shuffles or deals another way; journaled with who (P43)."""
        s = self.s
        devices = self.devices
        r = s.round
        if r is not None and r.phase is not Phase.WAGERS:
            raise Refused("a device is taken out of (or back into) service between rounds: "
                          "finish or void this one", "not_between_rounds")
        kind, device = what.split(":")
        where = clause(kind, s.game.short)
        before = s.cfg.automated_shuffler
        if kind == "out_of_order":
            s.life.record(ev.DeviceOutOfOrder(device=device, clause=where), who=who)
            devices.out_of_service(device)  # not in use: its silence no longer stops the table
        else:
            s.life.record(ev.DeviceInService(device=device, clause=where), who=who)
        devices.apply_mode()
        if before != s.cfg.automated_shuffler:
            # the cards are shuffled another way from now on: shuffle them that way before the next deal
            steps = ["shuffled"] if s.cfg.automated_shuffler else between_round_steps(s.cfg)
            s.life.require(steps, f"the {device} is {'back in service' if kind == 'in_service' else 'out of order'}",
                           who=who)
        mode = devices.no_card_source or f"the table deals by {s.cfg.dealing.procedure.replace('_', ' ')} now"
        cited = [where]
        closed: list[str] = []
        if devices.closed_wagers and not devices.no_card_source:
            closed = list(devices.closed_wagers)
            no_box = ("UTH ch.10 §B(1)", "P55")  # the Six Card Bonus's box, dealt only from a stack
            cited += no_box
            mode += (f"; {', '.join(w.replace('_', ' ') for w in closed)} CLOSED: this procedure "
                     f"deals no Six Card Bonus box ({', '.join(no_box)}) -- take no such wager")
        if s.cfg.dealing.deck_change_hours != s.base_cfg.dealing.deck_change_hours:
            by_hand = s.game.cite('deck_change_by_hand')
            cited.append(by_hand)
            mode += (f"; decks changed every {s.cfg.dealing.deck_change_hours:g} h dealt by hand "
                     f"({by_hand})")
        state = "out of order: cover it or sign it" if kind == "out_of_order" else "back in service"
        s.tell(f"{device} {state} ({where}, {who}); {mode}",
               told("device_service", cause=kind, clauses=cited, device=device, wagers=closed))
