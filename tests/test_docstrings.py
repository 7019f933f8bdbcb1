"""What is written for people names only what exists, and a module's docstring is short (issue #24).

A module docstring says what the module is and why in at most ``MODULE_DOCSTRING_LINES`` lines; the longer
explanations live in docs/ (docs/architecture.md maps the controller's subpackages).  Every docstring and
comment of the packages, and docs/*.md and the README, may name a project module (``controller.round.machine``)
and one of its top-level names (``controller.round.machine.RoundController``) and that class's members, a file
(``controller/service/session.py``, ``session.py``), or a project name in backticks (``RoundController``,
``table_open``): each must be found in the tree as it is, not as it was before a move.
"""

from __future__ import annotations

import ast
import builtins
import io
import re
import tokenize
from collections.abc import Iterator
from fnmatch import fnmatch
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOP = ("games", "controller", "drivers", "simulators", "web", "demo", "deploy")
#: the longest module docstring, in lines: what the module is and why; the rest belongs in docs/
MODULE_DOCSTRING_LINES = 25
#: directories that are not the project's tree (built, installed or written at run time)
NOT_THE_TREE = {".git", ".venv", "var", "build", "__pycache__", "node_modules", ".mypy_cache", ".ruff_cache",
                ".pytest_cache", ".hypothesis"}


# -- the tree: modules, their names, files -----------------------------------------------------------------

def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def modules() -> dict[str, Path]:
    """Every project module by dotted name (packages by their ``__init__``; deploy/ is a directory of scripts)."""
    found = {module_name(p): p for top in TOP for p in sorted((ROOT / top).rglob("*.py"))}
    found.update({top: ROOT / top for top in TOP if top not in found})
    return found


def class_members(node: ast.ClassDef) -> set[str]:
    """What a class defines: its methods, nested classes, class attributes and fields, and what its methods
    assign to ``self``."""
    out: set[str] = set()
    for item in node.body:
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(item.name)
        elif isinstance(item, ast.Assign):
            out |= {t.id for t in item.targets if isinstance(t, ast.Name)}
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            out.add(item.target.id)
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store) and isinstance(sub.value, ast.Name) \
                and sub.value.id in ("self", "cls"):
            out.add(sub.attr)
    return out


@cache
def module_names(name: str) -> tuple[frozenset[str], dict[str, frozenset[str]]]:
    """A module's top-level names (defined or imported) and the members of each class it defines."""
    path = modules()[name]
    if path.is_dir():
        return frozenset(), {}
    tree = ast.parse(path.read_text(), str(path))
    top: set[str] = set()
    classes: dict[str, frozenset[str]] = {}
    for node in tree.body:
        for sub in [node] + (node.body + node.orelse if isinstance(node, ast.If | ast.Try) else []):
            if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef):
                top.add(sub.name)
            elif isinstance(sub, ast.ClassDef):
                top.add(sub.name)
                classes[sub.name] = frozenset(class_members(sub))
            elif isinstance(sub, ast.Assign):
                top |= {t.id for t in sub.targets if isinstance(t, ast.Name)}
            elif isinstance(sub, ast.AnnAssign) and isinstance(sub.target, ast.Name):
                top.add(sub.target.id)
            elif isinstance(sub, ast.Import | ast.ImportFrom):
                top |= {(a.asname or a.name).split(".")[0] for a in sub.names}
    return frozenset(top), classes


@cache
def tree_files() -> tuple[frozenset[str], frozenset[str]]:
    """(every file's path from the root, every file's name) in the project's tree."""
    paths: set[str] = set()
    stack = [ROOT]
    while stack:
        for entry in stack.pop().iterdir():
            if entry.name in NOT_THE_TREE or entry.name.endswith(".egg-info"):
                continue
            if entry.is_dir():
                stack.append(entry)
            else:
                paths.add(entry.relative_to(ROOT).as_posix())
    return frozenset(paths), frozenset(p.rpartition("/")[2] for p in paths)


