"""No import cycle in the project (issue: import cycles in config/, round/, service/ and games/).

The graph is read from the source with ``ast``, not from what Python happens to import: every import
statement of games/, controller/, drivers/, simulators/, web/, demo/ and deploy/ counts, those under
``if TYPE_CHECKING:`` and inside functions too, since a cycle there is still two parts that need each
other (where they must, the lower one declares a small Protocol the upper one satisfies).
``from pkg import name`` is an edge to ``pkg.name`` where that is a module, else to ``pkg``'s
``__init__``; the parent packages Python imports on the way are not edges (every module would otherwise
be in a cycle with its package's ``__init__``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOP = ("games", "controller", "drivers", "simulators", "web", "demo", "deploy")


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph(root: Path, tops: Iterable[str]) -> dict[str, dict[str, list[tuple[str, int]]]]:
    """module -> {imported project module -> [(file, line), ...]}, for every module under ``tops``."""
    files = {module_name(p, root): p for top in tops for p in sorted((root / top).rglob("*.py"))}
    graph: dict[str, dict[str, list[tuple[str, int]]]] = {m: {} for m in files}

    def known(name: str) -> str | None:
        """The project module ``name`` is, or the innermost project module it lies in (``pkg.attr``)."""
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name or None

    for mod, path in files.items():
        is_package = path.name == "__init__.py"
        where = str(path.relative_to(root))
        for node in ast.walk(ast.parse(path.read_text(), filename=where)):
            targets: list[str | None] = []
            if isinstance(node, ast.Import):
                targets = [known(alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from the package this module is in (or is)
                    anchor = mod.split(".")
                    if not is_package:
                        anchor.pop()
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join(anchor + ([base] if base else []))
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.append(sub if sub in files else known(base))
            for target in filter(None, targets):
                places = graph[mod].setdefault(target, [])
                if (where, node.lineno) not in places:  # one statement naming several things: one place
                    places.append((where, node.lineno))
    return graph


def cycles(graph: Mapping[str, Mapping[str, object]]) -> list[list[str]]:
    """The strongly connected components of more than one module, and the modules that import
    themselves (Tarjan's algorithm, iterative: no recursion limit to meet)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1 or node in graph[node]:
                        found.append(sorted(component))
    return sorted(found)


def describe(graph: Mapping[str, Mapping[str, list[tuple[str, int]]]], component: list[str]) -> str:
    """A cycle, and every import inside it with where it is written: what to cut."""
    inside = set(component)
    lines = [f"cycle of {len(component)}: {', '.join(component)}"]
    for mod in component:
        for target, places in sorted(graph[mod].items()):
            if target in inside:
                lines.append(f"    {mod} -> {target}  ({', '.join(f'{f}:{n}' for f, n in places)})")
    return "\n".join(lines)


def write(root: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_project_has_no_import_cycle() -> None:
    graph = import_graph(ROOT, TOP)
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n".join(describe(graph, c) for c in found)


def test_the_graph_counts_type_checking_and_function_imports(tmp_path: Path) -> None:
    """The check can fail: a cycle closed only under TYPE_CHECKING, or only inside a function, is found."""
    write(tmp_path, {
        "p/__init__.py": "",
        "p/low.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from p.high import High\n",
        "p/high.py": "from p.low import thing\n",
        "q/__init__.py": "",
        "q/a.py": "def f():\n    import q.b\n",
        "q/b.py": "from q import a\n",
        "r/__init__.py": "",
        "r/itself.py": "from r.itself import x\n",
    })
    graph = import_graph(tmp_path, ("p", "q", "r"))
    assert cycles(graph) == [["p.high", "p.low"], ["q.a", "q.b"], ["r.itself"]]
    assert graph["p.low"]["p.high"] == [("p/low.py", 3)]


def test_the_graph_edges_go_where_python_binds_the_name(tmp_path: Path) -> None:
    """``from pkg import sub`` reaches the submodule, ``from pkg import name`` the package's __init__, and a
    module's own package is not an edge: a package whose __init__ re-exports its modules is no cycle."""
    write(tmp_path, {
        "p/__init__.py": "from p.one import ONE\n",
        "p/one.py": "ONE = 1\n",
        "p/two.py": "from p import one\nfrom . import ONE\nimport p.one\n",
        "p/three.py": "from p import ONE\n",
    })
    graph = import_graph(tmp_path, ("p",))
    assert graph["p.two"] == {"p.one": [("p/two.py", 1), ("p/two.py", 3)], "p": [("p/two.py", 2)]}
    assert graph["p.three"] == {"p": [("p/three.py", 1)]}
    assert graph["p.one"] == {}
    assert cycles(graph) == []
