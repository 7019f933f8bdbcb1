"""Three witnesses to every card (issue 28, P111; docs/protection.md "Three witnesses").

The reconciliation as one function (``controller.protection.witnesses``): a fair round's reads and hands agree,
and each way two witnesses can disagree is found, with evidence that names no card.  Then through a real daemon
and the simulated shoe (tests/daemon_harness.py): a card switched in at the shoe (its ``switch`` fault) is found
in the same round -- every hand void, the deck removed, a ``protection_finding`` journaled with its round, a high
alarm latched that a restart keeps and the supervisor's key acknowledges and clears, ``tablectl protection report``
naming it -- and a fair round settles with no finding.  A request from the floor's pages takes the shuffler out of
service between rounds, journaled with who.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from controller.cli.main import main
from controller.journal.store import Journal
from controller.protection import requests
from controller.protection.witnesses import FINDING, WORDS, Read, Witnesses, evidence, scored_places
from daemon_harness import (
    bet,
    confirm,
    deal,
    first_round,
    next_round,
    no_more_bets,
    phase,
    play_out,
    table_in_process,
    told,
)
from daemon_harness import journal as round_journal
from demo.dealer import SUPERVISOR_ID

# a fair round of one seat from a shoe: seat 2's two, the dealer's two, five community cards
FAIR = [("seat:2", "As"), ("dealer", "Kd"), ("seat:2", "7c"), ("dealer", "2h"),
        ("community:0", "9s"), ("community:1", "Td"), ("community:2", "3c"), ("community:3", "4h"),
        ("community:4", "Jc")]


def _scored(pairs: list[tuple[str, str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for place, card in pairs:
        out.setdefault(place, []).append(card)
    return out


def _shoe_round(pairs: list[tuple[str, str]] = FAIR) -> Witnesses:
    w = Witnesses()
    w.start("r1")
    for position, (place, card) in enumerate(pairs, 1):
        assert w.read(Read("shoe", position, card)) is None
        w.placed(place, card)
    return w


def test_a_fair_round_reconciles():
    assert _shoe_round().reconcile(_scored(FAIR)) == []


def test_stacks_reconcile_when_each_card_is_scored_where_its_stack_went():
    w = Witnesses()
    w.start("r1", "A")
    community = w.stack(["community:0", "community:1", "community:2", "community:3", "community:4"])
    seat = w.stack(["seat:2"])
    for i, (_, card) in enumerate(FAIR[4:]):
        assert w.read(Read("shuffler", 1 + i, card, stack=community, deck="A")) is None
    for i, card in enumerate(("As", "7c")):
        assert w.read(Read("shuffler", 6 + i, card, stack=seat, deck="A")) is None
    hands = _scored(FAIR[4:] + [("seat:2", "As"), ("seat:2", "7c")])
    assert w.reconcile(hands) == []
    # the seat scored a community card: read in a stack that was not delivered for it
    hands["seat:2"] = ["As", "9s"]
    found = w.reconcile(hands)
    assert [d.what for d in found] == ["wrong_stack"] and found[0].evidence["place"] == "seat:2"


@pytest.mark.parametrize("what", ["position_read_twice", "card_read_twice", "other_deck"])
def test_a_read_that_contradicts_the_reads_before_it_is_found_at_once(what):
    w = Witnesses()
    w.start("r1", "A")
    assert w.read(Read("shoe", 1, "As", deck="A")) is None
    second = {"position_read_twice": Read("shoe", 1, "Kd", deck="A"),
              "card_read_twice": Read("shoe", 2, "As", deck="A"),
              "other_deck": Read("shoe", 2, "Kd", deck="B")}[what]
    d = w.read(second)
    assert d is not None and d.what == what


@pytest.mark.parametrize(("what", "hands", "reads"), [
    ("not_read", _scored([*FAIR[:-1], ("community:4", "Qh")]), FAIR),  # a card nobody read is scored
    ("wrong_place", _scored([("seat:2", "Kd"), ("dealer", "As"), *FAIR[2:]]), FAIR),  # two cards swapped
    ("position_gap", _scored(FAIR), FAIR),  # the shoe's positions skip one
])
def test_the_hands_to_be_scored_against_the_reads(what, hands, reads):
    w = Witnesses()
    w.start("r1")
    for position, (place, card) in enumerate(reads, 1):
        w.read(Read("shoe", position + (position > 3 if what == "position_gap" else 0), card))
        w.placed(place, card)
    found = w.reconcile(hands)
    assert {d.what for d in found} == {what}, found
    assert all(d.what in WORDS for d in found)
    shown = repr(evidence(found))
    assert not any(card in shown for _, card in FAIR) and "Qh" not in shown  # places and positions only


def test_a_face_up_card_scored_is_found_and_a_resumed_round_checks_what_it_saw():
    w = Witnesses()
    w.start("r1")
    w.read(Read("shoe", 1, "As", face_up=True))
    assert [d.what for d in w.reconcile({"seat:2": ["As"]})] == ["face_up_scored"]
    w.start("r2", partial=True)  # after a restart the journal witnessed the cards dealt before it
    assert w.reconcile(_scored(FAIR)) == []


def test_scored_places_reads_the_settle_input():
    given: dict[str, Any] = {"seats": [{"seat": 2, "cards": ["As", "7c"]}], "dealer": ["Kd", "2h"],
                             "community": ["9s", "Td"], "bonus_cards": ["3c"]}
    assert scored_places(given) == {"seat:2": ["As", "7c"], "dealer": ["Kd", "2h"], "community:0": ["9s"],
                                    "community:1": ["Td"], "bonus": ["3c"]}
    assert scored_places({"seats": [], "community": {"left": "As"}}) == {"community:left": ["As"]}


def _alarms(s: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for a in s.get("alarms") or () if a["kind"] == "protection_card_switched"]


def test_a_card_switched_in_at_the_shoe_is_found_in_the_same_round(tmp_path, monkeypatch):
    """RET from its card-reading shoe (RET ch.8 §D: the cross 1-5, seat 2's 6-7): a card switched in after the
    third is read at the third's position.  The round is void at once (RET ch.13 §C, P111), the deck leaves the
    table, the finding is journaled and its alarm latched across a restart until the key acknowledges it."""
    with table_in_process("run_em_twice", tmp_path, monkeypatch) as t:
        s = first_round(t)
        t.controls["shoe"]("load", seed=7)
        t.controls["shoe"]("fault", fault="switch", at=3)
        round_id = bet(t, s)
        no_more_bets(t)
        deal(t)
        s = play_out(t)
        assert phase(s) == "voided", s["message"]
        said = told(s)
        assert said["cause"] == FINDING and "P111" in said["clauses"] and said["remove_deck"], said
        s = t.until(lambda s: bool(_alarms(s)), "the alarm")
        (raised,) = _alarms(s)
        assert raised["priority"] == "high" and raised["acknowledged"] is None and "P111" in raised["clauses"]
        confirm(t)
        # a restart keeps the alarm (the journal's: the same id) until a supervisor acknowledges it
        assert t.stop_daemon() == 0
        t.start_daemon()
        s = t.until(lambda s: s.get("presses_handled") == 0 and bool(_alarms(s)), "the restarted daemon's alarm")
        assert _alarms(s)[0]["id"] == raised["id"]
        t.controls["panel"]("key", on=True, supervisor=SUPERVISOR_ID)
        s = t.until(lambda s: not _alarms(s), "the alarm acknowledged and cleared")
        t.controls["panel"]("key", on=False)
    events, table = round_journal(t, round_id)
    assert [e.kind for e in events].count("voided") == 1
    findings = [e.data for e in table if e.kind == "protection_finding"]
    assert len(findings) == 1 and findings[0]["finding"] == FINDING and findings[0]["round"] == round_id
    assert [d["what"] for d in findings[0]["evidence"]["discrepancies"]] == ["position_read_twice"]
    assert findings[0]["evidence"]["discrepancies"][0]["position"] == 3
    assert any(e.kind == "deck_removed" and e.data.get("round") == round_id for e in table)
    with Journal(t.journal_path) as j:
        kinds = [e.kind for e in j.events(None) if e.kind.startswith("alarm_")
                 and e.data["alarm"] == "protection_card_switched"]
    assert kinds == ["alarm_raised", "alarm_acknowledged", "alarm_cleared"]
    # tablectl protection report: the finding, its round and who acknowledged its alarm, from the journal
    out, err = io.StringIO(), io.StringIO()
    assert main(["protection", "report", "--json", "--config", str(t.config_path)], stdout=out, stderr=err) == 0, err
    report = json.loads(out.getvalue())
    (finding,) = report["alarms"]
    assert finding["kind"] == FINDING and finding["round_id"] == round_id and finding["p_value"] is None
    assert finding["acknowledged_by"] == f"supervisor {SUPERVISOR_ID}"
    assert finding["evidence"] == findings[0]["evidence"]
    assert set(report["hold"]) >= {"table", "days", "shifts"}


def test_a_fair_round_settles_with_no_finding(tmp_path, monkeypatch):
    """UTH from the shuffler's stacks (UTH ch.10 §B), the dealer's two held in it: every witness agrees."""
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch) as t:
        s = first_round(t)
        round_id = bet(t, s)
        no_more_bets(t)
        deal(t)
        s = play_out(t)
        assert phase(s) == "settled", s["message"]
        assert not _alarms(s)
        confirm(t)
        next_round(t, round_id)
    _, table = round_journal(t, round_id)
    assert not [e for e in table if e.kind == "protection_finding"]


def test_the_floors_request_takes_the_shuffler_out_of_service_between_rounds(tmp_path, monkeypatch):
    """Issue 28, P43: a supervisor on the floor's pages takes the shuffler out of service (a request the daemon takes
    between rounds): journaled with who, the table deals from its card-reading shoe as for a device out of order
    (JHE ch.13 §J); a file that is not a request is removed, nothing done on it."""
    with table_in_process("jackpot_holdem", tmp_path, monkeypatch, add_devices=("shoe",)) as t:
        t.start_daemon()
        t.open_table()
        s = t.until(lambda s: phase(s) == "wagers", "the first round")
        assert s["dealing"] == "hand" and s["out_of_order"] == []
        requests.directory(t.journal_path).mkdir()
        (requests.directory(t.journal_path) / "0-junk.json").write_text("{not json")  # not a request: removed
        requests.put(t.journal_path, "out_of_order", "shuffler", "sam")
        s = t.until(lambda s: s["out_of_order"] == ["shuffler"], "the shuffler out of order")
        assert s["dealing"] == "manual_shoe" and told(s)["kind"] == "device_service", s["message"]
        assert told(s)["clauses"][0] == "JHE ch.13 §J"
        assert list(requests.directory(t.journal_path).iterdir()) == []
    with Journal(t.journal_path) as j:
        out = [(e.data["device"], e.who) for e in j.events(None) if e.kind == "device_out_of_order"]
    assert out == [("shuffler", "floor supervisor sam")]
