"""Every code a screen can show has its words (web/words.py): the games' wagers and paytable lines, and every
code-valued field of every status a real daemon publishes through a round of each game.

Also ``say``, ``money`` and ``local_time``, and web/static/words.js's ``say``, ``money`` and ``localTime`` in the
browser: the same readings as the server's, exact amounts, local times with their zone.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from daemon_harness import table_in_process
from games.registry import GAMES
from unsaid import IDENTIFIER, identifiers
from web import words as w

ROOT = Path(__file__).resolve().parent.parent
# the status's fields of free text, numbers and ids: never a code
FREE = {"message", "notice", "table", "round_id", "card_request", "why", "clause", "clauses", "problem", "updated",
        "since", "amount", "net", "cards", "dealer", "community", "hit", "deck", "n", "at", "by", "id"}
# the maps whose keys are codes (and the kind of code, where one code means two things)
KEYED = {("devices",): "device", ("meters",): None, ("round", "seats", "*", "wagers"): None,
         ("round", "settlement", "*"): None, ("told", "counts"): "count", ("notice_told", "counts"): "count",
         ("round", "chips", "*", "wagers"): None}
CODE = re.compile(r"[a-z][a-z0-9_]*(?::[A-Za-z0-9_]+)?(?:: .*)?", re.S)


def kind_of(path: tuple[str, ...]) -> str | None:
    if path[:1] == ("alarms",) and path[-1] in ("kind", "priority"):
        return "alarm" if path[-1] == "kind" else "priority"  # an alarm's kind shares codes with ``told``'s
    if path[:2] == ("round", "chips") and path[-1] == "do":
        return "chips"
    if "device" in path or "devices" in path or "out_of_order" in path:
        return "device"
    return "storage" if path[:1] == ("storage",) else None


def codes(x: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], str, str | None]]:
    """Every code in a status: (where, the code, its kind), keys of the maps of codes included."""
    out: list[tuple[tuple[str, ...], str, str | None]] = []
    if isinstance(x, dict):
        for pattern, kind in KEYED.items():
            if len(pattern) == len(path) and all(p in ("*", q) for p, q in zip(pattern, path, strict=True)):
                out += [(path, k, kind) for k in x]
        for k, v in x.items():
            if k not in FREE:
                out += codes(v, (*path, "*" if k.isdigit() else k))
    elif isinstance(x, list):
        for v in x:
            out += codes(v, path)
    elif isinstance(x, str) and CODE.fullmatch(x) and not re.fullmatch(r"[2-9TJQKA][cdhs]", x):
        out.append((path, x, kind_of(path)))
    return out


def test_the_words_are_one_collection_without_conflict():
    found = w.declarations()
    assert w.collect(found) == w.words()
    with pytest.raises(w.WordsConflict):
        w.collect([("a", {"ante": "Ante"}), ("b", {"ante": "Ante Wager"})])
    for code, text in w.words().items():
        assert text.strip() and not IDENTIFIER.search(text), (code, text)  # words, not another code


def test_every_game_wager_and_paytable_line_has_words():
    said = w.words()
    for game in GAMES.values():
        assert said[game.name] == game.title
        named = {*game.wagers, *game.decision_wagers, *game.paytable_of, *game.paytable_of.values(), *game.meters,
                 *game.community_names, *(s.name for s in game.streets)}
        named |= {x for p in game.payment_passes for x in p.wagers}
        assert not [c for c in named if c not in said], game.name
        for name in set(game.paytable_of.values()) | ({"envy"} if game.has_envy else set()):
            for letter in game.letters(name):
                lines = [line.key for line in game.paytable(name, letter).lines]
                assert not [c for c in lines if c not in said], (game.name, name, letter)
                assert all(said[c] != c for c in lines)
    assert w.say("three_of_a_kind") == "Three of a kind" and w.say("ultimate_texas_holdem") == "Ultimate Texas Hold 'Em"
    assert w.say("straight_flush_7") == "Seven-card straight flush"


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_code_a_round_publishes_has_words(game, tmp_path, monkeypatch):
    seen: list[dict[str, Any]] = []
    with table_in_process(game, tmp_path, monkeypatch) as t:
        publish = t.published.publish

        def record(text: str) -> None:
            seen.append(json.loads(text))
            publish(text)

        t.published.publish = record  # type: ignore[method-assign]
        t.start_daemon()
        t.open_table()
        while not t.dealer.closed:  # the scripted dealer plays one round to its close
            t.dealer.step()
    found = {(p, c, k) for s in seen for p, c, k in codes(s)}
    phases = {c for p, c, _ in found if p == ("round", "phase")}
    assert {"wagers", "decisions", "settled"} <= phases  # the walk saw a whole round
    assert {p for p, _, _ in found} >= {("game",), ("state",), ("next_action", "action"), ("told", "kind")}
    assert any(p[:2] == ("round", "settlement") and p[-1] == "result" for p, _, _ in found)
    unsaid = sorted({(".".join(p), c) for p, c, k in found if w.say(c, k) == c})
    assert unsaid == []


def test_say_reads_a_code_with_its_parameter():
    assert w.say("inspection_verified:A") == w.say("inspection_verified") + ", deck A"
    assert w.say("seat:3") == "Seat 3" and w.say("community:0") == w.say("community") + " 1"
    assert w.say("community:left") == f"{w.say('community')}: {w.say('left')}"
    assert w.say("disabled: the system is not answering") == "Disabled: the system is not answering"
    assert w.say("progressive", "device") == "Progressive system" and w.say("progressive") == "Progressive"
    assert w.say("no_such_code") == "no_such_code" and w.say(None) == ""


def test_money_is_exact_with_thousands_separators():
    cases = {"10000.48": "$10,000.48", "-10000.48": "-$10,000.48", "25": "$25.00", "0.5": "$0.50",
             "1234567.125": "$1,234,567.125", "1000.10": "$1,000.10", "-0.00": "$0.00", "999": "$999.00"}
    assert {k: w.money(k) for k in cases} == cases
    assert w.money(Decimal("10000000000000000.01")) == "$10,000,000,000,000,000.01"


def test_local_time_has_its_zone():
    t = datetime(2026, 11, 26, 19, 3, 7).astimezone()
    assert w.local_time(t.timestamp()) == f"19:03:07 {t.tzname()}"
    assert w.local_time(t.isoformat(), date=True) == f"2026-11-26 19:03:07 {t.tzname()}"


def test_identifiers_are_found_in_text():
    assert identifiers(["Seat 2: three_of_a_kind", "pay $9.00", "ultimate_texas_holdem and three_of_a_kind"]) == [
        "three_of_a_kind", "ultimate_texas_holdem"]
    assert identifiers(["Three of a kind", "UTH ch.8 §C(3)", "20261127-020214-911b43"]) == []


def test_words_js_reads_as_the_server_does(browser):
    page = browser.new_page()
    body = {"/words.json": (w.words_json(), "application/json"),
            "/static/words.js": ((ROOT / "web/static/words.js").read_text(), "text/javascript"),
            "/": ('<!doctype html><html lang="en"><head><title>words</title>'
                  '<script src="/static/words.js"></script></head><body>words</body></html>', "text/html")}

    def serve(route: Any) -> None:
        text, ctype = body[route.request.url.removeprefix("http://table.test")]
        route.fulfill(status=200, body=text, content_type=ctype)

    page.route("http://table.test/**", serve)
    page.goto("http://table.test/")
    samples = ["three_of_a_kind", "ultimate_texas_holdem", "inspection_verified:B", "seat:6", "community:2",
               "community:top", "disabled: not answering", "straight_flush_7", "envy", "pay_and_collect"]
    assert page.evaluate("xs => xs.map(x => say(x))", samples) == [w.say(x) for x in samples]
    assert page.evaluate("say('progressive', 'device')") == w.say("progressive", "device")
    assert page.evaluate("window.__unsaid") == []
    assert page.evaluate("say('no_such_code')") == "no_such_code"
    assert page.evaluate("window.__unsaid") == ["no_such_code"]  # reported, for the tests to catch
    amounts = ["10000.48", "-10000.48", "25", "0.5", "1234567.125", "1000.10", "-0.00", "999", "0",
               "10000000000000000.01"]
    assert page.evaluate("xs => xs.map(x => money(x))", amounts) == [w.money(a) for a in amounts]
    epoch = datetime(2026, 11, 26, 19, 3, 7).astimezone().timestamp()
    # the browser runs on the table PC beside the server: the same local time, the same zone's short name
    assert page.evaluate(f"localTime({epoch})") == w.local_time(epoch) == datetime.fromtimestamp(epoch).astimezone(
    ).strftime("19:03:07 %Z")
    page.close()
