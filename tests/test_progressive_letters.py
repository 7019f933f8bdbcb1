"""Every Progressive paytable letter of every game, and every Envy letter, through the daemon.

One simulated table per (game, Progressive letter): the example configuration of config/ with
its [progressive] section replaced (the letter, the Envy table of the same letter where the game
has one -- HCF only with C, D, E, RULINGS R18a --, a meter per meter of the letter at its
minimum reset amount, the unit $1 or $5 alternately, R3).  The letter can only change at
start-up, so each table plays one round per **metered line** of its letter (top line first)
and one round of its **first fixed line**: the simulators deal a scripted deck (shuffler or
shoe, in the order games.dealing gives) so that seat 1 holds exactly that line's hand and seat 2,
also with a Progressive wager, holds nothing the Progressive pays -- but is paid the Envy Bonus
whenever seat 1's hand is on the Envy table.

Every round checks: the contribution journaled per meter (rate x unit x wagers), the wins held
(winner lights, status) and the meters untouched until the floor supervisor validates with the
key, then the paid amounts -- computed here from the games.paytables data and the meter values
this test tracks itself (R4), never copied from the daemon -- in ``meter_paid`` and
``progressive_hit``, the meter back to its reset or down by what was paid (R4), the sign showing
it; at the end ``tablectl progressive history`` lists every hit.
"""

from __future__ import annotations

import io
import json
import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

from controller.cli.main import main as tablectl
from controller.journal.store import Journal
from daemon_harness import ROOT, phase, table_in_process, told
from games.cards import DECK
from games.dealing import Procedure, initial_deal, stacks
from games.paytable import FixedAmount, FixedPerUnit, MeterPercent, Odds
from games.paytables import METER_MINIMUMS, letters, paytable
from games.progressive_return import progressive_return
from games.registry import GAMES

CENT = Decimal("0.01")
SUPERVISOR = "supervisor 4711"  # the key Dealer.with_key turns


def cents(x: Decimal) -> Decimal:
    return x.quantize(CENT, rounding=ROUND_HALF_UP)


# -- the hands: seat 1 makes the line, seat 2 makes nothing any Progressive table pays -------------
# Hold 'em (UTH, JHE): the player's two and the first three community cards (R24a).  RET: the
# player's two with left, center, right, the 1st Run hand (R25, R29).  HCF: seven cards each.

HOLDEM = {
    "royal_flush": (["Ts", "Js", "Qs", "7d", "2d"], ["As", "Ks"], ["3h", "4c"]),
    "royal_flush_diamonds": (["Td", "Jd", "Qd", "7s", "2s"], ["Ad", "Kd"], ["3h", "4c"]),
    "royal_flush_spades_hearts_or_clubs": (["Ts", "Js", "Qs", "7d", "2d"], ["As", "Ks"], ["3h", "4c"]),
    "straight_flush": (["5s", "6s", "7s", "Kd", "2d"], ["3s", "4s"], ["Jh", "9c"]),
    "four_of_a_kind": (["9s", "9d", "Kc", "4h", "2d"], ["9h", "9c"], ["Jh", "7c"]),
    "full_house": (["Ks", "Kd", "5c", "9h", "2d"], ["Kh", "5h"], ["Jc", "7s"]),
    "flush": (["2h", "7h", "Jh", "4s", "9c"], ["Ah", "5h"], ["Kd", "3c"]),
}
RET_NAMES = ("left", "center", "right", "top", "bottom")
HCF_SEAT2 = ["As", "Ks", "8c", "6d", "3s", "Tc", "Qd"]  # no three suited in a run
HCF = {
    "straight_flush_7": ["2h", "3h", "4h", "5h", "6h", "7h", "8h"],
    "suited_nine_ten_jack_queen_king_ace": ["9h", "Th", "Jh", "Qh", "Kh", "Ah", "3c"],
    "straight_flush_6": ["2h", "3h", "4h", "5h", "6h", "7h", "3c"],
    "straight_flush_5": ["2h", "3h", "4h", "5h", "6h", "3c", "8d"],
}


