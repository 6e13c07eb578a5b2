"""The GitHub Action (action.yml): its shell steps run here, in order, as a runner would run them.

A runner is imitated as far as the steps can tell: a workspace folder, the GITHUB_* files (output, step summary),
GITHUB_ACTIONS=true, and `${{ ... }}` expressions resolved from the inputs, the action's path and earlier steps'
outputs. The `uses:` steps (setup-python, upload-artifact) are GitHub's own and are checked, not run. `python -m pip`
is recorded instead of run (the test installs nothing); `loop-conformance` is this checkout's.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios" / "normal"
EXPRESSION = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")


def _action() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))


def _resolve(text: str, inputs: dict[str, str], outputs: dict[str, str]) -> str:
    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name.startswith("inputs."):
            return inputs[name.removeprefix("inputs.")]
        if name == "github.action_path":
            return str(ROOT)
        if name.startswith("steps.run.outputs."):
            return outputs.get(name.removeprefix("steps.run.outputs."), "")
        raise AssertionError(f"action.yml uses an expression this imitation of a runner does not know: {name}")

    return EXPRESSION.sub(value, text)


def _shim(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/usr/bin/env bash\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def _run_steps(workspace: Path, given: dict[str, str]) -> dict[str, Any]:
    action = _action()
    inputs = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()} | given
    shims = workspace.parent / "bin"
    shims.mkdir()
    pip_calls = workspace.parent / "pip-calls.txt"
    # The runner's Python, which setup-python would have put first on PATH: pip is recorded, the rest is real.
    _shim(shims, "python", f'if [ "$1 $2" = "-m pip" ]; then echo "${{@:3}}" >> "{pip_calls}"; exit 0; fi\n'
                           f'exec "{sys.executable}" "$@"')
    _shim(shims, "loop-conformance", f'exec "{sys.executable}" -m harness.cli "$@"')
    github = {"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(workspace),
              "GITHUB_OUTPUT": str(workspace.parent / "output.txt"),
              "GITHUB_STEP_SUMMARY": str(workspace.parent / "summary.md"),
              "GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "octo/loop", "GITHUB_RUN_ID": "42"}
    for name in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"):
        Path(github[name]).touch()
    outputs: dict[str, str] = {}
    ran: dict[str, Any] = {"uses": [], "logs": {}, "codes": {}}
    for step in action["runs"]["steps"]:
        if "uses" in step:
            ran["uses"].append((step["uses"], {k: _resolve(str(v), inputs, outputs)
                                               for k, v in step.get("with", {}).items()}))
            continue
        assert step["shell"] == "bash"
        assert step.get("if", "always()") == "always()"  # every shell step runs whatever came before
        env = {k: _resolve(str(v), inputs, outputs) for k, v in step.get("env", {}).items()}
        script = workspace.parent / "step.sh"
        script.write_text(_resolve(step["run"], inputs, outputs))
        done = subprocess.run(["bash", "-e", str(script)], cwd=workspace, capture_output=True, text=True,
                              timeout=300, check=False,
                              env={**os.environ, **github, **env, "PYTHONPATH": str(ROOT),
                                   "PATH": f"{shims}{os.pathsep}{os.environ['PATH']}"})
        ran["logs"][step["name"]] = done.stdout + done.stderr
        ran["codes"][step["name"]] = done.returncode
        for line in Path(github["GITHUB_OUTPUT"]).read_text().splitlines():
            key, _, value = line.partition("=")
            outputs[key] = value
    ran["outputs"] = outputs
    ran["summary"] = Path(github["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
    ran["pip"] = pip_calls.read_text().splitlines() if pip_calls.exists() else []
    return ran


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "workspace"
    scenarios = folder / "conformance" / "normal"
    scenarios.mkdir(parents=True)
    (scenarios / "single-call.yaml").write_text((SCENARIOS / "single-call.yaml").read_text()
                                                .replace("model_calls: 2", "model_calls: 3"))
    (scenarios / "streaming-call.yaml").write_text((SCENARIOS / "streaming-call.yaml").read_text())
    return folder


def test_the_action_runs_writes_junit_and_a_capped_summary_and_fails_the_job(workspace: Path) -> None:
    ran = _run_steps(workspace, {"implementations": "reference", "scenarios": "conformance", "baseline": "none",
                                 "extras": "pydantic-ai", "pip-args": "-c constraints.txt"})
    assert ran["pip"] == [f"install --quiet {ROOT}[pydantic-ai] -c constraints.txt"]
    assert ran["codes"] == {"Install loop-conformance": 0, "Run the suite": 0, "Job summary": 0, "Verdict": 1}
    assert ran["outputs"]["exit-code"] == "1"
    log = ran["logs"]["Run the suite"]
    assert "FAIL normal.single-call [reference, non-streaming + streaming] expect.model-calls" in log
    assert "::error file=conformance/normal/single-call.yaml,line=36,col=7," in log
    junit = workspace / ran["outputs"]["junit"]
    assert junit == workspace / "loop-conformance-results" / "reports" / "junit.xml"
    suites = ElementTree.parse(junit).getroot()
    assert (suites.get("tests"), suites.get("failures")) == ("4", "2")  # 2 scenarios × 2 modes, one failing
    assert len(list(suites.iter("failure"))) == 2
    assert (workspace / "loop-conformance-results" / "results.json").is_file()
    summary = ran["summary"]
    assert len(summary.encode()) < 100 * 1024
    assert summary.count("## Loop conformance") == 1  # the run itself wrote none: only the summary step
    assert "normal.single-call — reference 0.1.0 non-streaming: expect.model-calls" in summary
    assert "https://github.com/octo/loop/actions/runs/42#artifacts" in summary
    uses = dict(ran["uses"])
    assert uses["actions/setup-python@v5"] == {"python-version": "3.11"}
    assert uses["actions/upload-artifact@v4"]["path"] == "loop-conformance-results"


def test_the_action_passes_with_the_bundled_baseline_on_a_passing_folder(workspace: Path) -> None:
    (workspace / "conformance" / "normal" / "single-call.yaml").unlink()
    ran = _run_steps(workspace, {"implementations": "reference", "scenarios": "conformance"})
    assert ran["pip"] == [f"install --quiet {ROOT}"]
    assert ran["codes"]["Verdict"] == 0
    assert "### Failing runs (0)" in ran["summary"]


def test_every_input_is_described_and_reaches_scripts_only_through_env() -> None:
    action = _action()
    for name, spec in action["inputs"].items():
        assert spec["description"].strip(), name
    for step in action["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), f"{step['name']}: an expression inside a script"


def test_the_action_reference_page_lists_every_input_and_output() -> None:
    page = (ROOT / "docs" / "reference" / "github-action.md").read_text(encoding="utf-8")
    action = _action()
    for name in [*action["inputs"], *action["outputs"]]:
        assert f"| `{name}` |" in page, name
