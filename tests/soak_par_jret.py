"""make soak: the JHE and RET exact base-game sheets recomputed whole and compared with the stored ones.

Every figure must be equal (exact fractions); only the time taken and the cores may differ.  About
ten minutes of two cores for each JHE sheet, two for each RET sheet (docs/analysis.md).
"""

from __future__ import annotations

import pytest

from games.par import _jret as j
from games.par import jhe, ret


@pytest.mark.parametrize("strategy", ["optimal", "posted"])
@pytest.mark.parametrize("module", [jhe, ret], ids=["jhe", "ret"])
def test_recomputed_sheet_is_the_stored_one(module: object, strategy: str) -> None:
    fresh = module.compute("A", strategy)  # type: ignore[attr-defined]
    stored = j.load(module.GAME, "A", strategy)  # type: ignore[attr-defined]
    fresh.pop("computed")
    stored.pop("computed")
    assert fresh == stored
