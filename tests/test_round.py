"""The round state machine (controller.round.machine) for every game, without devices."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest

from controller.round.machine import Phase, RoundController, RoundRefused, TableSetup
from games.contract import settle, settlement_json


class ListJournal:
    def __init__(self):
        self.events: list[tuple[str | None, str, dict]] = []

    def record(self, event, round_id=None):
        self.events.append((round_id, event.kind, event.to_data()))
        return len(self.events)

    def record_many(self, events, round_id=None):
        return [self.record(e, round_id) for e in events]

    def of(self, round_id):
        return [(k, d) for r, k, d in self.events if r == round_id]


def run(coro):
    return asyncio.run(coro)


UTH = TableSetup(
    game="ultimate_texas_holdem",
    paytables={"blind": "A", "trips": "A", "progressive": "B"},
    progressive={"unit": Decimal(1), "meters": {"major": Decimal("12000.00"), "minor": Decimal("1400.00")},
                 "reset": {"major": Decimal(1000), "minor": Decimal(250)}},
)


async def uth_round(journal):
    r = await RoundController.open("r1", UTH, journal)
    for seat, ante in ((1, 10), (3, 25)):
        await r.place_wager(seat, "ante", Decimal(ante))
        await r.place_wager(seat, "blind", Decimal(ante))
    await r.place_wager(1, "trips", Decimal(5))
    await r.announce_no_more_bets(progressive_seats=[1])
    assert r.phase is Phase.NO_MORE_BETS
    with pytest.raises(RoundRefused, match="chips"):
        await r.confirm_progressive_count(2)  # ch.8 §C(3): a mismatch stops the round
    await r.confirm_progressive_count(1)
    # UTH ch.8 §D(2): one card at a time clockwise from seat 1, then the dealer, twice
    for place, card in [("seat:1", "As"), ("seat:3", "7h"), ("dealer", "Qh"),
                        ("seat:1", "5s"), ("seat:3", "7d"), ("dealer", "Qs")]:
        await r.card(place, card)
    assert r.phase is Phase.DECISIONS
    return r


def test_uth_round_end_to_end_matches_the_rules_engine():
    async def main():
        j = ListJournal()
        r = await uth_round(j)
        view = r.public_view()
        assert view["seats"][1]["cards"] == 2 and view["dealer"] == 2  # hole cards hidden
        assert r.choices() == {
            "seat": 1, "street": "before_the_flop", "multiples": [4, 3], "check": True, "fold": False
        }
        with pytest.raises(RoundRefused, match="not the one to act"):
            await r.decide(3, check=True)  # R1: seat 1 first
        with pytest.raises(RoundRefused, match="no fold"):
            await r.decide(1, fold=True)  # UTH ch.11 §B(1): play or check before the flop
        await r.decide(1, multiple=4)
        await r.decide(3, check=True)
        assert r.street == 1 and r.to_act().seat == 3  # seat 1 played: only seat 3 is asked after the flop
        with pytest.raises(RoundRefused, match="community"):
            await r.decide(3, check=True)  # the flop is not out yet
        for i, card in enumerate(["2c", "3d", "4h"]):
            await r.card(f"community:{i}", card)
        assert r.public_view()["community"] == {"0": "2c", "1": "3d", "2": "4h"}
        await r.decide(3, check=True)
        await r.card("community:3", "Ts")
        await r.card("community:4", "9c")
        with pytest.raises(RoundRefused, match="2x is not allowed"):
            await r.decide(3, multiple=2)  # UTH ch.11 §F: 1x or fold after the river
        await r.decide(3, fold=True)
        assert r.phase is Phase.REVEAL
        s = await r.settle()
        assert r.phase is Phase.SETTLED
        expected = settlement_json(settle(r.settle_input()))
        from games.contract import settlement_json as sj

        assert sj(s) == expected
        assert {x.seat: x.net for x in s.seats} == {1: Decimal(109), 3: Decimal(-50)}  # the contract's example
        assert r.public_view()["seats"][1]["cards"] == ["As", "5s"]
        assert r.public_view()["seats"][3]["cards"] == 2  # a folded hand is never shown
        await r.confirm()
        assert r.phase is Phase.COMPLETE

        # the journal rebuilds the same round
        again = await RoundController.restore("r1", UTH, j.of("r1"))
        assert again.phase is Phase.COMPLETE
        assert sj(again.settlement) == expected

    run(main())


def test_restore_mid_round_resumes_at_the_same_point():
    async def main():
        j = ListJournal()
        r = await uth_round(j)
        await r.decide(1, multiple=3)
        again = await RoundController.restore("r1", UTH, j.of("r1"))
        assert again.phase is Phase.DECISIONS and again.to_act().seat == 3
        assert again.public_view() == r.public_view()

    run(main())


def test_refusals_leave_the_round_unchanged_and_unjournaled():
    async def main():
        j = ListJournal()
        r = await RoundController.open("r2", UTH, j)
        with pytest.raises(RoundRefused):
            await r.place_wager(7, "ante", Decimal(5))
        with pytest.raises(RoundRefused):
            await r.place_wager(1, "player_bonus", Decimal(5))
        with pytest.raises(RoundRefused, match="no seat"):
            await r.announce_no_more_bets()
        await r.place_wager(2, "ante", Decimal(5))
        with pytest.raises(RoundRefused, match="blind"):
            await r.announce_no_more_bets()  # UTH ch.7 §F(1): Ante and Blind
        await r.place_wager(2, "blind", Decimal(5))
        with pytest.raises(RoundRefused, match="Ante first"):
            await r.announce_no_more_bets(progressive_seats=[4])
        assert [k for _, k, _ in j.events] == ["round_opened", "wager", "wager"]
        await r.announce_no_more_bets()
        await r.confirm_progressive_count(0)
        await r.card("seat:2", "As")
        with pytest.raises(RoundRefused, match="already dealt"):
            await r.card("dealer", "As")  # the same card twice: a card from another deck
        with pytest.raises(RoundRefused, match="no player"):
            await r.card("seat:4", "Kd")  # only seats with the required wagers get cards

    run(main())


def test_no_more_bets_is_asked_first_and_asking_changes_nothing():
    """Ask before you act: ``can_close_wagers`` answers what ``close_wagers`` would refuse (UTH ch.7 §F(1),
    UTH ch.8 §C), with a code; a part's ``ask`` turns a no into the press refused."""
    from controller.service.refused import Refused, ask

    async def main():
        j = ListJournal()
        r = await RoundController.open("r9", UTH, j)
        ante = [(2, "ante", Decimal(5))]
        assert r.can_close_wagers(ante).code == "required_wager"  # the Blind is missing
        assert r.can_close_wagers([(7, "ante", Decimal(5))]).code == "seat"
        both = [*ante, (2, "blind", Decimal(5))]
        assert r.can_close_wagers(both, progressive_seats=[4]).code == "progressive"
        assert r.can_close_wagers(both)
        assert r.seats == {} and [k for _, k, _ in j.events] == ["round_opened"]  # asking placed nothing
        with pytest.raises(Refused, match="blind") as refused:
            ask(r.can_close_wagers(ante))
        assert refused.value.code == "required_wager"
        ask(r.can_close_wagers(both))  # allowed: nothing raised
        with pytest.raises(RoundRefused) as guard:  # acting without asking is still refused by the round
            await r.close_wagers(ante)
        assert not isinstance(guard.value, Refused) and r.phase is Phase.WAGERS

    run(main())


