"""Reviewed equivalent or unreachable mutants (``baselines/equivalent-mutants.yaml``): left out of the score, each
with the reviewer's reason. An entry names the mutant's id and its line; when the line no longer matches (the
source changed and occurrences moved) the entry is stale and the mutant counts again."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import cast

from harness.data_files import load_yaml_file
from harness.errors import HarnessError

DEFAULT_EQUIVALENTS = Path("baselines/equivalent-mutants.yaml")


class EquivalentsError(HarnessError):
    """The reviewed-equivalents file cannot be read or an entry lacks a field."""


@dataclass(frozen=True)
class Equivalent:
    implementation: str
    mutant: str
    line: int
    reason: str


def load_equivalents(path: Path | None) -> tuple[Equivalent, ...]:
    if path is None or not path.exists():
        return ()
    data = load_yaml_file(path, EquivalentsError, "an equivalent-mutants file").data
    entries = cast(dict[str, object], data).get("equivalent_mutants", []) if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise EquivalentsError(f"{path}: expected a mapping with an 'equivalent_mutants' list")
    found: list[Equivalent] = []
    for number, entry in enumerate(cast(list[object], entries), start=1):
        fields = cast(dict[str, object], entry) if isinstance(entry, dict) else {}
        implementation, mutant, line, reason = (fields.get(k) for k in ("implementation", "mutant", "line", "reason"))
        if not (isinstance(implementation, str) and isinstance(mutant, str) and isinstance(line, int)
                and isinstance(reason, str) and reason.strip()):
            raise EquivalentsError(f"{path}: entry {number} needs implementation, mutant, line (a number) and a "
                                   "non-empty reason")
        found.append(Equivalent(implementation, mutant, line, reason.strip()))
    return tuple(found)
