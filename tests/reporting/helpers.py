"""Hand-built results documents for the reporting tests: small, explicit, independent of the scenario suite."""

from __future__ import annotations

from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
# The spec is not copied into the repository; CI checks it out beside it (../shared/spec).
SPEC_FILE = REPO_ROOT.parent / "shared" / "spec" / "004-python-function-calling-loop.md"


def check(check_id: str, verdict: str = "pass", message: str = "", turn: int | None = None,
          **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"id": check_id, "verdict": verdict, "message": message}
    if turn is not None:
        data["turn"] = turn
    return data | extra


def run(scenario: str, rows: list[str], *, impl: str = "reference", mode: str = "non-streaming",
        verdict: str = "pass", version: str = "0.1.0", checks: list[dict[str, Any]] | None = None,
        reason: str = "", section: str = "normal", provider: str | None = None) -> dict[str, Any]:
    """One result entry shaped like `loop-conformance run --json` writes it (without a provider, as files written
    before providers existed are, unless one is given)."""
    if checks is None:
        checks = [] if verdict == "n/a" else [check("completes"), check("exactly-once")]
    return {
        "scenario": scenario, "title": f"Title of {scenario}", "spec_rows": rows, "section": section,
        "implementation": impl, "version": version, "mode": mode, "verdict": verdict, "reason": reason,
        "path": f"scenarios/{section}/{scenario.split('.')[-1]}.yaml", "line": 1, "log": [], "checks": checks,
    } | ({} if provider is None else {"provider": provider})


def both_modes(scenario: str, rows: list[str], **kwargs: Any) -> list[dict[str, Any]]:
    return [run(scenario, rows, mode=mode, **kwargs) for mode in ("non-streaming", "streaming")]


def document(*runs: dict[str, Any] | list[dict[str, Any]], filtered: bool = False) -> dict[str, Any]:
    flat: list[dict[str, Any]] = []
    for item in runs:
        flat.extend(item if isinstance(item, list) else [item])
    return {"schema_version": 1, "filtered": filtered, "results": flat}
