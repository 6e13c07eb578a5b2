"""Where in a scenario file a failed check points: the failing expectation's key, else its turn, else the file.

Results carry the scenario's path and the line of each turn; the line and column of an `expect:` key are read back
from the file by the scenario format (harness/scenario/positions.py), so a failure of `expect.model-calls` on turn 2
points at the `model_calls:` key under that turn's `expect:`, the line a user edits.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from harness.results import CheckResult, ScenarioResult
from harness.scenario.positions import expectation_position

EXPECT_PREFIX = "expect."


@dataclass(frozen=True)
class Location:
    path: str  # as the user would type it: relative to the working directory when under it
    line: int  # 1-based
    column: int  # 1-based

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


def check_location(result: ScenarioResult, check: CheckResult | None) -> Location:
    """The position the failure of `check` (on `result`'s run) is best fixed at."""
    path = display_path(result.path)
    fallback = Location(path, max(result.line, 1), 1)
    if check is None or not check.turn:
        return fallback
    key = check.id.removeprefix(EXPECT_PREFIX).replace("-", "_") if check.id.startswith(EXPECT_PREFIX) else None
    found = expectation_position(result.path, check.turn - 1, key)
    if found is not None:
        return Location(path, found.line, found.column)
    turn_line = result.turn_lines[check.turn - 1] if check.turn <= len(result.turn_lines) else 0
    return Location(path, turn_line, 1) if turn_line else fallback


def display_path(path: str) -> str:
    """`path` relative to the working directory when it lies under it (what an editor and GitHub resolve)."""
    if not path:
        return "<unknown>"
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return path
    return path if relative.startswith("..") else relative
