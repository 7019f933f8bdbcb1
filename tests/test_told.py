"""The status's ``told``: what the dealer was told, as data (controller.service.told)."""

from __future__ import annotations

import json

import pytest

from controller.irregularities import clause
from controller.service.told import KINDS, amend, told
from games.registry import GAMES


def test_every_key_is_there_whatever_is_given() -> None:
    keys = {"kind", "cause", "clauses", "seats", "remove_deck", "wagers", "device", "deck", "counts", "also"}
    assert set(told("info")) == keys
    full = told("irregularity", cause="stub_count", clauses=["UTH ch.8 §E-§G"], seats=[3, 1],
                remove_deck=True, wagers={"trips", "ante"}, device="shoe", deck="A", counts={"deck": 51})
    assert set(full) == keys
    assert full["seats"] == [1, 3] and full["wagers"] == ["ante", "trips"]  # sorted: equal sets, equal fields
    assert full["remove_deck"] is True and full["counts"] == {"deck": 51}
    assert json.loads(json.dumps(full)) == full  # it goes into the status file as it is


def test_the_clauses_are_the_citations_the_game_gives_in_order() -> None:
    # UTH ch.8 §E-§G at UTH, the game's own numbering elsewhere: what the sentence cites, unchanged
    for game in GAMES.values():
        where = clause("stub_count", game.short)
        t = told("irregularity", cause="card_of_another_deck", clauses=("P40", where))
        assert t["clauses"] == ["P40", where] and where.startswith(game.short)
        assert told("recut", clauses=[game.cite("recut")])["clauses"] == [game.cite("recut")]


@pytest.mark.parametrize("bad", [
    {"kind": "whatever"},                                        # not a kind of sentence
    {"kind": "refused", "cause": "Does Nothing"},                # a cause is a code, not words
    {"kind": "irregularity", "clauses": [""]},                   # an empty citation
    {"kind": "irregularity", "clauses": ["As seen twice"]},      # a card: the status is public
    {"kind": "irregularity", "device": "shoe", "deck": "Td"},
    {"kind": "voided", "wagers": ["Kh"]},
])
def test_what_is_not_data_about_a_sentence_is_refused(bad: dict) -> None:
    with pytest.raises(ValueError):
        told(**bad)


def test_an_amended_sentence_keeps_what_the_first_said_and_adds_to_it() -> None:
    first = told("wagers_closed", seats=[2], counts={"players": 1})
    t = amend(first, "lockout_lost", clauses=["UTH ch.8 §C(2)"])
    assert t == {**first, "clauses": ["UTH ch.8 §C(2)"], "also": ["lockout_lost"]}
    assert amend(None, "journal_writable")["kind"] == "info"


def test_the_kinds_are_codes() -> None:
    assert all(k.isidentifier() and k == k.lower() for k in KINDS)


def test_a_refusal_carries_its_code_and_the_citations_of_its_reason() -> None:
    from controller.round.state import no
    from controller.service.refused import Refused, ask

    e = Refused("a recut is required by a floor supervisor: turn the key (RET ch.5 §E)", "key_needed",
                clauses=["RET ch.5 §E"])
    assert e.code == "key_needed" and e.clauses == ("RET ch.5 §E",)
    t = told("refused", cause=e.code, clauses=e.clauses)
    assert all(c in str(e) for c in t["clauses"])
    with pytest.raises(Refused) as asked:  # the round's own answer: its code, no citation list
        ask(no("not_now", "not now"))
    assert asked.value.code == "not_now" and asked.value.clauses == ()
