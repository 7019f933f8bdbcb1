"""Every citation the table gives at run time names its game, in the game's own numbering (README: citations);
so does every citation written for people (comments, docstrings, the docs).

The sources: each game's clause data (``Game.clauses``, read through ``Game.cite``; its chapter 13 map
and the clauses that keep wagers alive; its dealing, decisions, payment and reveal clauses), the
irregularity menu's clauses (``controller.irregularities.clause``), and every string the code says at
run time (what the dealer is told, a refusal, a status's ``why``, a journal event's ``clause``): no
clause number without its game.  The comments and docstrings of games/, controller/, drivers/,
simulators/ and web/, the dealer's screen's script and page, docs/*.md and the README: no chapter
without its game either.
"""

from __future__ import annotations

import ast
import asyncio
import io
import re
import tokenize
from dataclasses import fields
from decimal import Decimal
from pathlib import Path
from typing import get_args

import pytest

from controller.irregularities import CLAUSES, clause, menu
from controller.round.machine import Phase, RoundController, TableSetup
from games.facts import Cited, TableClauses
from games.registry import GAMES

ROOT = Path(__file__).resolve().parent.parent


def unprefixed(text: str) -> list[str]:
    """A chapter with no game ("ch.5 §E" where "UTH ch.5 §E" is meant): ``citation_problems`` below."""
    return [hit for _, hit in citation_problems(text)]


def own(text: str, short: str) -> bool:
    """A game's own citation: its prefix first (or a ruling, where the rules print nothing), every chapter
    named with a game."""
    return (text.startswith(f"{short} ch.") or text.startswith("RULINGS R")) and not unprefixed(text)


def game_data(game) -> list[tuple[str, str]]:
    """(where, citation) for every clause the game's module declares."""
    out: list[tuple[str, str]] = []
    for f in fields(TableClauses):
        value = getattr(game.clauses, f.name)
        for key, text in (value.items() if isinstance(value, dict) else [("", value)]):
            if text:  # idle_clears_shoe: only where the game has the step
                out.append((f"clauses.{f.name}{'.' + key if key else ''}", text))
    out += [(f"irregularities.{w}", c) for w, c in game.irregularities.items()]
    out += [(f"kept_alive.{w}", k.clause) for w, k in game.kept_alive.items()]
    out += [(f"streets.{s.name}", s.clause) for s in game.streets]
    out += [(f"payment_passes[{i}]", p.clause) for i, p in enumerate(game.payment_passes)]
    out += [(f"reveals[{i}]", r.clause) for i, r in enumerate(game.reveals)]
    d = game.dealing
    out += [(f"dealing.{n}", getattr(d, n)) for n in ("bonus_clause", "community_clause", "dealer_clause",
                                                     "held_clause", "seats_clause") if getattr(d, n)]
    return out


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_clause_a_game_declares_is_cited_with_that_game(name):
    game = GAMES[name]
    wrong = [(where, text) for where, text in game_data(game) if not own(text, game.short)]
    assert wrong == []


def test_cite_names_every_clause_field():
    """``Game.cite`` takes each one-citation field of ``TableClauses``, and nothing else."""
    single = {f.name for f in fields(TableClauses) if f.type == "str"}
    assert set(get_args(Cited)) == single


@pytest.mark.parametrize("name", sorted(GAMES))
def test_cite_joins_the_games_own_citations(name):
    game = GAMES[name]
    assert game.cite("one_deck", "inspection") == f"{game.clauses.one_deck}, {game.clauses.inspection}"


def test_a_clause_the_game_does_not_print_is_not_cited():
    with pytest.raises(ValueError, match="idle_clears_shoe"):
        GAMES["ultimate_texas_holdem"].cite("idle_clears_shoe")  # UTH ch.5 §H removes no cards from the shoe


# The general chapters, lettered as each game prints them (the rules' texts): where they differ, the
# dealer is told the game's own clause.
LETTERED = {
    "recut": {"UTH": "UTH ch.5 §G", "JHE": "JHE ch.5 §G", "HCF": "HCF ch.5 §F", "RET": "RET ch.5 §E"},
    "cut": {"UTH": "UTH ch.5 §F", "JHE": "JHE ch.5 §F", "HCF": "HCF ch.5 §E", "RET": "RET ch.5 §D"},
    "deck_count": {"UTH": "UTH ch.5 §E", "JHE": "JHE ch.5 §E", "HCF": "HCF ch.5 §C", "RET": "RET ch.5 §B"},
    "idle": {"UTH": "UTH ch.5 §H", "JHE": "JHE ch.5 §H", "HCF": "HCF ch.5 §G", "RET": "RET ch.5 §F"},
    "one_deck": {"UTH": "UTH ch.3 §A(1)", "JHE": "JHE ch.3 §A(1)", "HCF": "HCF ch.3 §A", "RET": "RET ch.3 §A"},
    "lockout": {"UTH": "UTH ch.8 §C(2)", "JHE": "JHE ch.8 §C(2)", "HCF": "HCF ch.8 §C(1)", "RET": "RET ch.8 §C(2)"},
    "progressive_count": {"UTH": "UTH ch.8 §C(3)", "JHE": "JHE ch.8 §C(3)", "HCF": "HCF ch.8 §C(2)(b)",
                          "RET": "RET ch.8 §C(3)"},
    "progressive_needs_ante": {"UTH": "UTH ch.7 §F(3)(a)", "JHE": "JHE ch.7 §F(3)(a)", "HCF": "HCF ch.7 §F(4)(a)",
                               "RET": "RET ch.7 §E(2)(c)"},
}


