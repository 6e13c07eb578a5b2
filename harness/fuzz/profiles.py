"""How long a fuzz search runs, and where Hypothesis keeps its examples: plain values, importable without
Hypothesis, so the `fuzz` command's options are registered (and its --help complete) when the extra is missing."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

DEFAULT_DATABASE = Path(".hypothesis") / "loop-conformance-fuzz"


@dataclass(frozen=True)
class Profile:
    name: str
    max_examples: int  # per search: generated conversations, and stream splits
    max_findings: int
    why: str


PROFILES: dict[str, Profile] = {
    "short": Profile("short", 8, 2, "the test suite's: a fixed seed, a few seconds per implementation"),
    "long": Profile("long", 300, 8, "on demand: a few minutes per implementation"),
}
