"""The steps of the table's life (controller.table) by configuration."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.config import load_config
from controller.table import between_round_steps, opening_steps, reopening_steps

ROOT = Path(__file__).resolve().parent.parent


def cfg(game, monkeypatch, **env):
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    return load_config(ROOT / "config" / f"{game}.toml")


def test_two_decks_with_a_shuffler_are_each_inspected_and_shuffled(monkeypatch):
    c = cfg("ultimate_texas_holdem", monkeypatch)  # decks = 2, automated shuffler
    assert opening_steps(c) == [f"{s}:{d}" for d in "AB" for s in
                                ("decks_inspected", "inspection_verified", "cards_spread_washed_stacked", "shuffled")]
    assert between_round_steps(c) == []  # the shuffler shuffles after each round (ch.5 §A(2)); no cut (§D(1))
    assert reopening_steps(c) == ["cards_spread_for_the_first_player", "shuffled"]  # ch.5 §H


def test_hand_shuffled_deck_is_cut_every_round(monkeypatch):
    c = cfg("run_em_twice", monkeypatch)  # manual shoe, no shuffler
    assert opening_steps(c) == ["decks_inspected", "inspection_verified", "cards_spread_washed_stacked", "shuffled",
                                "cards_cut"]
    assert between_round_steps(c) == ["shuffled", "cards_cut"]  # ch.5 §A(2), §D(2), §F
    assert reopening_steps(c)[-1] == "cards_cut"


@pytest.mark.parametrize("game", ["run_em_twice", "ultimate_texas_holdem"])
def test_preinspected_decks_skip_the_opening_procedure(game, monkeypatch):
    c = cfg(game, monkeypatch, TABLE_DEALING__PREINSPECTED="true")  # ch.4 §F
    assert opening_steps(c) == ["preinspected_decks_received"]


def test_decks_older_than_the_limit_must_be_changed_before_dealing(tmp_path, monkeypatch):
    """ch.3 §C: the deck's age counts from the inspection of the decks received (the first of two)."""
    from datetime import datetime, timedelta, timezone

    from controller.daemon import TableDaemon
    from controller.round import RoundRefused

    monkeypatch.setenv("TABLE_JOURNAL", str(tmp_path / "t.journal"))
    c = cfg("run_em_twice", monkeypatch)  # manual shoe: at most 8 hours (ch.3 §C(2)); configured 8
    daemon = TableDaemon(c)
    life = daemon.life
    assert life.deck_age_hours() is None  # no decks yet
    for step in list(life.required):
        life.record("step_done", {"step": step}, who="dealer")
    received = life.decks_since
    assert received is not None
    assert life.deck_age_hours(received + timedelta(hours=7.9)) < 8
    daemon._check_deck_age()  # fresh decks: nothing happens
    life.decks_since = datetime.now(timezone.utc) - timedelta(hours=8, minutes=1)
    with pytest.raises(RoundRefused, match="ch.3 §C"):
        daemon._check_deck_age()
    assert life.next_step()[0] == "decks_inspected"  # the new decks go through the opening steps
    kinds = [e.kind for e in daemon.journal.events(None)]
    assert "deck_expired" in kinds
    daemon.journal.close()