@pytest.mark.parametrize("what", sorted(LETTERED))
def test_the_general_chapters_are_cited_as_each_game_letters_them(what):
    assert {g.short: g.cite(what) for g in GAMES.values()} == LETTERED[what]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_irregularity_menu_cites_the_games_own_clause(name):
    game = GAMES[name]
    shown = set()
    for phase in Phase:
        for option in menu(game, phase.value, has_dealer=bool(game.dealer_cards),
                           devices=["shoe", "shuffler", "progressive"]):
            shown.add(option.what.split(":")[0])
    assert shown
    wrong = [(w, clause(w, game.short)) for w in sorted(shown | set(CLAUSES))
             if not own(clause(w, game.short), game.short)]
    assert wrong == []


def test_a_round_refuses_with_the_games_own_clause():
    """The progressive chips against the wagers accepted: HCF ch.8 §C(2)(b) (UTH numbers it §C(3));
    a progressive wager before the Ante: RET ch.7 §E(2)(c)."""

    class Journal:
        def record(self, event, round_id=None):
            return 1

        def record_many(self, events, round_id=None):
            return [1] * len(events)

    async def answers():
        progressive = {"unit": Decimal(1), "meters": {}, "reset": {}}
        ret = await RoundController.open("r1", TableSetup("run_em_twice", {}, progressive), Journal())
        before_ante = ret.can_announce_no_more_bets(progressive_seats=[2])
        hcf = await RoundController.open("r1", TableSetup("high_card_flush", {}, progressive), Journal())
        await hcf.place_wager(2, "ante", Decimal(5))
        await hcf.announce_no_more_bets(progressive_seats=[2])
        return before_ante, hcf.can_confirm_progressive_count(0)

    before_ante, count = asyncio.run(answers())
    assert before_ante.code == "progressive" and "(RET ch.7 §E(2)(c))" in before_ante.reason
    assert count.code == "count" and "(HCF ch.8 §C(2)(b))" in count.reason


def runtime_strings(path: Path) -> list[tuple[int, str]]:
    """The string constants of a module (f-strings' literal parts too) that are not docstrings."""
    tree = ast.parse(path.read_text(), str(path))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


def test_no_string_said_at_run_time_cites_a_chapter_without_its_game():
    """What the dealer is told, the refusals, the status's ``why``, the journal's ``clause``, the
    configuration's problems: a chapter is named with its game, and by ``Game.cite`` where it is the
    game's (a call site that writes ``f"{game.short} ch.8"`` leaves " ch.8" unprefixed here)."""
    found = [f"{path.relative_to(ROOT)}:{line}: {hit!r}"
             for package in ("games", "controller", "web")
             for path in sorted((ROOT / package).rglob("*.py"))
             for line, text in runtime_strings(path)
             for hit in unprefixed(text)]
    assert found == []


def test_a_journal_written_before_the_prefix_still_loads_and_recalls(tmp_path):
    """Journals written before the citations named their game hold ``"clause": "ch.5 §E"``: they load,
    the table's life is rebuilt from them, and each event recalls its clause as written (history is
    not rewritten); events journaled now carry the game."""
    from controller.config.table import load_config
    from controller.journal.store import Journal
    from controller.table import TableLife

    cfg = load_config(ROOT / "config" / "ultimate_texas_holdem.toml")
    old = [("device_out_of_order", {"device": "shoe", "clause": "ch.13 §J"}),
           ("deck_expired", {"hours": "8.500", "limit": "8", "clause": "ch.3 §C"}),
           ("deck_removed", {"deck": "A", "count": 51, "clause": "ch.5 §E"})]
    new = [("deck_removed", {"deck": "B", "count": 53, "clause": cfg.game_rules.cite("deck_count")})]
    with Journal(tmp_path / "t.journal") as journal:
        for kind, data in old + new:
            journal.append(None, kind, data)
        life = TableLife(cfg, journal)
        recalled = [(e.kind, e.typed.clause) for e in journal.events(None) if e.kind != "steps_required"]
    assert life.out_of_order == {"shoe"} and life.decks_in_use == []
    assert recalled == [("device_out_of_order", "ch.13 §J"), ("deck_expired", "ch.3 §C"),
                        ("deck_removed", "ch.5 §E"), ("deck_removed", "UTH ch.5 §E")]


# -- comments, docstrings and docs: the same grammar (README: citations) -----------------------------

