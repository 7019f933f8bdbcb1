"""The link's faults at length (`make soak`; tests/test_link_faults.py runs 8 of them in `make test`).

Not collected by `make test` (its name is not test_*)."""

from __future__ import annotations

from test_link_faults import faults, link_url  # noqa: F401  (the fixture, by its name)


def test_sixty_random_faults_lose_or_double_no_cent(tmp_path, monkeypatch, link_url):  # noqa: F811
    """60 faults of the server (paused, stopped at once, a backend killed) at random moments among rounds:
    zero lost or doubled cents, the table answering after every one (make test: 8)."""
    faults(60, 2026, tmp_path, monkeypatch, link_url)
