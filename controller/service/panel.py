"""The dealer's panel: each press is one action, routed by the round's phase and the button.

Owns the dispatch of presses (the table below, ``ROUTES``), the refusals (the buzzer, and what
the dealer is told), and the presses made while a deal waits on the shoe (``during_deal``: the
irregularity menu and void_round are served at once, anything else is kept for after the deal).

Before the table: ``void_round`` (with the key) voids the round at any time; while the
irregularity menu is open every press goes to it (``controller.service.remedies``); while the
table's steps are due (opening, between rounds, reopening) every press goes to them
(``controller.service.life``).  Otherwise:

    wagers        no_more_bets   bet sensors read, lock-out set and confirmed (UTH ch.8 §C)
    wagers        shuffle        no play at the table: idle, or closed with the key (UTH ch.5 §H)
    wagers        undo           a recut, with the key (UTH ch.5 §G; not with an automated shuffler)
    no_more_bets  confirm        the progressive count matches the chips (UTH ch.8 §C(3)); cards are dealt
    no_more_bets  undo           the count does not match: the round halts for the supervisor
    decisions     bet / check / fold   the decision of the seat to act (R1)
    reveal        deal / confirm the cards still to come, then the settlement
    settled       confirm        a progressive win held: validated with the key (UTH ch.11 §J(2)(c));
                                 else paid and collected, the next round opens
    voided        confirm        the wagers returned (or kept ones settled), the next round opens
    halted        confirm        resumed with the key once the device is back
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from controller.irregularities import clause
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
        self._routes: dict[tuple[Phase, str], Handler] | None = None

    @property
    def routes(self) -> dict[tuple[Phase, str], Handler]:
        """ROUTES: (phase, button) -> what the press does (built at the first press)."""
        if self._routes is None:
            p = self  # the parts this panel was given
            self._routes = {
                (Phase.WAGERS, "no_more_bets"): lambda _: p.wagers.no_more_bets(),
                (Phase.WAGERS, "shuffle"): self._no_play,
                (Phase.WAGERS, "undo"): self._recut,
                (Phase.NO_MORE_BETS, "confirm"): self._count_confirmed,
                (Phase.NO_MORE_BETS, "undo"): self._count_mismatch,
                (Phase.DECISIONS, "bet"): p.decisions.decide,
                (Phase.DECISIONS, "check"): p.decisions.decide,
                (Phase.DECISIONS, "fold"): p.decisions.decide,
                # every player has acted (a restart can leave the round here): deal what is left, settle
                (Phase.REVEAL, "deal"): lambda _: p.settling.deal_rest_and_settle(),
                (Phase.REVEAL, "confirm"): lambda _: p.settling.deal_rest_and_settle(),
                (Phase.SETTLED, "confirm"): self._paid,
                (Phase.VOIDED, "confirm"): self._paid,
                (Phase.HALTED, "confirm"): self._resume,
            }
        return self._routes

    async def next_press(self) -> ButtonPress:
        """The next press: first those pressed during a deal and kept for after it, in order."""
        panel = self.devices.panel
        assert panel is not None
        if self.deferred:
            return self.deferred.pop(0)
        return await panel.next_press()

    async def on_press(self, press: ButtonPress) -> None:
        s = self.s
        if press.after_outage:
            await s.refuse(f"{press.button} was pressed while the panel was unreachable: press it again",
                           "panel_unreachable")
            return
        try:
            try:
                await self._dispatch(press)
            except DeviceError as e:
                await self.remedies.device_error(e)
        except RoundRefused as e:
            await self._refuse(e)

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
            handler = self.routes.get((r.phase, b))
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
            await self._refuse(e)
        return None

    async def _refuse(self, e: RoundRefused) -> None:
        """The press is refused.  A part refuses with ``Refused``, asking the round before it acts; a
        ``RoundRefused`` of the round itself means an action no part asked about: a programming error,
        logged as one, and the press still refused (a press never stops the daemon)."""
        if not isinstance(e, Refused):
            self.s.log.error("the round refused an action no part asked it about first", code=e.code,
                             reason=str(e))
        await self.s.refuse(str(e), e.code, e.clauses if isinstance(e, Refused) else ())

    # ------------------------------------------------------------------ the handlers of the table

    def _nothing(self, press: ButtonPress) -> Refused:
        return Refused(f"{press.button} does nothing in {self.s.open_round().phase.value}", "does_nothing")

    async def _no_play(self, press: ButtonPress) -> None:
        if self.s.open_round().seats:
            raise self._nothing(press)
        await self.life.no_play()

    async def _recut(self, press: ButtonPress) -> None:
        if self.s.cfg.automated_shuffler:
            raise self._nothing(press)
        await self.life.recut()

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

    async def _paid(self, press: ButtonPress) -> None:
        if self.progressive.validation:
            await self.progressive.validate()
        else:
            await self.life.close_round()

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
