"""A refresh of the reproduction-range audit from an earlier record runs only what that record lacks: new scripts,
new releases, and the scripts named with --rerun."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tool_loader import load_tool

load_tool("companion_releases")
load_tool("sweep_versions")
ranges = load_tool("reproduction_ranges")

BASELINE = """known_failures:
  - scenario: normal.example
    implementation: agent_framework
    checks: [exactly-once]
    versions_from: 1.10.0
    reason: an example defect, present from the first release on
    reproduction: repro/agent_framework/old.py
  - scenario: normal.other
    implementation: agent_framework
    checks: [no-orphans]
    versions_from: 1.10.0
    reason: another example defect, present from the first release on
    reproduction: repro/agent_framework/new.py
"""


def _release_envs(root: Path, releases: list[str]) -> Path:
    for release in releases:
        python = root / release / "bin" / "python"
        python.parent.mkdir(parents=True)
        python.write_text("")
    return root


def _refresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rerun: list[str]) -> list[tuple[str, str]]:
    envs = _release_envs(tmp_path / "envs", ["1.10.0", "1.11.0"])
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text(BASELINE, encoding="utf-8")
    earlier = tmp_path / "earlier.json"
    earlier.write_text(json.dumps({"exits": {"repro/agent_framework/old.py": {"1.10.0": 1}}}), encoding="utf-8")
    ran: list[tuple[str, str]] = []

    def fake_run(python: Path, script: str) -> int:
        ran.append((script, python.parent.parent.name))
        return 1

    monkeypatch.setattr(ranges, "run_script", fake_run)
    arguments = ["--envs", str(envs), "--baseline", str(baseline), "--from-json", str(earlier),
                 "--json", str(tmp_path / "out.json"), "--markdown", str(tmp_path / "out.md"), "--jobs", "1"]
    for script in rerun:
        arguments += ["--rerun", script]
    assert ranges.main(arguments) == 0
    recorded = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["exits"]
    assert recorded == {"repro/agent_framework/old.py": {"1.10.0": 1, "1.11.0": 1},
                        "repro/agent_framework/new.py": {"1.10.0": 1, "1.11.0": 1}}
    return sorted(ran)


def test_only_the_missing_scripts_and_releases_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _refresh(tmp_path, monkeypatch, []) == [
        ("repro/agent_framework/new.py", "1.10.0"), ("repro/agent_framework/new.py", "1.11.0"),
        ("repro/agent_framework/old.py", "1.11.0")]


def test_a_rerun_script_runs_on_every_release(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert ("repro/agent_framework/old.py", "1.10.0") in _refresh(tmp_path, monkeypatch,
                                                                  ["repro/agent_framework/old.py"])
