"""The machine-readable results file: ``{"results": [...]}`` with one entry per scenario × implementation × mode ×
provider."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.results import ScenarioResult

SCHEMA_VERSION = 1


def results_document(results: Sequence[ScenarioResult], *, filtered: bool) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "filtered": filtered,
        "results": [result.to_json() for result in results],
    }


def write_json(path: Path, results: Sequence[ScenarioResult], *, filtered: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    document = results_document(results, filtered=filtered)
    path.write_text(json.dumps(document, indent=2, sort_keys=True, default=str) + "\n", encoding="utf-8")
