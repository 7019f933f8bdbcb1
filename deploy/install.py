"""Install, upgrade or roll back the table controller on a table PC, without network access.

Run from an unpacked ``make dist`` artefact (standard library only, by the table PC's python3):

    sudo ./install.sh                  install, or upgrade to this artefact's version
    sudo /opt/table-controller/rollback    back to the version before (again: forward)

Layout under the prefix (default /opt/table-controller):

    releases/VERSION-COMMIT/   one release: its own venv, installer, unit, rules, examples, guide
    current -> releases/...    what runs (the unit's ExecStart is current/venv/bin/tablectl)
    previous -> releases/...   kept for rollback; older releases are removed
    bin/tablectl               current's tablectl
    rollback                   the rollback command, with this install's directories

An upgrade is refused, and nothing switched, when the new version does not accept a table's
configuration (``tablectl check-config --dropin --table ID ...``: every table in one process, each
table's drop-in with it).  The switch is one atomic rename of the ``current`` link; running units are
then restarted (``systemctl try-restart``).  ``--files-only`` writes the files only (no user, no
systemctl, no udevadm): for a staging directory and the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
UNIT = "table-controller@.service"
WEB_UNIT = "table-web@.service"  # the dealer's screen and the floor's pages, beside the daemon
RULES = "60-table-controller.rules"
USER, GROUP = "tablectl", "table-controller"
COMPILE_SKIP = r"/site-packages/[^/]+/(.+/)?tests/"  # a dependency's test suite: no bytecode for it
COPIED = ("install.sh", "install.py", "RELEASE.json", "MANIFEST.json", "systemd", "udev", "config-examples", "docs")


class Refused(Exception):
    pass


def say(msg: str) -> None:
    print(f"table-controller: {msg}", flush=True)


def run(cmd: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(cmd, check=True, env=env)


def offline_env() -> dict[str, str]:
    """pip with no configuration of the machine's (no index, no extra find-links): the wheelhouse only."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull
    return env


def table_env(args: argparse.Namespace) -> dict[str, str]:
    """The environment the unit gives the daemon: no TABLE_* override of the caller's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLE_")}
    return {**env, "TABLECTL_ETC_DIR": str(args.etc_dir), "TABLECTL_STATE_DIR": str(args.state_dir)}


def tables(args: argparse.Namespace) -> list[str]:
    return sorted(p.stem for p in args.etc_dir.glob("*.toml")) if args.etc_dir.is_dir() else []


def link(target: str, at: Path) -> None:
    """Point ``at`` to ``target`` atomically (a new link renamed over the old)."""
    tmp = at.with_name(f".{at.name}.new")
    if tmp.is_symlink() or tmp.exists():
        tmp.unlink()
    tmp.symlink_to(target)
    os.replace(tmp, at)


def release_of(path: Path) -> str | None:
    return os.readlink(path).split("/")[-1] if path.is_symlink() else None


DROPIN_HEAD = "# generated from the configuration of table "  # the first line of each table's drop-in


def check_tables(tablectl: Path, args: argparse.Namespace) -> dict[str, str]:
    """Every table's configuration checked by this version, and its drop-in: one ``check-config`` for all.

    Refused (nothing switched) when any table is refused: its problems, each naming its key, are said.
    A release from before check-config took several tables (a rollback runs the previous release's
    tablectl) checks only the last one it is given: its answer names the wrong tables, and then each
    table is checked in a process of its own, as that release's installer did."""
    names = tables(args)
    dropins = _check(tablectl, args, names) if names else {}
    if list(dropins) != names:
        dropins = {}
        for table in names:
            dropins.update(_check(tablectl, args, [table]))
    return dropins


def _check(tablectl: Path, args: argparse.Namespace, names: list[str]) -> dict[str, str]:
    """The drop-ins ``check-config --dropin`` gives for these tables, by the table each names."""
    r = subprocess.run([str(tablectl), "check-config", "--dropin", *(f"--table={t}" for t in names)],
                       env=table_env(args), capture_output=True, text=True)
    if r.returncode != 0:
        raise Refused("this version does not accept these configurations; nothing was switched:\n"
                      + (r.stderr.strip() or r.stdout.strip()))
    return {part.split(None, 1)[0]: DROPIN_HEAD + part for part in r.stdout.split(DROPIN_HEAD)[1:]}


