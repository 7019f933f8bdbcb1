"""The daemon's parts name their collaborators (controller.service): each is given, when it is built, the parts
it calls, and reaches no other -- no bag of every part, no part found through the session, no import cycle.

Read from the source (``ast``), and from a daemon built on the shipped configuration: a part that starts
reaching another some other way, or stops using one it is given, fails here."""

from __future__ import annotations

import ast
import inspect
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

from controller.config.table import load_config

ROOT = Path(__file__).resolve().parent.parent
SERVICE = ROOT / "controller" / "service"
MODULES = {p.stem: ast.parse(p.read_text(), str(p)) for p in sorted(SERVICE.glob("*.py")) if p.stem != "__init__"}
SHARED = {"session", "told", "refused", "faults"}  # what every part may use: the table's context, what is said, a
# refusal, a device fault's episode


def service_imports(tree: ast.Module) -> set[str]:
    """The controller.service modules ``tree`` imports, wherever (at run time or for the type checker)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("controller.service."):
            found.add(node.module.removeprefix("controller.service."))
        elif isinstance(node, ast.Import):
            found |= {a.name.removeprefix("controller.service.") for a in node.names
                      if a.name.startswith("controller.service.")}
    return found


def classes() -> dict[str, str]:
    """Each class defined in controller/service, by name: its module."""
    return {node.name: module for module, tree in MODULES.items() for node in tree.body
            if isinstance(node, ast.ClassDef)}


def parts() -> dict[str, ast.ClassDef]:
    """The parts: the classes built on the session (their constructor's first argument is ``s: Session``)."""
    found = {}
    for tree in MODULES.values():
        for node in tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            init = next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
            if init is not None and len(init.args.args) > 1 and ast.unparse(init.args.args[1].annotation) == "Session":
                found[node.name] = node
    return found


def given(part: ast.ClassDef) -> dict[str, str]:
    """The collaborators a part's constructor takes: parameter name -> its annotation."""
    init = next(f for f in part.body if isinstance(f, ast.FunctionDef) and f.name == "__init__")
    params = init.args.args[2:] + init.args.kwonlyargs
    return {a.arg: ast.unparse(a.annotation) for a in params if a.annotation is not None}


def test_the_parts_are_found():
    assert {"Devices", "ProgressiveSystem", "WagerLockout", "Life", "Wagers", "Deal", "Settling", "Remedies",
            "Decisions", "Panel", "Status"} <= set(parts())


def test_no_bag_of_parts():
    """No ``Parts``, no ``parts`` attribute anywhere in the service or the daemon: each part holds its own."""
    sources = {**MODULES, "daemon": ast.parse((ROOT / "controller" / "daemon.py").read_text())}
    for module, tree in sources.items():
        for node in ast.walk(tree):
            assert not (isinstance(node, ast.Attribute) and node.attr == "parts"), (module, node.lineno)
            assert not (isinstance(node, ast.Name | ast.ClassDef) and getattr(node, "id", getattr(node, "name", ""))
                        == "Parts"), module


@pytest.mark.parametrize("name", sorted(parts()))
def test_a_part_imports_only_the_parts_it_is_given(name):
    """A part's module imports another part's module only for a part its constructor takes (or what that
    module declares beside it: ``NOT_ANSWERING``, ``Found``, ``SeatSkip``)."""
    part, where = parts()[name], classes()
    module = where[name]
    allowed = SHARED | {where[annotation] for annotation in given(part).values() if annotation in where}
    assert service_imports(MODULES[module]) <= allowed, (module, service_imports(MODULES[module]) - allowed)


@pytest.mark.parametrize("name", sorted(parts()))
def test_a_part_uses_every_collaborator_it_is_given(name):
    """Each collaborator of the constructor is read somewhere in the class (not only stored)."""
    part = parts()[name]
    read = {node.attr for node in ast.walk(part) if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)}
    read |= {node.id for f in part.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"
             for node in ast.walk(f) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    unused = set(given(part)) - read
    assert not unused, (name, unused)


def test_no_import_cycle_in_the_service():
    graph = {module: service_imports(tree) for module, tree in MODULES.items()}
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as e:
        pytest.fail(f"import cycle: {e.args[1]}")
    assert order.index("session") < order.index("devices") < order.index("panel")


def test_the_daemon_gives_each_part_the_daemons_own_parts(tmp_path, monkeypatch):
    """Built on a shipped table: each collaborator a part holds is the one part of its kind the daemon built."""
    from controller.daemon import TableDaemon

    monkeypatch.setenv("TABLE_JOURNAL", str(tmp_path / "t.journal"))
    daemon = TableDaemon(load_config(ROOT / "config" / "ultimate_texas_holdem.toml"))
    try:
        built = {type(v): v for v in vars(daemon).values()
                 if type(v).__module__.startswith("controller.service.") and v is not daemon.session}
        assert {cls.__name__ for cls in built} == set(parts()), "one of each part, held by the daemon"
        for part in built.values():
            for param in inspect.signature(type(part)).parameters.values():
                wanted = next((cls for cls in built if cls.__name__ == param.annotation), None)
                if wanted is not None:
                    assert getattr(part, param.name) is built[wanted], (type(part).__name__, param.name)
    finally:
        daemon.journal.close()
