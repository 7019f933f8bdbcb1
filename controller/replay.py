"""A round step by step as the table saw it, from its journal events (``tablectl recall --steps``).

The steps are plain data (JSON-ready), so that the floor's pages can show the
same replay: the wagers, no more bets, each card dealt, each decision, each
reveal (games.procedure: the flop, the cross's lines, the dealer's cards) and
each step of the dealer's order of payment (P65, P66).

Secrets: a round still in play shows no card that is not face up -- no hole
card, no dealer card and no community card before its reveal (the journal
holds them so that a hand can be reconstructed; the replay of an open round
does not show them).  A closed round is shown whole: it is the record.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from controller import events as ev
from controller.journal.store import CLOSING_KINDS, Event

#: said when a round was journaled before its reveals and order of payment were (P66)
NOT_JOURNALED = "not recorded: this round was journaled before its reveals and order of payment were"


def in_play(events: Iterable[Event]) -> bool:
    """True while the round has no closing event: its cards are secret until they are face up."""
    return not any(e.kind in CLOSING_KINDS for e in events)


def replay(round_id: str, events: list[Event]) -> dict[str, Any]:
    """The round's steps; ``steps`` is None when the journal predates the reveals and payment order."""
    playing = in_play(events)
    opened = events[0].data if events and events[0].kind == ev.RoundOpened.kind else {}
    out: dict[str, Any] = {"round": round_id, "game": opened.get("game"), "in_play": playing,
                           "steps_journaled": bool(opened.get("steps_journaled")), "steps": None}
    if not out["steps_journaled"]:
        out["why"] = NOT_JOURNALED
        return out
    steps: list[dict[str, Any]] = []
    hole: dict[int, list[str]] = {}  # each seat's cards, to show them when the dealer turns them over
    folded: set[int] = set()
    for e in events:
        t = e.typed
        step: dict[str, Any] = {"seq": e.seq, "at": e.at}
        if isinstance(t, ev.RoundOpened):
            continue
        if isinstance(t, ev.CardDealt):
            kind, _, seat = t.place.partition(":")
            if kind == "seat":
                hole.setdefault(int(seat), []).append(t.card)
            # dealt face down (or face up before its reveal is journaled): shown in the reveal step
            step.update(step="card", place=t.place, card=None if playing else t.card)
        elif isinstance(t, ev.SeatSkipped):
            hole = {}
            for place, card in t.cards:
                kind, _, seat = place.partition(":")
                if kind == "seat":
                    hole.setdefault(int(seat), []).append(card)
            step.update(step="seat_skipped", seat=t.seat, by=t.by,
                        cards=None if playing else [list(pc) for pc in t.cards])
        elif isinstance(t, ev.WagerPlaced):
            step.update(step="wager", seat=t.seat, wager=t.wager, amount=e.data["amount"])
        elif isinstance(t, ev.DecisionMade):
            if t.fold:
                folded.add(t.seat)
            what = "fold" if t.fold else "check" if t.check else f"{t.multiple}x"
            step.update(step="decision", seat=t.seat, street=t.street, decision=what)
        elif isinstance(t, ev.Revealed):
            step.update(step="reveal", what=t.what, cards=list(t.cards), clause=t.clause)
        elif isinstance(t, ev.Settled | ev.Voided):
            head: dict[str, Any] = {"step": e.kind, "seq": e.seq, "at": e.at}
            if isinstance(t, ev.Voided):
                head.update(reason=t.reason, keep=list(t.keep))
            steps.append(head)
            for n, p in enumerate(t.order or (), 1):
                pay: dict[str, Any] = {"step": "pay", "seq": e.seq, "at": e.at, "order": n, "seat": p.seat,
                                       "clause": p.clause, "wagers": [_paid(w) for w in p.wagers]}
                if p.shows_hand and isinstance(t, ev.Settled) and p.seat not in folded:
                    pay["cards"] = hole.get(p.seat, [])  # turned face up at this step
                steps.append(pay)
            continue
        elif isinstance(t, ev.MeterSet | ev.MeterAdd | ev.MeterPaid):
            step.update(step=e.kind, meters=e.data.get("meters"))
        else:  # no more bets, count confirmed, halted, resumed, a player who left, discarded, closed ...
            step.update(step=e.kind, **e.data)
        if e.who:
            step["who"] = e.who
        steps.append(step)
    out["steps"] = steps
    return out


def _paid(w: ev.PaidWager) -> dict[str, Any]:
    """A wager of a step of the order of payment as the replay shows it (the amount as its exact text)."""
    return {"wager": w.wager, "result": w.result, "net": str(w.net), **({"line": w.line} if w.line else {})}


def lines(r: dict[str, Any]) -> list[str]:
    """The replay as text, one step a line."""
    head = f"round {r['round']} ({r['game']}){': IN PLAY, cards not yet face up are not shown' if r['in_play'] else ''}"
    if r["steps"] is None:
        return [head, f"  steps {r['why']}"]
    out = [head]
    for s in r["steps"]:
        k = s["step"]
        if k == "card":
            text = f"{s['place']} <- {s['card'] or 'face down'}"
        elif k == "wager":
            text = f"seat {s['seat']} {s['wager']} {s['amount']}"
        elif k == "decision":
            text = f"seat {s['seat']} {s['decision']}"
        elif k == "reveal":
            text = f"{s['what']} {' '.join(s['cards'])} ({s['clause']})"
        elif k == "pay":
            wagers = ", ".join(f"{w['wager']} {w['result']} {w['net']}" for w in s["wagers"])
            cards = f" [{' '.join(s['cards'])}]" if "cards" in s else ""
            text = f"{s['order']:>2}. seat {s['seat']}{cards}: {wagers} ({s['clause']})"
        else:
            text = ", ".join(f"{key}={v}" for key, v in s.items() if key not in ("step", "seq", "at"))
        out.append(f"  {s['seq']:>6} {k:<16} {text}")
    return out


__all__ = ["NOT_JOURNALED", "in_play", "lines", "replay"]
