"""The version matrix keeps the variants of one framework apart: one table per implementation."""

from __future__ import annotations

import json
from pathlib import Path

from harness.reporting.version_matrix import load_results, render_json, render_markdown

from .helpers import both_modes, check, document, run


def test_each_implementation_gets_its_own_table_and_verdicts_never_mix(tmp_path: Path) -> None:
    row = ["Approved non-streaming resume"]
    files = []
    for version in ("1.19.0", "1.20.0"):
        stateless_verdict = "pass" if version == "1.19.0" else "fail"
        stateless = [run("approval.approved-resume.caller-history", row, impl="agent_framework_stateless", mode=mode,
                         version=version, verdict=stateless_verdict,
                         checks=[check("approved-once", stateless_verdict, "never executed")])
                     for mode in ("non-streaming", "streaming")]
        doc = document(both_modes("approval.approved-resume.caller-history", row, impl="agent_framework",
                                  version=version), stateless)
        path = tmp_path / f"{version}.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        files.append(path)
    by_implementation = load_results(files)
    assert list(by_implementation) == ["agent_framework", "agent_framework_stateless"]
    markdown = render_markdown(by_implementation)
    session_table, stateless_table = markdown.split("## agent_framework\n")[1].split("## agent_framework_stateless\n")
    assert "| Approved non-streaming resume | ✅ ✅ | ✅ ✅ |" in session_table
    assert "| Approved non-streaming resume | ✅ ✅ | ❌ ❌ |" in stateless_table
    assert "never executed" in stateless_table
    assert "never executed" not in session_table
    tables = json.loads(render_json(by_implementation))["implementations"]
    assert tables["agent_framework"]["versions"] == ["1.19.0", "1.20.0"]
    cell = tables["agent_framework_stateless"]["rows"]
    verdicts = [c["1.20.0"]["streaming"]["verdict"] for c in (r["cells"] for r in cell) if c]
    assert verdicts == ["fail"]
