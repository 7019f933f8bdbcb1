"""``make run``: the simulated table, the daemon, and a scripted dealer playing rounds.

    python -m demo.run [--config config/ultimate_texas_holdem.toml] [--rounds N] [--seed S] [--pace table]

Starts the simulated devices on the addresses the configuration names, the
daemon (``tablectl run``) with a fresh journal under ``var/demo/``, and a
dealer script that works the simulated panel, bet sensors and progressive
wagering devices exactly as people would: it opens the table, takes bets,
presses no more bets, confirms, enters each player's decision and confirms
the settlement.  It prints one readable line per event of the daemon.  ``--player informed`` (``PLAYER=``):
seat 3 bets the Trips only where the order read from the simulated shuffler wins (issue 28).
``--pace table`` (``make run``; ``FAST=1 make run`` leaves it out) plays as people do, a round every 10-20 s
(``demo.dealer.Pace``).
Ctrl-C, SIGTERM or SIGHUP stops everything; a port the table needs already in use is named as such.

The dealer script reads the daemon's public status file to know whose turn it
is -- the same view a table display would get, with no hidden card in it.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

from controller.config.table import ConfigError, TableConfig, load_config
from controller.paths import status_file
from demo.dealer import PLAYERS, TABLE_PACE, Control, Dealer
from drivers.device import DEVICES
from simulators.control import parse_listening
from simulators.shuffles import KINDS

ROOT = Path(__file__).resolve().parent.parent


def demo_journal(state_dir: Path, table: str) -> Path:
    """The demo's journal of table ``table`` in ``state_dir`` (``--state-dir``)."""
    return state_dir / f"{table}.journal"


def demo_key(journal: Path) -> Path:
    """The table's journal key beside ``journal``, made as an install makes it (``tablectl journal key``, P100)
    when it has none: the demo's journal and the tests' are keyed as a table PC's is."""
    from controller.journal.trust import create_key, key_file

    path = key_file(journal)
    if not path.exists():
        create_key(path)
    return path


def simulator_options(name: str, cfg: TableConfig, shuffle: str = "fair") -> list[str]:
    """What the simulated device is, as the table is configured: the shuffler holds the configured
    number of decks (a one-deck table's shuffler has no second deck to bring into play, UTH ch.3 §A(1),
    HCF ch.3 §A, RET ch.3 §A), and shuffles as ``--shuffle`` says (issue 28: the shuffle monitor's attacks)."""
    return ["--decks", str(cfg.dealing.decks), "--shuffle", shuffle] if name == "shuffler" else []


class Stopped(Exception):
    """SIGTERM or SIGHUP: stop everything started, as Ctrl-C does (a terminal closed, a service manager)."""


def _stop(signum: int, frame: object) -> None:
    raise Stopped(signal.Signals(signum).name)