def wanted(game: str, line: str) -> dict:
    """The cards of seat 1, seat 2 and the community for ``line``: {place: card}."""
    if game == "high_card_flush":
        return {**{("seat", 1, i): c for i, c in enumerate(HCF[line])},
                **{("seat", 2, i): c for i, c in enumerate(HCF_SEAT2)}}
    community, one, two = HOLDEM[line]
    names = RET_NAMES if game == "run_em_twice" else range(5)
    return {**{("community", n): c for n, c in zip(names, community, strict=True)},
            **{("seat", 1, i): c for i, c in enumerate(one)}, **{("seat", 2, i): c for i, c in enumerate(two)}}


def deck_for(cfg, places: dict) -> list[str]:
    """The deck that puts ``places`` cards on their places in the order the table deals them."""
    g = cfg.game_rules
    procedure = cfg.dealing.procedure
    if procedure in ("shuffler", "automated_shoe"):
        order = [p for st in stacks(g, [1, 2], dealer_in_shuffler=cfg.dealing.dealer_cards == "in_shuffler")
                 for p in st.places]
    else:
        order = initial_deal(g, Procedure.HAND if procedure == "hand" else Procedure.MANUAL_SHOE, [1, 2])
    assert len(set(places.values())) == len(places), places
    rest = [c.text for c in DECK if c.text not in places.values()]
    return [places[p] if p in places else rest.pop(0) for p in order] + rest


# -- the table of one letter -----------------------------------------------------------------------


def cases() -> list[tuple[str, str]]:
    return [(g, letter) for g in sorted(GAMES) for letter in letters(g, "progressive")]


def envy_letter(game: str, letter: str) -> str | None:
    if not GAMES[game].has_envy:
        return None
    offered = letters(game, "envy")
    if game == "high_card_flush":  # R18a: the Progressive table's own letter, C, D or E
        return letter if letter in offered else None
    return letter if letter in offered else offered[0]


def progressive_section(game: str, letter: str, unit: int) -> tuple[str, dict]:
    """The [progressive] TOML of the letter and the meters configured {name: (initial, reset, rate)}."""
    table = paytable(game, "progressive", letter)
    minimums = METER_MINIMUMS[(game, letter)]
    meters = {}
    for i, m in enumerate(table.meters):
        reset = minimums[m]
        meters[m] = (reset + Decimal("1234.56") + i, reset, Decimal("0.01") * (i + 1))
    envy = envy_letter(game, letter)
    lines = ["[progressive]", "enabled = true", f"unit = {unit}", f'paytable = "{letter}"']
    if envy:
        lines += [f'envy = "{envy}"', "envy_requires_progressive_wager = true"]
    for m, (initial, reset, rate) in meters.items():
        lines += ["", f"[progressive.meters.{m}]", f'initial = "{initial}"', f'reset = "{reset}"', f'rate = "{rate}"']
    return "\n".join(lines) + "\n\n", meters


def table_unit(game: str, letter: str) -> Decimal:
    """$1 or $5 alternately; $5 where $1 would return 100% or more, which no table may offer (R24d:
    JHE E returns 1.112 at $1, so the configuration refuses it)."""
    unit = Decimal(1 if letters(game, "progressive").index(letter) % 2 == 0 else 5)
    resets = {m: reset for m, (_, reset, _) in progressive_section(game, letter, int(unit))[1].items()}
    if progressive_return(game, letter, unit, resets, envy_letter(game, letter)) >= 1:
        unit = Decimal(5)
    return unit


def write_config(game: str, letter: str, unit: int, where: Path) -> tuple[Path, dict]:
    text = (ROOT / "config" / f"{game}.toml").read_text()
    section, meters = progressive_section(game, letter, unit)
    text = re.sub(r"(?ms)^\[progressive\]$.*?(?=^\[devices\]$)", lambda _: section, text)
    path = where / f"{game}-{letter}.toml"
    path.write_text(text)
    return path, meters


def letter_table(config: Path, state_dir: Path, monkeypatch):
    """daemon_harness.table_in_process with a configuration file of our own."""
    return table_in_process("", state_dir, monkeypatch, config=config)


# -- what the paytables say -----------------------------------------------------------------------


