"""The table's life around its rounds: opening, idle, closing, between rounds, the decks (UTH ch.3-ch.5).

Owns the steps the dealer does with the panel before a round may start (``controller.table``
lists them: opening UTH ch.4, between rounds UTH ch.5 §A(2), reopening after idle P67), opening a
new round, closing the settled or voided one (the automated shuffler's shuffle, the lock-out
released), no play at the table (idle or closed), a recut (UTH ch.5 §G, HCF ch.5 §F, RET ch.5 §E),
and the checks on the decks before a deal: their age (UTH ch.3 §C) and which deck is in play
(UTH ch.3 §A-§B, UTH ch.4 §A).
"""

from __future__ import annotations

import time
import uuid

import structlog

from controller import events as ev
from controller.irregularities import clause
from controller.round.machine import Phase, RoundController
from controller.service.devices import Devices
from controller.service.faults import FaultEpisodes
from controller.service.lockout import WagerLockout
from controller.service.progressive import ProgressiveSystem
from controller.service.refused import Refused, ask
from controller.service.session import Session
from controller.service.storage import Storage
from controller.service.told import told
from controller.table import (
    TableState,
    between_round_steps,
    opening_steps,
    reopening_steps,
    round_setup,
)
from drivers.health import DeviceError
from drivers.panel import ButtonPress
from drivers.serial_link import CardCountError
from drivers.shuffler import ShuffleResult

SHUFFLER = "shuffler"  # the device as the journal and the dealer name it

