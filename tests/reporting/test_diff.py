"""The diff between two results files: regressions and fixes as a Markdown table for a PR comment."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from harness.reporting.commands import diff_command
from harness.reporting.diffing import compare, diff

from .helpers import check, document, run

ROWS = ["Single non-streaming call"]


def _single(*checks: dict[str, Any], verdict: str = "pass", version: str = "1.12.0") -> dict[str, Any]:
    return run("normal.single-call", ROWS, impl="agent_framework", version=version, verdict=verdict,
               checks=list(checks))


def test_a_regression_is_listed_with_its_new_message() -> None:
    old = document(_single(check("completes"), check("no-orphans")))
    new = document(_single(check("completes"), check("no-orphans", "fail", "result c1 | has no call"),
                           verdict="fail"))
    text = diff(old, new)
    assert "1 regression(s), 0 fix(es), 0 other change(s) over 2 compared checks." in text
    assert ("| Scenario | Implementation | Mode | Check | Verdict | Message |\n|---|---|---|---|---|---|\n"
            "| `normal.single-call` | agent_framework | non-streaming | `no-orphans` | pass → **fail** | "
            "result c1 \\| has no call |") in text
    assert "### Fixes (0)\n\nNone." in text


def test_a_fix_is_listed_and_version_changes_are_shown() -> None:
    old = document(_single(check("expect.response", "xfail", "differs", turn=1),
                           check("expect.response", "fail", "differs", turn=2), verdict="fail"))
    new = document(_single(check("expect.response", turn=1), check("expect.response", turn=2), version="1.13.0"))
    text = diff(old, new)
    assert ("### Fixes (1)\n\n| Scenario | Implementation | Mode | Check | Verdict |\n|---|---|---|---|---|\n"
            "| `normal.single-call` | agent_framework (1.12.0 → 1.13.0) | non-streaming | `expect.response` | "
            "fail → **pass** |") in text
    assert "### Regressions (0)\n\nNone." in text


def test_new_failing_scenarios_are_regressions_and_lost_checks_are_other_changes() -> None:
    old = document(_single(check("completes")))
    new = document(run("normal.new", ROWS, verdict="fail", checks=[check("completes", "fail", "crashed")]),
                   _single(verdict="n/a"))
    result = compare(old, new)
    assert [(c.scenario, c.check, c.old, c.new) for c in result.regressions] == [
        ("normal.new", "completes", "—", "fail")]
    assert [(c.check, c.old, c.new) for c in result.other] == [("completes", "pass", "—")]


def test_identical_files_have_no_changes(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(document(_single(check("completes")))))
    out = io.StringIO()
    assert diff_command(path, path, stdout=out) == 0
    assert "0 regression(s), 0 fix(es), 0 other change(s) over 1 compared checks." in out.getvalue()


def test_messages_and_names_from_results_are_escaped_in_the_table() -> None:
    old = document(_single(check("completes")))
    hostile = run("scenarios/normal/bad|`name`.yaml", ROWS, verdict="error",
                  checks=[check("scenario-file", "error", "<img src=x onerror=alert(1)> `unclosed | *x*")])
    text = diff(old, document(hostile, _single(check("completes"))))
    row = next(line for line in text.splitlines() if "bad" in line)
    assert row == ("| ``scenarios/normal/bad\\|`name`.yaml`` | reference | non-streaming | `scenario-file` | "
                   "— → **error** | &lt;img src=x onerror=alert(1)&gt; \\`unclosed \\| \\*x\\* |")
    assert "<img" not in text