def table_keys(tablectl: Path, args: argparse.Namespace) -> None:
    """Each table's journal key (docs/journal.md, P100), made where it has none, readable by the daemon's user
    only (mode 0600, owned by it); a key is never replaced.  Before the units restart: the daemon of a table PC
    refuses to start without its key, and never makes one itself."""
    for table in tables(args):
        r = subprocess.run([str(tablectl), "journal", "key", "--if-missing", "--table", table], env=table_env(args),
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise Refused(f"table {table}: its journal key: {r.stderr.strip() or r.stdout.strip()}")
        key = Path(r.stdout.strip())
        if not args.files_only:
            shutil.chown(key, USER, GROUP)
        key.chmod(0o600)


def write_system_files(rdir: Path, args: argparse.Namespace, dropins: dict[str, str]) -> None:
    """The unit (paths filled in), one drop-in per table (its ports and addresses), the udev rules."""
    args.systemd_dir.mkdir(parents=True, exist_ok=True)
    for name in (UNIT, WEB_UNIT):
        unit = (rdir / "systemd" / name).read_text()
        for key, value in (("@PREFIX@", args.prefix), ("@ETC_DIR@", args.etc_dir), ("@STATE_DIR@", args.state_dir)):
            unit = unit.replace(key, str(value))
        (args.systemd_dir / name).write_text(unit)
    for table, dropin in dropins.items():
        d = args.systemd_dir / f"table-controller@{table}.service.d"
        d.mkdir(parents=True, exist_ok=True)
        (d / "devices.conf").write_text(dropin)
    args.udev_dir.mkdir(parents=True, exist_ok=True)
    rules = args.udev_dir / RULES
    if rules.exists() and rules.read_bytes() != (rdir / "udev" / RULES).read_bytes():
        say(f"{rules} kept as edited here (this version's is in {rdir / 'udev' / RULES})")
    else:
        shutil.copy2(rdir / "udev" / RULES, rules)


def system_commands(args: argparse.Namespace, tablectl: Path | None = None) -> None:
    """The user and group, each table's key (``tablectl`` given: an install; a release before keys has no such
    command), the units and rules reloaded, the running units restarted."""
    if not args.files_only:
        if subprocess.run(["getent", "group", GROUP], capture_output=True).returncode != 0:
            run(["groupadd", "--system", GROUP])
        if subprocess.run(["id", "-u", USER], capture_output=True).returncode != 0:
            run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "--gid", GROUP,
                 "--groups", "dialout", USER])
    if tablectl is not None:
        table_keys(tablectl, args)
    if args.files_only:
        return
    run(["systemctl", "daemon-reload"])
    subprocess.run(["udevadm", "control", "--reload-rules"])
    subprocess.run(["udevadm", "trigger", "--subsystem-match=tty"])
    run(["systemctl", "try-restart", "table-controller@*.service", "table-web@*.service"])


def write_commands(args: argparse.Namespace) -> None:
    (args.prefix / "bin").mkdir(exist_ok=True)
    link("../current/venv/bin/tablectl", args.prefix / "bin" / "tablectl")
    options = " ".join(f"--{k.replace('_', '-')} '{getattr(args, k)}'" for k in
                       ("prefix", "etc_dir", "state_dir", "systemd_dir", "udev_dir"))
    options += " --files-only" if args.files_only else ""
    script = args.prefix / "rollback"
    script.write_text("#!/bin/sh\n# Switch back to the previous release (run again: forward again). docs/install.md\n"
                      f'exec "{args.prefix}/current/venv/bin/python" "{args.prefix}/current/install.py" '
                      f"rollback {options} \"$@\"\n")
    script.chmod(0o755)
    if not args.files_only and args.prefix != Path("/usr/local"):
        bin_link = Path("/usr/local/bin/tablectl")
        if not bin_link.exists() or bin_link.is_symlink():
            link(str(args.prefix / "bin" / "tablectl"), bin_link)


def prune(args: argparse.Namespace) -> None:
    keep = {release_of(args.prefix / "current"), release_of(args.prefix / "previous")}
    for r in (args.prefix / "releases").iterdir():
        if r.name not in keep:
            shutil.rmtree(r)


