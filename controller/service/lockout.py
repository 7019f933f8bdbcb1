"""The progressive wager lock-out, as one unit: engaged and confirmed at no more bets, held, released.

UTH ch.8 §C(2), JHE ch.8 §C(2), HCF ch.8 §C(1), RET ch.8 §C(2) (each game's ``lockout`` clause): at
no more bets the progressive system stops taking progressive wagers (its lock-out coil,
``ProgressiveDriver.lock_out`` writes it and reads it back) before any card leaves the shoe or
shuffler; a wager tried after it is not recognised and is journaled as late.  This unit is the only
place that sets or clears the coil:

* ``engage()``     at no more bets, the whole sequence (the wagers part calls it alone): the meter
                   signs ready, the coil set and confirmed (read back), the accepted seats read,
                   progressive wagers enabled or disabled for the round, the late attempts
                   journaled, the accepted lights lit;
* ``check_late()`` the late attempts journaled; a lock-out found released mid-round (the system was
                   power cycled) is set again (``restore()``);
* ``release()``    after the round: lights off, accepted and late flags cleared, the coil released.
                   A system that did not answer is released as soon as it answers again
                   (``pending_release``; this unit follows its health, ``Devices.on_health_of``), and
                   before any no more bets reads its flags;
* ``check_at_start()`` a coil still on at start means the last release never happened.
* ``hold_for_storage()`` / ``end_storage_hold()``: while the table cannot journal (a write fails, or no
                   round opens for want of room, P97, P104) no round can take a progressive wager, so the
                   system takes none: the coil is set (flags kept) until the table can take wagers again.

Its state: ``pending_release`` (the last round's flags not yet cleared), ``storage_hold`` (the coil set
for a storage fault) and ``late_journaled`` (the seats whose late attempt this round is journaled).
"""

from __future__ import annotations

from controller import events as ev
from controller.round.machine import Phase
from controller.service.devices import Devices
from controller.service.progressive import NOT_ANSWERING, PROGRESSIVE_SYSTEM, ProgressiveSystem
from controller.service.session import Session
from controller.service.told import amend, told
from drivers.health import DeviceError, Health
from drivers.progressive import LockoutNotConfirmed, ProgressiveDriver

__all__ = ["NOT_ANSWERING", "WagerLockout"]


