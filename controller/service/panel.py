"""The dealer's panel: each press is one action, routed by the round's phase and the button.

Owns the dispatch of presses, the refusals (the buzzer, and what the dealer is told), and the
presses made while a deal waits on the shoe (``during_deal``: the irregularity menu and void_round
are served at once, anything else is kept for after the deal).

Before the table: ``void_round`` (with the key) voids the round at any time; while the
irregularity menu is open every press goes to it (``controller.service.remedies``); while the
table's steps are due (opening, between rounds, reopening) every press goes to them
(``controller.service.life``).  Otherwise the press does what ``controller.round.actions`` declares
for the round's phase and the button (``ROUTES``): the panel binds each declared handler name to the
part method that performs it (``handlers``) and answers the conditions the declaration names
(``holds``).  A press no declared action takes in that phase does nothing (refused).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from controller import events as ev
from controller.irregularities import clause
from controller.round.actions import ROUTES, Condition, HandlerName
from controller.round.machine import Phase, RoundRefused
from controller.service.deal import Deal, SeatSkip
from controller.service.decisions import Decisions
from controller.service.devices import Devices
from controller.service.life import Life
from controller.service.lockout import WagerLockout
from controller.service.progressive import ProgressiveSystem
from controller.service.refused import Refused, ask
from controller.service.remedies import Remedies
from controller.service.session import Session
from controller.service.settlement import Settling
from controller.service.told import told
from controller.service.wagers import Wagers
from drivers.health import DeviceError
from drivers.panel import ButtonPress

Handler = Callable[[ButtonPress], Awaitable[None]]


class Panel:
    def __init__(self, s: Session, *, devices: Devices, life: Life, wagers: Wagers, lockout: WagerLockout,
                 deal: Deal, decisions: Decisions, settling: Settling, progressive: ProgressiveSystem,
                 remedies: Remedies) -> None:
        self.s = s
        self.devices = devices
        self.life = life
        self.wagers = wagers
        self.lockout = lockout
        self.deal = deal
        self.decisions = decisions
        self.settling = settling
        self.progressive = progressive
        self.remedies = remedies
        self.deferred: list[ButtonPress] = []  # pressed during a deal, taken once it is done
        self._routes: dict[tuple[Phase, str], tuple[tuple[Condition | None, Handler], ...]] | None = None

    def handlers(self) -> dict[HandlerName, Handler]:
        """Each handler the declaration names (``controller.round.actions``), bound to the method doing it."""
        return {
            "wagers.no_more_bets": lambda _: self.wagers.no_more_bets(),
            "life.no_play": lambda _: self.life.no_play(),
            "life.recut": lambda _: self.life.recut(),
            "panel.count_confirmed": self._count_confirmed,
            "panel.count_mismatch": self._count_mismatch,
            "decisions.decide": self.decisions.decide,
            "settling.deal_rest_and_settle": lambda _: self.settling.deal_rest_and_settle(),
            "progressive.validate": lambda _: self.progressive.validate(),
            "life.close_round": lambda _: self.life.close_round(),
            "panel.resume": self._resume,
        }

    def holds(self, condition: Condition) -> bool:
        """Whether a condition of the table the declaration names holds now."""
        s = self.s
        if condition == "no_card_source":
            return bool(self.devices.no_card_source)
        if condition == "no_seat_playing":
            return not s.open_round().seats
        if condition == "shuffled_by_hand":
            return not s.cfg.automated_shuffler
        if condition == "validation_held":
            return bool(self.progressive.validation)
        if condition == "device_trouble":
            return bool(self.devices.trouble)
        raise AssertionError(f"no such condition: {condition}")

    @property
    def routes(self) -> dict[tuple[Phase, str], tuple[tuple[Condition | None, Handler], ...]]:
        """(phase, button) -> (condition, handler) of each action declared for it (``actions.ROUTES``), in the
        order they are tried; built at the first press."""
        if self._routes is None:
            bound = self.handlers()
            self._routes = {at: tuple((a.when, bound[a.handler]) for a in declared if a.handler is not None)
                            for at, declared in ROUTES.items()}
        return self._routes

    def route(self, phase: Phase, button: str) -> Handler | None:
        """What a press of ``button`` does in ``phase``: the first declared action whose condition holds."""
        return next((h for when, h in self.routes.get((phase, button), ()) if when is None or self.holds(when)),
                    None)

    async def next_press(self) -> ButtonPress:
        """The next press: first those pressed during a deal and kept for after it, in order."""
        panel = self.devices.panel
        assert panel is not None
        if self.deferred:
            return self.deferred.pop(0)
        return await panel.next_press()

    async def on_press(self, press: ButtonPress) -> None:
        self.devices.panel_pressed()  # a press taken: the panel works (its input faults' episode ends)
        if press.after_outage:
            await self._refuse(Refused(f"{press.button} was pressed while the panel was unreachable: press it again",
                                       "panel_unreachable"), press)
            return
        try:
            try:
                await self._dispatch(press)
            except DeviceError as e:
                await self.remedies.device_error(e)
        except RoundRefused as e:
            await self._refuse(e, press)

    async def _dispatch(self, press: ButtonPress) -> None:
        s = self.s
        b = press.button
        if b == "void_round":
            self.remedies.menu = None
            await self.settling.void_pressed()
        elif b == "irregularity" or self.remedies.menu is not None:
            if await self.remedies.menu_press(press) is not None:
                # the menu offers it only while the cards are dealt; the deal ended meanwhile
                where = clause('skipped', s.game.short)
                raise Refused(f"a seat skipped is reported while its cards are dealt "
                              f"({where}): report a wrong number of cards", "deal_ended", clauses=[where])
        elif s.life.required and (s.round is None or s.round.phase is Phase.WAGERS):
            await self.life.table_step(press)
        elif s.round is None:  # no step left and no round: a press must never stop the daemon
            raise Refused(f"{b}: no round is open", "no_round")
        else:
            r = s.round
            handler = self.route(r.phase, b)
            if handler is None:
                raise Refused(f"{b} does nothing in {r.phase.value}", "does_nothing")
            await handler(press)

    async def during_deal(self, press: ButtonPress) -> SeatSkip | None:
        """A press while a deal waits on the shoe: the irregularity menu (P41) and void_round are served
        now; anything else (a decision pressed while the dealer's cards still come) after the deal."""
        s = self.s
        s.presses_handled += 1  # counted as taken (a press kept for after the deal is counted then)
        try:
            if press.button == "void_round":
                self.remedies.menu = None
                await self.settling.void_pressed()  # the round is voided: the deal stops
                return None
            if press.button == "irregularity" or self.remedies.menu is not None:
                return await self.remedies.menu_press(press)
            self.deferred.append(press)
            s.presses_handled -= 1
        except RoundRefused as e:
            await self._refuse(e, press)
        return None

    async def _refuse(self, e: RoundRefused, press: ButtonPress) -> None:
        """The press is refused.  A part refuses with ``Refused``, asking the round before it acts; a
        ``RoundRefused`` of the round itself means an action no part asked about: a programming error,
        logged as one, and the press still refused (a press never stops the daemon).  The refusal is
        journaled (P118: a round's page shows every press); a write that fails halts the table as every
        journal write does (P97)."""
        s = self.s
        if not isinstance(e, Refused):
            s.log.error("the round refused an action no part asked it about first", code=e.code,
                        reason=str(e))
        clauses = e.clauses if isinstance(e, Refused) else ()
        r = s.round
        s.journal.record(ev.PressRefused(button=press.button, code=e.code or "refused", reason=str(e),
                                         clauses=tuple(clauses), multiple=press.multiple,
                                         round=r.round_id if r is not None else None))
        await s.refuse(str(e), e.code, clauses)

    # ------------------------------------------------------------------ the handlers of the table

    async def _count_confirmed(self, press: ButtonPress) -> None:
        s = self.s
        r = s.open_round()
        ask(r.can_confirm_progressive_count(r.progressive_count or 0))
        await r.confirm_progressive_count(r.progressive_count or 0)
        await self.lockout.check_late()
        await self.settling.finished(await self.deal.initial())

    async def _count_mismatch(self, press: ButtonPress) -> None:
        # the dealer counted a different number of progressive chips (UTH ch.8 §C(3)): the round stops
        s = self.s
        r = s.open_round()
        ask(r.can_halt())
        await r.halt_round(f"the progressive chips do not match the {r.progressive_count} wagers accepted "
                           f"({s.game.cite('progressive_count')})")
        s.tell("progressive count mismatch: the supervisor resolves it, then confirms with the key, or voids",
               told("halted", cause="progressive_count"))

    async def _resume(self, press: ButtonPress) -> None:
        s = self.s
        r = s.open_round()
        trouble = self.devices.trouble
        if trouble:
            raise Refused(f"{trouble}: resume once it is back, or void the round", "device_trouble")
        who = await s.supervisor("resume_round")
        if who is None:
            raise Refused("resuming a halted round needs the floor supervisor's key", "key_needed")
        ask(r.can_resume())
        await r.resume_round(who)
        s.tell(f"round resumed by {who}", told("resumed", cause="supervisor"))
        if r.phase is Phase.DEALING:
            await self.settling.void(f"the deal was interrupted ({clause('deal_failed', s.game.short)})",
                                        cause="deal_interrupted")
