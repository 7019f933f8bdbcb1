"""``make dist``: the one artefact a technician carries to an offline table PC (docs/install.md).

    python deploy/build.py [--out dist] [--commit C] [--python-version 3.11 --platform manylinux2014_x86_64]

It holds a wheelhouse with the program, every dependency and pip itself (the installer runs pip
from its wheel: no pip needed on the table PC), for the target Python and platform (this
interpreter's, unless --python-version/--platform name another: then only binary wheels are
taken), the systemd unit, the udev rules, the example configurations, the install guide and the
installer (install.sh, install.py).  The program's wheel is stamped with the git commit it was built
from (``tablectl --version``).  Building needs the package index, or the wheels already in the
cache (build/wheel-cache: the dependencies are taken from there when they are all in it).

Prints the artefact's path on its last line.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("games", "controller", "drivers", "simulators", "web")
SHIPPED = {  # artefact path: source path
    "install.sh": "deploy/install.sh",
    "install.py": "deploy/install.py",
    "systemd": "systemd",
    "udev": "udev",
    "config-examples": "config/examples",
    "docs/install.md": "docs/install.md",
}


def git_commit() -> str:
    sys.path.insert(0, str(ROOT))
    from controller.version import commit  # the same description `tablectl --version` gives from source

    return commit()


def pip(*args: str, quiet_failure: bool = False) -> None:
    subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *args], check=True,
                   stderr=subprocess.DEVNULL if quiet_failure else None)


def build(out: Path, commit: str, cache: Path, python_version: str | None, platform: str | None) -> Path:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    version = meta["version"]
    if python_version or platform:
        tag = f"cp{(python_version or '').replace('.', '')}-{platform}"
    else:
        tag = f"cp{sys.version_info.major}{sys.version_info.minor}-{sysconfig.get_platform().replace('-', '_')}"
    name = f"table-controller-{version}-{commit}-{tag}"
    with tempfile.TemporaryDirectory(prefix="table-controller-dist-") as tmp:
        src, stage = Path(tmp) / "src", Path(tmp) / name
        src.mkdir()
        for f in ("pyproject.toml", "README.md"):
            shutil.copy2(ROOT / f, src / f)
        for pkg in PACKAGES:
            shutil.copytree(ROOT / pkg, src / pkg, ignore=shutil.ignore_patterns("__pycache__"))
        # the build stamp (a stale one from the tree is overwritten; games/paytables/_build.py is code)
        (src / "controller" / "_build.py").write_text(f'"""Written by make dist."""\nCOMMIT = {commit!r}\n')
        wheelhouse = stage / "wheelhouse"
        wheelhouse.mkdir(parents=True)
        pip("wheel", "--quiet", "--no-deps", "--wheel-dir", str(wheelhouse), str(src))
        (own,) = wheelhouse.glob("table_controller-*.whl")
        deps = Path(tmp) / "deps"
        if python_version or platform:
            target = [f"--python-version={python_version}"] if python_version else []
            target += [f"--platform={platform}"] if platform else []
            pip("download", "--quiet", "--only-binary=:all:", "--implementation=cp", *target,
                "--dest", str(deps), "--find-links", str(wheelhouse), str(own), "pip")
        else:
            cache.mkdir(parents=True, exist_ok=True)
            try:  # every dependency already in the cache: no index needed
                pip("wheel", "--quiet", "--no-index", "--find-links", str(cache), "--find-links", str(wheelhouse),
                    "--wheel-dir", str(deps), str(own), "pip", quiet_failure=True)
            except subprocess.CalledProcessError:
                pip("wheel", "--quiet", "--find-links", str(wheelhouse), "--wheel-dir", str(deps), str(own), "pip")
            for w in deps.glob("*.whl"):
                if not w.name.startswith("table_controller-") and not (cache / w.name).exists():
                    # whole or not at all: another build may be reading the cache now (the tests build two at once)
                    part = cache / f".{w.name}.{os.getpid()}.part"
                    shutil.copy2(w, part)
                    os.replace(part, cache / w.name)
        for w in deps.glob("*.whl"):
            if not (wheelhouse / w.name).exists():
                shutil.copy2(w, wheelhouse / w.name)
        for dest, source in SHIPPED.items():
            s, d = ROOT / source, stage / dest
            d.parent.mkdir(parents=True, exist_ok=True)
            (shutil.copytree if s.is_dir() else shutil.copy2)(s, d)
        (stage / "RELEASE.json").write_text(json.dumps({
            "name": "table-controller", "version": version, "commit": commit, "release": f"{version}-{commit}",
            "target": tag, "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }, indent=2) + "\n")
        out.mkdir(parents=True, exist_ok=True)
        artefact = out / f"{name}.tar.gz"
        with tarfile.open(artefact, "w:gz") as tar:
            tar.add(stage, arcname=name)
    return artefact


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="deploy/build.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=ROOT / "dist", help="where the artefact goes (default dist/)")
    p.add_argument("--commit", help="the commit to stamp (default: git describe of this tree; for a build "
                   "from a source copy without git)")
    p.add_argument("--cache", type=Path, default=ROOT / "build" / "wheel-cache",
                   help="dependency wheels kept between builds (default build/wheel-cache)")
    p.add_argument("--python-version", help="the table PC's Python (e.g. 3.11), when not this interpreter's")
    p.add_argument("--platform", help="the table PC's platform tag (e.g. manylinux2014_x86_64), when not this one")
    args = p.parse_args(argv)
    started = time.monotonic()
    artefact = build(args.out, args.commit or git_commit(), args.cache, args.python_version, args.platform)
    print(f"built in {time.monotonic() - started:.0f} s:", file=sys.stderr)
    print(artefact)
    return 0


if __name__ == "__main__":
    sys.exit(main())