class WagerLockout:
    def __init__(self, s: Session, devices: Devices, progressive: ProgressiveSystem) -> None:
        self.s = s
        self.devices = devices
        self.progressive = progressive
        self.pending_release = False  # the last round's flags and lock-out not yet cleared
        self.late_journaled: set[int] = set()
        self.storage_hold = False  # the coil set because the table cannot journal (hold_for_storage)
        devices.on_health_of(PROGRESSIVE_SYSTEM, self.on_health)

    @property
    def _system(self) -> ProgressiveDriver | None:
        """The progressive system when the table offers progressive wagers, else None."""
        system = self.devices.progressive
        return system if system is not None and self.s.cfg.progressive.enabled else None

    def new_round(self) -> None:
        self.late_journaled = set()

    def on_health(self, health: Health) -> None:
        """The progressive system answers again: the last round's reset it missed is done now."""
        if health is not Health.OFFLINE and self.pending_release and self.s.cfg.progressive.enabled:
            self.s.spawn(self.release())

    async def engage(self) -> list[int]:
        """No more bets on a table that offers progressive wagers (UTH ch.8 §C(2)): the signs must show the
        meters, the lock-out is set and confirmed before any card leaves; the seats whose wager the system
        accepted, lit.  When any of it fails, progressive wagers are disabled (the reason journaled and
        said) and this round is taken without them: no seat."""
        s, progressive = self.s, self.progressive
        await self.release_if_pending()  # the last round's accepted flags are not this round's wagers
        why = await progressive.signs_ready()
        cause, cited = "signs_not_ready", ()  # type: tuple[str, tuple[str, ...]]
        accepted: list[int] = []
        if why is None:
            accepted, why = await self._set_and_confirm()
            cause, cited = "lockout_not_confirmed", (s.game.cite("lockout"),)  # as _set_and_confirm() cites it
            if why == NOT_ANSWERING:
                cause, cited = "not_answering", ()
        if why is not None:
            progressive.disabled(why, cause, cited)
            return []  # this round is taken without progressive wagers
        progressive.enabled()
        await self.check_late()
        await self.light_accepted(accepted)
        return accepted

    async def _set_and_confirm(self) -> tuple[list[int], str | None]:
        """Set the lock-out and confirm it; the seats whose wager the system accepted, or why not."""
        system = self._system
        assert system is not None
        try:
            await system.lock_out(True)  # raises LockoutNotConfirmed if it does not read back
            return sorted(await system.accepted_seats()), None
        except LockoutNotConfirmed:
            return [], f"the progressive system's lock-out cannot be confirmed ({self.s.game.cite('lockout')})"
        except DeviceError:
            return [], NOT_ANSWERING

    async def light_accepted(self, accepted: list[int]) -> None:
        """Each player sees the wager accepted; a late attempt's light stays off (the lock-out,
        UTH ch.8 §C(2), HCF ch.8 §C(1))."""
        system = self._system
        assert system is not None
        try:
            await system.set_lights(accepted=accepted)
        except DeviceError as e:
            self.s.log.error("accepted lights not set", error=str(e))

    async def release(self) -> None:
        """After a round: lights off, the accepted and late flags cleared, the lock-out released.

        Until that is done, the flags still say what the last round accepted: a system that did not
        answer is reset as soon as it answers again, and before any no more bets reads it."""
        system = self._system
        if system is None:
            return
        try:
            await system.set_lights()
            await system.clear_accepted()
            await system.lock_out(False)
        except DeviceError as e:
            self.pending_release = True
            self.s.log.error("progressive system not reset after the round", error=str(e))
        else:
            if self.pending_release:
                self.s.log.info("progressive system reset after its outage")
            self.pending_release = False

    async def release_if_pending(self) -> None:
        if self.pending_release:
            await self.release()  # the last round's accepted flags are not this round's wagers

    async def hold_for_storage(self) -> None:
        """The table cannot journal (P97) or open a round (P104): the coil set so that no progressive wager is
        taken that no round could record.  Only the coil: the flags a round taking wagers already has are its
        players' wagers, kept.  A round past no more bets holds the lock-out already."""
        r, system = self.s.round, self._system
        if system is None or self.storage_hold or (r is not None and r.phase is not Phase.WAGERS):
            return
        try:
            await system.lock_out(True)
        except (DeviceError, LockoutNotConfirmed) as e:
            self.s.log.error("lock-out not set for the storage fault", error=str(e))
            return
        self.storage_hold = True
        self.s.log.warning("progressive wagers locked out while the table cannot journal")

    async def end_storage_hold(self) -> None:
        """The table can take wagers again: the coil released, the flags kept (they are the wagers of the round
        taking them); tried again on the next call if the system does not answer."""
        system = self._system
        if not self.storage_hold or system is None:
            self.storage_hold = False
            return
        try:
            await system.lock_out(False)
        except (DeviceError, LockoutNotConfirmed) as e:
            self.s.log.error("lock-out not released after the storage fault", error=str(e))
            return
        self.storage_hold = False
        self.s.log.info("progressive wagers taken again after the storage fault")

    async def check_at_start(self) -> None:
        """At start, the progressive system made to say what the journal says, before any press (P96).

        * The open round is past no more bets: the journal has its accepted seats; the lock-out is held
          (set again if lost, journaled), a seat the system accepted that the journal does not have is a
          late attempt (UTH ch.8 §C(2), HCF ch.8 §C(1)), the accepted lights are the journaled seats.
        * Otherwise a lock-out still on means a no more bets or a reset that never finished.  Between
          rounds it is the last round's reset.  In a round still taking wagers it is a no more bets the
          journal does not have: the daemon stopped after the system locked out and before the fact was
          journaled.  Those accepted flags are no wager of the round; they are journaled as returned (an
          irregularity, never a wager silently dropped), the dealer told, and the system released so the
          players wager again.

        A linked table reaches its link first (its journal reconciled with it, ``controller.progressive.link``)."""
        s = self.s
        await self.progressive.link_start()
        system = self._system
        if system is None:
            return
        r = s.round
        if r is not None and r.phase is not Phase.WAGERS:
            await self.check_late()
            if r.phase not in (Phase.SETTLED, Phase.VOIDED, Phase.COMPLETE):  # a held win lights its winner
                await self.light_accepted(r.progressive_seats())
            return
        try:
            st = await system.status()
        except DeviceError:
            self.pending_release = True
            return
        if not st.locked_out:
            return  # accepted flags in a round taking wagers are its players' wagers: kept
        if r is not None and st.accepted:
            seats = sorted(st.accepted)
            s.journal.record(ev.ProgressiveAcceptedReturned(round=r.round_id, seats=tuple(seats)))
            s.log.error("progressive accepted flags of an unjournaled no more bets returned", seats=seats)
            s.notice = (f"restarted before no more bets was journaled: the progressive wager at seat "
                        f"{', '.join(map(str, seats))} is returned (P96): the player wagers it again")
            s.notice_told = told("progressive_wager_returned", cause="restarted", clauses=["P96"], seats=seats)
        self.pending_release = True
        await self.release()

    async def check_late(self) -> None:
        """Wagers tried after the lock-out (UTH ch.8 §C(2), HCF ch.8 §C(1)): not recognised, journaled with
        the round."""
        s = self.s
        r = s.round
        system = self._system
        if r is None or system is None or self.progressive.off:
            return
        try:
            st = await system.status()
        except DeviceError as e:
            s.log.error("late wagers not read", error=str(e))
            return
        late = set(st.late)
        if r.phase is not Phase.WAGERS:
            # a wager the system took after no more bets was not this round's (UTH ch.8 §C(2), HCF ch.8 §C(1))
            late |= set(st.accepted) - set(r.progressive_seats())
            if not st.locked_out:
                await self.restore()
        new = sorted(late - self.late_journaled)
        if new:
            s.journal.record(ev.LateProgressiveWager(round=r.round_id, seats=tuple(new)))
            self.late_journaled |= set(new)
            s.log.warning("late progressive wager", seats=new)

    async def restore(self) -> None:
        """The progressive system no longer holds the lock-out it confirmed at no more bets (it was
        power cycled): set it again, and the lights and signs it lost; journaled, the dealer told."""
        s = self.s
        r = s.open_round()
        system = self.devices.progressive
        assert system is not None
        s.journal.record(ev.ProgressiveLockoutLost(round=r.round_id))
        s.log.error("progressive lock-out lost during the round")
        try:
            await system.lock_out(True)
            await system.set_lights(accepted=r.progressive_seats())
        except (DeviceError, LockoutNotConfirmed) as e:
            s.log.error("lock-out not set again", error=str(e))
        await self.progressive.show_meters()
        where = s.game.cite('lockout')
        s.notice = ("the progressive system lost its lock-out during this round (restarted?); it is set "
                    f"again: a progressive wager placed meanwhile does not count ({where})")
        s.notice_told = told("lockout_lost", clauses=[where], device="progressive")
        s.tell(f"{s.message} -- NOTE: {s.notice}", amend(s.told, "lockout_lost", clauses=[where]))
