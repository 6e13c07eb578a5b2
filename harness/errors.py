"""Errors the harness reports. All share the root `HarnessError`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


class HarnessError(Exception):
    """Root of every error the harness raises on purpose."""


@dataclass(frozen=True)
class ScenarioProblem:
    """One mistake in a scenario file, located like a compiler diagnostic."""

    path: Path
    line: int  # 1-based
    column: int  # 1-based
    code: str
    message: str
    hint: str | None = None

    def render(self, source: str | None = None) -> str:
        lines = [f"{self.path}:{self.line}:{self.column}: error[{self.code}]: {self.message}"]
        if source is not None:
            text = source.splitlines()
            for number in (self.line - 1, self.line):
                if 1 <= number <= len(text):
                    marker = ">" if number == self.line else " "
                    lines.append(f"{marker}{number:5d} | {_excerpt(text[number - 1], self.column)}")
        if self.hint:
            lines.append(f"hint: {self.hint}")
        return "\n".join(lines)


def _excerpt(line: str, column: int, width: int = 160) -> str:
    """At most `width` characters of a source line, around the column the problem is at."""
    if len(line) <= width:
        return line
    start = max(0, min(column - 1 - width // 2, len(line) - width))
    return ("…" if start else "") + line[start:start + width] + ("…" if start + width < len(line) else "")


class ScenarioFileError(HarnessError):
    """A scenario file cannot be used; carries every problem found in it."""

    def __init__(self, path: Path, problems: Sequence[ScenarioProblem], source: str | None = None) -> None:
        self.path = path
        self.problems = tuple(sorted(problems, key=lambda p: (p.line, p.column)))
        self.source = source
        super().__init__(self.render())

    def render(self) -> str:
        return "\n".join(problem.render(self.source) for problem in self.problems)


class UnknownImplementationError(HarnessError):
    """An implementation name that no installed adapter provides."""
