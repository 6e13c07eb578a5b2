"""The framework log records of one turn, shown with a failure: some behaviour (an input a loop ignores, a warning
it logs instead of raising) is visible only there. One capture for every adapter that reads its framework's logs."""

from __future__ import annotations

import logging
from collections.abc import Generator
from contextlib import contextmanager


class LogCapture(logging.Handler):
    """Keeps each record at `level` or above as one line, into `lines` (a list the caller holds, or its own)."""

    def __init__(self, level: int = logging.WARNING, lines: list[str] | None = None) -> None:
        super().__init__(level)
        self.lines: list[str] = [] if lines is None else lines

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.levelname} {record.name}: {record.getMessage()}")


@contextmanager
def captured_logs(*names: str, level: int = logging.WARNING, lines: list[str] | None = None,
                  logger_level: int | None = None) -> Generator[LogCapture]:
    """Records of the loggers `names` while the block runs. Their own levels are left as they are, unless
    `logger_level` is given: a framework whose loggers default to dropping what a failure should show has them
    lowered to it for the block, and put back after."""
    loggers = [logging.getLogger(name) for name in names]
    handler = LogCapture(level, lines)
    previous = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        if logger_level is not None:
            logger.setLevel(logger_level)
    try:
        yield handler
    finally:
        for logger, before in zip(loggers, previous, strict=True):
            logger.removeHandler(handler)
            if logger_level is not None:
                logger.setLevel(before)
