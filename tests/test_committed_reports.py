"""The coverage table and HTML page committed under reports/ are those the code produces now.

Regenerate them with `loop-conformance run` after changing scenarios, checks, adapters or the report writers.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest
from requirements_helper import INSTALL_PINNED, require

from harness import BUNDLED_SCENARIOS, MODES, run_suite
from harness.reporting.baseline import BUNDLED_BASELINE, load_baseline
from harness.reporting.commands import write_reports
from harness.reporting.documents import ResultsDocument
from harness.run.registry import installed_adapters

ROOT = Path(__file__).resolve().parent.parent
PINNED = (ROOT / "constraints" / "latest.txt").read_text().split("agent-framework-core==")[1].split()[0]


def _installed_framework() -> str | None:
    try:
        return importlib.metadata.version("agent-framework-core")
    except importlib.metadata.PackageNotFoundError:
        return None


@pytest.mark.parametrize("name", ["coverage.md", "coverage.html", "invariants.md", "invariants.html"])
def test_committed_report_is_current(name: str, tmp_path: Path) -> None:
    installed = _installed_framework()
    require(installed == PINNED, f"the committed reports are of agent-framework-core {PINNED}, the release pinned in "
                                 f"constraints/latest.txt, and {installed or 'none'} is installed: {INSTALL_PINNED}")
    adapters, _ = installed_adapters()
    known = load_baseline(BUNDLED_BASELINE).known_failures
    suite = run_suite(adapters, [BUNDLED_SCENARIOS], MODES, known)
    written = write_reports(ResultsDocument(tuple(suite.results), False), tmp_path)
    fresh = next(path for path in written.values() if path.name == name).read_text(encoding="utf-8")
    committed = (ROOT / "reports" / name).read_text(encoding="utf-8")
    assert fresh == committed, f"reports/{name} is stale: regenerate it with `loop-conformance run`"
