"""The ``[protection]`` section: the gaming day and its shifts of the hold against theoretical (issue 28).

``gaming_day_starts`` ("HH:MM", UTC: the journal's times) is when each gaming day begins; ``shift_hours`` the
length of each shift from it, a divisor of 24 so that the shifts tile the day.  controller/protection/hold.py
(``Calendar``) and the report read them; docs/protection.md, docs/install.md.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from controller.config.values import STRICT


class ProtectionConfig(BaseModel):
    model_config = STRICT

    #: the gaming day begins at this time of day, UTC ("06:00"), 00:00 to 23:59
    gaming_day_starts: Annotated[str, Field(pattern=r"^([01][0-9]|2[0-3]):[0-5][0-9]$")] = "06:00"
    #: each shift's length in hours from the day's start: the shifts tile the day (24 / shift_hours shifts)
    shift_hours: Literal[1, 2, 3, 4, 6, 8, 12, 24] = 8

    @property
    def day_starts_minutes(self) -> int:
        hours, minutes = self.gaming_day_starts.split(":")
        return int(hours) * 60 + int(minutes)