def port_in_use(port: int, host: str = "127.0.0.1") -> bool:
    """Something listens on ``port`` already (an earlier demo still running, another program): binding as a
    server does (SO_REUSEADDR) fails only then, not for a connection of the last run in TIME_WAIT."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as e:
            return e.errno == errno.EADDRINUSE
    return False


def _refuse_port_in_use(port: int, what: str) -> None:
    if port and port_in_use(port):
        raise SystemExit(f"demo: port {port} ({what}) is in use: another program holds it (an earlier "
                         "`make run` still running?)")


def start_simulator(name: str, port: int, procs: list[subprocess.Popen[str]],
                    options: tuple[str, ...] | list[str] = ()) -> Control:
    """Start simulator ``name`` on ``port`` (0: a free port the simulator picks itself, see ``.url``)."""
    _refuse_port_in_use(port, f"the {name} simulator")
    args = [sys.executable, "-m", DEVICES[name].simulator, "--port", str(port), "--control-port", "0", *options]
    p = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    procs.append(p)
    assert p.stdout is not None
    line = p.stdout.readline()  # "listening URL control tcp://HOST:PORT"
    urls = parse_listening(line)
    if urls is None:
        _refuse_port_in_use(port, f"the {name} simulator")  # taken since the check above
        raise SystemExit(f"the {name} simulator did not start on port {port}: {line!r}")
    return Control(*urls)


def stop_processes(procs: list[subprocess.Popen[str]], timeout: float = 10.0) -> None:
    """SIGTERM in reverse order of start (the daemon before its devices), then SIGKILL what lingers."""
    for p in reversed(procs):
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=5)


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
        hand = f"{e['hand']}: " if e.get("hand") else ""  # shown at the step that turns the cards over (P65)
        print(f"  pay {e.get('step')}. seat {e['seat']} ({e.get('clause')}): {hand}{e.get('wagers')}"
              f"  => seat net {e.get('seat_net')}", flush=True)
    elif e.get("level") in ("warning", "error"):
        print(f"  [{e['level']}] {event} {({k: v for k, v in e.items() if k not in ('event', 'level', 'timestamp')})}",
              flush=True)


def show_lines(daemon: subprocess.Popen[str]) -> None:
    """Every log line of the daemon, readable, until it exits."""
    assert daemon.stderr is not None
    for line in daemon.stderr:
        show(line)


DEMO_SUPERVISOR = ("floor", "demo-only")  # the demo's floor account (simulated table, a throwaway journal)


def start_web(args: argparse.Namespace, users: Path, procs: list[subprocess.Popen[str]]) -> None:
    """``tablectl web`` beside the daemon: the dealer's screen and the floor's pages; their addresses printed."""
    from web.auth import add_user

    add_user(users, DEMO_SUPERVISOR[0], "supervisor", DEMO_SUPERVISOR[1])
    os.environ["TABLE_WEB__USERS"] = str(users)
    if args.free_ports:
        os.environ["TABLE_WEB__DEALER_PORT"] = os.environ["TABLE_WEB__FLOOR_PORT"] = "0"
    else:
        web_cfg = load_config(args.config).web
        _refuse_port_in_use(web_cfg.dealer_port, "the dealer's screen")
        _refuse_port_in_use(web_cfg.floor_port, "the floor's pages")
    web = subprocess.Popen([sys.executable, "-m", "controller.cli", "web", "--config", args.config],
                           cwd=ROOT, stdout=subprocess.PIPE, text=True, env=os.environ.copy())
    procs.append(web)
    line = web.stdout.readline() if web.stdout else ""  # its first line: {"dealer": URL, "floor": URL}
    if not line:
        raise SystemExit(f"demo: tablectl web stopped (exit {web.wait()})")
    urls = json.loads(line)
    print(f"dealer's screen: {urls['dealer']}  (open it in a browser)", flush=True)
    print(f"floor's pages:   {urls['floor']}  (user {DEMO_SUPERVISOR[0]}, password {DEMO_SUPERVISOR[1]})", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m demo.run")
    parser.add_argument("--config", default=os.environ.get("CONFIG", str(ROOT / "config/ultimate_texas_holdem.toml")))
    parser.add_argument("--rounds", type=int, default=int(os.environ.get("ROUNDS", "0")), help="0: until Ctrl-C")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--shuffle", choices=KINDS, default=os.environ.get("SHUFFLE", "fair"),
                        help="how the simulated shuffler shuffles (issue 28)")
    parser.add_argument("--player", choices=PLAYERS, default=os.environ.get("PLAYER", "random"),
                        help="informed: seat 3 bets the Trips only where the order (read from the shuffler) wins")
    parser.add_argument("--state-dir", default=str(ROOT / "var" / "demo"), help="where the journal goes (emptied)")
    parser.add_argument("--pace", choices=("fast", "table"), default="fast",
                        help="table: seats bet one by one, a round every 10-20 s (make run); fast: at once")
    parser.add_argument("--free-ports", action="store_true",
                        help="each simulator picks a free port and the daemon is pointed at it (tests in parallel)")
    args = parser.parse_args(argv)

    demo_dir = Path(args.state_dir)
    demo_dir.mkdir(parents=True, exist_ok=True)
    try:
        cfg0 = load_config(args.config)
    except ConfigError as e:  # the reason, not a traceback under it (issue 30)
        print(f"demo: {e}", file=sys.stderr)
        return 2
    if args.player == "informed" and (cfg0.game != "ultimate_texas_holdem" or cfg0.devices.shuffler is None
                                      or "trips" not in cfg0.wagers):
        print("demo: --player informed needs an Ultimate Texas Hold 'Em table with a shuffler and the Trips",
              file=sys.stderr)
        return 2
    journal = demo_journal(demo_dir, cfg0.id)
    for stale in demo_dir.glob(f"{cfg0.id}.*"):  # the journal, its anchor, its key, the web's audit: a throwaway
        shutil.rmtree(stale) if stale.is_dir() and not stale.is_symlink() else stale.unlink()
    demo_key(journal)
    os.environ["TABLE_JOURNAL"] = str(journal)
    os.environ["TABLE_LOG_FORMAT"] = "json"

    procs: list[subprocess.Popen[str]] = []
    for sig in (signal.SIGTERM, signal.SIGHUP):  # as Ctrl-C: nothing started is left holding its port
        signal.signal(sig, _stop)
    try:
        controls = {}
        for name in DEVICES:
            url = getattr(cfg0.devices, name)
            if url is not None:
                controls[name] = start_simulator(name, 0 if args.free_ports else urlsplit(url).port, procs,
                                                 simulator_options(name, cfg0, args.shuffle))
                if args.free_ports:
                    os.environ[f"TABLE_DEVICES__{name.upper()}"] = controls[name].url
        cfg = load_config(args.config)
        for needed in ("panel", "progressive"):  # the dealer's buttons; the bet sensors
            if needed not in controls:
                raise SystemExit(f"demo: {args.config} names no {needed}; the demo needs one")
        print(f"simulators up; starting the daemon for {cfg.name} ({cfg.game})", flush=True)
        daemon = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--config", args.config],
                                  cwd=ROOT, stderr=subprocess.PIPE, text=True, env=os.environ.copy())
        procs.append(daemon)
        threading.Thread(target=show_lines, args=(daemon,), daemon=True).start()
        start_web(args, demo_dir / f"{cfg0.id}.users", procs)
        dealer = Dealer(cfg, status_file(journal), controls, random.Random(args.seed),
                        pace=TABLE_PACE if args.pace == "table" else None, player=args.player)
        try:
            played = dealer.play(args.rounds, daemon)
        except TimeoutError as e:
            raise SystemExit(f"demo: {e}") from None
        print(f"{played} rounds played; the journal is {journal}; try: "
              f".venv/bin/tablectl recall 3 --config {args.config}  (with TABLE_JOURNAL={journal})", flush=True)
        return 0
    except (KeyboardInterrupt, Stopped):
        print("stopping", flush=True)
        return 0
    finally:
        stop_processes(procs)


if __name__ == "__main__":
    sys.exit(main())