@cache
def project_identifiers() -> frozenset[str]:
    """Every identifier the project's code (packages and tests) names, and every identifier-like string it
    holds (event kinds, configuration keys, status fields), and every key of the example configurations."""
    out: set[str] = set()
    sources = [p for top in (*TOP, "tests") for p in (ROOT / top).rglob("*.py") if p != Path(__file__).resolve()]
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Name):
                out.add(node.id)
            elif isinstance(node, ast.Attribute):
                out.add(node.attr)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                out.add(node.name)
            elif isinstance(node, ast.arg):
                out.add(node.arg)
            elif isinstance(node, ast.keyword) and node.arg:
                out.add(node.arg)
            elif isinstance(node, ast.alias):
                out |= set((node.asname or node.name).split("."))
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                out |= set(re.findall(r"[A-Za-z_]\w*", node.value))
    for path in (ROOT / "config").rglob("*.toml"):
        out |= set(re.findall(r"^\s*\[*([\w.-]+?)\]*\s*=?", path.read_text(), re.M))
        out |= set(re.findall(r"[A-Za-z_]\w*", path.read_text()))
    return frozenset(out)


# -- what may be named, and whether it exists -------------------------------------------------------------

#: ``controller.round.machine.RoundController``: a dotted name under a project package (not ``aiohttp.web.x``)
DOTTED = re.compile(rf"(?<![\w./-])(?:{'|'.join(TOP)})(?:\.[A-Za-z_]\w*)+")
#: ``controller/service/session.py``: a relative path of a file the project keeps (not /etc/..., not ../shared)
FILE_PATH = re.compile(r"(?<![\w./~$-])(?:[\w-]+/)+[\w-]+(?:\.[\w-]+)*\.(?:py|md|toml|sql|sh|js|html|css|json|jsonl"
                       r"|service|rules|png)\b(?![\w/-])")
#: ``round_layout.py``: a bare file name of the project's kinds (a Python module, a document)
FILE_NAME = re.compile(r"(?<![\w./~$*-])[\w-]+\.(?:py|md)\b(?![\w/.-])")
#: a name in backticks, ``Name``, ``Name.member``, ``snake_name`` or ``name()``
BACKTICKED = re.compile(r"(?<!`)(``?)([A-Za-z_][\w.]*?)(?:\(\))?\1(?!`)")
#: a template's stand-in (``drivers/NAME.py``, ``games/xyz.py``, ``seat_N``): names nothing yet, by design
PLACEHOLDER = re.compile(r"(?<![A-Za-z])(?:NAME|DEVICE|N|XYZ|xyz)(?![a-z])")
#: what looks like a project name and is not one, and why (kept small and explicit)
NOT_NAMES = {
    "web.event_to_screen": "a figure of make bench (README: benchmarks), not a module",
    "controller/_build.py": "written by make dist into the copy it builds the wheel from (controller/version.py)",
}
#: the contracts kept beside the project (../shared): not this tree, and make test does not read them
BESIDE = ("shared/",)
#: ``config_*.py``: a pattern of file names, which must match one
FILE_GLOB = re.compile(r"(?<![\w./~$-])[\w/-]*\*[\w-]*\.(?:py|md)\b")
#: file suffixes that make ``demo.py`` a file, not a module's name
SUFFIXES = {"py", "md", "toml", "sql", "sh", "js", "html", "css", "json", "jsonl", "service", "png", "txt", "log"}


def dotted_problem(name: str) -> str | None:
    """Why ``name`` (``pkg.module.Name.member``) names nothing in the tree, or None when it does."""
    parts = name.split(".")
    if parts[-1] in SUFFIXES:
        return None  # a file (``demo/run.py`` is FILE_PATH's), written with dots: ``deploy.sh`` is not a module
    mods = modules()
    cut = max(i for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in mods)
    module, rest = ".".join(parts[:cut]), parts[cut:]
    if not rest:
        return None
    top, classes = module_names(module)
    if rest[0] not in top:
        return f"no module {module}.{rest[0]} and {module} defines no {rest[0]!r}"
    if len(rest) > 1 and rest[0] in classes and rest[1] not in classes[rest[0]]:
        return f"{module}.{rest[0]} has no member {rest[1]!r}"
    return None


