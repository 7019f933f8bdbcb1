"""The technician's page (``/technician``, issue 26): the devices' health and the configuration in use, no hand.

What a technician checks before calling a table sound: each device's health now (the daemon's public status), out
of order or not, and its last fault in the journal (``device_fault``, and when it ended); the configuration the web
service was started with: which file, its SHA-256 then and now (a file changed since is said: the daemon reads it
at its start), the file checked again now (``load_config``: every problem, each naming its key), and each section's
values; a refusal of the program kept beside the journal (P115, P122) with its problems and the command that
clears it.  Secrets are left out: the supervisors' hashed IDs (counted, P93), the password of any address
(``postgresql://user:...@host``).  No round, seat, wager or card is on it (P107: the technician's role has no
hand history); web/guard.py opens it to the technician and the supervisor.
"""

from __future__ import annotations

import hashlib
import html
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web

from controller import events as ev
from controller import program
from controller.config.table import ConfigError, TableConfig, load_config
from controller.journal.segments import open_for_reading
from controller.journal.store import Event
from web import keys
from web.words import local_time, say, words

e = html.escape
#: values never shown: (section, key)
SECRET = {("supervisors", "ids")}
_PASSWORD = re.compile(r"^([a-z][a-z0-9+.-]*://[^:/@]*):[^@]*@", re.I)  # scheme://user:password@


@dataclass(frozen=True)
class Loaded:
    """The configuration the web service started with: its file and that file's SHA-256 then."""

    path: Path | None
    sha256: str | None
    cfg: TableConfig


LOADED = web.AppKey("configuration_loaded", Loaded)


def digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def loaded(cfg: TableConfig, path: Path | None) -> Loaded:
    return Loaded(path, digest(path) if path is not None else None, cfg)


def masked(value: str) -> str:
    """An address's password replaced by dots; anything else as it is."""
    return _PASSWORD.sub(r"\1:•••@", value)


#: the configuration's keys whose spelt-out name would not say what they are (docs/configuration.md)
KEY_WORDS = {
    "id": "The table's id", "min": "Minimum", "max": "Maximum", "tls_cert": "TLS certificate", "tls_key": "TLS key",
    "proxied_tls": "TLS by a reverse proxy", "max_body_kb": "Largest request body (KiB)",
    "audit_max_mb": "Access log's cap (MiB)", "segment_max_mb": "Segment's largest size (MB)",
    "reserve_mb": "Reserve (MB)", "pit": "The pit's database", "link": "The link's database",
    "link_id": "The link's group", "users": "Accounts file", "ids": "Supervisors",
}


def key_words(key: str) -> str:
    """A configuration key in words: ``KEY_WORDS``, else spelt out ("dealer_port" -> "Dealer port")."""
    return KEY_WORDS.get(key) or key.replace("_", " ").capitalize()


def plain(code: str) -> str:
    """A code a value holds in words: its declared words (web/words.py), else spelt out."""
    said = say(code)
    return said.replace("_", " ").capitalize() if re.fullmatch(r"[a-z0-9_]+", said) else said


