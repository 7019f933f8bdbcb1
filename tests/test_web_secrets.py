"""No page, role or call of the web service shows a card of the open round before the rules reveal it.

A round of Ultimate Texas Hold 'Em is played against the simulated table while the dealer's event stream
is read whole and, in every phase of the round, every response of both applications is fetched
(the dealer's page, its status and static files; the floor's pages as a logged-in supervisor and auditor,
the open round's recall included).  When the round is over its cards come from the journal, and each
captured text is scanned for the cards still hidden at the phase it was captured in: the players' cards
until settlement (UTH ch.11 §G-§H), the dealer's until the reveal (UTH ch.11 §G), the board's until it is
turned (UTH ch.11 §C-§E: checked as "only those the status shows on the board"), and every undealt card always.
"""

from __future__ import annotations

import http.client
import http.cookiejar
import json
import re
import threading
import urllib.error
import urllib.parse
import urllib.request

from daemon_harness import journal, phase, round_id, table_in_process
from games.cards import DECK
from web_harness import AUDITOR, PASSWORD, SUPERVISOR, form_token, web_service

BEFORE_CARDS = {"wagers", "no_more_bets", "dealing"}


class EventReader(threading.Thread):
    """The dealer's ``/events`` stream, raw, as a page gets it; each event's data kept."""

    def __init__(self, base: str) -> None:
        super().__init__(daemon=True)
        u = urllib.parse.urlsplit(base)
        self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
        self.conn.request("GET", "/events")
        self.resp = self.conn.getresponse()
        assert self.resp.getheader("Content-Type") == "text/event-stream"
        self.events: list[str] = []  # the statuses
        self.others: list[str] = []  # the other events (liveness)

    def run(self) -> None:
        data, event = [], "message"
        try:
            for raw in self.resp:
                line = raw.decode().rstrip("\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: "):
                    data.append(line[6:])
                elif not line and data:
                    (self.events if event == "status" else self.others).append("\n".join(data))
                    data, event = [], "message"
        except (OSError, ValueError, AttributeError):
            return  # closed at the end of the test


def session(floor: str, user: str) -> urllib.request.OpenerDirector:
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    token = form_token(opener.open(floor + "login").read().decode())  # the login form's token, its cookie kept
    opener.open(floor + "login", urllib.parse.urlencode({"user": user, "password": PASSWORD, "csrf": token}).encode()
                ).read()
    return opener


def fetch(opener, url: str) -> tuple[int, str]:
    try:
        with opener.open(url) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def shows(text: str, card: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9]){card}(?![A-Za-z0-9])", text) is not None


def test_no_hidden_card_in_any_response_or_event(tmp_path, monkeypatch):
    with table_in_process("ultimate_texas_holdem", tmp_path, monkeypatch, seed=5) as t:
        t.start_daemon()
        with web_service(t, tmp_path, monkeypatch) as w:
            t.open_table()
            reader = EventReader(w.dealer)
            reader.start()
            plain = urllib.request.build_opener()
            roles = {SUPERVISOR: session(w.floor, SUPERVISOR), AUDITOR: session(w.floor, AUDITOR)}
            captured: list[tuple[str, str, str]] = []  # (phase then, what, text)
            the_round, phases = None, set()
            while not t.dealer.closed:
                t.dealer.step()
                s = t.status()
                the_round = the_round or round_id(s)
                p = phase(s) or s["state"]
                if p in phases:
                    continue  # every status is in the event stream; the pages once in each phase
                phases.add(p)
                urls = [(plain, w.dealer + p_) for p_ in ("", "status.json", "static/dealer.js", "static/cards.js")]
                # the auditor's view is the supervisor's plus the audit trail: looked at once, while cards are out
                for opener in [roles[SUPERVISOR]] + ([roles[AUDITOR]] if p == "decisions" else []):
                    urls += [(opener, w.floor + p_) for p_ in ("", "rounds", "progressive", "irregularities", "audit")]
                    if round_id(s) and phase(s) not in ("complete",):
                        status, text = fetch(opener, w.floor + f"rounds/{round_id(s)}")
                        assert status == 404, "the open round's recall must not be served"
                        captured.append((p, "recall of the open round", text))
                for opener, url in urls:
                    status, text = fetch(opener, url)
                    assert status in (200, 403), (url, status)
                    captured.append((p, url, text))
            assert fetch(plain, w.floor + "rounds")[0] == 200  # the redirect to the login page, not the recall
            assert "Hand recall" not in fetch(plain, w.floor + "rounds")[1]
            reader.conn.close()
    events, _ = journal(t, the_round)
    dealt = [(e.data["place"], e.data["card"]) for e in events if e.kind == "card"]
    assert dealt, "the round dealt no card"
    undealt = {c.text for c in DECK} - {card for _, card in dealt}
    streamed = [(phase(json.loads(x)) or json.loads(x)["state"], "event stream", x) for x in reader.events]
    assert len(streamed) >= 5 and {p for p, _, _ in streamed} >= {"wagers", "decisions", "settled"}
    for p, what, text in streamed + captured:
        hidden = set(undealt)
        board = {}
        if what in ("event stream",) or what.endswith("status.json"):
            board = ((json.loads(text) or {}).get("round") or {}).get("community") or {}
        for place, card in dealt:
            if place.startswith("seat") or place.startswith("bonus"):
                hidden |= {card} if p not in ("settled", "complete") else set()
            elif place.startswith("dealer"):
                hidden |= {card} if p not in ("reveal", "settled", "complete") else set()
            elif place.startswith("community") and (p in BEFORE_CARDS or card not in board.values()):
                hidden |= {card} if what in ("event stream",) or what.endswith("status.json") else set()
        leaked = sorted(c for c in hidden if shows(text, c))
        assert not leaked, f"{what} at {p} shows hidden cards {leaked}"
    assert reader.others and not [x for x in reader.others if any(shows(x, c.text) for c in DECK)]  # liveness