def path_problem(path: str, written_in: Path) -> str | None:
    """Why a relative file path names no file of the tree: found from the root, beside the file that names
    it, or as the tail of a project file's path (``service/session.py``)."""
    paths, _ = tree_files()
    beside = (written_in.parent / path).resolve()
    if path in paths or beside.is_file() or any(p.endswith("/" + path) for p in paths):
        return None
    return f"no file {path}"


@cache
def defined_anywhere() -> dict[str, frozenset[str]]:
    """Each class or top-level name the packages define (or import) -> the members its classes define."""
    out: dict[str, set[str]] = {}
    for mod in modules():
        top, classes = module_names(mod)
        for name in top:
            out.setdefault(name, set()).update(classes.get(name, ()))
    return {k: frozenset(v) for k, v in out.items()}


#: names in backticks that are Python's or a library's, not the project's (CamelCase ones are checked)
EXTERNAL = {
    "Decimal", "Fraction", "Path", "Protocol", "TypedDict", "NamedTuple", "Enum", "StrEnum", "IntEnum", "Literal",
    "TYPE_CHECKING", "Any", "Callable", "Awaitable", "Mapping", "Sequence", "Iterator", "Iterable", "Counter",
    "NaN", "Infinity", "AppKey", "RequestKey", "ROUND_HALF_UP", "ROUND_HALF_EVEN", "ROUND_DOWN", "ROUND_FLOOR",
}


def backticked_problem(name: str, in_code: bool = True) -> str | None:
    """Why a backticked project-looking name names nothing: a CamelCase name no project module defines (nor
    Python's nor a library's), a member such a class does not have, or a ``snake_case`` name (in the
    code's own comments and docstrings, any lower-case name) the project's code never says.  Other words in
    backticks (commands, constants, values) are not checked."""
    if name.rpartition(".")[2] in SUFFIXES:
        return None  # a file: the file checks'
    first, _, member = name.partition(".")
    if first in TOP or first in ("self", "cls"):
        return None  # the dotted check's (project modules), or a local
    defined = defined_anywhere()
    camel = re.fullmatch(r"_?[A-Z][a-z]+[A-Z0-9_]?\w*", first) and len(first) > 2
    if camel and first not in EXTERNAL and not hasattr(builtins, first):
        if first not in defined:
            return f"no module defines {first!r}"
        member = member.partition(".")[0]
        if member and defined[first] and member not in defined[first] and member not in project_identifiers():
            return f"{first} has no member {member!r}"
        return None
    words = [w for w in name.split(".") if w.isidentifier() and ("_" in w.strip("_") or in_code and w.islower())]
    missing = [w for w in words if w not in project_identifiers()]
    return f"the code names no {missing[0]!r}" if missing else None


# -- what is written for people ---------------------------------------------------------------------------

def package_files() -> list[Path]:
    return [p for top in TOP for p in sorted((ROOT / top).rglob("*.py"))]


def comments_and_docstrings(path: Path) -> Iterator[tuple[int, str]]:
    """(first line, text) of each comment (a run of comment lines read as one) and each docstring."""
    source = path.read_text()
    runs: list[list[object]] = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            text = tok.string.lstrip("#:").strip()
            if runs and runs[-1][2] == tok.start[0] - 1:
                runs[-1][1] = f"{runs[-1][1]} {text}"
                runs[-1][2] = tok.start[0]
            else:
                runs.append([tok.start[0], text, tok.start[0]])
    for line, text, _ in runs:
        yield int(str(line)), str(text)
    for node in ast.walk(ast.parse(source, str(path))):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
                    first.value.value, str):
                yield first.lineno, first.value.value


def written_for_people() -> Iterator[tuple[Path, int, str]]:
    """(file, line, text): every comment and docstring of the packages, and the docs and README whole."""
    for path in package_files():
        for line, text in comments_and_docstrings(path):
            yield path, line, text
    for path in [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]:
        yield path, 1, path.read_text()


