"""Every journal write in the product goes through a declared event type (``controller.events``).

Read from the source, not run: each call of ``record``/``record_many`` passes an event object, never a
kind as a string; nothing outside the journal package calls the journal's untyped ``append``/``append_many``;
and every declared type is written somewhere, or is listed below as read only (rows older programs wrote).
"""

from __future__ import annotations

import ast
from pathlib import Path

from controller import events as ev

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("controller", "web", "demo")
# the journal itself: ``append``/``append_many`` are its untyped storage, under ``record``/``record_many``
JOURNAL = ROOT / "controller" / "journal"

#: declared types that this program reads but no longer writes (kept so that old journals read as typed)
READ_ONLY: frozenset[type[ev.JournalEvent]] = frozenset()  # every declared event is written


def sources() -> list[tuple[Path, ast.Module]]:
    out = []
    for top in PRODUCT:
        for path in sorted((ROOT / top).rglob("*.py")):
            out.append((path, ast.parse(path.read_text(encoding="utf-8"), str(path))))
    return out


def _is_kind_as_text(node: ast.expr) -> bool:
    """A kind written as text: a string literal, an f-string, or a constant named in capitals (``audit.LOGIN``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) or isinstance(node, ast.JoinedStr):
        return True
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return name.isupper()


def test_no_call_site_passes_a_kind_as_a_string():
    found = []
    for path, tree in sources():
        inside_journal = path.is_relative_to(JOURNAL)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            name, args = node.func.attr, node.args
            if name in ("record", "record_many") and args and _is_kind_as_text(args[0]):
                found.append((where, name))
            # list.append takes one argument; the journal's untyped append takes (round_id, kind, data)
            elif not inside_journal and (name == "append_many" or name == "append" and len(args) >= 2):
                found.append((where, name))
    assert found == []


def test_the_scan_finds_a_string_kind():
    """The scan above can fail: the forms it refuses are found in a sample."""
    sample = ast.parse('life.record("deck_dealt", {})\nj.record(audit.LOGIN, "x")\nj.record(ev.TableIdle())')
    calls = [n for n in ast.walk(sample) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "record"]
    assert sorted(_is_kind_as_text(c.args[0]) for c in calls) == [False, True, True]


def constructed() -> set[str]:
    """The names of the classes the product constructs (``ev.X(...)``, ``events.X(...)``, ``X(...)``)."""
    names = set()
    for path, tree in sources():
        if path == ROOT / "controller" / "events.py":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                f = node.func
                names.add(f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else "")
    return names


def test_every_declared_event_type_is_written_or_listed_as_read_only():
    made = constructed()
    declared = set(ev.EVENTS.values())
    assert sorted(c.__name__ for c in declared - READ_ONLY if c.__name__ not in made) == []
    assert sorted(c.__name__ for c in READ_ONLY if c.__name__ in made) == []  # written after all: not read only
    assert READ_ONLY <= declared