class Life:
    def __init__(self, s: Session, devices: Devices, lockout: WagerLockout, progressive: ProgressiveSystem,
                 storage: Storage) -> None:
        self.s = s
        self.storage = storage  # a round opens only with room for it on the disk (P104)
        self.devices = devices
        self.lockout = lockout
        self.progressive = progressive
        self.faults = FaultEpisodes(s.life.record)  # the shuffler's failures, journaled once an episode

    async def table_step(self, press: ButtonPress) -> None:
        """The next required step of the table (opening, between rounds, reopening after idle)."""
        s = self.s
        step = s.life.next_step()
        assert step is not None
        name, button, needs_key, where = step
        if press.button != button:
            raise Refused(f"first: {name.replace('_', ' ')} ({where}) with the {button} button", "step_first",
                          clauses=[where])
        who: str | None = "dealer"
        if needs_key:
            who = await s.supervisor(name)
            if who is None:
                raise Refused(f"{name} needs the floor supervisor's key ({where})", "key_needed", clauses=[where])
        deck: str | None = None
        count: int | None = None
        if name.startswith("shuffled") and self.devices.shuffler is not None:
            result = await self.shuffle()
            if result is None:
                return  # the deck was removed: the opening steps start again
            deck, count = result.deck, result.count
        done = ev.StepDone(step=name, deck=deck, count=count)
        kind_of_step, _, step_deck = name.partition(":")  # decks_inspected:A: the step of deck A
        of_deck = deck or step_deck or None
        if s.life.required[1:] or s.life.state is TableState.OPEN:
            s.life.record(done, who=who)
            self.progressive.table_state_changed()  # the first step: opening; a linked table tells its link (P120)
            s.tell(f"{name.replace('_', ' ')} ({where}) by {who}",
                   told("table_step", cause=kind_of_step, clauses=[where], deck=of_deck,
                        counts={"shuffler": count} if count is not None else None))
            if s.life.required:
                return
        else:  # the last step and the table opened: one fact (a crash between them wedged the table)
            s.life.record_many([done, ev.TableOpened()], who=who)
            self.progressive.table_state_changed()  # a linked table tells its link (P120)
            s.tell(f"{name.replace('_', ' ')} ({where}) by {who}: table open",
                   told("table_step", cause=kind_of_step, clauses=[where], deck=of_deck,
                        counts={"shuffler": count} if count is not None else None,
                        also=["table_open"]))
        if s.round is None or s.round.phase is Phase.COMPLETE:
            await self.new_round()

    async def new_round(self) -> None:
        s = self.s
        if not self.storage.room_for_a_round():
            # P104: the disk's reserve is given up (or a write fails): the round just played could finish,
            # no new one opens -- no wager is taken -- until the reserve is made again
            s.round = None
            s.tell("the table's disk is full: no new round until the floor frees space -- call the floor "
                   "supervisor (P104)", told("halted", cause="disk_full", clauses=["P104"]))
            await self.lockout.hold_for_storage()  # nor a progressive wager no round could record
            return
        await s.between_rounds()  # a new journal segment, when one is due (P60)
        round_id = time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]
        s.round = await RoundController.open(round_id, round_setup(s.cfg, s.meters), s.journal)
        structlog.contextvars.bind_contextvars(round_id=round_id)  # every log line of the round carries it
        self.lockout.new_round()
        await self.lockout.end_storage_hold()  # the round takes progressive wagers (held back for room, P104)
        s.notice = s.notice_told = None
        self.progressive.new_round()
        s.tell(f"round {round_id}: place your bets", told("round_opened"))

    async def no_play(self) -> None:
        """No gaming activity (UTH ch.5 §H, JHE ch.5 §H, HCF ch.5 §G, RET ch.5 §F): the table goes idle, and
        opens again with the steps of the game's chapter 4 (P67); with the supervisor's key it closes."""
        s = self.s
        r = s.open_round()
        who = await s.supervisor("no_play")
        idle = s.game.cite("idle")
        ask(r.can_void())
        await r.void(f"no play at the table ({idle})")
        ask(r.can_confirm())
        await r.confirm()
        if who is not None:
            s.life.record(ev.TableClosed(), who=who)
            s.life.require(opening_steps(s.cfg), f"the table reopens with decks received ({s.game.cite('opening')})",
                           who=who)
            s.tell(f"table closed by {who}", told("table_closed"))
        else:
            s.life.record_many([ev.TableIdle(), ev.StepsRequired(steps=tuple(reopening_steps(s.cfg)),
                                                                 why=f"no play ({idle})")], who="dealer")
            step = s.life.next_step()
            assert step is not None
            opening = s.game.cite('opening')
            s.tell(f"table idle ({idle}): first {step[0].replace('_', ' ')}, then the opening steps of {opening}",
                   told("table_idle", clauses=[idle, opening]))
        s.round = None
        self.progressive.table_state_changed()  # a linked table tells its link (P120)

    async def recut(self) -> None:
        """A floor supervisor requires the cards cut again (UTH ch.5 §G, HCF ch.5 §F, RET ch.5 §E)."""
        s = self.s
        who = await s.supervisor("recut")
        where = s.game.cite('recut')
        if who is None:
            raise Refused(f"a recut is required by a floor supervisor: turn the key ({where})", "key_needed",
                          clauses=[where])
        s.life.require(["cards_cut"], f"recut required ({where})", who=who)
        s.tell(f"recut required by {who} ({where}): cut the cards again", told("recut", clauses=[where]))

    async def close_round(self) -> None:
        s = self.s
        r = s.open_round()
        if r.phase is Phase.SETTLED:
            await self.lockout.check_late()
        ask(r.can_confirm())
        await self.finish_void()
        await r.confirm()
        removed = bool(s.life.required)  # a deck removed by the irregularity that voided the round
        await self.lockout.release()
        if removed:
            s.round = None
            step = s.life.next_step()
            s.tell(f"round closed; the deck was removed: first {step[0].replace('_', ' ') if step else 'new decks'}",
                   told("round_closed", cause="deck_removed"))
            return
        if s.cfg.automated_shuffler:
            # UTH ch.5 §A(2): after each round (two decks alternate, UTH ch.3 §B)
            if await self.shuffle() is None:
                s.round = None
                return
        steps = between_round_steps(s.cfg)
        if steps:  # shuffled and cut by hand before the next round (each game's clauses: ``between_round_steps``)
            s.life.require(steps, f"after the round ({s.game.cite('shuffle_after_round')})")
            s.round = None
            s.tell("shuffle the cards and cut them for the next round", told("shuffle_and_cut"))
            return
        await self.new_round()

    async def finish_void(self) -> None:
        """R7a, P49: a voided round returns its progressive wagers, and their contributions go back off the
        meters.  The void and the take-back are two journal writes (``Settling.void``): a daemon killed
        between them left the round voided with the contributions still on the meters, and the
        returned wagers' cents were lost to the players' meters for good.  Before the voided round
        closes the take-back is made if the journal does not have it -- once: only when no meter event
        of the round follows the void."""
        s = self.s
        r = s.open_round()
        if r.phase is not Phase.VOIDED or not s.cfg.progressive.enabled:
            return
        events = s.journal.events(r.round_id)
        voided = next((e for e in reversed(events) if e.kind == ev.Voided.kind), None)
        if voided is None or "progressive" in voided.data.get("keep", ()):
            return
        if any(e.kind == ev.MeterAdd.kind and e.seq > voided.seq for e in events):
            return
        accepted = sum(1 for seat in r.players if "progressive" in seat.wagers)  # as Settling.void counts them
        if accepted:
            s.log.warning("a voided round's contributions taken back after a restart", accepted=accepted)
            await self.progressive.take_back_all(accepted)

    async def shuffle(self) -> ShuffleResult | None:
        """The automated shuffler shuffles and counts; anything but 52 cards removes the deck (UTH ch.5 §E,
        HCF ch.5 §C, RET ch.5 §B)."""
        s = self.s
        shuffler = self.devices.shuffler
        assert shuffler is not None
        try:
            result = await shuffler.shuffle()
            self.faults.worked(SHUFFLER)
            s.life.record(ev.DeckShuffled(deck=result.deck, count=result.count))
            return result
        except CardCountError as e:
            self.faults.worked(SHUFFLER)  # it shuffled and counted: the count is the deck's fault
            counted = s.game.cite("deck_count")
            s.life.record(ev.DeckRemoved(deck=e.deck, count=e.count, clause=counted))
            s.life.require(opening_steps(s.cfg), f"deck {e.deck} removed: {e.count} cards counted ({counted})")
            s.tell(f"deck {e.deck} counted {e.count} cards: remove it from the table ({counted}); "
                   "new decks go through the opening steps",
                   told("deck_count", clauses=[counted], remove_deck=True, device="shuffler", deck=e.deck,
                        counts={"deck": e.count}))
            return None
        except DeviceError as e:
            # jammed, stopped or did not complete the shuffle -- or did not answer: no round is dealt
            # from it; the cards are taken out and shuffled again (UTH ch.13 §H, HCF ch.13 §G)
            where = clause("shuffle_failed", s.game.short)
            fault, reason = type(e).__name__, str(e)
            self.faults.fault(SHUFFLER, fault, lambda: ev.DeviceFault(device=SHUFFLER, fault=fault, reason=reason,
                                                                     clause=where))
            s.log.error("shuffle failed", error=str(e), failures=self.faults.count(SHUFFLER, fault))
            if not s.life.required:
                s.life.require(["shuffled"], f"the shuffle failed ({where})")
            s.tell(f"the shuffle failed: {e} ({where}): clear the shuffler, put all the cards back in it, "
                   "and shuffle again (the shuffle button)", told("shuffle_failed", clauses=[where], device="shuffler"))
            return None

    def check_alternation(self) -> None:
        """Only the decks received and inspected are dealt (UTH ch.3 §A(1), HCF ch.3 §A, RET ch.3 §A: one
        deck, or UTH ch.3 §B: two; UTH ch.4 §A-§E):
        a deck the shuffler brings into play that the table never inspected -- the other deck of a
        two-deck shuffler at a one-deck table -- deals no round; the decks go through the opening steps.
        UTH ch.3 §B: with two decks, each is used every other round.  The shuffler alternates by itself,
        but a shuffle that failed and was repeated can bring back the deck the last round used."""
        s = self.s
        if self.devices.shuffler is None:
            return
        deck = s.life.last_shuffled
        if deck is not None and s.life.decks_in_use and deck not in s.life.decks_in_use:
            inspected = ", ".join(s.life.decks_in_use)
            cited = [s.game.cite("one_deck"), s.game.cite("inspection")]
            where = ", ".join(cited)  # as s.game.cite("one_deck", "inspection")
            why = f"deck {deck} is in play, but the table inspected only deck {inspected} ({where})"
            s.life.record(ev.DeckRemoved(deck=deck, reason=why, clause=where))
            s.life.require(opening_steps(s.cfg), why)
            s.tell(f"{why}: remove every deck not inspected from the shuffler and the table; "
                   "the decks go through the opening steps",
                   told("deck_not_inspected", clauses=cited, remove_deck=True, deck=deck))
            raise Refused(f"{why}: it deals no round -- the decks go through the opening steps", "deck_not_inspected",
                          clauses=cited)
        if s.cfg.dealing.decks != 2:
            return
        if deck is not None and deck == s.life.last_dealt:
            two = s.game.cite('two_decks')
            s.life.require(["shuffled"], f"deck {deck} dealt the last round ({two})")
            raise Refused(f"deck {deck} is in the shuffler's play position, and the last round was dealt "
                          f"from it: the decks alternate every round ({two}) -- shuffle (the other deck)",
                          "decks_alternate", clauses=[two])

    def check_deck_age(self) -> None:
        """UTH ch.3 §C: decks are changed at least every 4 hours dealt by hand, 8 from a shoe (configured)."""
        s = self.s
        age = s.life.deck_age_hours()
        limit = float(s.cfg.dealing.deck_change_hours)
        if age is not None and age > limit:
            where = s.game.cite("deck_change")
            s.life.record(ev.DeckExpired(hours=f"{age:.3f}", limit=str(s.cfg.dealing.deck_change_hours), clause=where))
            s.life.require(opening_steps(s.cfg), f"the decks are older than {limit:g} h ({where})")
            raise Refused(f"the decks have been in use {age:.2f} h, the limit is {limit:g} h ({where}): "
                          "change them (the opening steps) before dealing", "deck_expired", clauses=[where])