def test_void_returns_every_wager_and_halt_resumes():
    async def main():
        j = ListJournal()
        r = await uth_round(j)
        await r.halt_round("shoe jammed")
        assert r.phase is Phase.HALTED and r.public_view()["halted"]["in"] == "decisions"
        with pytest.raises(RoundRefused):
            await r.decide(1, multiple=4)
        await r.resume_round("supervisor 4711")
        assert r.phase is Phase.DECISIONS
        s = await r.void("UTH ch.13 §I: automated shoe failed to deal")
        assert r.phase is Phase.VOIDED
        assert all(w.net == 0 for seat in s.seats for w in seat.wagers.values())
        assert {k for seat in s.seats for k in seat.wagers} == {"ante", "blind", "trips", "progressive"}
        again = await RoundController.restore("r1", UTH, j.of("r1"))
        assert again.phase is Phase.VOIDED

    run(main())


def test_hcf_single_raise_follows_the_flush():
    setup = TableSetup(game="high_card_flush", paytables={"flush_bonus": "A"})

    async def main():
        r = await RoundController.open("h", setup, ListJournal())
        await r.place_wager(2, "ante", Decimal(10))
        await r.place_wager(2, "flush_bonus", Decimal(5))
        await r.announce_no_more_bets()
        await r.confirm_progressive_count(0)
        for c in ["Ah", "Kh", "Qh", "Jh", "9h", "2c", "3d"]:
            await r.card("seat:2", c)
        for c in ["2h", "4c", "6d", "8s", "Tc", "5s", "7c"]:
            await r.card("dealer", c)
        assert r.choices()["multiples"] == [1, 2]  # five-card flush: 1x or 2x (R16)
        with pytest.raises(RoundRefused):
            await r.decide(2, multiple=3)
        await r.decide(2, multiple=2)
        s = await r.settle()
        seat = s.seats[0]
        assert seat.wagers["raise"].amount == 20 and seat.wagers["flush_bonus"].line == "flush_5"

    run(main())


