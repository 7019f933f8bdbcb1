"""What the dealer and the floor do, step by step: the ``steps`` of the status's ``next_action``.

An irregularity's remedy (each game's chapter 13: the menu of P41, what the chosen remedy voids and keeps
alive, R7a, R10), a halted round (fail closed), a storage fault (P97, P104) and a progressive win held for
validation (UTH ch.11 §J(2), each game's own clause, P38) as numbered steps: ``{"n": 1, "do": <code>,
"clause": <citation or None>, ...}``, the extra keys naming what the step acts on (``seat``, ``wagers``,
``device``, ``button``, ``key``).  Every ``do`` code has its words in ``WORDS``, for a screen.  Pure: the
service passes what it knows (controller.service.status); no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from controller.irregularities import Option, clause
from games.game import Game

Step = dict[str, Any]

#: every step's ``do``, in the words a person reads (sentence case)
WORDS: dict[str, str] = {
    # the irregularity menu (P41)
    "seat_N": "The seat button of its number",  # the button of a step that depends on the choice (P41)
    "press_option": "Press the seat button of the irregularity's number",
    "press_seat": "Press the button of the seat it concerns",
    "supervisor_confirms": "A floor supervisor turns the key and confirms",
    # the remedies (each game's chapter 13, R7a)
    "deal_remaining_cards": "Deal the cards still to come",
    "settle_kept_wagers": "Settle the wagers kept alive as shown",
    "return_other_wagers": "Return every other wager",
    "return_all_wagers": "Return every wager",
    "remove_deck": "Remove the deck from the table",
    "reshuffle": "Reshuffle the cards with those dealt",
    "collect_seat_wagers": "Collect every wager of the seat",
    "return_seat_wagers": "Return every wager of the seat",
    "seat_plays_next_round": "The seat plays the next round",
    "cover_device": "Cover the device or sign it out of order",
    "uncover_device": "Put the device back in service",
    "follow_table_steps": "Do the table's steps the screen asks for before the next deal",
    # a halted round (fail closed) and the table's storage (P97, P104)
    "call_floor": "Call the floor supervisor",
    "fix_device": "Have the device put right",
    "recount_progressive_chips": "Count the Progressive chips again with the supervisor",
    "resume_with_key": "Resume the round with the supervisor's key",
    "or_void_round": "Or void the round with the supervisor's key",
    "stop_play": "Stop: take no wager and deal no card",
    "free_disk": "Have room made on the table computer's disk",
    "fix_storage": "Have the table computer's storage repaired",
    "table_resumes": "The table resumes by itself once its journal can be written",
    "check_journal": "Have a technician check the journal: it was changed outside the table",
    # a progressive win held for validation (UTH ch.11 §J(2), P38)
    "wait_for_link": "Wait for the linked progressive to take the win",
    "verify_hand": "Verify the winning hand and the amount",
    "verify_light": "Verify the winner's light on the progressive system",
    "supervisor_validates": "A floor supervisor validates the payout with the key and confirms",
    "pay_progressive": "Pay the progressive win, then pay and collect as shown",
}


def numbered(steps: Iterable[Mapping[str, Any]]) -> list[Step]:
    """``steps`` numbered from 1, ``n`` first, ``do`` and ``clause`` always present."""
    out = []
    for n, s in enumerate(steps, 1):
        assert s["do"] in WORDS, s["do"]  # a step without words is one no screen can show
        out.append({"n": n, "do": s["do"], "clause": s.get("clause"),
                    **{k: v for k, v in s.items() if k not in ("do", "clause")}})
    return out


def menu(options: Sequence[Option], short: str) -> list[dict[str, Any]]:
    """The irregularity menu as data: option n is picked with seat button n (P41)."""
    return [{"n": n, "what": o.what.split(":")[0], "device": o.what.partition(":")[2] or None,
             "button": f"seat_{n}", "needs_seat": o.needs_seat, "clause": clause(o.what.split(":")[0], short)}
            for n, o in enumerate(options, 1)]


def pick_option() -> list[Step]:
    """The menu is open (P41): the option's number, the seat where asked, the supervisor's key."""
    return numbered([{"do": "press_option", "clause": "P41", "button": "seat_N"},
                     {"do": "supervisor_confirms", "clause": "P41", "button": "confirm", "key": True}])


def remedy(game: Game, chosen: Option, seat: int | None, *, seat_asked: bool, kept: frozenset[str],
           abandoned_returned: bool) -> list[Step]:
    """The remedy of the irregularity ``chosen`` on the menu, step by step, before it is confirmed (P41):
    ``kept`` the wagers on the layout that its clause keeps alive (R7a, R10); ``abandoned_returned`` the
    facility's choice for a player who left (P42)."""
    what, _, device = chosen.what.partition(":")
    where = clause(what, game.short)
    steps: list[dict[str, Any]] = []
    if seat_asked:
        steps.append({"do": "press_seat", "clause": "P41", "button": "seat_N"})
    steps.append({"do": "supervisor_confirms", "clause": where, "button": "confirm", "key": True})
    if what == "player_left":
        steps.append({"do": "return_seat_wagers" if abandoned_returned else "collect_seat_wagers", "clause": where,
                      "seat": seat})
    elif what == "skipped":  # RET ch.13 §G: the seat's wagers come back, it plays the next hand
        steps += [{"do": "return_seat_wagers", "clause": where, "seat": seat},
                  {"do": "seat_plays_next_round", "clause": where, "seat": seat}]
    elif what in ("out_of_order", "in_service"):  # UTH ch.13 §J (P43)
        steps += [{"do": "cover_device" if what == "out_of_order" else "uncover_device", "clause": where,
                   "device": device},
                  {"do": "follow_table_steps", "clause": "P43"}]
    else:  # all hands void but the wagers the clause keeps alive, settled on the cards (R7a, R10)
        steps += void(game, what, kept)
    return numbered(steps)