def install(args: argparse.Namespace) -> None:
    meta = json.loads((HERE / "RELEASE.json").read_text())
    release = meta["release"]
    rdir = args.prefix / "releases" / release
    current = release_of(args.prefix / "current")
    if current == release:
        say(f"{release} is already the current release")
        return
    if not (rdir / ".complete").exists():
        if rdir.exists():
            shutil.rmtree(rdir)  # a partial install that was interrupted
        rdir.mkdir(parents=True)
        try:
            for name in COPIED:
                s = HERE / name
                (shutil.copytree if s.is_dir() else shutil.copy2)(s, rdir / name)
            say(f"installing {release} into {rdir} (from the wheelhouse, no network)")
            run([args.python, "-m", "venv", "--without-pip", str(rdir / "venv")])
            (pip_wheel,) = (HERE / "wheelhouse").glob("pip-*.whl")  # pip runs from its own wheel
            run([str(rdir / "venv" / "bin" / "python"), str(pip_wheel / "pip"), "install", "--quiet", "--no-index",
                 "--no-cache-dir", "--disable-pip-version-check", "--no-compile", "--find-links",
                 str(HERE / "wheelhouse"), f"table-controller=={meta['version']}"], env=offline_env())
            # the bytecode now, as pip would: the unit may not write it (ProtectSystem=strict), and a module
            # without it is compiled at every start; but not the dependencies' own test suites, which nothing
            # imports (numpy's: a quarter of all the source); compiling is half of an install's CPU
            run([str(rdir / "venv" / "bin" / "python"), "-m", "compileall", "-q", "-x", COMPILE_SKIP,
                 str(rdir / "venv" / "lib")])
            stamp = subprocess.run([str(rdir / "venv" / "bin" / "tablectl"), "--version"], capture_output=True,
                                   text=True, check=True).stdout
            if meta["commit"] not in stamp:
                raise Refused(f"the installed tablectl says {stamp.strip()!r}, not commit {meta['commit']}")
            (rdir / ".complete").write_text(stamp)
        except BaseException:
            shutil.rmtree(rdir, ignore_errors=True)
            raise
    write_system_files(rdir, args, check_tables(rdir / "venv" / "bin" / "tablectl", args))
    if current is not None:
        link(f"releases/{current}", args.prefix / "previous")
    link(f"releases/{release}", args.prefix / "current")
    write_commands(args)
    prune(args)
    system_commands(args, rdir / "venv" / "bin" / "tablectl")
    say(f"current: {release}" + (f"; previous: {current} (roll back: {args.prefix}/rollback)" if current else ""))


def rollback(args: argparse.Namespace) -> None:
    current, previous = release_of(args.prefix / "current"), release_of(args.prefix / "previous")
    if previous is None or not (args.prefix / "releases" / previous / ".complete").exists():
        raise Refused(f"no previous release under {args.prefix} to roll back to")
    rdir = args.prefix / "releases" / previous
    write_system_files(rdir, args, check_tables(rdir / "venv" / "bin" / "tablectl", args))
    link(f"releases/{current}", args.prefix / "previous")
    link(f"releases/{previous}", args.prefix / "current")
    write_commands(args)
    system_commands(args)
    say(f"rolled back: current {previous}; previous {current} (forward again: {args.prefix}/rollback)")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="install.sh", description="Install, upgrade (install) or roll back the "
                                "table controller, without network access (docs/install.md).")
    p.add_argument("action", nargs="?", choices=["install", "rollback"], default="install",
                   help="install: this artefact's version becomes current (an upgrade keeps the one before); "
                   "rollback: the previous release becomes current again")
    p.add_argument("--prefix", type=Path, default=Path("/opt/table-controller"), help="where releases go")
    p.add_argument("--etc-dir", type=Path, default=Path("/etc/table-controller"), help="the tables' configurations")
    p.add_argument("--state-dir", type=Path, default=Path("/var/lib/table-controller"),
                   help="the journals (the unit's StateDirectory)")
    p.add_argument("--systemd-dir", type=Path, default=Path("/etc/systemd/system"), help="where the unit goes")
    p.add_argument("--udev-dir", type=Path, default=Path("/etc/udev/rules.d"), help="where the udev rules go")
    p.add_argument("--python", default=sys.executable, help="the Python the release's venv is made with")
    p.add_argument("--files-only", action="store_true", help="write the files only: no user, group, systemctl "
                   "or udevadm (a staging directory, the tests)")
    args = p.parse_args(argv)
    for k in ("prefix", "etc_dir", "state_dir", "systemd_dir", "udev_dir"):
        setattr(args, k, getattr(args, k).absolute())
    try:
        (install if args.action == "install" else rollback)(args)
    except Refused as e:
        say(str(e))
        return 2
    except subprocess.CalledProcessError as e:
        say(f"failed: {' '.join(map(str, e.cmd))} (exit {e.returncode})")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
