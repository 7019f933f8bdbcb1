"""``make dist``: the one artefact a technician carries to an offline table PC (docs/install.md).

    python deploy/build.py [--out dist] [--commit C] [--python-version 3.11 --platform manylinux2014_x86_64]

It holds a wheelhouse with the program, every dependency and pip itself (the installer runs pip
from its wheel: no pip needed on the table PC), for the target Python and platform (this
interpreter's, unless --python-version/--platform name another: then only binary wheels are
taken), the systemd unit, the udev rules, the example configurations, the install guide and the
installer (install.sh, install.py), and MANIFEST.json (every file the program installs, SHA-256: the
program verification of controller/program.py, P115).  The program's wheel is stamped with the git commit it was built
from (``tablectl --version``), built by its build backend (pyproject's [build-system]) in this
interpreter when it has the build requirements, else in an environment with them kept beside the
cache (build/build-env-*).  Building needs the package index, or the wheels already in the cache
(build/wheel-cache: the dependencies are taken from there when they are all in it).

Prints the artefact's path on its last line.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

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
_DOC = re.compile(r"\bdocs/[A-Za-z0-9_.-]+\.md\b")


def shipped() -> dict[str, str]:
    """``SHIPPED`` and every document the install guide names (docs/devices.md, ...): the technician at an
    offline table PC has no other copy of what it sends them to (issue 30)."""
    guide = (ROOT / SHIPPED["docs/install.md"]).read_text(encoding="utf-8")
    return {**SHIPPED, **{doc: doc for doc in sorted(set(_DOC.findall(guide)))}}


def git_commit() -> str:
    sys.path.insert(0, str(ROOT))
    from controller.version import commit  # the same description `tablectl --version` gives from source

    return commit()


def pip(*args: str, quiet_failure: bool = False) -> None:
    subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *args], check=True,
                   stderr=subprocess.DEVNULL if quiet_failure else None)


# the program's wheel, built by its own build backend in this process's build environment (what pip does
# without build isolation: pip's own start and its isolated environment cost more than the build itself)
BACKEND = "import importlib, sys; importlib.import_module(sys.argv[1]).build_wheel(sys.argv[2])"


def has_requirements(requires: list[str]) -> bool:
    """Whether this interpreter has every build requirement, at a version it allows (no: when
    ``packaging``, which reads them, is not here either)."""
    try:
        from packaging.requirements import Requirement
    except ImportError:
        return False
    for requirement in map(Requirement, requires):
        try:
            version = importlib.metadata.version(requirement.name)
        except importlib.metadata.PackageNotFoundError:
            return False
        if not requirement.specifier.contains(version, prereleases=True):
            return False
    return True


def build_env(cache: Path, system: dict[str, Any]) -> Path | None:
    """A python with the build requirements of ``system`` (pyproject's [build-system]): this one when it
    has them, else that of a kept environment (build/build-env-KEY, beside the wheel cache), made the
    first time; None when it cannot be made (no index, nothing cached).

    KEY names this interpreter and the requirements: a change of either makes a new one.  Made under a
    name of its own and renamed whole, so a build running at the same time sees all of it or none."""
    if has_requirements(system["requires"]):
        return Path(sys.executable)
    key = hashlib.sha256(json.dumps([sys.version, system], sort_keys=True).encode()).hexdigest()[:12]
    env = cache.parent / f"build-env-{key}"
    if (env / "bin" / "python").exists():
        return env / "bin" / "python"
    part = cache.parent / f".build-env-{key}.{os.getpid()}.part"
    shutil.rmtree(part, ignore_errors=True)
    try:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(part)], check=True)
        pip("--python", str(part / "bin" / "python"), "install", "--quiet", "--find-links", str(cache),
            *system["requires"], quiet_failure=True)
        os.replace(part, env)
    except (subprocess.CalledProcessError, OSError):
        shutil.rmtree(part, ignore_errors=True)  # (OSError: another build renamed its own first; that one serves)
    return env / "bin" / "python" if (env / "bin" / "python").exists() else None


def own_wheel(src: Path, wheelhouse: Path, cache: Path) -> None:
    """The program's wheel into the wheelhouse: by the backend in the kept build environment, or (when that
    cannot be made or fails) by pip in an isolated one, which says why if that fails too."""
    cache.mkdir(parents=True, exist_ok=True)
    system = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]
    python = build_env(cache, system)
    backend = [str(python), "-c", BACKEND, system["build-backend"], str(wheelhouse)]
    if python is not None and subprocess.run(backend, cwd=src, capture_output=True).returncode == 0:
        return
    pip("wheel", "--quiet", "--no-deps", "--wheel-dir", str(wheelhouse), str(src))


def from_cache(cache: Path, wheelhouse: Path, deps: Path, own: Path) -> bool:
    """Every dependency's wheel (and pip's) taken from the cache into deps, without the index; False when
    one is missing (an empty cache, a clean clone's: not even asked)."""
    if not any(cache.glob("*.whl")):
        return False
    try:
        pip("wheel", "--quiet", "--no-index", "--find-links", str(cache), "--find-links", str(wheelhouse),
            "--wheel-dir", str(deps), str(own), "pip", quiet_failure=True)
    except subprocess.CalledProcessError:
        return False
    return True


def dependency(wheel: Path) -> dict[str, Any]:
    """The manifest's entry of one dependency (P122): its name and version (METADATA) and its RECORD's digest,
    from the wheel itself, what the installer installs."""
    import zipfile
    from email.parser import HeaderParser

    sys.path.insert(0, str(ROOT))
    from controller import program

    with zipfile.ZipFile(wheel) as z:
        (info,) = {n.split("/", 1)[0] for n in z.namelist() if n.split("/", 1)[0].endswith(".dist-info")}
        meta = HeaderParser().parsestr(z.read(f"{info}/METADATA").decode("utf-8"))
        return program.distribution_of(meta["Name"], meta["Version"], z.read(f"{info}/RECORD").decode("utf-8"))


def write_manifest(wheel: Path, dest: Path, release: str, dependencies: list[Path] | None = None) -> None:
    """MANIFEST.json: every file the program's wheel installs under its packages, from the wheel itself (what
    is installed is exactly that), SHA-256 each, in the order controller/program.py states (P115); and each
    dependency's wheel (``dependency``; P122)."""
    import zipfile

    sys.path.insert(0, str(ROOT))
    from controller import program

    with zipfile.ZipFile(wheel) as z:
        files = {n: z.read(n) for n in z.namelist()
                 if n.split("/", 1)[0] in program.PACKAGES and not n.endswith("/") and "__pycache__" not in n}
    dest.write_text(json.dumps(program.manifest_of(files, release, [dependency(w) for w in dependencies or []]),
                               indent=1) + "\n")


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
        own_wheel(src, wheelhouse, cache)
        (own,) = wheelhouse.glob("table_controller-*.whl")
        deps = Path(tmp) / "deps"
        if python_version or platform:
            target = [f"--python-version={python_version}"] if python_version else []
            target += [f"--platform={platform}"] if platform else []
            pip("download", "--quiet", "--only-binary=:all:", "--implementation=cp", *target,
                "--dest", str(deps), "--find-links", str(wheelhouse), str(own), "pip")
        else:
            cache.mkdir(parents=True, exist_ok=True)
            if not from_cache(cache, wheelhouse, deps, own):
                pip("wheel", "--quiet", "--find-links", str(wheelhouse), "--wheel-dir", str(deps), str(own), "pip")
            for w in deps.glob("*.whl"):
                if not w.name.startswith("table_controller-") and not (cache / w.name).exists():
                    # whole or not at all: another build may be reading the cache now (two may run at once)
                    part = cache / f".{w.name}.{os.getpid()}.part"
                    shutil.copy2(w, part)
                    os.replace(part, cache / w.name)
        for w in deps.glob("*.whl"):
            if not (wheelhouse / w.name).exists():
                shutil.copy2(w, wheelhouse / w.name)
        # every wheel the installer installs into the release's venv: all but the program's (its files are
        # listed one by one) and pip's (run from its wheel, never installed: deploy/install.py)
        installed = sorted(w for w in wheelhouse.glob("*.whl") if not w.name.startswith(("table_controller-", "pip-")))
        write_manifest(own, stage / "MANIFEST.json", f"{version}-{commit}", installed)
        for dest, source in shipped().items():
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
