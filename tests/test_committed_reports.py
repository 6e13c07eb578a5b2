"""The report snapshot committed under results/snapshot/ is what the code produces now.

Regenerate it with `nox -s snapshot` (or `python tools/snapshot_reports.py`) after changing scenarios, checks,
adapters or the report writers.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest
from requirements_helper import INSTALL_PINNED, require
from text_diff import assert_same_text
from tool_loader import load_tool

from harness import BUNDLED_SCENARIOS, MODES, run_suite
from harness.reporting.baseline import BUNDLED_BASELINE, load_baseline
from harness.reporting.commands import write_reports
from harness.reporting.documents import ResultsDocument
from harness.run.registry import installed_adapters

ROOT = Path(__file__).resolve().parent.parent
PINNED = (ROOT / "constraints" / "latest.txt").read_text().split("agent-framework-core==")[1].split()[0]
SNAPSHOT_FILES = load_tool("snapshot_reports").SNAPSHOT_FILES


def _installed_framework() -> str | None:
    try:
        return importlib.metadata.version("agent-framework-core")
    except importlib.metadata.PackageNotFoundError:
        return None


@pytest.fixture(scope="module")
def fresh_reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The snapshot's files written from one full run (at most once per test process, not once per file)."""
    installed = _installed_framework()
    require(installed == PINNED, f"the committed reports are of agent-framework-core {PINNED}, the release pinned in "
                                 f"constraints/latest.txt, and {installed or 'none'} is installed: {INSTALL_PINNED}")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)  # scenario paths in reports are relative to the checkout, as the snapshot script runs
        adapters, _ = installed_adapters()
        known = load_baseline(BUNDLED_BASELINE).known_failures
        suite = run_suite(adapters, [BUNDLED_SCENARIOS], MODES, known)
    written = write_reports(ResultsDocument(tuple(suite.results), False), tmp_path_factory.mktemp("reports"))
    return {path.name: path for path in written.values()}


@pytest.mark.parametrize("name", SNAPSHOT_FILES)
def test_committed_report_is_current(name: str, fresh_reports: dict[str, Path]) -> None:
    fresh = fresh_reports[name].read_text(encoding="utf-8")
    committed = (ROOT / "results" / "snapshot" / name).read_text(encoding="utf-8")
    # A bounded diff: pytest's own diff of two megabyte strings takes minutes to build.
    assert_same_text(fresh, committed, label=f"results/snapshot/{name}",
                     hint=f"results/snapshot/{name} is stale: regenerate it with `nox -s snapshot`")
