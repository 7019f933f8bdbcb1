"""``tablectl progressive report --link``: the link's meters per table, and each table's journal reconciled
with the database, every difference named to the cent.

Per meter: the meter now, its initial and reset amounts; per table: coin-in and contributions (those
taken back netted, R7a), hits and paid (the link's, in its order); the invariant meter = initial +
contributions - taken by hits.  Per table whose journal is given: its contributions (the ``meter_add`` of
its rounds) and its validated payouts (``meter_paid``) against the link's rows for that table.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from controller.journal.store import METER_ADD, METER_PAID, Journal
from controller.progressive.link.store import LinkStore, invariant


def _zero() -> dict[str, Decimal]:
    return {"contributions": Decimal(0), "paid": Decimal(0), "settled": Decimal(0)}


def journal_totals(journal: Journal) -> dict[str, dict[str, Decimal]]:
    """Per meter: the contributions and the validated payouts the table's journal holds, and the
    settlement's figures of those payouts (``settled``: the same amount unless the link paid another, P80)."""
    out: dict[str, dict[str, Decimal]] = defaultdict(_zero)
    for e in journal.iter_events():
        if e.kind == METER_ADD and e.round_id is not None:
            # the whole contribution, onto the meter, the reserve and the overflow: the link splits it again by
            # its own meter and order (P114, P120)
            for account in ("meters", "reserve", "overflow"):
                for m, v in (e.data.get(account) or {}).items():
                    out[m]["contributions"] += Decimal(str(v))
        elif e.kind == METER_PAID:
            paid = Decimal(str(e.data["paid"]))
            out[e.data["meter"]]["paid"] += paid
            out[e.data["meter"]]["settled"] += Decimal(str(e.data.get("settled", paid)))
    return dict(out)


async def link_report(url: str, link: str, journals: Mapping[str, Journal]) -> dict[str, Any]:
    """The report of ``link``; ``journals``: table id -> its journal, reconciled with the database."""
    store = LinkStore(url, link, pool_size=1)
    await store.open()
    try:
        values = await store.values()
        installed = await store.resets()
        totals = await store.totals()
        hits = await store.hits()
        accounts = await store.accounts()
    finally:
        await store.close()
    meters: dict[str, Any] = {}
    initial = {m: i for m, (i, _) in installed.items()}
    contributed = {m: sum((t["contributions"] for t in by.values()), Decimal(0)) for m, by in totals.items()}
    taken = {m: sum((t["taken"] for t in by.values()), Decimal(0)) for m, by in totals.items()}
    off = invariant(initial, values, contributed, taken)
    given = {m: sum((t["contributions"] + t["reserve"] + t["overflow"] for t in by.values()), Decimal(0))
             for m, by in totals.items()}
    for m, value in values.items():
        by_table = totals.get(m, {})
        meters[m] = {"current": value, "initial": installed[m][0], "reset": installed[m][1],
                     "tables": by_table, "invariant_difference": off[m],
                     # the meters regulators name (N.J.A.C. 13:69E-1.39A(b); P114), the link's own: every table
                     # reads these same rows; its reserve and overflow as the link split them (P120)
                     "regulated": {"in": given.get(m, Decimal(0)), "current": value,
                                   "hits": sum(int(t["hits"]) for t in by_table.values()),
                                   "wins": sum((t["paid"] for t in by_table.values()), Decimal(0)),
                                   "overflow": accounts["overflow"].get(m, Decimal(0)),
                                   "reserve": accounts["reserve"].get(m, Decimal(0))}}
    validated: dict[tuple[str, str], Decimal] = defaultdict(Decimal)
    for h in hits:
        if h.state == "validated":
            validated[(h.table_id, h.meter)] += h.paid
    reconciliation: dict[str, list[dict[str, Any]]] = {}
    for table, journal in journals.items():
        rows = []
        mine = journal_totals(journal)
        for m in values:
            j = mine.get(m, _zero())
            db = totals.get(m, {}).get(table, {})
            paid = validated.get((table, m), Decimal(0))
            # "settled": what the table's settlements computed for the hits the link paid (P68, P80): a
            # difference there is the link's order (another table's contribution or hit in between), named
            given_here = sum((db.get(k, Decimal(0)) for k in ("contributions", "reserve", "overflow")), Decimal(0))
            for what, in_journal, in_link in (
                    ("contributions", j["contributions"], given_here),
                    ("paid", j["paid"], paid), ("settled", j["settled"], paid)):
                rows.append({"meter": m, "what": what, "journal": in_journal, "link": in_link,
                             "difference": in_journal - in_link})
        reconciliation[table] = rows
    last = [{"at": h.at.isoformat(), "amount": h.paid, "table": h.table_id, "asset": h.asset, "meter": h.meter}
            for h in reversed(hits[-25:])]  # the last 25 hits, newest first (NY 9 NYCRR 5320.8(b))
    return {"link": link, "meters": meters, "hits": [h.public() for h in hits], "reconciliation": reconciliation,
            "last_hits": last}


def write_text(rep: Mapping[str, Any], out: Any) -> None:
    out.write(f"link {rep['link']}\n")
    for m, row in rep["meters"].items():
        out.write(f"{m}: current {row['current']}  initial {row['initial']}  reset {row['reset']}  "
                  f"invariant difference {row['invariant_difference']}\n")
        r = row["regulated"]
        out.write(f"  in {r['in']}  current {r['current']}  hits {r['hits']}  wins {r['wins']}  overflow "
                  f"{r['overflow']}  reserve {r['reserve']}\n")
        out.write(f"  {'table':<12} {'coin-in':>12} {'contributions':>14} {'hits':>5} {'paid':>12}\n")
        for table, t in sorted(row["tables"].items()):
            out.write(f"  {table:<12} {t['coin_in']:>12} {t['contributions']:>14} {t['hits']:>5} {t['paid']:>12}\n")
    for h in rep["hits"]:
        out.write(f"hit {h['seq']}: {h['meter']} {h['paid']} to {h['table_id']} (asset {h['asset']}) seat {h['seat']} "
                  f"round {h['round_id']}, meter {h['before']} -> {h['after']}, {h['state']}\n")
    for table, rows in rep["reconciliation"].items():
        differences = [r for r in rows if r["difference"] and r["what"] != "settled"]
        if not differences:
            out.write(f"{table}: the journal and the link agree to the cent\n")
        for r in differences:
            out.write(f"{table}: {r['meter']} {r['what']}: journal {r['journal']}, link {r['link']}, "
                      f"difference {r['difference']}\n")
        for r in rows:  # not an error: the link paid in its order what its meter held then (P68, P80)
            if r["what"] == "settled" and r["difference"]:
                out.write(f"{table}: {r['meter']} settlements {r['journal']}, paid by the link {r['link']}, "
                          f"difference {r['difference']} (the link's order, P80)\n")
