"""High Card Flush's exact base-game sheets recomputed whole (make soak; issue 27, docs/analysis.md).

Both stored sheets are recomputed from every player hand (a few seconds of CPU) and compared field by
field, the time taken aside; the posted strategy's exact figure must lie inside the 95 % interval of
a simulation of the game's own settlement playing games.strategy.hcf_raise.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from games.par import hcf
from games.simulation import Spec, simulate


@pytest.mark.parametrize("strategy", hcf.STRATEGIES)
def test_sheet_recomputed_whole(strategy: str) -> None:
    stored = json.loads(hcf.data_path(strategy).read_text())
    fresh = json.loads(json.dumps(hcf.compute(None, strategy)))
    for sheet in (stored, fresh):
        sheet["computed"].pop("seconds")
    assert fresh == stored


def test_posted_exact_inside_a_simulation() -> None:
    exact = Fraction(json.loads(hcf.data_path("posted").read_text())["expected_net_per_ante"])
    tally = simulate(Spec("high_card_flush", "base", None), 2_000_000, 27, None, 2)
    low, high = tally.ci95()
    assert low <= exact <= high, (float(exact), low, high)
