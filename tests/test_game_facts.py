"""Every fact a game declares is read (issue: facts declared and never read, a fact written twice).

A game's rules beyond its settlement are declared once, on its ``Game`` (``games/game.py``, the
game modules) and in the shapes of ``games/facts.py``; the controller reads them there and keeps no
table of its own.  A fact declared and read nowhere is a fact the table does not obey, while the
code that should read it says the same thing its own way: this finds each such fact by name.
"""

from __future__ import annotations

import ast
import re
from dataclasses import fields
from pathlib import Path

from games.facts import DealingFacts, TableClauses

ROOT = Path(__file__).resolve().parent.parent
READERS = ("games", "controller", "drivers", "simulators", "web", "demo")


def declared() -> dict[str, str]:
    """fact -> where it is declared: ``Game``'s class attributes, ``DealingFacts``' and ``TableClauses``' fields."""
    game = ast.parse((ROOT / "games" / "game.py").read_text())
    (cls,) = [n for n in game.body if isinstance(n, ast.ClassDef) and n.name == "Game"]
    out = {n.target.id: "Game" for n in cls.body if isinstance(n, ast.AnnAssign)
           and isinstance(n.target, ast.Name) and "ClassVar" in ast.unparse(n.annotation)}
    out |= {f.name: "DealingFacts" for f in fields(DealingFacts)}
    out |= {f.name: "TableClauses" for f in fields(TableClauses)}
    return out


def read_names(root: Path, tops: tuple[str, ...]) -> set[str]:
    """Every attribute read (``game.face_up_voids_at``) and every string that names one (``cite("recut")``),
    outside games/facts.py, whose ``Cited`` lists every clause by name."""
    names: set[str] = set()
    for top in tops:
        for path in (root / top).rglob("*.py"):
            strings = path != root / "games" / "facts.py"
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                    names.add(node.attr)
                elif strings and isinstance(node, ast.Constant) and isinstance(node.value, str):
                    names.update(re.findall(r"^\w+$", node.value))
    return names


def test_every_fact_a_game_declares_is_read() -> None:
    read = read_names(ROOT, READERS)
    unread = sorted(f"{where}.{name}" for name, where in declared().items() if name not in read)
    assert unread == []


def test_an_unread_fact_is_found(tmp_path: Path) -> None:
    """The check can fail: an attribute only assigned, or only declared, is not read."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text("class G:\n    x: int = 1\n    y = 2\ng = G()\ng.z = 3\nprint(g.y, 'w')\n")
    assert read_names(tmp_path, ("pkg",)) >= {"y", "w"}
    assert not {"x", "z"} & read_names(tmp_path, ("pkg",))
