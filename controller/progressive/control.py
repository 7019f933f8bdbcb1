"""The progressive's and the paytables' parameters under control, and meter corrections by two people (P114).

A change of the parameters (``parameters``: the Progressive's unit, paytable, Envy, each meter's base,
reset, rate, hidden rate, limit and unreasonable amount; every wager's paytable) is made while the table
is closed, with the approval's reference (COMAR 36.05.03.24 C; NY 9 NYCRR 5321.18(b)(4)), a limit only
above the meter now (COMAR 36.04.01.30 C(1) reads the same for a video lottery terminal), by ``change``
(``tablectl progressive change``), which journals ``parameters_changed`` with who, the reference and the
old and new values; a change on an open table is refused and journaled.  At start the daemon compares the
configuration with the parameters last journaled (``check_at_start``): a change not journaled so is
refused and journaled, and the daemon does not start (fail closed).  On a linked table a change goes
through the link (``on_link``: every table of the link closed, the meters' parameters set there and recorded
with who, the approval and old and new values, P120), then is journaled on the table as on any.

A meter reset or correction needs two different allow-listed supervisors: the first proposes
(``meter_correction_proposed``), a second approves (``meter_correction_approved`` and the ``meter_set``
in one transaction); the proposer approving is refused and journaled (``meter_correction_refused``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from controller import events as ev
from controller.config.table import TableConfig
from controller.journal.store import Journal, JournalError
from controller.table import TableState

METER_KEYS = ("initial", "reset", "rate", "hidden_rate", "limit", "unreasonable")
#: who journals the parameters found on a journal that has none yet (its first start, or one of before P114)
INSTALLED = "installed"


class ParametersRefused(JournalError):
    """A change of the parameters refused (journaled already): said in one line, the daemon not started."""


def parameters(cfg: TableConfig) -> dict[str, Any]:
    """The parameters under control, as text (exact amounts; JSON in the journal)."""
    p = cfg.progressive

    def text(v: object) -> str | None:
        return None if v is None else str(v)

    return {
        "paytables": dict(sorted(cfg.paytable_letters().items())),
        "progressive": {
            "enabled": p.enabled, "unit": text(p.unit), "paytable": p.paytable, "envy": p.envy,
            "meters": {m: {k: text(getattr(c, k)) for k in METER_KEYS} for m, c in sorted(p.meters.items())},
        },
    }


def last_parameters(journal: Journal) -> dict[str, Any] | None:
    """The parameters last journaled (``parameters_changed``'s ``new``; before this segment, the latest
    checkpoint's), or None when none is."""
    rows = journal.events_of(ev.ParametersChanged.kind)
    if rows:
        return dict(rows[-1].data["new"])
    cp = journal.latest_checkpoint(with_part="parameters")
    return dict(cp[1].parameters) if cp is not None and cp[1].parameters is not None else None


def keep(journal: Journal, approved: Mapping[str, Any]) -> None:
    """Carry ``approved`` in every checkpoint from now on (a roll-over seals the event away, P58)."""
    held = dict(approved)
    journal.checkpoint_parts["parameters"] = lambda: held


def problem(journal: Journal, cfg: TableConfig, state: TableState, old: Mapping[str, Any]) -> str | None:
    """Why the configuration's parameters may not replace ``old`` now, or None."""
    if state is not TableState.CLOSED:
        return f"the table is {state.value}: parameters change only while it is closed (COMAR 36.05.03.24 C)"
    if cfg.progressive.link is not None:
        return None  # the link checks its limits against its meters (``on_link``)
    now = journal.meter_values()
    for m, c in cfg.progressive.meters.items():
        before = old.get("progressive", {}).get("meters", {}).get(m, {}).get("limit")
        if c.limit is not None and str(c.limit) != before and c.limit <= now.get(m, Decimal(0)):
            return f"{m}: a new limit ({c.limit}) must be above the meter now ({now.get(m)})"
    return None


def check_at_start(journal: Journal, cfg: TableConfig, state: TableState) -> None:
    """At start: the configuration's parameters are those last journaled; a journal with none records them
    (``installed``); any other difference is refused, journaled, and raises ``ParametersRefused``."""
    new = parameters(cfg)
    old = last_parameters(journal)
    if old is None:
        journal.record(ev.ParametersChanged(by=INSTALLED, approval=INSTALLED, old={}, new=new))
        keep(journal, new)
        return
    if old == new:
        keep(journal, new)
        return
    why = ("the parameters differ from those last approved: stop, close the table and record the change with "
           "its approval (tablectl progressive change)")
    journal.record(ev.ParametersChangeRefused(by=None, approval=None, reason=why, old=old, new=new))
    raise ParametersRefused(f"{cfg.id}: {why}")


def change(journal: Journal, cfg: TableConfig, state: TableState, by: str, approval: str,
           on_link: Callable[[], str | None] | None = None) -> dict[str, Any]:
    """Record the configuration's parameters as approved by ``approval``, made by ``by``: the new ones.  Refused
    (journaled, ``ParametersRefused``) on an open table, or a limit not above the meter; on a linked table
    ``on_link()`` makes the change on the link first (None when made, else why not: a table of the link not
    closed, a limit not above the link's meter, the link not answering), none given: refused."""
    new = parameters(cfg)
    old = last_parameters(journal) or {}
    why = problem(journal, cfg, state, old) if by.strip() and approval.strip() else "who and the approval are needed"
    if why is None and cfg.progressive.link is not None:
        why = ("a linked table's parameters change only through its link (NY 9 NYCRR 5321.18(b)(4))"
               if on_link is None else on_link())
    if why is not None:
        journal.record(ev.ParametersChangeRefused(by=by, approval=approval, reason=why, old=old, new=new), who=by)
        raise ParametersRefused(why)
    journal.record(ev.ParametersChanged(by=by, approval=approval, old=old, new=new), who=by)
    return new


# -- dual control -------------------------------------------------------------------------------------


def propose(journal: Journal, supervisor: int, meters: Mapping[str, Decimal], reason: str) -> int:
    """The first supervisor proposes the meters ``meters``; the proposal's seq."""
    now = journal.meter_values()
    journal.record(ev.MeterCorrectionProposed(supervisor=supervisor, meters=dict(meters),
                                              old={m: now.get(m, Decimal(0)) for m in meters}, reason=reason),
                   who=f"supervisor {supervisor}")
    return journal.head()[0]


def approve(journal: Journal, proposal: int, supervisor: int) -> dict[str, Decimal]:
    """A second supervisor approves ``proposal``: the meters set.  The proposer, a proposal not found, done
    already, or one the meters moved since: refused and journaled (``ParametersRefused``)."""
    found = [e for e in journal.events_of(ev.MeterCorrectionProposed.kind) if e.seq == proposal]
    why: str | None = None
    if not found:
        why = f"no meter correction proposed at seq {proposal}"
    elif any(e.data["proposal"] == proposal for e in journal.events_of(ev.MeterCorrectionApproved.kind)):
        why = f"the correction proposed at seq {proposal} is approved already"
    else:
        p = ev.MeterCorrectionProposed.from_data(found[0].data)
        now = journal.meter_values()
        if p.supervisor == supervisor:
            why = "a second, different supervisor approves: the proposer may not (dual control)"
        elif any(now.get(m, Decimal(0)) != v for m, v in p.old.items()):
            why = "the meters moved since the proposal: propose again"
    if why is not None:
        journal.record(ev.MeterCorrectionRefused(proposal=proposal, supervisor=supervisor, reason=why),
                       who=f"supervisor {supervisor}")
        raise ParametersRefused(why)
    journal.record_many([ev.MeterCorrectionApproved(proposal=proposal, proposed_by=p.supervisor,
                                                    supervisor=supervisor), ev.MeterSet(meters=dict(p.meters))],
                        who=f"supervisor {p.supervisor} and supervisor {supervisor}")
    return dict(p.meters)


__all__ = ["ParametersRefused", "approve", "change", "check_at_start", "last_parameters", "parameters", "propose"]
