"""The provider dimension in every report: a run's provider is read, kept apart and named only when not neutral."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from harness.reporting.baseline import KnownFailure, apply_baseline
from harness.reporting.coverage import Column, build_coverage
from harness.reporting.coverage_json import SCHEMA_PATH, render_json
from harness.reporting.diffing import diff
from harness.reporting.documents import parse_results_document
from harness.reporting.gate import CheckBaselineEntry, expand, gate
from harness.reporting.html_page import render_html
from harness.reporting.invariant_table import build_invariant_table
from harness.reporting.invariant_table import render_markdown as invariants_markdown
from harness.reporting.json_report import results_document
from harness.reporting.junit import render_junit
from harness.reporting.markdown import render_markdown
from harness.reporting.text import render_failure
from harness.reporting.version_matrix import load_results
from harness.reporting.version_matrix import render_markdown as matrix_markdown
from harness.results import CheckResult, ScenarioResult
from harness.scenario.spec_rows import SPEC_ROWS

from .helpers import check, document, run
from .schema_check import validate

ROW = ["Single non-streaming call"]
REASON = "The loop drops the call's result from the history it sends, whatever provider carries it."


def _over(provider: str | None, verdict: str = "pass", mode: str = "non-streaming", **kwargs: Any) -> dict[str, Any]:
    failing = verdict in ("fail", "xfail")
    checks = [check("completes"), check("no-orphans", verdict if failing else "pass", "c1 has no result" * failing)]
    return run("normal.single-call", ROW, impl="agent_framework", version="1.23.0", mode=mode, verdict=verdict,
               checks=checks, provider=provider, **kwargs)


MIXED = document(_over(None), _over("openai-chat", "fail"), _over(None, mode="streaming"),
                 _over("openai-chat", mode="streaming"))


def _matrix(doc: dict[str, Any] = MIXED):  # noqa: ANN202 - the matrix type is what build_coverage returns
    return build_coverage(parse_results_document(doc), SPEC_ROWS)


# --- results files --------------------------------------------------------------------------------------------


def test_the_provider_survives_a_results_file_and_old_files_read_as_neutral() -> None:
    result = ScenarioResult("normal.single-call", "t", tuple(ROW), "normal", "agent_framework", "1.23.0", "streaming",
                            "pass", (CheckResult("completes", "pass"),), provider="openai-responses")
    written = json.loads(json.dumps(results_document([result], filtered=False)))
    assert written["results"][0]["provider"] == "openai-responses"
    (read,) = parse_results_document(written).results
    assert read == result
    (old,) = parse_results_document(document(run("normal.single-call", ROW))).results
    assert old.provider == "neutral"


# --- the coverage matrix and its renderings -------------------------------------------------------------------


def test_a_column_names_its_provider_only_when_it_is_not_neutral() -> None:
    neutral = Column("agent_framework", "1.23.0", "streaming")
    wire = Column("agent_framework", "1.23.0", "streaming", "openai-chat")
    assert (neutral.id, neutral.label) == ("agent_framework/1.23.0/streaming", "agent_framework 1.23.0 streaming")
    assert (wire.id, wire.label) == ("agent_framework/1.23.0/streaming/openai-chat",
                                     "agent_framework 1.23.0 streaming openai-chat")


def test_each_provider_is_a_column_of_its_own_after_the_neutral_ones() -> None:
    matrix = _matrix()
    assert [c.label for c in matrix.columns] == [
        "agent_framework 1.23.0 non-streaming", "agent_framework 1.23.0 streaming",
        "agent_framework 1.23.0 non-streaming openai-chat", "agent_framework 1.23.0 streaming openai-chat"]
    row = next(r for r in SPEC_ROWS if r.name == ROW[0])
    assert [matrix.cell(row, c).status for c in matrix.columns] == ["pass", "pass", "fail", "pass"]
    assert matrix.providers == ("neutral", "openai-chat")
    assert matrix.several_providers


def test_markdown_shows_the_provider_in_its_header_and_lists() -> None:
    text = render_markdown(_matrix())
    assert ("| Spec row | agent_framework 1.23.0<br>non-streaming | agent_framework 1.23.0<br>streaming | "
            "agent_framework 1.23.0<br>non-streaming<br>openai-chat | "
            "agent_framework 1.23.0<br>streaming<br>openai-chat | Scenarios |") in text
    assert ("— agent_framework 1.23.0 non-streaming openai-chat\n"
            "  - no-orphans [fail, general]: c1 has no result") in text
    assert "neutral" not in text


def test_the_json_report_gives_every_column_and_run_its_provider_and_follows_the_schema() -> None:
    data = json.loads(render_json(_matrix()))
    assert validate(data, json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))) == []
    wire = "agent_framework/1.23.0/non-streaming/openai-chat"
    assert [(c["provider"], c["id"]) for c in data["columns"]][1:3] == [
        ("neutral", "agent_framework/1.23.0/streaming"), ("openai-chat", wire)]
    failing = next(r for r in data["runs"] if r["verdict"] == "fail")
    assert (failing["provider"], failing["column"]) == ("openai-chat", wire)


def test_junit_names_wire_runs_like_the_pytest_items_and_carries_the_provider() -> None:
    root = ET.fromstring(render_junit(_matrix()).split("\n", 1)[1])
    names = [case.get("name") for case in root.iter("testcase")]
    assert "normal.single-call[agent_framework-non-streaming]" in names
    assert "normal.single-call[agent_framework-non-streaming-openai-chat]" in names
    case = root.find(".//testcase[@name='normal.single-call[agent_framework-non-streaming-openai-chat]']")
    assert case is not None
    assert ("provider", "openai-chat") in [(p.get("name"), p.get("value")) for p in case.iter("property")]
    suite = root.find("./testsuite[@name='agent_framework 1.23.0 streaming']")
    assert suite is not None
    assert ("provider", "neutral") in [(p.get("name"), p.get("value")) for p in suite.iter("property")]


def test_the_html_page_gets_a_provider_filter_only_with_several_providers() -> None:
    mixed = render_html(_matrix())
    assert '<select name="provider" id="f-provider">' in mixed
    assert 'data-provider="openai-chat"' in mixed
    assert "'mode', 'provider', 'verdict'" in mixed
    assert '<span class="mode">streaming</span><span class="mode">openai-chat</span></th>' in mixed
    neutral_only = render_html(_matrix(document(_over(None), _over(None, mode="streaming"))))
    assert "data-provider" not in neutral_only
    assert "f-provider" not in neutral_only
    assert "f.provider" not in neutral_only


def test_a_single_wire_provider_still_labels_its_columns() -> None:
    matrix = _matrix(document(_over("gemini")))
    assert [c.label for c in matrix.columns] == ["agent_framework 1.23.0 non-streaming gemini"]
    assert not matrix.several_providers
    assert "<br>non-streaming<br>gemini |" in render_markdown(matrix)


# --- the invariant table, console text, diff, version matrix -------------------------------------------------


def test_the_invariant_table_has_a_column_per_provider_and_the_wire_rule_only_with_wire_runs() -> None:
    table = build_invariant_table(parse_results_document(MIXED))
    assert table.implementations == ("agent_framework 1.23.0", "agent_framework 1.23.0 openai-chat")
    assert table.cells[("no-orphans", "agent_framework 1.23.0 openai-chat")].status == "fail"
    assert table.cells[("no-orphans", "agent_framework 1.23.0")].status == "pass"
    text = invariants_markdown(table)
    assert "| `provider-accepts`: every request is one the real provider service accepts (wire runs only) |" in text
    assert ("loop-conformance run --impl agent_framework --mode non-streaming --provider openai-chat "
            "--scenarios scenarios/normal/single-call.yaml --no-baseline -v") in text
    neutral = build_invariant_table(parse_results_document(document(_over(None))))
    assert "provider-accepts" not in neutral.rules
    assert "provider-accepts" not in invariants_markdown(neutral)


def test_console_text_names_the_provider_only_when_it_is_not_neutral() -> None:
    neutral, wire = parse_results_document(document(_over(None, "fail"), _over("gemini", "fail"))).results
    assert render_failure(neutral).startswith("FAIL normal.single-call [agent_framework, non-streaming]\n")
    assert render_failure(wire).startswith("FAIL normal.single-call [agent_framework, non-streaming, gemini]\n")


def test_the_diff_compares_each_provider_apart_and_shows_a_provider_column_only_for_wire_changes() -> None:
    old = document(_over(None), _over("openai-chat"))
    text = diff(old, document(_over(None), _over("openai-chat", "fail")))
    assert "1 regression(s), 0 fix(es), 0 other change(s) over 4 compared checks." in text
    assert ("| Scenario | Implementation | Provider | Mode | Check | Verdict | Message |\n"
            "|---|---|---|---|---|---|---|\n"
            "| `normal.single-call` | agent_framework | openai-chat | non-streaming | `no-orphans` | pass → **fail** | "
            "c1 has no result |") in text
    neutral_change = diff(old, document(_over(None, "fail"), _over("openai-chat")))
    assert "| Scenario | Implementation | Mode | Check | Verdict | Message |" in neutral_change
    assert "Provider" not in neutral_change


def test_the_version_matrix_gives_each_provider_its_own_table(tmp_path: Path) -> None:
    path = tmp_path / "1.23.0.json"
    path.write_text(json.dumps(MIXED), encoding="utf-8")
    by_table = load_results([path])
    assert list(by_table) == ["agent_framework", "agent_framework openai-chat"]
    text = matrix_markdown(by_table, packages={"agent_framework": "agent-framework-core"})
    tables = text.split("\n## ")[1:]
    assert [t.splitlines()[0] for t in tables] == ["agent_framework (agent-framework-core 1.23.0)",
                                                   "agent_framework openai-chat (agent-framework-core 1.23.0)"]
    neutral, wire = tables
    assert "| Single non-streaming call | ✅ ✅ |" in neutral
    assert "| Single non-streaming call | ❌ ✅ |" in wire


# --- the baseline and the gate ---------------------------------------------------------------------------------


def _known(providers: list[str] | None = None, **kwargs: Any) -> KnownFailure:
    return KnownFailure.model_validate({"scenario": "normal.single-call", "implementation": "agent_framework",
                                        "checks": ["no-orphans"], "reason": REASON, "reproduction": "repro/x.py",
                                        "providers": providers} | kwargs)


def test_a_known_failure_matches_every_provider_unless_it_names_some() -> None:
    neutral, wire = parse_results_document(document(_over(None, "fail"), _over("gemini", "fail"))).results
    assert apply_baseline(neutral, [_known()]).verdict == "xfail"
    assert apply_baseline(wire, [_known()]).verdict == "xfail"
    assert apply_baseline(wire, [_known(["openai-chat"])]).verdict == "fail"
    assert apply_baseline(wire, [_known(["gemini"])]).verdict == "xfail"
    assert apply_baseline(neutral, [_known(["gemini"])]).verdict == "fail"


def test_only_a_passing_neutral_run_marks_an_entry_of_every_provider_stale() -> None:
    neutral, wire = parse_results_document(document(_over(None), _over("gemini"))).results
    assert apply_baseline(neutral, [_known()]).checks[-1].id == "baseline"
    assert apply_baseline(wire, [_known()]) == wire  # the defect may show over another provider: the gate judges
    assert apply_baseline(wire, [_known(["gemini"])]).checks[-1].id == "baseline"


def test_known_failures_name_providers_from_the_dialects_only() -> None:
    with pytest.raises(ValueError, match="providers"):
        _known(["anthropic"])
    with pytest.raises(ValueError, match="providers"):
        _known([])


def test_an_entry_expands_to_one_per_provider_it_names_or_one_for_every_provider() -> None:
    assert [e.provider for e in expand([_known()])] == [None, None]  # one per mode
    assert [(e.mode, e.provider) for e in expand([_known(["openai-chat", "gemini"], modes=["streaming"])])] == [
        ("streaming", "openai-chat"), ("streaming", "gemini")]


def test_an_entry_of_every_provider_is_stale_only_where_no_provider_fails() -> None:
    entries = [_known(modes=["non-streaming"])]
    # Failing over the wire only, or over neutral only: the entry still holds.
    assert gate(document(_over(None), _over("openai-chat", "fail")), entries).passed
    assert gate(document(_over(None, "fail"), _over("openai-chat")), entries).passed
    # Passing over every provider: stale, once for the release and mode.
    outcome = gate(document(_over(None), _over("openai-chat")), entries)
    assert [(s.entry.provider, s.passing_in) for s in outcome.stale_entries] == [(None, ("1.23.0 non-streaming",))]


def test_an_entry_naming_a_provider_covers_and_judges_that_provider_only() -> None:
    entries = [_known(["openai-chat"], modes=["non-streaming"])]
    outcome = gate(document(_over(None, "fail"), _over("openai-chat", "fail")), entries)
    assert [(f.provider, f.check) for f in outcome.new_failures] == [("neutral", "no-orphans")]
    assert [k.provider for k in outcome.known] == ["openai-chat"]
    assert "normal.single-call · no-orphans · agent_framework 1.23.0 non-streaming [fail]" in outcome.render()
    stale = gate(document(_over(None, "fail"), _over("openai-chat")), entries)
    assert [s.passing_in for s in stale.stale_entries] == [("1.23.0 non-streaming openai-chat",)]
    assert "· agent_framework non-streaming openai-chat: passes on 1.23.0 non-streaming openai-chat" in stale.render()


def test_a_per_check_entry_may_name_a_provider() -> None:
    entry = CheckBaselineEntry.model_validate({"scenario": "normal.single-call", "check": "no-orphans",
                                               "implementation": "agent_framework", "mode": "non-streaming",
                                               "provider": "gemini", "reason": REASON})
    assert entry.covers("normal.single-call", "agent_framework", "non-streaming", "1.23.0", "gemini")
    assert not entry.covers("normal.single-call", "agent_framework", "non-streaming", "1.23.0")
    failing = gate(document(_over("gemini", "fail")), [entry])
    assert failing.passed
    assert [f.describe() for f in failing.known] == [
        "normal.single-call · no-orphans · agent_framework 1.23.0 non-streaming gemini [fail]: c1 has no result"]


def test_a_file_from_before_providers_and_one_of_neutral_runs_give_the_same_reports() -> None:
    before = build_coverage(parse_results_document(document(_over(None), _over(None, "fail", mode="streaming"))),
                            SPEC_ROWS)
    now = build_coverage(parse_results_document(document(_over("neutral"), _over("neutral", "fail",
                                                                                 mode="streaming"))), SPEC_ROWS)
    for render in (render_markdown, render_html, render_json, render_junit):
        assert render(before) == render(now)
