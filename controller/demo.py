"""``make run``: the simulated table, the daemon, and a scripted dealer playing rounds.

    python -m controller.demo [--config config/ultimate_texas_holdem.toml] [--rounds N] [--seed S]

Starts the simulated devices on the addresses the configuration names, the
daemon (``tablectl run``) with a fresh journal under ``var/demo/``, and a
dealer script that works the simulated panel, bet sensors and progressive
wagering devices exactly as people would: it opens the table, takes bets,
presses no more bets, confirms, enters each player's decision and confirms
the settlement.  It prints one readable line per event of the daemon.
Ctrl-C stops everything.

The dealer script reads the daemon's public status file to know whose turn it
is -- the same view a table display would get, with no hidden card in it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

from controller.config import load_config

ROOT = Path(__file__).resolve().parent.parent
SIM_MODULES = {
    "shuffler": "simulators.shuffler",
    "shoe": "simulators.shoe",
    "progressive": "simulators.progressive",
    "panel": "simulators.panel",
}


class Control:
    """A simulator's line-JSON control port."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.file = self.sock.makefile("rwb")

    def __call__(self, cmd: str, **kw) -> dict:
        self.file.write(json.dumps({"cmd": cmd, **kw}).encode() + b"\n")
        self.file.flush()
        reply = json.loads(self.file.readline())
        if not reply.get("ok", True):
            raise RuntimeError(f"{cmd}: {reply}")
        return reply


def start_simulator(name: str, port: int, procs: list[subprocess.Popen]) -> Control:
    args = [sys.executable, "-m", SIM_MODULES[name], "--port", str(port), "--control-port", "0"]
    p = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    procs.append(p)
    line = p.stdout.readline()  # "listening URL control tcp://HOST:PORT"
    if not line.startswith("listening") or "control" not in line:
        raise SystemExit(f"the {name} simulator did not start on port {port}: {line!r}")
    return Control(urlsplit(line.split("control", 1)[1].strip()).port)


def show(line: str) -> None:
    """One daemon log line (JSON) as a readable line."""
    try:
        e = json.loads(line)
    except json.JSONDecodeError:
        print(line.rstrip(), flush=True)
        return
    event = e.get("event")
    if event == "dealer":
        print(f"  dealer> {e.get('say')}", flush=True)
    elif event == "settle":
        print(f"  seat {e['seat']}: {e.get('hand')}: {e.get('wagers')}  => net {e['net']}", flush=True)
    elif e.get("level") in ("warning", "error"):
        print(f"  [{e['level']}] {event} {({k: v for k, v in e.items() if k not in ('event', 'level', 'timestamp')})}",
              flush=True)