#: the prefixes a citation may carry: the games' own short names
SHORTS = "|".join(sorted(g.short for g in GAMES.values()))
#: where a chapter may be cited under another prefix, and why (kept small and explicit)
OTHER_PREFIXES = {
    "docs/new-game.md": ("XYZ", "the checklist's stand-in for a fifth game's short name"),
}
CHAPTER_NUMBER = re.compile(r"\bch\.\s?\d+")
#: a game's prefix on a section with no chapter ("HCF §G" where "HCF ch.5 §G" is meant)
NO_CHAPTER = r"\b(?:{})\s+§"
#: a chapter by word, tied to no game ("the remedies of chapter 13"); "chapter 13 of each game", "its
#: chapter 13", "each game's chapter 11", "UTH chapter 8" say whose
WORDED = re.compile(r"\b[Cc]hapters?\s+(?>\d+(?:\s*(?:-|–|,|and)\s*\d+)*)(?!\s+of\s+(?:each|every|one|the)\s+game)")
WORDED_OWNER = r"(?:\bits|\bgame's|\bgames'|\b(?:{}))\s+$"


def citation_problems(text: str, prefixes: str = SHORTS) -> list[tuple[int, str]]:
    """Each chapter in ``text`` cited without its game: (its offset, a short excerpt).  ``UTH ch.8-ch.10`` is one
    range: its second chapter is the first's game's."""
    own_game = re.compile(rf"\b(?:{prefixes})\s+$")
    range_end = re.compile(rf"\b(?:{prefixes})\s+ch\.\s?\d+-$")
    owner = re.compile(WORDED_OWNER.format(prefixes))
    found = []
    for m in CHAPTER_NUMBER.finditer(text):
        before = text[max(0, m.start() - 16):m.start()]
        if not (own_game.search(before) or range_end.search(before)):
            found.append(m)
    found += re.finditer(NO_CHAPTER.format(prefixes), text)
    found += [m for m in WORDED.finditer(text) if not owner.search(text[max(0, m.start() - 16):m.start()])]
    return [(m.start(), " ".join(text[max(0, m.start() - 30):m.end() + 10].split())) for m in found]


def comments_and_docstrings(path: Path) -> list[tuple[int, str]]:
    """(first line, text) of each docstring and each run of comment lines of a module: a citation wrapped
    over two comment lines is read as one."""
    source = path.read_text()
    out: list[tuple[int, str]] = []
    last = -2
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            text = tok.string.lstrip("#:").strip()
            if tok.start[0] == last + 1 and out:
                out[-1] = (out[-1][0], out[-1][1] + " " + text)
            else:
                out.append((tok.start[0], text))
            last = tok.start[0]
    for node in ast.walk(ast.parse(source, str(path))):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
                    first.value.value, str):
                out.append((first.lineno, first.value.value))
    return out


def written_for_people() -> list[tuple[str, int, str]]:
    """(file, line, text): the comments and docstrings of the packages, the dealer's screen's own files,
    the docs and the README."""
    out = [(str(path.relative_to(ROOT)), line, text)
           for package in ("games", "controller", "drivers", "simulators", "web")
           for path in sorted((ROOT / package).rglob("*.py"))
           for line, text in comments_and_docstrings(path)]
    pages = sorted((ROOT / "web").rglob("*.js")) + sorted((ROOT / "web").rglob("*.html"))
    pages += sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
    out += [(str(path.relative_to(ROOT)), 1, path.read_text()) for path in pages]
    return out


def test_no_comment_docstring_or_doc_cites_a_chapter_without_its_game():
    """``UTH ch.5 §E`` (and each game that letters it otherwise, ``HCF ch.5 §C``), never ``ch.5 §E`` nor
    ``HCF §C``; a whole chapter by word only with whose it is (``chapter 13 of each game``)."""
    found = []
    for where, line, text in written_for_people():
        other = OTHER_PREFIXES.get(where)
        prefixes = SHORTS + (f"|{other[0]}" if other else "")
        found += [f"{where}:{line + text.count(chr(10), 0, at)}: {hit}"
                  for at, hit in citation_problems(text, prefixes)]
    assert found == []


@pytest.mark.parametrize("text", [
    "counts 52 cards (ch.5 §E)", "idle (UTH ch.5 §H, HCF §G)", "the remedies of chapter 13", "UTH ch.8 and\nch.9",
    "chapters 8 and 9 deal no box", "Chapter 13: the remedies"])
def test_a_chapter_without_its_game_is_found(text):
    assert citation_problems(text)


@pytest.mark.parametrize("text", [
    "UTH ch.5 §E, HCF ch.5 §C, RET ch.5 §B", "the stub count (UTH ch.8-ch.10)", "UTH\n    ch.13 §J",
    "chapters 8 and 9 of each game", "each game's chapter 13", "its chapter 13 clause map", "P40, R7a"])
def test_a_chapter_with_its_game_is_not_found(text):
    assert citation_problems(text) == []
