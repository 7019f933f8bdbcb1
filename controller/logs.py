"""Logging: structlog, JSON when not on a terminal, readable lines on one; ``table`` bound by the daemon."""

from __future__ import annotations

import logging
import sys

import structlog


def configure(fmt: str = "auto", level: int = logging.INFO) -> None:
    """``fmt``: json | console | auto (console on a terminal, JSON otherwise)."""
    console = fmt == "console" or (fmt == "auto" and sys.stderr.isatty())
    renderer = structlog.dev.ConsoleRenderer() if console else structlog.processors.JSONRenderer()
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=False,
    )
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
