"""The machine-readable results file: ``{"results": [...]}`` with one entry per scenario × implementation × mode ×
provider."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.reporting.wording import display_path
from harness.results import ScenarioResult

SCHEMA_VERSION = 1


def results_document(results: Sequence[ScenarioResult], *, filtered: bool,
                     references: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The results file: each run's scenario path as reports give it (`display_path`), never a machine's, and
    under `references` the `module:factory` each implementation asked for that way was named by (its reproduce
    commands name it so)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "filtered": filtered,
        **({"references": dict(sorted(references.items()))} if references else {}),
        "results": [result.to_json() | {"path": display_path(result.path)} for result in results],
    }


def write_json(path: Path, results: Sequence[ScenarioResult], *, filtered: bool,
               references: Mapping[str, str] | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    document = results_document(results, filtered=filtered, references=references)
    path.write_text(json.dumps(document, indent=2, sort_keys=True, default=str) + "\n", encoding="utf-8")
