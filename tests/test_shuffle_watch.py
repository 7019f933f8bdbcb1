"""The shuffle monitor in the daemon (controller/service/shuffle_watch.py; issue 28, P110).

A simulated shuffler that replays its decks (``shuffle`` kind ``preset``): two decks alternate, so the second
round of a deck is the first repeat; the finding is journaled (``protection_finding``) with numbers only, raised as a
``protection_replay`` alarm, still open after a restart; the monitor rebuilt from the journaled observations
is the one that wrote the last.  A fair shuffler's rounds: observed, no finding.  A table without a shuffler
(P124): its shoe's deck observed once a load; the same deck loaded again is a replay, fresh decks are nothing.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from controller import events as ev
from controller.journal.store import Journal
from controller.protection.shuffle import ShuffleMonitor
from controller.service.shuffle_watch import exact
from daemon_harness import bet, confirm, deal, next_round, no_more_bets, phase, play_out, table_in_process

GAME = "ultimate_texas_holdem"
SHOE_GAME = "high_card_flush"  # a card-reading shoe and no shuffler


def play(t: Any, rounds: int) -> None:
    rid = None
    for _ in range(rounds):
        _, s = next_round(t, rid)
        rid = bet(t, s)
        no_more_bets(t)
        deal(t)
        play_out(t)
        confirm(t)


def same(a: Any, b: Any) -> bool:
    """Equal as the journal keeps them (a Decimal in a free-form object reads back as its text)."""
    return json.dumps(a, default=str, sort_keys=True) == json.dumps(b, default=str, sort_keys=True)


def events(path: Any, kind: str) -> list[Any]:
    with Journal.read_only(path) as j:
        return [e.typed for e in j.events_of(kind)]


def test_a_replayed_deck_is_found_at_its_first_repeat(tmp_path, monkeypatch):
    with table_in_process(GAME, tmp_path, monkeypatch) as t:
        t.controls["shuffler"]("shuffle", kind="preset")
        t.start_daemon()
        play(t, 3)
        s = t.until(lambda s: phase(s) == "wagers", "the fourth round")
        path = t.journal_path
        observed = events(path, ev.DeckObserved.kind)
        assert [o.deck for o in observed] == ["B", "A", "B"]  # the opening steps shuffle A, then B
        assert observed[0].read == observed[2].read and len(observed[2].read) >= 9
        assert observed[2].collected[: 52 - len(observed[2].read)] == (None,) * (52 - len(observed[2].read))
        found = events(path, ev.ProtectionFinding.kind)
        assert [(f.finding, f.deck) for f in found] == [("replayed_deck", "B")]
        assert found[0].evidence["positions_same"] == len(observed[2].read)
        assert all(Decimal(str(v)).is_finite() for v in found[0].evidence.values())  # numbers, never a card
        assert [a["kind"] for a in s["alarms"]] == ["protection_replay"]
        rebuilt = ShuffleMonitor.rebuild(observed[-1].monitor, [o.read for o in observed])
        assert same(exact(rebuilt.summary()), observed[-1].monitor) and len(rebuilt.history) == 3
        t.stop_daemon()
        t.start_daemon()
        s = t.until(lambda s: phase(s) == "wagers", "the round after a restart")
        assert [a["kind"] for a in s["alarms"]] == ["protection_replay"]


def test_a_fair_shuffler_is_observed_without_finding(tmp_path, monkeypatch):
    with table_in_process(GAME, tmp_path, monkeypatch) as t:
        t.start_daemon()
        play(t, 3)
        s = t.until(lambda s: phase(s) == "wagers", "the fourth round")
        assert len(events(t.journal_path, ev.DeckObserved.kind)) == 3
        assert events(t.journal_path, ev.ProtectionFinding.kind) == []
        assert s["alarms"] == []


def play_shoe(t: Any, rounds: int, seed: int | None = None) -> dict[str, Any]:
    """``rounds`` rounds of a shoe table: each a deck of its own (next_round's), or the deck of ``seed`` again;
    the status once the next round takes wagers (the opening steps a shoe table needs between rounds done)."""
    rid = None
    for n in range(rounds):
        _, s = next_round(t, rid, load_shoe=seed is None and n > 0)
        if seed is not None or n == 0:
            t.controls["shoe"]("clear")
            t.controls["shoe"]("load", seed=seed if seed is not None else 5)
        rid = bet(t, s)
        no_more_bets(t)
        deal(t)
        play_out(t)
        confirm(t)
    return next_round(t, rid, load_shoe=False)[1]


def test_a_shoe_table_that_deals_the_same_deck_again_raises_the_replay_alarm(tmp_path, monkeypatch):
    """A table without a shuffler (P124): the shoe's reads since each load are a deck; the same order loaded again
    (a cold deck) is found at its first repeat, with no order fed (``collected`` empty)."""
    with table_in_process(SHOE_GAME, tmp_path, monkeypatch) as t:
        assert "shuffler" not in t.controls
        t.start_daemon()
        s = play_shoe(t, 2, seed=9)
        observed = events(t.journal_path, ev.DeckObserved.kind)
        assert [(o.deck, o.collected) for o in observed] == [("shoe", ())] * 2
        assert observed[0].read == observed[1].read and len(observed[1].read) >= 6
        found = events(t.journal_path, ev.ProtectionFinding.kind)
        assert [(f.finding, f.deck) for f in found] == [("replayed_deck", "shoe")]
        assert [a["kind"] for a in s["alarms"]] == ["protection_replay"]


def test_a_shoe_table_with_a_fresh_deck_each_round_raises_nothing(tmp_path, monkeypatch):
    with table_in_process(SHOE_GAME, tmp_path, monkeypatch) as t:
        t.start_daemon()
        s = play_shoe(t, 3)
        observed = events(t.journal_path, ev.DeckObserved.kind)
        assert len(observed) == 3 and len({o.read for o in observed}) == 3
        assert events(t.journal_path, ev.ProtectionFinding.kind) == [] and s["alarms"] == []