def problems(text: str, written_in: Path) -> Iterator[tuple[int, str, str]]:
    """(offset, what is named, why it names nothing) for each name in ``text`` the tree does not hold."""
    found: list[tuple[int, str, str | None]] = []
    found += [(m.start(), m.group(), dotted_problem(m.group())) for m in DOTTED.finditer(text)]
    found += [(m.start(), m.group(), path_problem(m.group(), written_in)) for m in FILE_PATH.finditer(text)
              if not m.group().startswith(BESIDE)]
    found += [(m.start(), m.group(), None if m.group() in tree_files()[1] else f"no file named {m.group()}")
              for m in FILE_NAME.finditer(text)]
    found += [(m.start(), m.group(), None if any(fnmatch(p, m.group()) or fnmatch(p.rpartition("/")[2], m.group())
                                                 for p in tree_files()[0]) else f"no file matches {m.group()}")
              for m in FILE_GLOB.finditer(text)]
    found += [(m.start(), m.group(2), backticked_problem(m.group(2), in_code=written_in.suffix == ".py"))
              for m in BACKTICKED.finditer(text)]
    for at, what, why in found:
        if why and what not in NOT_NAMES and not PLACEHOLDER.search(what):
            yield at, what, why


def test_every_name_written_for_people_exists():
    """Docstrings, comments, docs/*.md and the README: every project module, file and backticked project
    name they give is in the tree (``python -m pytest tests/test_docstrings.py`` lists the rest).  First the
    check itself finds names that do not exist and passes names that do (``MISSING``, ``EXISTING``)."""
    assert [text for text in MISSING if not list(problems(text, ROOT / "controller" / "daemon.py"))] == []
    assert [text for text in EXISTING if list(problems(text, ROOT / "controller" / "daemon.py"))] == []
    found = [f"{path.relative_to(ROOT)}:{line + text.count(chr(10), 0, at)}: {what}: {why}"
             for path, line, text in written_for_people()
             for at, what, why in problems(text, path)]
    assert found == []


def module_docstring_lines(source: str) -> int:
    """How many lines a module's docstring spans (0: none), its first and last lines included."""
    doc = ast.get_docstring(ast.parse(source), clean=False)
    return len(doc.strip().splitlines()) if doc else 0


def test_every_module_docstring_is_a_few_lines():
    """What the module is and why, in at most ``MODULE_DOCSTRING_LINES`` lines; the rest is in docs/."""
    long = {str(path.relative_to(ROOT)): n for path in package_files()
            if (n := module_docstring_lines(path.read_text())) > MODULE_DOCSTRING_LINES}
    assert long == {}


# -- the checks find what they are for ---------------------------------------------------------------------

# checked by test_every_name_written_for_people_exists before the tree, not by tests of their own: each test
# builds the tree's index once on its worker (four seconds of CPU), and xdist hands tests to any worker
MISSING = ["split from controller.round_layout", "see ``controller.link``", "controller.round.machine.NoSuchThing",
           "controller.round.machine.RoundController.no_such_member", "the daemon (controller/demo.py)",
           "in ``devicecli.py``", "``Parts`` holds them", "``RoundController.no_such_member``",
           "``journal_segments_x``", "web.nowhere", "docs/nowhere.md"]
EXISTING = ["controller.round.machine", "controller.round.machine.RoundController.open", "``RoundController``",
            "controller/service/session.py", "service/session.py", "``session.py``", "docs/journal.md",
            "aiohttp.web.Application", "``Decimal``", "``table_open``", "/etc/table-controller/table.toml",
            "../shared/contracts.json", "``make run``", "``tablectl analyze``", "games.registry.GAMES"]


@pytest.mark.parametrize("lines", [1, MODULE_DOCSTRING_LINES, MODULE_DOCSTRING_LINES + 1])
def test_a_module_docstring_is_counted_line_by_line(lines):
    body = "\n".join(f"line {i}" for i in range(1, lines + 1))
    source = f'"""{body}\n"""\n\nfrom __future__ import annotations\n\nX = 1  # a comment is not the docstring\n'
    assert module_docstring_lines(source) == lines
    assert module_docstring_lines("X = 1\n") == 0