def shown(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return "; ".join(f"{plain(str(k)) if str(k) in words() else key_words(str(k))}: {shown(v)}"
                         for k, v in value.items()) or "none"
    if isinstance(value, list | tuple):
        return ", ".join(shown(v) for v in value) or "none"
    text = masked(str(value))
    return plain(text) if re.fullmatch(r"[a-z][a-z0-9_]*", text) else text  # a code; a name or address as it is


def sections(cfg: TableConfig) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """(section, [(key, its words, its value in words)]) of every section, the top-level keys as "table"."""
    data = cfg.model_dump(mode="json")
    top = [(k, key_words(k), shown(v)) for k, v in data.items() if not isinstance(v, dict)]
    out = [("table", top)]
    for name, part in data.items():
        if not isinstance(part, dict):
            continue
        rows = []
        for k, v in part.items():
            if (name, k) in SECRET:
                rows.append((k, key_words(k), f"{len(v or ())} set, not shown"))
            else:
                rows.append((k, key_words(k), shown(v)))
        out.append((name, rows))
    return out


def check_now(path: Path | None) -> tuple[str, list[str]]:
    """The file checked again now: ``ok``, ``problems`` (each naming its key) or ``unknown`` (no file known)."""
    if path is None:
        return "unknown", []
    try:
        load_config(path)
    except ConfigError as exc:
        return "problems", list(exc.problems)
    return "ok", []


def last_faults(path: Path) -> dict[str, tuple[Event, Event | None]]:
    """Each device's last fault in the journal and the event that ended it, if it did."""
    out: dict[str, tuple[Event, Event | None]] = {}
    with open_for_reading(path) as j:
        faults = j.events_of(ev.DeviceFault.kind)
        ended = j.events_of(ev.DeviceFaultEnded.kind)
    for f in faults:
        out[str(f.data.get("device"))] = (f, None)
    for x in ended:
        device = str(x.data.get("device"))
        if device in out and x.seq > out[device][0].seq:
            out[device] = (out[device][0], x)
    return out


def _devices(status: dict[str, Any], faults: dict[str, tuple[Event, Event | None]]) -> str:
    health = status.get("devices") or {}
    out_of_order = set(status.get("out_of_order") or ())
    rows = []
    for device in sorted(set(health) | set(faults)):
        state = health.get(device)
        fault = faults.get(device)
        last = "none in the journal"
        if fault is not None:
            f, ended = fault
            last = f"{plain(say(f.data.get('fault')))} at {local_time(f.at, date=True)}"
            last += (f", ended at {local_time(ended.at, date=True)} after {ended.data.get('count')} times"
                     if ended is not None else ", not ended")
        rows.append(
            f'<tr data-device="{e(device)}" data-health="{e(str(state or ""))}" '
            f'data-out-of-order="{"yes" if device in out_of_order else "no"}" '
            f'data-last-fault="{e(str(fault[0].data.get("fault")) if fault else "")}">'
            f"<th>{e(say(device, 'device'))}</th><td>{e(say(state) if state else 'not configured')}</td>"
            f"<td>{'out of order' if device in out_of_order else 'in service'}</td><td>{e(last)}</td></tr>")
    return ('<table id="devices"><tr><th>Device</th><th>Health</th><th>Service</th><th>Last fault</th></tr>'
            + ("".join(rows) or "<tr><td colspan=4>no device</td></tr>") + "</table>")


def _refusal(journal: Path, table: str) -> str:
    """The program's refusal kept beside the journal (P115, P122), for the technician who clears it: its problems
    (the files changed, missing or added) and why the program did not start; nothing when none is kept."""
    kept = program.read_refusal(journal)
    if kept is None:
        return ""
    try:
        modified = program.refusal_file(journal).stat().st_mtime
    except OSError:
        modified = time.time()
    v = program.refused_view(kept, modified, table)
    problems = [str(p) for p in kept.get("problems") or []][:50] if isinstance(kept.get("problems"), list) else []
    cleared = kept.get("cleared") if isinstance(kept.get("cleared"), dict) else None
    rows = [("Cause", v["cause_said"]), ("Refused", local_time(v["at"], date=True)),
            ("Release", str(kept.get("release") or "-")), ("Did not start", str(kept.get("not_started") or "-")),
            ("Cleared", f"by {cleared.get('by')}: {cleared.get('reason')}" if cleared else "not yet"),
            ("What to do", v["action_said"])]
    return (f'<h2>Program refused</h2><table id="refusal" data-cause="{e(v["cause"])}" data-at="{e(v["at"])}" '
            f'data-action="{e(v["action"])}" data-problems="{v["problems"]}">'
            + "".join(f"<tr><th>{e(k)}</th><td>{e(x)}</td></tr>" for k, x in rows) + "</table>"
            + ('<ul id="refusal-problems">' + "".join(f"<li><code>{e(p)}</code></li>" for p in problems) + "</ul>"
               if problems else "")
            + f'<p>Once the program verifies again, it is cleared with <code id="clear">{e(v["clear"])}</code> '
            "and the table controller started again (the clearance is journaled at its start).</p>")


async def technician(request: web.Request, page: Any, in_thread: Any) -> web.Response:
    status = request.app[keys.FEED].current() or {}
    faults = await in_thread(last_faults, request.app[keys.JOURNAL_PATH])
    got = request.app[LOADED]
    now = await in_thread(digest, got.path) if got.path is not None else None
    state, problems = await in_thread(check_now, got.path)
    changed = got.sha256 is not None and now != got.sha256
    said = {"ok": "The file is valid now.", "problems": "The file has problems now:",
            "unknown": "The file the service read is not known (started without one)."}[state]
    conf = (
        f'<table id="configuration" data-file="{e(str(got.path or ""))}" data-sha256="{e(got.sha256 or "")}" '
        f'data-sha256-now="{e(now or "")}" data-changed="{"yes" if changed else "no"}" data-check="{state}">'
        f"<tr><th>File</th><td>{e(str(got.path or 'unknown'))}</td></tr>"
        f"<tr><th>SHA-256 when the service started</th><td><code>{e(got.sha256 or '-')}</code></td></tr>"
        f"<tr><th>SHA-256 now</th><td><code>{e(now or '-')}</code>"
        + (" (changed since: the daemon reads the file at its start)" if changed else "") + "</td></tr></table>"
        f'<p id="check" class="{"ok" if state == "ok" else "bad"}">{e(said)}</p>'
        + ("<ul id=problems>" + "".join(f"<li>{e(p)}</li>" for p in problems) + "</ul>" if problems else "")
    )
    values = "".join(
        f"<h3>{e(key_words(name) if name != 'table' else 'The table')}</h3><table>"
        + "".join(f'<tr data-key="{e(name)}.{e(k)}"><th>{e(words)}</th><td>{e(v)}</td></tr>' for k, words, v in rows)
        + "</table>" for name, rows in sections(got.cfg))
    refusal = await in_thread(_refusal, request.app[keys.JOURNAL_PATH], got.cfg.id)
    body = (f"{refusal}<h2>Devices</h2>{_devices(status, faults)}<h2>Configuration in use</h2>{conf}"
            f"<h2>Its values (secrets left out)</h2>{values}")
    resp: web.Response = page(request, "Devices and configuration", body)
    return resp
