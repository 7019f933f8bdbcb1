"""The steps of the table's life (controller.table) by configuration."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

import pytest

from controller import events as ev
from controller.config.table import load_config
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
    assert between_round_steps(c) == []  # the shuffler shuffles after each round (UTH ch.5 §A(2)); no cut (§D(1))
    # UTH ch.5 §H(2): the steps of UTH ch.4 again, each deck (UTH ch.4 §C-§E, P67)
    assert reopening_steps(c) == [f"{s}:{d}" for d in "AB" for s in
                                  ("cards_spread_for_the_first_player", "cards_turned_down_washed_stacked", "shuffled")]


def test_hand_shuffled_deck_is_cut_every_round(monkeypatch):
    c = cfg("run_em_twice", monkeypatch)  # manual shoe, no shuffler
    assert opening_steps(c) == ["decks_inspected", "inspection_verified", "cards_spread_washed_stacked", "shuffled",
                                "cards_cut"]
    assert between_round_steps(c) == ["shuffled", "cards_cut"]  # RET ch.5 §A(2), §C(2), §D
    assert reopening_steps(c)[-1] == "cards_cut"


@pytest.mark.parametrize("game, removed", [("run_em_twice", True), ("high_card_flush", True),
                                           ("jackpot_holdem", False)])
def test_an_idle_table_reopens_with_the_opening_steps_of_chapter_4(game, removed, monkeypatch):
    """RET ch.5 §F(1)-(3), HCF ch.5 §G(1)-(3): the cards out of the shoe and discard rack first, spread for the
    first player, then UTH ch.4 §C (face down, washed, stacked) and §D (shuffled), lettered alike in every game;
    UTH and JHE ch.5 §H (no removal clause).  One deck at these tables (two: above); a hand-shuffled one is cut
    (UTH ch.5 §D(2), HCF ch.5 §D(2), RET ch.5 §C(2)); P67."""
    c = cfg(game, monkeypatch)
    assert c.dealing.decks == 1
    steps = reopening_steps(c)
    assert (steps[0] == "cards_removed_from_shoe_and_discard_rack") is removed
    assert steps[int(removed):int(removed) + 3] == ["cards_spread_for_the_first_player",
                                                    "cards_turned_down_washed_stacked", "shuffled"]
    assert steps[int(removed) + 3:] == ([] if c.automated_shuffler else ["cards_cut"])


@pytest.mark.parametrize("game, clause", [("run_em_twice", "RET ch.5 §F(1)"), ("high_card_flush", "HCF ch.5 §G(1)"),
                                          ("jackpot_holdem", "JHE ch.5 §H")])
def test_the_idle_steps_cite_each_games_own_clause(game, clause, tmp_path, monkeypatch):
    """The first step of reopening an idle table cites the game's own clause, with its game: the cards out of
    the shoe and discard rack (RET ch.5 §F(1), HCF ch.5 §G(1)); JHE has no such step (JHE ch.5 §H)."""
    from controller.daemon import TableDaemon

    monkeypatch.setenv("TABLE_JOURNAL", str(tmp_path / "t.journal"))
    life = TableDaemon(cfg(game, monkeypatch)).life
    life.require(reopening_steps(life.cfg), "no play")
    assert life.next_step()[3] == clause


@pytest.mark.parametrize("game", ["run_em_twice", "ultimate_texas_holdem"])
def test_preinspected_decks_skip_the_opening_procedure(game, monkeypatch):
    c = cfg(game, monkeypatch, TABLE_DEALING__PREINSPECTED="true")  # UTH ch.4 §F, alike in every game
    assert opening_steps(c) == ["preinspected_decks_received"]


def test_decks_older_than_the_limit_must_be_changed_before_dealing(tmp_path, monkeypatch):
    """UTH ch.3 §C: the deck's age counts from the inspection of the decks received (the first of two)."""
    from datetime import datetime, timedelta

    from controller.daemon import TableDaemon
    from controller.round.machine import RoundRefused

    monkeypatch.setenv("TABLE_JOURNAL", str(tmp_path / "t.journal"))
    c = cfg("run_em_twice", monkeypatch)  # manual shoe: at most 8 hours (RET ch.3 §C(2)); configured 8
    daemon = TableDaemon(c)
    life = daemon.life
    assert life.deck_age_hours() is None  # no decks yet
    for step in list(life.required):
        life.record(ev.StepDone(step=step), who="dealer")
    received = life.decks_since
    assert received is not None
    assert life.deck_age_hours(received + timedelta(hours=7.9)) < 8
    daemon.lifecycle.check_deck_age()  # fresh decks: nothing happens
    life.decks_since = datetime.now(UTC) - timedelta(hours=8, minutes=1)
    with pytest.raises(RoundRefused, match="ch.3 §C"):
        daemon.lifecycle.check_deck_age()
    assert life.next_step()[0] == "decks_inspected"  # the new decks go through the opening steps
    kinds = [e.kind for e in daemon.journal.events(None)]
    assert "deck_expired" in kinds
    daemon.journal.close()
