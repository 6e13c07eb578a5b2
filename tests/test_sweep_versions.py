"""The version sweep's choices, without the registry: which releases of each framework it runs, where their
results go, and what counts as a release an adapter could not run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tool_loader import load_tool

ROOT = Path(__file__).resolve().parent.parent


load_tool("companion_releases")  # the script imports it from beside itself
sweep = load_tool("sweep_versions")

PIP_OUTPUT = """\
openai-agents (0.24.0)
Available versions: 0.24.0, 0.23.1, 0.23.0, 0.22.3, 0.22.2, 0.22.0, 0.21.1, 0.21.0, 0.20.0, 0.19.4, 0.2.11, 0.25.0rc1
"""


def test_pip_output_gives_every_listed_release() -> None:
    assert sweep.parse_index_versions(PIP_OUTPUT)[:3] == ["0.24.0", "0.23.1", "0.23.0"]


def test_openai_agents_takes_the_newest_patch_of_each_minor_from_0_20() -> None:
    releases = sweep.parse_index_versions(PIP_OUTPUT)
    assert sweep.select_releases(releases, sweep.FRAMEWORKS["openai-agents"]) == [
        "0.20.0", "0.21.1", "0.22.3", "0.23.1", "0.24.0"]


def test_pydantic_ai_takes_every_final_release_from_2_60_in_release_order() -> None:
    releases = ["2.68.0", "2.66.0", "2.64.0", "2.63.0", "2.62.0", "2.61.0", "2.60.0", "2.59.0", "2.9.1",
                "2.69.0b1", "1.107.10"]
    assert sweep.select_releases(releases, sweep.FRAMEWORKS["pydantic-ai-slim"]) == [
        "2.60.0", "2.61.0", "2.62.0", "2.63.0", "2.64.0", "2.66.0", "2.68.0"]


def test_langchain_takes_the_newest_patch_of_each_minor_from_1_0_with_prebuilt_pinned_before_1_2() -> None:
    releases = ["0.3.27", "1.0.7", "1.0.8", "1.1.3", "1.2.18", "1.5.1", "1.5.2", "1.6.0a1"]
    framework = sweep.FRAMEWORKS["langchain"]
    assert sweep.select_releases(releases, framework) == ["1.0.8", "1.1.3", "1.2.18", "1.5.2"]
    assert framework.pinned("1.1.3") == ["langgraph-prebuilt<1.0.9"]
    assert framework.pinned("1.2.18") == []


def test_google_adk_takes_the_newest_patch_of_each_minor_from_1_18() -> None:
    releases = ["2.13.0", "2.9.2", "2.9.1", "2.0.0", "1.39.1", "1.39.0", "1.18.0", "1.17.0", "2.14.0rc1"]
    framework = sweep.FRAMEWORKS["google-adk"]
    assert framework.implementations == ("google_adk",)
    assert sweep.select_releases(releases, framework) == ["1.18.0", "1.39.1", "2.0.0", "2.9.2", "2.13.0"]


def test_agent_framework_takes_every_patch_from_1_10() -> None:
    releases = ["1.9.0", "1.10.0", "1.12.0", "1.12.1", "1.23.0", "1.24.0rc1"]
    assert sweep.select_releases(releases, sweep.FRAMEWORKS["agent-framework-core"]) == [
        "1.10.0", "1.12.0", "1.12.1", "1.23.0"]


def test_agent_framework_results_stay_where_tests_and_docs_find_them(tmp_path: Path) -> None:
    frameworks = sweep.FRAMEWORKS
    assert frameworks["agent-framework-core"].results_dir(tmp_path) == tmp_path
    assert frameworks["pydantic-ai-slim"].results_dir(tmp_path) == tmp_path / "pydantic-ai-slim"
    assert frameworks["agent-framework-core"].env_dir(tmp_path, "1.23.0") == tmp_path / "1.23.0"
    assert frameworks["openai-agents"].env_dir(tmp_path, "0.24.0") == tmp_path / "openai-agents" / "0.24.0"


def test_every_framework_by_default_and_explicit_releases_only_for_one() -> None:
    assert [f.package for f in sweep.chosen_frameworks([], [])] == list(sweep.FRAMEWORKS)
    chosen = sweep.chosen_frameworks(["openai-agents", "openai-agents"], ["0.23.1"])
    assert [f.package for f in chosen] == ["openai-agents"]
    with pytest.raises(SystemExit, match="one --framework"):
        sweep.chosen_frameworks([], ["1.23.0"])


def test_a_release_whose_adapter_did_not_load_is_told_apart() -> None:
    framework = sweep.FRAMEWORKS["agent-framework-core"]
    one = {"results": [{"implementation": "agent_framework"}]}
    assert sweep.missing_implementations(one, framework) == ["agent_framework_stateless", "agent_framework_ag_ui"]
    assert sweep.missing_implementations({}, framework) == ["agent_framework", "agent_framework_stateless",
                                                            "agent_framework_ag_ui"]


def test_results_files_are_ordered_by_release_and_skip_the_index(tmp_path: Path) -> None:
    for name in ("1.9.0.json", "1.10.0.json", "index.json", "matrix.json"):
        (tmp_path / name).write_text("{}", encoding="utf-8")
    (tmp_path / "pydantic-ai-slim").mkdir()
    (tmp_path / "pydantic-ai-slim" / "2.60.0.json").write_text("{}", encoding="utf-8")
    files = sweep.results_files(sweep.FRAMEWORKS["agent-framework-core"], tmp_path)
    assert [p.name for p in files] == ["1.9.0.json", "1.10.0.json"]


def test_the_index_and_matrix_cover_every_framework_present_and_name_unsupported_releases(tmp_path: Path) -> None:
    result = {"scenario": "normal.single-call", "title": "t", "spec_rows": ["Single non-streaming call"],
              "section": "normal", "implementation": "pydantic_ai", "version": "2.60.0", "mode": "streaming",
              "verdict": "pass", "reason": "", "path": "p.yaml", "line": 1, "log": [], "checks": []}
    folder = tmp_path / "pydantic-ai-slim"
    folder.mkdir()
    (folder / "2.60.0.json").write_text(json.dumps({"schema_version": 1, "filtered": True, "results": [result]}),
                                        encoding="utf-8")
    (folder / "2.59.0.unsupported").write_text("no results for pydantic_ai: not available\n", encoding="utf-8")
    sweep.write_index_and_matrix(tmp_path, tmp_path / "matrix.md", tmp_path / "matrix.json")
    index = {f["package"]: f for f in json.loads((tmp_path / "index.json").read_text(encoding="utf-8"))["frameworks"]}
    assert (index["pydantic-ai-slim"]["versions"], index["pydantic-ai-slim"]["unsupported"]) == (["2.60.0"],
                                                                                               ["2.59.0"])
    assert index["agent-framework-core"]["versions"] == []
    assert "## pydantic_ai (pydantic-ai-slim 2.60.0)" in (tmp_path / "matrix.md").read_text(encoding="utf-8")


def _run(provider: str, verdict: str, reason: str = "", package: str = "") -> dict[str, object]:
    return {"scenario": "s", "implementation": "agent_framework", "version": "1.10.0", "mode": "streaming",
            "provider": provider, "verdict": verdict, "reason": reason, "provider_package": package,
            "provider_version": ""}


def test_runs_over_a_provider_whose_package_was_not_released_say_so() -> None:
    document = {"results": [
        _run("gemini", "n/a", "gemini provider not installed: No module named 'agent_framework_gemini'",
             "agent-framework-gemini"),
        _run("gemini", "n/a", "agent_framework lacks capability: compaction", "agent-framework-gemini"),
        _run("openai-chat", "n/a", "openai-chat provider not installed: ...", "agent-framework-openai"),
        _run("neutral", "pass"),
    ]}
    installed = {
        "agent-framework-gemini": {"version": None, "installed": False, "reason": "not released for this core release"},
        "agent-framework-openai": {"version": "1.10.0", "installed": False, "reason": "cannot be installed: ..."},
    }
    marked = sweep.with_companions(document, installed)
    assert [r["reason"] for r in marked["results"]] == [
        "agent-framework-gemini not released for this core release",
        "agent_framework lacks capability: compaction",
        "openai-chat provider not installed: ...",  # released, but it would not install: the run says why
        "",
    ]
    assert marked["companions"] == installed


def test_a_run_restricted_to_some_providers_replaces_only_their_results() -> None:
    earlier = {"schema_version": 1, "filtered": False,
               "results": [_run("neutral", "pass"), _run("gemini", "n/a", "not installed")]}
    fresh = {"schema_version": 1, "filtered": True, "results": [_run("gemini", "fail")]}
    merged = sweep.merge_results(earlier, fresh, sweep.Selection(providers=("gemini",)))
    assert [(r["provider"], r["verdict"]) for r in merged["results"]] == [("neutral", "pass"), ("gemini", "fail")]
    assert merged["filtered"] is False  # every provider is there again


def _impl_run(implementation: str, verdict: str, version: str = "1.16.0", mode: str = "streaming",
              provider: str = "neutral") -> dict[str, object]:
    return {"scenario": "s", "implementation": implementation, "version": version, "mode": mode,
            "provider": provider, "verdict": verdict, "reason": "", "spec_rows": ["Single non-streaming call"],
            "checks": [], "log": []}


def test_a_run_restricted_to_some_implementations_replaces_only_their_results() -> None:
    earlier = {"schema_version": 1, "filtered": False, "release": "1.16.0",
               "results": [_impl_run("agent_framework", "pass"), _impl_run("agent_framework", "pass",
                                                                           provider="gemini"),
                           _impl_run("agent_framework_ag_ui", "fail", "1.2.1")]}
    fresh = {"schema_version": 1, "filtered": True, "results": [_impl_run("agent_framework_ag_ui", "pass", "1.2.1")]}
    merged = sweep.merge_results(earlier, fresh, sweep.Selection(implementations=("agent_framework_ag_ui",)))
    assert [(r["implementation"], r["provider"], r["verdict"]) for r in merged["results"]] == [
        ("agent_framework", "neutral", "pass"), ("agent_framework", "gemini", "pass"),
        ("agent_framework_ag_ui", "neutral", "pass")]
    assert merged["filtered"] is False
    assert merged["release"] == "1.16.0"
    both = sweep.Selection(implementations=("agent_framework",), providers=("gemini",))
    assert [both.covers(r) for r in earlier["results"]] == [False, True, False]


def test_a_run_restricted_to_some_scenarios_replaces_only_their_results() -> None:
    kept, again = _impl_run("agent_framework", "pass"), {**_impl_run("agent_framework", "fail"), "scenario": "new"}
    earlier = {"schema_version": 1, "filtered": False, "release": "1.16.0", "results": [kept, again]}
    fresh = {"schema_version": 1, "filtered": True,
             "results": [{**_impl_run("agent_framework", "pass"), "scenario": "new"},
                         {**_impl_run("agent_framework", "n/a"), "scenario": "added"}]}
    selection = sweep.Selection(scenario_paths=("scenarios/x",), scenario_ids=frozenset({"new", "added"}))
    merged = sweep.merge_results(earlier, fresh, selection)
    assert [(r["scenario"], r["verdict"]) for r in merged["results"]] == [("s", "pass"), ("new", "pass"),
                                                                          ("added", "n/a")]
    assert merged["filtered"] is False


def test_scenario_ids_names_the_scenarios_under_a_path_and_refuses_a_broken_one(tmp_path: Path) -> None:
    assert sweep.scenario_ids([str(ROOT / "scenarios" / "normal" / "streaming-reused-id-calls.yaml")]) == {
        "normal.streaming.reused-id-calls"}
    (tmp_path / "broken.yaml").write_text("id: [\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="broken.yaml"):
        sweep.scenario_ids([str(tmp_path)])


def test_impl_option_rejects_an_implementation_the_framework_is_not_driven_by() -> None:
    with pytest.raises(SystemExit, match="not driven by pydantic_ai"):
        sweep.main(["--framework", "agent-framework-core", "--impl", "pydantic_ai", "1.16.0"])


def test_a_companion_implementation_that_cannot_run_gets_na_runs_saying_why() -> None:
    framework = sweep.FRAMEWORKS["agent-framework-core"]
    document = {"results": [_impl_run("agent_framework", "pass", mode=m) for m in ("streaming", "non-streaming")]
                + [_impl_run("agent_framework", "pass", provider="gemini")]}
    notes = ["note: agent_framework_ag_ui unavailable: No module named 'agent_framework_ag_ui'"]
    marked = sweep.with_unavailable(document, framework, notes, {"agent-framework-ag-ui": "1.4.0"}, "1.18.0")
    added = [r for r in marked["results"] if r["implementation"] == "agent_framework_ag_ui"]
    assert [(r["mode"], r["provider"], r["verdict"], r["version"]) for r in added] == [
        ("streaming", "neutral", "n/a", "1.4.0"), ("non-streaming", "neutral", "n/a", "1.4.0")]
    assert all("agent-framework-ag-ui 1.4.0" in r["reason"] and "No module named" in r["reason"] for r in added)
    assert sweep.missing_implementations(marked, framework) == ["agent_framework_stateless"]
    unreleased = sweep.with_unavailable(document, framework, [], {"agent-framework-ag-ui": None}, "1.9.0")
    assert {r["reason"] for r in unreleased["results"] if r["implementation"] == "agent_framework_ag_ui"} == {
        "agent-framework-ag-ui not released for this core release"}
    absent = {"agent-framework-ag-ui": {"version": "1.4.0", "installed": False, "reason": "cannot be installed: x"}}
    missing = sweep.with_unavailable(document, framework, [], {"agent-framework-ag-ui": "1.4.0"}, "1.18.0", absent)
    assert {r["reason"] for r in missing["results"] if r["implementation"] == "agent_framework_ag_ui"} == {
        "agent-framework-ag-ui 1.4.0 (built for agent-framework-core 1.18.0) cannot be installed: x"}
    # Nothing ran at all: there is nothing to stand in for, and the release stays unsupported.
    assert sweep.with_unavailable({"results": []}, framework, notes, {}, "1.18.0") == {"results": []}


def test_the_matrix_heads_a_companion_implementations_columns_with_both_releases(tmp_path: Path) -> None:
    for core, agui in (("1.13.0", "1.0.1"), ("1.16.0", "1.2.1")):
        document = {"schema_version": 1, "filtered": True, "release": core,
                    "results": [_impl_run("agent_framework", "pass", core), _impl_run("agent_framework_ag_ui",
                                                                                      "pass", agui)]}
        (tmp_path / f"{core}.json").write_text(json.dumps(document), encoding="utf-8")
    sweep.write_index_and_matrix(tmp_path, tmp_path / "matrix.md", tmp_path / "matrix.json")
    markdown = (tmp_path / "matrix.md").read_text(encoding="utf-8")
    assert "## agent_framework_ag_ui (agent-framework-core 1.13.0 – 1.16.0, with agent-framework-ag-ui)" in markdown
    assert "| Section | Spec row | 1.13.0 / ag-ui 1.0.1 | 1.16.0 / ag-ui 1.2.1 |" in markdown
    assert "| Section | Spec row | 1.13.0 | 1.16.0 |" in markdown  # the core implementation's table as before
    table = json.loads((tmp_path / "matrix.json").read_text(encoding="utf-8"))["implementations"]
    assert table["agent_framework_ag_ui"]["companion_releases"] == {"1.13.0": "1.0.1", "1.16.0": "1.2.1"}
    assert "companion_releases" not in table["agent_framework"]


def test_environments_used_as_they_are_name_each_implementation_by_this_checkouts_factory() -> None:
    references = sweep.checkout_adapters()
    assert references["agent_framework_ag_ui"] == "harness.adapters.agent_framework_ag_ui:adapter"
    assert set(sweep.FRAMEWORKS["agent-framework-core"].implementations) <= set(references)


def test_a_pre_release_comes_before_its_final_release_in_every_range() -> None:
    from harness.reporting.baseline import in_release_range, release_key

    assert sorted(["1.0.1", "1.0.0", "1.0.0rc9", "1.0.0rc7", "1.0.0b1"], key=release_key) == [
        "1.0.0b1", "1.0.0rc7", "1.0.0rc9", "1.0.0", "1.0.1"]
    assert not in_release_range("1.0.0rc9", "1.0.0", None)  # an entry from 1.0.0 does not hold for its candidates
    assert in_release_range("1.0.0rc9", "1.0.0rc7", "1.0.0")


def test_a_partial_sweep_merges_into_the_full_file_else_into_the_committed_compact_one(tmp_path: Path) -> None:
    from harness.reporting.compact import write_compact

    full = tmp_path / "full" / "1.23.0.json"
    compact = tmp_path / "compact" / "1.23.0.json"
    assert sweep.earlier_results(full, compact) is None
    full.parent.mkdir()
    run = {"scenario": "normal.single-call", "implementation": "agent_framework", "version": "1.23.0",
           "mode": "streaming", "verdict": "pass", "spec_rows": ["Single non-streaming call"], "section": "normal",
           "checks": [{"id": "completes", "verdict": "pass", "message": "done"}]}
    full.write_text(json.dumps({"filtered": True, "release": "1.23.0", "results": [run]}), encoding="utf-8")
    assert write_compact(full, compact)
    assert sweep.earlier_results(full, compact)["results"][0]["checks"][0]["message"] == "done"
    full.unlink()
    earlier = sweep.earlier_results(full, compact)
    assert earlier is not None
    assert (earlier["release"], len(earlier["results"])) == ("1.23.0", 1)
    assert earlier["results"][0]["checks"] == [{"id": "completes", "verdict": "pass", "message": ""}]
