"""The daemon's log files (controller/logs.py ``LogFiles``, P116) and the configuration that keeps them: rolled
over each UTC day and at a size, removed only once their days are past, within a cap that says when it cuts
one short; ``[logs]`` refuses fewer than 90 days.  A fake clock stands for the days."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller import logs
from controller.config.table import ConfigError, load_config
from daemon_harness import ROOT

DAY = 86400.0
START = 1_800_000_000.0  # 2027-01-15, 08:00 UTC


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


@pytest.mark.requirement("AGCO log retention")
def test_files_roll_over_daily_and_are_removed_only_after_their_days(tmp_path):
    clock = Clock()
    files = logs.LogFiles(tmp_path / "t.logs.d", keep_days=90, clock=clock)
    for day in range(100):
        clock.now = START + day * DAY
        files.write(json.dumps({"event": "round closed", "day": day}))
    rolled = files.rolled()
    # a file a day, rolled at the next day's first line; removed 90 days after that: at day 99 those rolled at
    # days 1-9 (days 0-8 in them) are gone, day 9's (rolled at day 10) stays: every line kept at least 90 days
    assert len(rolled) == 90 and lines(rolled[0]) == [{"event": "round closed", "day": 9}]
    assert lines(files.path) == [{"event": "round closed", "day": 99}]
    clock.now += 3600  # the same day: nothing rolled, nothing removed
    files.write("{}")
    assert files.rolled() == rolled


@pytest.mark.requirement("AGCO log retention")
def test_a_size_rolls_over_and_the_cap_removes_the_oldest_saying_so(tmp_path):
    clock = Clock()
    files = logs.LogFiles(tmp_path / "d", keep_days=90, max_bytes=3000, file_bytes=1000, clock=clock)
    for n in range(40):
        clock.now += 1
        files.write(json.dumps({"event": "x", "n": n, "pad": "." * 80}))
    rolled = files.rolled()
    assert all(p.stat().st_size <= 1000 for p in [*rolled, files.path])
    assert sum(p.stat().st_size for p in rolled) <= 3000 and len(rolled) >= 2
    said = [x for p in [*rolled, files.path] for x in lines(p) if x.get("event", "").startswith("log file removed")]
    assert said and all(x["keep_days"] == 90 and x["level"] == "warning" for x in said)
    kept = [x["n"] for p in [*rolled, files.path] for x in lines(p) if "n" in x]
    assert kept == list(range(kept[0], 40))  # only the oldest went


def test_the_daemon_writes_its_lines_to_the_files(tmp_path, monkeypatch):
    import structlog

    before = structlog.get_config()
    try:
        logs.configure("json", files=logs.LogFiles(tmp_path / "d"))
        structlog.get_logger("table").warning("device offline", device="shoe", table="hcf-01")
    finally:
        structlog.configure(**before)
    (line,) = lines(tmp_path / "d" / "daemon.log")
    assert (line["event"], line["device"], line["level"]) == ("device offline", "shoe", "warning")


@pytest.mark.parametrize(("section", "key"), [("keep_days = 30", "logs.keep_days"), ("max_mb = 2", "logs.max_mb"),
                                              ("file_mb = 64\nmax_mb = 32", "logs")])
def test_the_logs_section_refuses_too_few_days_or_a_file_past_the_cap(tmp_path, no_table_env, section, key):
    path = tmp_path / "t.toml"
    path.write_text((ROOT / "config" / "high_card_flush.toml").read_text() + f"\n[logs]\n{section}\n")
    with pytest.raises(ConfigError) as e:
        load_config(path)
    assert any(p.startswith(key) for p in e.value.problems), e.value.problems
