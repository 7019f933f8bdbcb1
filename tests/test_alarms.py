"""The table's alarms (controller/service/alarms.py, P105) through a real daemon and its simulated devices.

One Jackpot Hold 'Em round, its deck scripted so that seat 1 holds the Progressive's top line: the
irregularity menu opened raises an alarm and closing it clears it; the shuffler unplugged during the
decisions raises a high alarm, the floor supervisor's key (no action needing it offered) acknowledges it,
named, and the shuffler back clears it; an unknown key acknowledges nothing; the win held for validation
raises an alarm that survives a restart of the daemon (the same id, time and seat) and that the validation
acknowledges, named, and clears.  Each raise, acknowledgement and clearing is journaled.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from controller.journal.store import Journal
from controller.service.alarms import KINDS, WORDS
from daemon_harness import phase, smallest_decision, table_in_process
from demo.dealer import SUPERVISOR_ID
from games.dealing import Procedure
from test_progressive_each_game import CASES, deal_order

GAME = "jackpot_holdem"
BY = f"supervisor {SUPERVISOR_ID}"  # as every supervisor action names its supervisor (P93)
UNKNOWN_ID = 999  # on no example table's allow-list


def alarm(s: dict[str, Any], kind: str, **match: Any) -> dict[str, Any] | None:
    found = [a for a in s.get("alarms") or () if a["kind"] == kind and all(a[k] == v for k, v in match.items())]
    assert len(found) <= 1, found
    return found[0] if found else None


@pytest.mark.requirement("AGCO error conditions")
def test_alarms_raised_acknowledged_and_cleared(tmp_path, monkeypatch):
    procedure, wanted, _line, _meter = CASES[GAME]
    assert procedure is Procedure.HAND
    with table_in_process(GAME, tmp_path, monkeypatch) as t:
        cfg, g = t.cfg, t.cfg.game_rules
        t.controls["shuffler"]("set_deck", cards=deal_order(GAME, procedure, wanted))
        t.start_daemon()
        t.open_table()
        s = t.until(lambda s: phase(s) == "wagers", "the first round")
        assert s["alarms"] == []
        round_id = s["round"]["round_id"]
        low = int(cfg.limits(g.antes[0])[0] * 100)
        t.controls["progressive"]("set_bets", bets={"1": {str(i): low for i in range(len(g.antes))}})
        assert t.controls["progressive"]("wager", seat=1)["accepted"]
        t.press("no_more_bets")
        t.press("confirm")
        s = t.until(lambda s: phase(s) == "decisions", "the deal")

        # the irregularity menu: an alarm while it is open (P41)
        s = t.press("irregularity")
        menu = alarm(s, "irregularity")
        assert menu is not None and menu["priority"] == "high" and "P41" in menu["clauses"], s["alarms"]
        s = t.press("undo")
        assert alarm(s, "irregularity") is None, s["alarms"]

        # the shuffler stops answering while a round is in play: a high alarm
        t.controls["shuffler"]("unplug", mode="silent")
        s = t.until(lambda s: alarm(s, "device_offline", device="shuffler") is not None, "the shuffler's alarm")
        offline = alarm(s, "device_offline", device="shuffler")
        assert offline is not None and offline["priority"] == "high" and offline["acknowledged"] is None
        assert not s["next_action"]["key"], s["next_action"]  # the key is wanted for nothing else now
        # a key of no known supervisor acknowledges nothing (P93): refused and journaled
        t.controls["panel"]("key", on=True, supervisor=UNKNOWN_ID)
        s = t.until(lambda s: (s.get("told") or {}).get("kind") == "refused", "the unknown key refused")
        t.controls["panel"]("key", on=False)
        assert alarm(s, "device_offline", device="shuffler")["acknowledged"] is None  # type: ignore[index]
        # the floor supervisor's key acknowledges it, named
        t.controls["panel"]("key", on=True, supervisor=SUPERVISOR_ID)
        s = t.until(lambda s: (alarm(s, "device_offline", device="shuffler") or {}).get("acknowledged") is not None,
                    "the alarm acknowledged")
        t.controls["panel"]("key", on=False)
        acked = alarm(s, "device_offline", device="shuffler")
        assert acked is not None and acked["id"] == offline["id"] and acked["since"] == offline["since"]
        assert acked["acknowledged"]["by"] == BY and acked["acknowledged"]["at"] >= offline["since"]
        # the shuffler back: the alarm cleared
        t.controls["shuffler"]("plug")
        s = t.until(lambda s: alarm(s, "device_offline", device="shuffler") is None, "the shuffler's alarm cleared")

        while phase(s) == "decisions":
            to_act = s["round"]["to_act"]
            s = t.press(smallest_decision(to_act))
            s = t.until(lambda s, to_act=to_act: phase(s) != "decisions" or s["round"]["to_act"] != to_act,
                        "the next decision")
        s = t.until(lambda s: phase(s) == "settled", "the settlement")
        held = alarm(s, "jackpot_held")
        assert held is not None and held["priority"] == "high" and held["seat"] == 1 and held["acknowledged"] is None
        assert held["clauses"] == [g.cite("progressive_validation")]

        # the daemon restarts: the alarm is the journal's, the same one
        assert t.stop_daemon() == 0
        t.start_daemon()
        s = t.until(lambda s: s.get("presses_handled") == 0 and s.get("validation"), "the restarted daemon's status")
        again = alarm(s, "jackpot_held")
        assert again == held, (again, held)

        # the validation acknowledges it, named, and clears it
        s = t.dealer.with_key(s, "confirm")
        assert not s.get("validation") and alarm(s, "jackpot_held") is None, s["alarms"]
        assert s["alarms"] == []

    with Journal(t.journal_path) as j:
        rows = [e for e in j.events(None) if e.kind.startswith("alarm_")]
        refused = [e.data for e in j.events(None) if e.kind == "supervisor_refused"]
    assert {"action": "acknowledge_alarms", "supervisor_id": UNKNOWN_ID, "round": round_id} in refused
    by_id: dict[str, list[tuple[str, dict[str, Any], str | None]]] = {}
    for e in rows:
        by_id.setdefault(e.data["id"], []).append((e.kind, e.data, e.who))
    assert [[k for k, _, _ in v] for v in by_id.values()] == [
        ["alarm_raised", "alarm_cleared"],  # the menu: nobody acknowledged it
        ["alarm_raised", "alarm_acknowledged", "alarm_cleared"],  # the shuffler
        ["alarm_raised", "alarm_acknowledged", "alarm_cleared"],  # the win held: raised once, restart or not
    ], rows
    menu_rows, shuffler_rows, jackpot_rows = by_id.values()
    assert menu_rows[0][1]["alarm"] == "irregularity" and "acknowledged" not in menu_rows[1][1]
    raised, ack, cleared = shuffler_rows
    assert raised[1] == {"id": offline["id"], "alarm": "device_offline", "priority": "high",
                         "since": f"{offline['since']:.3f}", "clauses": offline["clauses"], "device": "shuffler"}
    assert ack[1]["by"] == BY and ack[2] == BY and cleared[1]["acknowledged"] == BY
    assert jackpot_rows[0][1]["seat"] == 1 and jackpot_rows[1][1]["by"] == BY
    assert jackpot_rows[2][1]["acknowledged"] == BY


def test_every_alarm_kind_has_its_words():
    """Each kind a condition is raised as (``Condition("kind", ...)`` in the module, or in a part that adds its
    conditions to it: ``Alarms.add_source``) has its words, and no other."""
    from controller.service import alarms

    raised = set()
    for path in sorted(Path(alarms.__file__).parent.glob("*.py")):
        tree = ast.parse(path.read_text())
        raised |= {node.args[0].value for node in ast.walk(tree) if isinstance(node, ast.Call)
                   and isinstance(node.func, ast.Name) and node.func.id == "Condition"
                   and isinstance(node.args[0], ast.Constant)}
    # a finding's kind is latched by the part that found it (controller/service/protection.py, issue 28)
    raised |= alarms.LATCHED
    assert len(raised) >= 10 and set(KINDS) == raised, set(KINDS) ^ raised
    assert all(w and w[0].isupper() and "_" not in w for w in WORDS.values())
    assert {f"alarm.{k}" for k in KINDS} <= set(WORDS)  # as the screens say them (web/words.py)
    assert list(alarms.PRIORITIES) == ["high", "medium", "low"]


def test_an_open_alarm_is_kept_in_a_checkpoint_and_read_back(tmp_path):
    """The checkpoint holds the open alarms exactly (no binary float: the journal refuses one), as start reads them."""
    from controller.service.alarms import Alarm, _from_kept

    open_alarms = [Alarm("device_offline:shoe@1795745153.048", "device_offline:shoe", "device_offline", "high",
                         1795745153.048, ("UTH ch.13 §J",), None, "shoe", ("supervisor 4711", 1795745160.2)),
                   Alarm("jackpot_held:r1:0@1795745154.001", "jackpot_held:r1:0", "jackpot_held", "high",
                         1795745154.001, ("UTH ch.11 §J(2)(c)",), 3)]
    with Journal(tmp_path / "t.journal") as j:
        j.checkpoint_parts["alarms"] = lambda: {a.id: a.kept() for a in open_alarms}
        j.checkpoint("rounds")
        cp = j.latest_checkpoint(with_part="alarms")
    assert cp is not None and cp[1].alarms is not None
    assert [_from_kept(a) for a in cp[1].alarms.values()] == open_alarms
