"""The project's examples against the settle contract kept beside it (../shared/contracts/settle.md).

``make contracts`` runs this (not ``make test``, which is the project's own and passes in a clone with
nothing beside it): the contract's worked example is read from the contract itself, so that a change of
the contract cannot go unnoticed.  ``CONTRACTS`` names the contracts' directory (default
``../shared/contracts``); run without it, the check fails rather than passing on nothing.
"""

from __future__ import annotations

import io
import json
import os
import re
from decimal import Decimal as D
from pathlib import Path

from controller.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
CONTRACTS = Path(os.environ.get("CONTRACTS") or ROOT.parent / "shared" / "contracts")


def contract_example() -> tuple[str, str]:
    """The contract's first two JSON blocks: the input and the output of its worked example."""
    blocks = re.findall(r"```json\n(.*?)```", (CONTRACTS / "settle.md").read_text(), re.S)
    return blocks[0], blocks[1]


def cli(text: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["settle"], stdin=io.StringIO(text), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_the_project_example_is_the_contract_example():
    """docs/examples/settle-uth.json is what the README runs: it must be the contract's input."""
    example_in, _ = contract_example()
    assert json.loads((ROOT / "docs/examples/settle-uth.json").read_text()) == json.loads(example_in)


def test_contract_worked_example_through_the_command_line():
    example_in, example_out = contract_example()
    code, out, err = cli(example_in)
    assert code == 0, err
    got = json.loads(out, parse_float=D)
    assert got == json.loads(example_out, parse_float=D)
    assert [s["seat"] for s in got["seats"]] == [3, 1]  # list order is part of the contract (R1)
