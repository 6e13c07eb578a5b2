"""The version matrix keeps implementations apart: one table per implementation, each over its own package's
releases."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

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
    session_table, stateless_table = markdown.split("## agent_framework (1.19.0 – 1.20.0)\n")[1].split(
        "## agent_framework_stateless (1.19.0 – 1.20.0)\n")
    assert "| Approved non-streaming resume | ✅ ✅ | ✅ ✅ |" in session_table
    assert "| Approved non-streaming resume | ✅ ✅ | ❌ ❌ |" in stateless_table
    assert "approval.approved-resume.caller-history: approved-once" in stateless_table
    assert "approved-once" not in session_table
    tables = json.loads(render_json(by_implementation))["implementations"]
    assert tables["agent_framework"]["versions"] == ["1.19.0", "1.20.0"]
    cell = tables["agent_framework_stateless"]["rows"]
    verdicts = [c["1.20.0"]["streaming"]["verdict"] for c in (r["cells"] for r in cell) if c]
    assert verdicts == ["fail"]


def test_frameworks_each_get_their_own_releases_and_package_name(tmp_path: Path) -> None:
    """Releases of different frameworks never share columns, and each heading names the package they are of."""
    row = ["Single non-streaming call"]
    files = []
    for folder, impl, versions in (("", "agent_framework", ("1.22.0", "1.23.0")),
                                   ("pydantic-ai-slim", "pydantic_ai", ("2.60.0", "2.68.0")),
                                   ("openai-agents", "openai_agents", ("0.24.0",))):
        for version in versions:
            verdict = "fail" if version == "2.60.0" else "pass"
            path = tmp_path / folder / f"{version}.json"
            path.parent.mkdir(exist_ok=True)
            doc = document([run("normal.single-call", row, impl=impl, mode=mode, version=version, verdict=verdict,
                                checks=[check("completes", verdict, "raised")])
                            for mode in ("non-streaming", "streaming")])
            path.write_text(json.dumps(doc), encoding="utf-8")
            files.append(path)
    packages = {"agent_framework": "agent-framework-core", "pydantic_ai": "pydantic-ai-slim",
                "openai_agents": "openai-agents"}
    by_implementation = load_results(files)
    markdown = render_markdown(by_implementation, packages=packages)
    assert "## agent_framework (agent-framework-core 1.22.0 – 1.23.0)" in markdown
    assert "## openai_agents (openai-agents 0.24.0)" in markdown
    pydantic_table = markdown.split("## pydantic_ai (pydantic-ai-slim 2.60.0 – 2.68.0)\n")[1]
    assert "| Section | Spec row | 2.60.0 | 2.68.0 |" in pydantic_table
    assert "| Single non-streaming call | ❌ ❌ | ✅ ✅ |" in pydantic_table
    assert "- **Single non-streaming call** — 2.60.0, streaming:" in pydantic_table
    tables = json.loads(render_json(by_implementation, packages=packages))["implementations"]
    assert {name: (t["package"], t["versions"]) for name, t in tables.items()} == {
        "agent_framework": ("agent-framework-core", ["1.22.0", "1.23.0"]),
        "openai_agents": ("openai-agents", ["0.24.0"]),
        "pydantic_ai": ("pydantic-ai-slim", ["2.60.0", "2.68.0"]),
    }


def _wire_run(version: str, mode: str, verdict: str, provider_version: str, reason: str = "") -> dict[str, Any]:
    return run("normal.single-call", ["Single non-streaming call"], impl="agent_framework", mode=mode,
               version=version, verdict=verdict, reason=reason, provider="openai-chat") | {
        "provider_package": "agent-framework-openai", "provider_version": provider_version}


def test_a_wire_table_heads_each_core_release_with_its_provider_release_and_says_where_none_was(
        tmp_path: Path) -> None:
    files = []
    unreleased = "agent-framework-openai not released for this core release"
    for version, runs in (("1.9.0", [_wire_run("1.9.0", m, "n/a", "", unreleased) for m in ("non-streaming",
                                                                                              "streaming")]),
                          ("1.20.0", [_wire_run("1.20.0", m, "pass", "1.15.0") for m in ("non-streaming",
                                                                                         "streaming")])):
        path = tmp_path / f"{version}.json"
        path.write_text(json.dumps(document(runs)), encoding="utf-8")
        files.append(path)
    by_table = load_results(files)
    markdown = render_markdown(by_table, packages={"agent_framework": "agent-framework-core"})
    assert "| Section | Spec row | 1.9.0 / openai – | 1.20.0 / openai 1.15.0 |" in markdown
    assert "| Single non-streaming call | – – | ✅ ✅ |" in markdown  # n/a, never a pass
    assert f"- 1.9.0: {unreleased}" in markdown
    releases = json.loads(render_json(by_table))["implementations"]["agent_framework openai-chat"]["provider_releases"]
    assert releases == {"1.9.0": {"package": "agent-framework-openai", "version": None, "not_run": unreleased},
                        "1.20.0": {"package": "agent-framework-openai", "version": "1.15.0", "not_run": None}}


def test_neutral_tables_and_files_without_provider_packages_keep_plain_release_headers(tmp_path: Path) -> None:
    path = tmp_path / "1.23.0.json"
    path.write_text(json.dumps(document(both_modes("normal.single-call", ["Single non-streaming call"],
                                                   impl="agent_framework", version="1.23.0"))), encoding="utf-8")
    by_table = load_results([path])
    assert "| Section | Spec row | 1.23.0 |" in render_markdown(by_table)
    assert "provider_releases" not in json.loads(render_json(by_table))["implementations"]["agent_framework"]


def test_a_baseline_given_to_the_matrix_judges_every_stored_run_again(tmp_path: Path) -> None:
    """A results file keeps the verdicts of the baseline it was swept with; the matrix judges them with today's."""
    from harness.reporting.baseline import KnownFailure

    row = ["Approved non-streaming resume"]
    newly_known = run("approval.approved-resume.caller-history", row, impl="agent_framework", version="1.20.0",
                      verdict="fail", checks=[check("completes"), check("approved-once", "fail", "never executed")])
    no_longer_known = run("normal.single-call", ["Single non-streaming call"], impl="agent_framework",
                          version="1.20.0", verdict="xfail", reason="known failure: gone since",
                          checks=[check("completes"), check("expect.response", "xfail", "differs")])
    path = tmp_path / "1.20.0.json"
    path.write_text(json.dumps(document([newly_known, no_longer_known])), encoding="utf-8")
    entry = KnownFailure(scenario="approval.approved-resume.caller-history", implementation="agent_framework",
                         checks=["approved-once"], modes=["non-streaming"], versions_from="1.20.0",
                         reason="The approved call never runs without a session (a made-up entry of this test).",
                         reproduction="repro/none.py")
    stored = load_results([path])["agent_framework"]["1.20.0"].runs
    assert [r.verdict for r in stored] == ["fail", "xfail"]
    judged = load_results([path], [entry])["agent_framework"]["1.20.0"].runs
    assert [r.verdict for r in judged] == ["xfail", "fail"]
    assert [c.verdict for c in judged[0].checks] == ["pass", "xfail"]
    assert judged[1].reason == ""
    assert "| Approved non-streaming resume | ⚠️ · |" in render_markdown(load_results([path], [entry]))