def fixed_paid(pays, unit: Decimal) -> Decimal:
    """What a fixed line pays on a Progressive wager of ``unit`` (R2, R3, R21a), wager included."""
    if isinstance(pays, Odds):
        won = unit * pays.numerator / pays.denominator
        return cents(won + unit if pays.word == "to" else won)
    if isinstance(pays, FixedPerUnit):
        return pays.dollars * unit
    if isinstance(pays, FixedAmount):
        return pays.dollars
    raise AssertionError(f"not a fixed line: {pays}")



def tablectl_out(*argv: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    assert tablectl(list(argv), stdout=out, stderr=err) == 0, err.getvalue()
    return out.getvalue()


@pytest.mark.parametrize("game,letter", cases(), ids=[f"{g}-{x}" for g, x in cases()])
def test_every_progressive_and_envy_letter(game, letter, tmp_path, monkeypatch):
    unit = table_unit(game, letter)
    config, meters = write_config(game, letter, int(unit), tmp_path)
    table = paytable(game, "progressive", letter)
    envy = envy_letter(game, letter)
    envy_lines = {ln.key: ln.pays for ln in paytable(game, "envy", envy).lines} if envy else {}
    metered = [ln for ln in table.lines if isinstance(ln.pays, MeterPercent)]
    fixed = next(ln for ln in table.lines if not isinstance(ln.pays, MeterPercent))
    assert metered and metered[0] is table.lines[0]  # every letter's top line is paid from a meter
    rounds = metered + [fixed]

    value = {m: initial for m, (initial, _, _) in meters.items()}  # the meters as this test tracks them
    reset = {m: r for m, (_, r, _) in meters.items()}
    expected_hits: list[dict] = []
    with letter_table(config, tmp_path, monkeypatch) as t:
        cfg = t.cfg
        assert cfg.progressive.paytable == letter and cfg.progressive.envy == envy
        decks = [deck_for(cfg, wanted(game, line.key)) for line in rounds]
        shuffler = t.controls.get("shuffler")
        if shuffler is not None:  # the opening shuffles every deck (ch.4 §E); the last one deals first
            for d in (("A", "B") if cfg.dealing.decks == 2 else (None,)):
                shuffler("set_deck", cards=decks[0], **({"deck": d} if d else {}))
        t.start_daemon()
        t.open_table()
        g = cfg.game_rules
        low = int(cfg.limits(g.antes[0])[0] * 100)
        for k, line in enumerate(rounds):
            s = t.until(lambda s: phase(s) == "wagers" and not s.get("next_step"), f"round {k + 1}")
            round_id = s["round"]["round_id"]
            if "shoe" in t.controls:
                t.controls["shoe"]("load", cards=decks[k])
            t.controls["progressive"]("set_bets", bets={str(n): {str(i): low for i in range(len(g.antes))}
                                                        for n in (1, 2)})
            for n in (1, 2):
                assert t.controls["progressive"]("wager", seat=n)["accepted"]
            t.press("no_more_bets")
            s = t.press("confirm")
            s = t.until(lambda s: phase(s) in ("decisions", "settled"), "the deal")
            while phase(s) == "decisions":  # every seat stays in with the smallest wager each time
                to_act = s["round"]["to_act"]
                s = t.press(f"bet_{min(to_act['multiples'])}x" if not to_act["check"] else "check")
                s = t.until(
                    lambda s, to_act=to_act: phase(s) != "decisions" or s["round"]["to_act"] != to_act,
                    "the next decision",
                )
            assert phase(s) == "settled", s

            # the contribution: rate x unit for each of the two Progressive wagers, on every meter
            for m, (_, _, rate) in meters.items():
                value[m] += cents(rate * unit * 2)
            unpaid = dict(value)  # the meters until the supervisor validates
            # what the paytables pay; seat 2 only its Envy Bonus
            hits = []
            if isinstance(line.pays, MeterPercent):
                m = line.pays.meter
                paid = cents(value[m] * line.pays.percent / 100)
                value[m] = max(reset[m], value[m] - paid)
                progressive = {"seat": 1, "wager": "progressive", "line": line.key, "amount": paid, "meter": m,
                               "after": value[m]}
            else:
                progressive = {"seat": 1, "wager": "progressive", "line": line.key,
                               "amount": fixed_paid(line.pays, unit)}
            if line.key in envy_lines:
                hits.append({"seat": 2, "wager": "envy", "line": "envy from seats 1",
                             "amount": envy_lines[line.key].dollars * unit})
            hits.append(progressive)
            held = {(h["seat"], h["wager"]): h for h in s["validation"]}
            assert sorted(held) == sorted((h["seat"], h["wager"]) for h in hits), s["validation"]
            for h in hits:
                v = held[(h["seat"], h["wager"])]
                assert (v["line"], Decimal(v["amount"]), v.get("meter")) == (h["line"], h["amount"], h.get("meter"))
            assert s["next_action"]["action"] == "validate_progressive" and s["next_action"]["key"]
            assert t.controls["progressive"]("outputs")["lights"]["winner"] == sorted({h["seat"] for h in hits})

            # held: nothing paid from any meter until the supervisor validates
            with Journal(t.journal_path) as j:
                events = j.events(round_id)
                assert not [e for e in events if e.kind == "meter_paid"]
                assert not [e for e in j.events(None) if e.kind == "progressive_hit" and e.data["round"] == round_id]
                adds = [e.data["meters"] for e in events if e.kind == "meter_add"]
                assert adds == [{m: str(cents(rate * unit * 2)) for m, (_, _, rate) in meters.items()}]
                assert j.meter_values() == unpaid
            assert {m: Decimal(v) for m, v in s["meters"].items()} == unpaid
            if k == 0:  # the dealer alone cannot release it
                s = t.press_refused("confirm")
                assert s["validation"] and phase(s) == "settled"
            s = t.dealer.with_key(s, "confirm")  # the floor supervisor validates
            assert s["validation"] == [] and phase(s) == "settled" and told(s)["kind"] == "progressive_validated"
            assert {m: Decimal(v) for m, v in s["meters"].items()} == value
            sign = t.controls["progressive"]("outputs")["meters"]
            shown = [sign[list(cfg.progressive.meters).index(m)] for m in meters]
            assert shown == [int(v * 100) for v in value.values()]

            with Journal(t.journal_path) as j:
                paid_events = [e for e in j.events(round_id) if e.kind == "meter_paid"]
                if "meter" in progressive:
                    assert [(e.data["meter"], Decimal(e.data["paid"]), Decimal(e.data["after"]), e.data["seat"], e.who)
                            for e in paid_events] == [
                        (progressive["meter"], progressive["amount"], progressive["after"], 1, SUPERVISOR)
                    ]
                else:
                    assert paid_events == []
                validated = [e for e in j.events(None) if e.kind == "progressive_hit" and e.data["round"] == round_id]
                assert sorted((e.data["seat"], e.data["wager"], e.data["line"], Decimal(e.data["amount"]),
                               e.data.get("meter"), e.who) for e in validated) == \
                    sorted((h["seat"], h["wager"], h["line"], h["amount"], h.get("meter"), SUPERVISOR) for h in hits)
                assert j.meter_values() == value
            expected_hits += [{**h, "round": round_id} for h in hits]

            # paid and collected; the next round's deck goes into the shuffler before it shuffles
            if shuffler is not None and k + 1 < len(rounds):
                shuffler("set_deck", cards=decks[k + 1])
            t.controls["progressive"]("set_bets", bets={})
            s = t.press("confirm")
            assert phase(s) != "settled" or s["round"]["round_id"] != round_id
            if k + 1 < len(rounds):
                t.open_table()  # by hand: shuffled and cut between rounds (ch.5 §A(2))

        history = json.loads(tablectl_out("progressive", "history", "--config", str(config), "--last", "0", "--json"))
    assert sorted(
        (h["round"], h["seat"], h["wager"], h["line"], Decimal(h["amount"]), h.get("meter"), h["validated_by"])
        for h in history
    ) == \
        sorted((h["round"], h["seat"], h["wager"], h["line"], h["amount"], h.get("meter"), SUPERVISOR)
               for h in expected_hits)
