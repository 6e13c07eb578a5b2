"""The fuzz sweep over releases plans its runs from the release environments present (no framework run here): every
core release fuzzes both of its callers, AG-UI only where a companion release it drives is installed, and the other
frameworks' releases their one implementation; the summary counts what the runs found."""

from __future__ import annotations

import argparse
from pathlib import Path

from tool_loader import load_tool

ROOT = Path(__file__).resolve().parent.parent


# The scripts fuzz_releases imports from beside itself, as running it from tools/ would find them.
load_tool("companion_releases")
load_tool("sweep_versions")
tool = load_tool("fuzz_releases")


def _env(path: Path, ag_ui: str | None = None) -> None:
    (path / "bin").mkdir(parents=True)
    (path / "bin" / "python").write_text("", encoding="utf-8")
    site = path / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    if ag_ui is not None:
        (site / f"agent_framework_ag_ui-{ag_ui}.dist-info").mkdir()


def test_runs_cover_every_release_environment_oldest_first(tmp_path: Path) -> None:
    _env(tmp_path / "versions" / "1.10.0", ag_ui="1.0.0rc7")
    _env(tmp_path / "versions" / "1.9.0", ag_ui="1.0.0rc6")  # an AG-UI release the adapter cannot drive
    _env(tmp_path / "versions" / "1.23.0", ag_ui="1.7.0")
    (tmp_path / "versions" / "bin").mkdir()  # the folder's own files are no release
    _env(tmp_path / "versions" / "openai-agents" / "0.24.0")
    _env(tmp_path / "versions" / "pydantic-ai-slim" / "2.60.0")
    labels = [run.label for run in tool.planned_runs(tmp_path)]
    assert labels == [
        "reference - reference",
        "agent-framework-core 1.9.0 agent_framework", "agent-framework-core 1.9.0 agent_framework_stateless",
        "agent-framework-core 1.10.0 agent_framework", "agent-framework-core 1.10.0 agent_framework_stateless",
        "agent-framework-core 1.10.0 agent_framework_ag_ui",
        "agent-framework-core 1.23.0 agent_framework", "agent-framework-core 1.23.0 agent_framework_stateless",
        "agent-framework-core 1.23.0 agent_framework_ag_ui",
        "pydantic-ai-slim 2.60.0 pydantic_ai", "openai-agents 0.24.0 openai_agents",
    ]


def test_other_frameworks_are_looked_for_where_the_version_sweep_builds_them(tmp_path: Path) -> None:
    sweep = load_tool("sweep_versions")
    envs = tmp_path / "versions"
    for package, implementation in tool.OTHER_IMPLEMENTATIONS.items():
        _env(sweep.FRAMEWORKS[package].env_dir(envs, "9.9.9"))
        assert f"{package} 9.9.9 {implementation}" in [run.label for run in tool.planned_runs(tmp_path)]


def test_summary_counts_examples_and_findings(tmp_path: Path) -> None:
    run = tool.Run("openai-agents", "0.24.0", "openai_agents", tmp_path / "python")
    found = tool.Outcome(run, 1, examples=30, findings=["[openai_agents, streaming] parallel-order: a|b"])
    clean = tool.Outcome(tool.Run("reference", "-", "reference", tmp_path / "python"), 0, examples=24)
    failed = tool.Outcome(run, None, error="timed out after 5 s")
    args = argparse.Namespace(seed=16, examples=12, max_findings=3)
    text = tool.summary_markdown([found, clean, failed], args)
    assert "parallel-order: a\\|b" in text  # a finding's text cannot break the table
    assert "| reference | - | reference | 24 | 0 | — |" in text
    assert "timed out after 5 s" in text
    assert text.rstrip().endswith("3 runs, 54 examples, 1 counterexamples, 1 runs with an error or timeout.")


def test_findings_and_counts_are_read_from_the_fuzz_command_output() -> None:
    output = ("FOUND [pydantic_ai, streaming] completes: x\n  reproduce: loop-conformance run ...\n"
              "pydantic_ai: 31 examples run, 1 counterexample(s) written to out/\n")
    assert tool._findings(output) == ["[pydantic_ai, streaming] completes: x"]  # noqa: SLF001
    summary = tool._SUMMARY.search(output)  # noqa: SLF001
    assert summary is not None
    assert summary.group(1) == "31"


def test_pre_releases_sort_before_their_final_release() -> None:
    ordered = ["1.0.0rc6", "1.0.0rc7", "1.0.0rc9", "1.0.0", "1.0.1", "1.7.0", "1.10.0"]
    assert sorted(reversed(ordered), key=tool.release_order) == ordered