def test_ret_three_decisions_and_the_cross():
    setup = TableSetup(game="run_em_twice", paytables={})

    async def main():
        r = await RoundController.open("x", setup, ListJournal())
        await r.place_wager(1, "ante_1", Decimal(5))
        await r.place_wager(1, "ante_2", Decimal(5))
        await r.announce_no_more_bets()
        await r.confirm_progressive_count(0)
        for name, c in zip(("left", "center", "right", "top", "bottom"), ["Jh", "Js", "2c", "Jd", "3s"], strict=True):
            await r.card(f"community:{name}", c)
        await r.card("seat:1", "Jc")
        await r.card("seat:1", "4d")
        assert r.public_view()["community"] == {}
        await r.decide(1, multiple=3)
        assert r.public_view()["community"] == {"0": "Jh", "2": "2c"}  # RET ch.11 §C: the outside horizontal cards
        await r.decide(1, multiple=2)
        assert set(r.public_view()["community"]) == {"0", "2", "3", "4"}  # §E: the outside vertical cards
        with pytest.raises(RoundRefused):
            await r.decide(1, check=True)  # no check in RET (R26)
        await r.decide(1, multiple=1)
        s = await r.settle()
        w = s.seats[0].wagers
        assert (w["first_run"].amount, w["second_run"].amount, w["center"].amount) == (15, 10, 5)

    run(main())


def test_jhe_all_play_early_skips_later_streets_but_cards_are_still_dealt():
    setup = TableSetup(game="jackpot_holdem", paytables={})

    async def main():
        r = await RoundController.open("j", setup, ListJournal())
        await r.place_wager(4, "ante", Decimal(10))
        await r.place_wager(4, "xtra_bonus", Decimal(10))
        await r.announce_no_more_bets()
        await r.confirm_progressive_count(0)
        for place, c in [("seat:4", "Ah"), ("dealer", "2c"), ("seat:4", "Ad"), ("dealer", "7s")]:
            await r.card(place, c)
        with pytest.raises(RoundRefused, match="community"):
            await r.decide(4, multiple=3)  # R11: the first community card is revealed first
        await r.card("community:0", "Kh")
        await r.decide(4, multiple=3)
        assert r.phase is Phase.REVEAL
        with pytest.raises(RoundRefused, match="still to deal"):
            await r.settle()
        for i, c in enumerate(["Kd", "5c", "9s", "Th"], start=1):
            await r.card(f"community:{i}", c)
        s = await r.settle()
        assert s.seats[0].wagers["play"].amount == 30

    run(main())


def test_with_the_real_journal_a_crash_resumes_the_round(tmp_path):
    """Journal first, then apply: a round rebuilt from the SQLite journal is the same round."""
    from controller.journal.store import Journal

    async def main():
        path = tmp_path / "table.journal"
        with Journal(path) as j:
            r = await uth_round(j)
            await r.decide(1, multiple=4)
            view = r.public_view()
        with Journal(path) as j:  # a new process after the crash
            assert j.open_round() == "r1"
            events = [(e.kind, e.data) for e in j.events("r1")]
            again = await RoundController.restore("r1", UTH, events, journal=j)
            assert again.public_view() == view
            await again.decide(3, check=True)
            for i, c in enumerate(["2c", "3d", "4h"]):
                await again.card(f"community:{i}", c)
            await again.decide(3, check=True)
            await again.card("community:3", "Ts")
            await again.card("community:4", "9c")
            await again.decide(3, fold=True)
            s = await again.settle()
            assert {x.seat: x.net for x in s.seats} == {1: Decimal(109), 3: Decimal(-50)}
            await again.confirm()
            assert j.open_round() is None
            j.verify()

    run(main())


def test_a_discarded_card_is_journaled_and_cannot_come_back():
    """ch.13 §A: a card found face up is not used; it is kept in the journal (the round can be
    reconstructed) and a second copy of it later in the round is a card from another deck."""

    async def main():
        j = ListJournal()
        r = await uth_round(j)
        await r.discard("9d", "found face up while dealing (ch.13 §A)")
        with pytest.raises(RoundRefused, match="another deck"):
            await r.card("community:0", "9d")
        again = await RoundController.restore("r1", UTH, j.of("r1"))
        assert again.discarded == r.discarded and again.public_view() == r.public_view()

    run(main())
