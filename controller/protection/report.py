"""What ``tablectl protection report`` prints, from the journal's events only (issue 28; docs/protection.md).

``alarms``: every ``protection_finding`` (either part's: the shuffle monitor's and the witnesses', hold's and
streaks'), each with ``kind`` (the finding's code), ``round_id``, ``evidence``, ``p_value`` (or null), ``at``
(when journaled) and ``acknowledged_by`` (who acknowledged its alarm, ``protection:<seq>``, or null).  ``hold``:
per wager, the house's actual result, the expected one and its band, for the table, each gaming day and shift
(``controller.protection.hold``; the gaming day and shifts of the configuration's
``[protection]``).  Nothing is read from a device or a round in play: the journal's findings
name no unseen card, and the settlements are of rounds settled.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from controller import events as ev
from controller.protection import hold


def report(events: Iterable[Any], game: str, figures_of: hold.FiguresOf = hold.figures,
           calendar: hold.Calendar = hold.DEFAULT_CALENDAR) -> dict[str, Any]:
    """The report from journal rows (``seq``, ``at``, ``round_id``, ``kind``, ``data``), in the journal's order."""
    rows = list(events)
    acknowledged: dict[int, str] = {}  # by the finding's seq: the key ``protection:<seq>`` (Alarms.latch)
    by_round: dict[tuple[str, str], str] = {}  # by (round, finding): the shuffle watch's ``<alarm>:<round>:<finding>``
    for e in rows:
        if e.kind == ev.AlarmAcknowledged.kind:
            key, _, _ = str(e.data.get("id", "")).rpartition("@")
            name, _, rest = key.partition(":")
            if name == "protection" and rest.isdigit():
                acknowledged[int(rest)] = str(e.data.get("by"))
            elif name.startswith("protection_"):
                round_id, _, finding = rest.rpartition(":")
                by_round[(round_id, finding)] = str(e.data.get("by"))
    alarms = []
    for e in rows:
        if e.kind != ev.ProtectionFinding.kind:
            continue
        d = e.data
        p = d.get("p_value")
        alarms.append({"kind": d.get("finding"), "round_id": d.get("round"), "evidence": d.get("evidence") or {},
                       "p_value": float(p) if p is not None else None, "at": e.at, "seq": e.seq,
                       "seat": d.get("seat"), "wager": d.get("wager"), "deck": d.get("deck"),
                       "acknowledged_by": acknowledged.get(e.seq) or by_round.get((str(d.get("round")),
                                                                                    str(d.get("finding"))))})
    return {"game": game, "alarms": alarms, "hold": hold.hold(hold.settled_results(rows, game), game, figures_of,
                                                                      calendar)}


def lines(r: dict[str, Any]) -> list[str]:
    """The report for a person: the findings, then the table's hold per wager."""
    out = [f"{len(r['alarms'])} protection finding(s)"]
    for a in r["alarms"]:
        words = a["evidence"].get("words") if isinstance(a["evidence"], dict) else None
        p = f", p = {a['p_value']:.3g}" if a["p_value"] is not None else ""
        by = f", acknowledged by {a['acknowledged_by']}" if a["acknowledged_by"] else ", not acknowledged"
        out.append(f"  {a['at']}  {a['kind']}  round {a['round_id'] or '-'}{p}{by}" + (f": {words}" if words else ""))
    out.append(f"hold against theoretical (band: expected +/- {r['hold']['z']} sd), whole table:")
    for row in r["hold"]["table"]:
        band = f"expected {row['expected']}, band {row['band'][0]} to {row['band'][1]}" if row["band"] else "no figures"
        out.append(f"  {row['wager']}: {row['rounds']} rounds, wagered {row['wagered']}, house {row['actual']}; "
                   f"{band} ({row['state']})")
    return out