def void(game: Game, what: str | None, kept: Iterable[str], *, where: str | None = None,
         remove_deck: bool = False) -> list[Step]:
    """An irregularity's void (R7a): the kept wagers settled on the cards dealt out (R10), every other
    returned, the deck removed where it is not 52 cards of one deck (UTH ch.8 §G(2)), the cards reshuffled.
    ``what`` the irregularity (of the game's chapter 13) or None; ``where`` its clause as the dealer was told."""
    kept = sorted(kept)
    where = where or (clause(what, game.short) if what else "R7a")
    keeps = game.kept_alive.get(what or "")
    steps: list[dict[str, Any]] = []
    if kept:
        if game.community_cards:  # UTH ch.13 §C/§G, JHE ch.13 §C/§G (R10); HCF ch.13 §F: every card is out
            steps.append({"do": "deal_remaining_cards", "clause": keeps.clause if keeps else where})
        steps += [{"do": "settle_kept_wagers", "clause": keeps.clause if keeps else where, "wagers": kept},
                  {"do": "return_other_wagers", "clause": "R7a"}]
    else:
        steps.append({"do": "return_all_wagers", "clause": "R7a"})
    if remove_deck:
        steps.append({"do": "remove_deck", "clause": clause("stub_count", game.short)})  # UTH ch.8 §G(2)
    steps.append({"do": "reshuffle", "clause": where})
    return steps


def halted(device: str | None, *, progressive_count: str | None) -> list[Step]:
    """A halted round (fail closed): the floor called, the cause put right, resumed or voided with the key
    (R7a).  ``device`` the device not answering now; ``progressive_count`` the clause when the chips did not
    match the Progressive wagers accepted (UTH ch.8 §C(3))."""
    steps: list[dict[str, Any]] = [{"do": "call_floor", "clause": None}]
    if device is not None:
        steps.append({"do": "fix_device", "clause": None, "device": device})
    elif progressive_count is not None:
        steps.append({"do": "recount_progressive_chips", "clause": progressive_count})
    steps += [{"do": "resume_with_key", "clause": None, "button": "confirm", "key": True},
              {"do": "or_void_round", "clause": "R7a", "button": "void_round", "key": True}]
    return numbered(steps)


def storage(cause: str | None, *, round_held_back: bool = False) -> list[Step]:
    """The journal cannot be written (P97), or no round opens for want of room (P104)."""
    if cause == "journal_untrusted":  # rewritten under the daemon (P100): it never resumes by itself
        return numbered([{"do": "stop_play", "clause": "P100"}, {"do": "call_floor", "clause": "P100"},
                         {"do": "check_journal", "clause": "P100"}])
    ruling = "P104" if round_held_back else "P97"
    return numbered([{"do": "stop_play", "clause": ruling}, {"do": "call_floor", "clause": ruling},
                     {"do": "free_disk" if cause == "disk_full" else "fix_storage", "clause": ruling},
                     {"do": "table_resumes", "clause": ruling}])


def validation(game: Game, seats: Iterable[int], *, waiting_for_link: bool) -> list[Step]:
    """A progressive win held (P38): the hand and the amount verified, the light, the floor supervisor's
    validation with the key, then the payout: UTH ch.11 §J(2)(a)-(d), JHE ch.11 §K(2)(a)-(d), HCF ch.11
    §B(9)(a)-(d); RET prints no such clause (RET ch.12 §F) and is treated the same (P38)."""
    validates = game.cite("progressive_validation")
    base = validates.removesuffix("(c)")
    a, b, c, d = ([base + x for x in ("(a)", "(b)", "(c)", "(d)")] if base != validates else ["P38"] * 4)
    at = sorted(set(seats))
    steps: list[dict[str, Any]] = []
    if waiting_for_link:  # the link takes a linked table's metered win before it is validated (P80)
        steps.append({"do": "wait_for_link", "clause": "P80"})
    steps += [{"do": "verify_hand", "clause": a, "seats": at},
              {"do": "verify_light", "clause": b, "seats": at},
              {"do": "supervisor_validates", "clause": c, "button": "confirm", "key": True},
              {"do": "pay_progressive", "clause": d, "seats": at}]
    return numbered(steps)


__all__ = ["WORDS", "Step", "halted", "menu", "numbered", "pick_option", "remedy", "storage", "validation", "void"]