def test_everything_from_results_and_the_baseline_comes_out_inert(tmp_path: Path) -> None:
    """Names, check ids and reasons are escaped as in the other Markdown: no HTML, link or heading (a release that
    is no release number never gets this far: the results file is refused, tests/test_hostile_inputs_files.py)."""
    from harness.reporting.baseline import KnownFailure

    impl = "evil<img src=x onerror=alert(1)>"
    runs = [run("normal.single-call", ["Single non-streaming call"], impl=impl, mode=mode,
                version="1.0", verdict="fail" if mode == "streaming" else "xfail",
                checks=[check("completes"), check("x<script>alert(1)</script>", "fail", "\n## also injected")])
            for mode in ("non-streaming", "streaming")]
    path = tmp_path / "1.0.json"
    path.write_text(json.dumps(document(runs)), encoding="utf-8")
    entry = KnownFailure(scenario="normal.single-call", implementation=impl, checks=["x<script>alert(1)</script>"],
                         modes=["non-streaming"], reason="[click me](javascript:alert(1)) <script>alert(2)</script>"
                                                         "\n# A heading from a reason", reproduction="repro/x.py")
    text = render_markdown(load_results([path], [entry]), packages={impl: "pkg<b>"})
    for raw in ("<img", "<script>", "<b>"):
        assert raw not in text
    assert not re.search(r"(?<!\\)\]\(javascript:", text)  # an escaped `\](` makes no link
    injected = ("## also injected", "# A heading")
    assert not [line for line in text.splitlines() if line.lstrip().startswith(injected)]  # no heading of their own
    assert "## evil&lt;img src=x onerror=alert(1)&gt; (pkg&lt;b&gt; 1.0)" in text
    assert "  - [click me\\](javascript:alert(1)) &lt;script&gt;alert(2)&lt;/script&gt; # A heading from a reason" \
           " Reproduction: repro/x.py" in text