class Dealer:
    def __init__(self, cfg, status_path: Path, controls: dict[str, Control], rng: random.Random) -> None:
        self.cfg, self.status_path, self.rng = cfg, status_path, rng
        self.panel, self.progressive, self.shoe = controls["panel"], controls.get("progressive"), controls.get("shoe")
        self.game = cfg.game_rules
        self.areas = [w for w in self.game.wagers if w != "progressive"]

    def status(self) -> dict:
        try:
            return json.loads(self.status_path.read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            return {}

    def wait(self, predicate, what: str, timeout: float = 30.0) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            s = self.status()
            if s and predicate(s):
                return s
            if s.get("expecting_cards") and self.shoe is not None:
                self.shoe("draw", n=1)  # the dealer draws the next card from the shoe
            time.sleep(0.05)  # a demo watching a file, not a test
        raise SystemExit(f"demo: the daemon did not reach '{what}' in {timeout:.0f} s; status: {self.status()}")

    def press(self, button: str) -> None:
        self.panel("press", button=button)

    def phase(self, s: dict) -> str | None:
        return (s.get("round") or {}).get("phase")

    def open_table(self) -> None:
        s = self.wait(lambda s: s.get("state"), "status")
        while s.get("state") != "open":
            step = s["next_opening_step"]
            print(f"opening: {step['step']} ({step['clause']})", flush=True)
            if step["key"]:
                self.panel("key", on=True, supervisor=4711)
            before = s.get("message")
            self.press(step["button"])
            s = self.wait(lambda s: s.get("message") != before, step["step"])
            if step["key"]:
                self.panel("key", on=False)

    def play_round(self) -> None:
        s = self.wait(lambda s: self.phase(s) == "wagers", "wagers")
        round_id = s["round"]["round_id"]
        if self.shoe is not None:  # a freshly shuffled deck in the shoe for every round (ch.5 §A(2))
            self.shoe("load", seed=self.rng.randrange(2**31))
        unit_cents = int(self.cfg.progressive.unit * 100) if self.cfg.progressive.enabled else 0
        seats = sorted(self.rng.sample(range(1, self.cfg.seats + 1), self.rng.randint(1, self.cfg.seats)))
        bets: dict[str, dict[str, int]] = {}
        for seat in seats:
            low, high = self.cfg.limits(self.game.antes[0])
            ante = int(self.rng.choice([low, low * 2, low * 5]) * 100)
            areas = {str(self.areas.index(a)): ante for a in self.game.antes}
            for w in self.cfg.wagers:
                if w not in self.game.antes and self.rng.random() < 0.3:
                    if w == "six_card_bonus" and str(self.areas.index("trips")) not in areas:
                        continue
                    areas[str(self.areas.index(w))] = int(self.cfg.limits(w)[0] * 100)
            bets[str(seat)] = areas
        self.progressive("set_bets", bets=bets)
        if unit_cents and self.cfg.devices.progressive:
            for seat in seats:
                if self.rng.random() < 0.6:
                    self.progressive("wager", seat=seat)
        print(f"round {round_id}: players at seats {seats}", flush=True)
        self.press("no_more_bets")
        self.wait(lambda s: self.phase(s) == "no_more_bets", "no more bets")
        self.press("confirm")
        s = self.wait(lambda s: self.phase(s) in ("decisions", "settled", "halted"), "deal")
        while self.phase(s) == "decisions":
            to_act = s["round"]["to_act"]
            options = [f"bet_{m}x" for m in to_act["multiples"]]
            if to_act["check"]:
                options += ["check"] * 2
            if to_act["fold"]:
                options.append("fold")
            before = (to_act["seat"], to_act["street"])
            self.press(self.rng.choice(options))
            s = self.wait(lambda s: self.phase(s) != "decisions"
                          or (s["round"]["to_act"].get("seat"), s["round"]["to_act"].get("street")) != before,
                          "the next decision")
        if self.phase(s) == "halted":
            raise SystemExit(f"demo: the round halted: {s.get('message')}")
        self.wait(lambda s: self.phase(s) == "settled", "settled")
        self.progressive("set_bets", bets={})  # the dealer pays and collects: the layout is cleared
        self.press("confirm")
        self.wait(lambda s: self.phase(s) == "wagers" and s["round"]["round_id"] != round_id, "the next round")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m controller.demo")
    parser.add_argument("--config", default=os.environ.get("CONFIG", str(ROOT / "config/ultimate_texas_holdem.toml")))
    parser.add_argument("--rounds", type=int, default=int(os.environ.get("ROUNDS", "0")), help="0: until Ctrl-C")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--state-dir", default=str(ROOT / "var" / "demo"), help="where the journal goes (emptied)")
    args = parser.parse_args(argv)

    demo_dir = Path(args.state_dir)
    demo_dir.mkdir(parents=True, exist_ok=True)
    cfg0 = load_config(args.config)
    journal = demo_dir / f"{cfg0.id}.journal"
    for stale in demo_dir.glob(f"{cfg0.id}.*"):
        stale.unlink()
    os.environ["TABLE_JOURNAL"] = str(journal)
    os.environ["TABLE_LOG_FORMAT"] = "json"
    cfg = load_config(args.config)

    procs: list[subprocess.Popen] = []
    try:
        controls = {}
        for name in SIM_MODULES:
            url = getattr(cfg.devices, name)
            if url is not None:
                controls[name] = start_simulator(name, urlsplit(url).port, procs)
        for needed in ("panel", "progressive"):  # the dealer's buttons; the bet sensors
            if needed not in controls:
                raise SystemExit(f"demo: {args.config} names no {needed}; the demo needs one")
        print(f"simulators up; starting the daemon for {cfg.name} ({cfg.game})", flush=True)
        daemon = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--config", args.config],
                                  cwd=ROOT, stderr=subprocess.PIPE, text=True, env=os.environ.copy())
        procs.append(daemon)
        threading.Thread(target=lambda: [show(line) for line in daemon.stderr], daemon=True).start()
        dealer = Dealer(cfg, journal.with_suffix(".status.json"), controls, random.Random(args.seed))
        dealer.open_table()
        played = 0
        while not args.rounds or played < args.rounds:
            if daemon.poll() is not None:
                raise SystemExit(f"demo: the daemon stopped (exit {daemon.returncode})")
            dealer.play_round()
            played += 1
        print(f"{played} rounds played; the journal is {journal}; try: "
              f".venv/bin/tablectl recall 3 --config {args.config}  (with TABLE_JOURNAL={journal})", flush=True)
        return 0
    except KeyboardInterrupt:
        print("stopping", flush=True)
        return 0
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


if __name__ == "__main__":
    sys.exit(main())
