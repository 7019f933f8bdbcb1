"""Only configurations the rules allow are accepted, and a fallback deals only what its chapter deals.

D1: the UTH Six Card Bonus box is dealt by UTH ch.10 §B(1) only (P25, P55).  D2: HCF has no dealer's
cards held in the shuffler (HCF ch.10 §B(2), P27).  D3: a one-deck table deals only the deck it
inspected (UTH ch.3 §A(1), HCF ch.3 §A, RET ch.3 §A; UTH ch.4 §A; P57).  D4: dealing by hand, decks are
changed every 4 hours (UTH ch.3 §C(1), P43).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

import config_matrix as m
from controller import events as ev
from controller.config.table import TableConfig, check
from controller.daemon import TableDaemon
from controller.round.machine import RoundRefused
from drivers.health import Health

pytestmark = pytest.mark.usefixtures("no_table_env")


UTH_SIDE = m.side_wagers("ultimate_texas_holdem")


def table(c: m.Combination, tmp_path, **dealing) -> TableConfig:
    data = c.data()
    data["dealing"].update(dealing)
    data["journal"] = str(tmp_path / "table.journal")
    cfg = TableConfig.model_validate(data)
    assert not check(cfg), check(cfg)
    return cfg


class _Device:  # a configured device, answering
    health = Health.ONLINE


def daemon_with(cfg: TableConfig, out: str) -> TableDaemon:
    """The daemon (not started) with ``out`` covered out of order between rounds (UTH ch.13 §J, HCF ch.13 §I,
    RET ch.13 §E; P43)."""
    d = TableDaemon(cfg)
    d.devices.drivers = {"shuffler": _Device(), "shoe": _Device()}  # both configured and answering
    d.life.record(ev.DeviceOutOfOrder(device=out, clause="UTH ch.13 §J"), who="supervisor 1")
    d.devices.apply_mode()
    return d


@pytest.mark.parametrize("procedure, devices", [("manual_shoe", dict(shoe=True)), ("hand", dict(shuffler=True))])
def test_d1_six_card_bonus_refused_where_no_box_is_dealt(procedure, devices):
    c = m.Combination("ultimate_texas_holdem", procedure, 1, "dealt", devices.get("shuffler", False),
                      devices.get("shoe", False), ("trips", "six_card_bonus"), None)
    found = dict(m.problems(c))
    assert "wagers.six_card_bonus" in found
    assert "ch.10 §B(1)" in found["wagers.six_card_bonus"] and "P55" in found["wagers.six_card_bonus"]
    assert not m.problems(m.Combination(**{**c.__dict__, "wagers": ("trips",)}))  # the rest of the table is fine


@pytest.mark.parametrize("procedure, out, now", [("shuffler", "shuffler", "manual_shoe"),
                                                 ("automated_shoe", "shoe", "hand")])
def test_d1_a_fallback_without_the_box_closes_the_six_card_bonus(procedure, out, now, tmp_path):
    cfg = table(m.Combination("ultimate_texas_holdem", procedure, 1, "dealt", True, True, UTH_SIDE, None), tmp_path)
    d = daemon_with(cfg, out)
    assert d.cfg.dealing.procedure == now
    assert "six_card_bonus" not in d.cfg.wagers and d.devices.closed_wagers == ["six_card_bonus"]
    assert d.status()["closed_wagers"] == ["six_card_bonus"]  # the dealer's display shows it closed
    d.life.record(ev.DeviceInService(device=out, clause="UTH ch.13 §J"), who="supervisor 1")
    d.devices.apply_mode()
    assert "six_card_bonus" in d.cfg.wagers and d.devices.closed_wagers == []  # UTH ch.10 again: the box is dealt
    d.journal.close()


def test_d2_hcf_dealer_cards_in_the_shuffler_refused():
    c = m.Combination("high_card_flush", "shuffler", 1, "in_shuffler", True, False, (), None)
    found = dict(m.problems(c))
    assert "HCF ch.10 §B(2)" in found["dealing.dealer_cards"] and "P27" in found["dealing.dealer_cards"]


class _Shuffler:  # the daemon only asks whether a shuffler is in use here
    pass


def test_d3_a_one_deck_table_deals_only_the_deck_it_inspected(tmp_path):
    cfg = table(m.Combination("jackpot_holdem", "shuffler", 1, "dealt", True, False, (), None), tmp_path)
    d = TableDaemon(cfg)
    d.devices.shuffler = _Shuffler()
    for step in list(d.life.required):  # the opening: one deck inspected and shuffled -- deck A
        d.life.record(ev.StepDone(step=step, **({"deck": "A", "count": 52} if step == "shuffled" else {})))
    assert d.life.decks_in_use == ["A"]
    d.life.record(ev.DeckShuffled(deck="A", count=52))
    d.lifecycle.check_alternation()  # the same deck: dealt
    d.life.record(ev.DeckShuffled(deck="B", count=52))  # a second deck the table never inspected
    with pytest.raises(RoundRefused, match=r"ch\.3 §A\(1\)"):
        d.lifecycle.check_alternation()
    assert d.life.next_step()[0] == "decks_inspected"  # the decks go through the opening steps
    assert any(e.kind == "deck_removed" and e.data["deck"] == "B" for e in d.journal.events(None))
    d.journal.close()


def test_d3_the_demo_shuffler_holds_the_configured_decks(tmp_path):
    from demo.run import simulator_options, start_simulator, stop_processes
    from simulators.control import ControlError

    cfg = table(m.Combination("jackpot_holdem", "shuffler", 1, "dealt", True, False, (), None), tmp_path)
    procs = []
    try:
        shuffler = start_simulator("shuffler", 0, procs, simulator_options("shuffler", cfg))
        shuffler("set_deck", cards=["As"], deck="A")  # taken: a refusal raises ControlError
        with pytest.raises(ControlError, match="deck is one of"):
            shuffler("set_deck", cards=["As"], deck="B")  # no second deck in a one-deck table's shuffler
    finally:
        stop_processes(procs)


def test_d4_dealing_by_hand_after_a_fallback_changes_decks_every_four_hours(tmp_path):
    c = m.Combination("ultimate_texas_holdem", "automated_shoe", 1, "dealt", True, True, (), None)
    cfg = table(c, tmp_path, deck_change_hours=8)
    d = daemon_with(cfg, "shoe")
    assert d.cfg.dealing.procedure == "hand" and d.cfg.dealing.deck_change_hours == Decimal(4)
    d.life.decks_since = datetime.now(UTC) - timedelta(hours=5)  # fine from a shoe, not by hand
    with pytest.raises(RoundRefused, match=r"ch\.3 §C"):
        d.lifecycle.check_deck_age()
    d.journal.close()
