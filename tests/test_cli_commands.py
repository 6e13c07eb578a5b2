"""The commands for CI and editors: check, baseline-stub, report --step-summary, schema; the help's examples."""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from pathlib import Path

import pytest
import yaml

from harness.citations import CITATIONS
from harness.cli import SCHEMA_ID, _parser, main
from harness.reporting.baseline import apply_baseline, load_baseline
from harness.reporting.baseline_stub import render_stub
from harness.reporting.documents import load_results_document
from harness.results import CheckResult, ScenarioResult

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "normal" / "single-call.yaml"


def _failing_results(tmp_path: Path) -> Path:
    folder = tmp_path / "scenarios" / "normal"
    folder.mkdir(parents=True)
    (folder / "single-call.yaml").write_text(SCENARIO.read_text().replace("model_calls: 2", "model_calls: 3"))
    (folder / "streaming-call.yaml").write_text((SCENARIO.parent / "streaming-call.yaml").read_text())
    results = tmp_path / "results.json"
    assert main(["run", "--impl", "reference", "--scenarios", str(folder), "--json", str(results), "--no-reports",
                 "-q"]) == 1
    return results


def test_check_passes_every_bundled_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(ROOT / "scenarios")]) == 0
    out = capsys.readouterr().out
    count = len(list((ROOT / "scenarios").rglob("*.yaml")))
    assert out == f"checked {count} scenario file(s): {count} valid, 0 broken\n"


def test_check_refuses_a_broken_file_with_its_located_errors(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    good, broken = tmp_path / "good.yaml", tmp_path / "broken.yaml"
    good.write_text(SCENARIO.read_text())
    broken.write_text(SCENARIO.read_text().replace("id: normal.single-call", "id: normal.other")
                      .replace("    expect:", "    exepct:"))
    assert main(["check", str(good), str(broken)]) == 1
    captured = capsys.readouterr()
    assert f"{broken}:22:5: error[unknown-key]: turn 1 has unknown key 'exepct'" in captured.err
    assert "hint: did you mean 'expect'?" in captured.err
    assert captured.out == "checked 2 scenario file(s): 1 valid, 1 broken\n"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["check", str(empty)]) == 5


def test_the_pre_commit_hook_runs_check_on_scenario_files() -> None:
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "loop-conformance-check"
    assert hook["entry"] == "loop-conformance check"
    assert hook["language"] == "python"
    assert hook["pass_filenames"] is True
    assert _parser().parse_args([*shlex.split(hook["entry"])[1:], "a.yaml"]).command == "check"


def test_citations_lists_every_id_a_scenario_may_cite_and_filters_by_words(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["citations"]) == 0
    listed = [line for line in capsys.readouterr().out.splitlines() if not line.startswith(" ")]
    assert listed == list(CITATIONS)
    assert main(["citations", "APPROVED", "exactly"]) == 0
    out = capsys.readouterr().out
    assert "sentence:approval-request-and-resume/an-approved-tool-executes-exactly-once" in out
    assert "An approved tool executes exactly once." in out
    assert main(["citations", "no-such-words-anywhere"]) == 5
    assert "no citation contains" in capsys.readouterr().err


def test_the_schema_carries_a_versioned_id(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["$id"] == SCHEMA_ID
    assert SCHEMA_ID.endswith("/scenario/v1.json")
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["title"] == "ScenarioSpec"


def test_a_baseline_stub_excuses_exactly_the_current_failures(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    results = _failing_results(tmp_path)
    capsys.readouterr()
    assert main(["baseline-stub", str(results)]) == 0
    stub = capsys.readouterr().out
    assert stub.count("  - scenario: ") == 1  # both modes of the one failing scenario share an entry
    assert "    modes: [non-streaming, streaming]\n" in stub
    assert "    checks: [expect.model-calls]\n" in stub
    assert "providers:" not in stub  # it failed over every provider it ran over
    assert "TODO" in stub
    path = tmp_path / "baseline.yaml"
    path.write_text(stub)
    entries = load_baseline(path).known_failures  # the stub loads as it is
    verdicts = {(r.scenario, r.mode): apply_baseline(r, entries).verdict
                for r in load_results_document(results).results}
    assert verdicts == {("normal.single-call", "non-streaming"): "xfail", ("normal.single-call", "streaming"): "xfail",
                        ("normal.streaming-call", "non-streaming"): "pass",
                        ("normal.streaming-call", "streaming"): "pass"}


def test_a_baseline_stub_names_providers_only_when_the_failure_is_not_everywhere() -> None:
    def run(provider: str, verdict: str, mode: str = "streaming") -> ScenarioResult:
        check = CheckResult("provider-accepts", "fail" if verdict == "fail" else "pass", "refused")
        return ScenarioResult("normal.x", "t", (), "normal", "af", "1.2.0", mode, verdict,  # type: ignore[arg-type]
                              checks=(check,), provider=provider)

    stub = render_stub([run("neutral", "pass"), run("gemini", "fail"), run("gemini", "fail", "non-streaming"),
                        run("openai-chat", "fail"), run("neutral", "error")])
    assert "# 1 erroring run(s) are left out" in stub
    entries = yaml.safe_load(stub)["known_failures"]
    assert [(e["providers"], e["modes"], e["versions_from"]) for e in entries] == [
        (["gemini"], ["non-streaming", "streaming"], "1.2.0"), (["openai-chat"], ["streaming"], "1.2.0")]
    assert render_stub([run("neutral", "pass")]).endswith("known_failures: []\n")


def test_fuzz_options_are_there_without_hypothesis_and_running_it_says_how_to_install(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "hypothesis", None)  # `import hypothesis` now fails, as when not installed
    for name in [m for m in sys.modules if m in ("harness.fuzz.command", "harness.fuzz.session")]:
        monkeypatch.delitem(sys.modules, name)
    args = _parser().parse_args(["fuzz", "--impl", "reference", "--profile", "long", "--seed", "3"])
    assert (args.impl, args.profile, args.seed) == ("reference", "long", 3)
    assert main(["fuzz", "--impl", "reference"]) == 2
    assert "pip install 'loop-conformance[fuzz]'" in capsys.readouterr().err


def _help_examples() -> list[list[str]]:
    """Every command line in every epilog, continuation lines joined, shell redirections and descriptions cut."""
    parser = _parser()
    [commands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    texts = [parser.epilog or "", *(c.epilog or "" for c in commands.choices.values())]
    found: list[list[str]] = []
    for text in texts:
        for line in re.sub(r"\s*\\\n\s*", " ", text).splitlines():
            line = re.split(r"\s{2,}| >", line.strip())[0]  # a description follows two spaces or more
            if line.startswith("loop-conformance ") and "COMMAND" not in line:
                found.append(shlex.split(line)[1:])
    return found


def test_every_help_example_parses() -> None:
    examples = _help_examples()
    assert len(examples) > 15
    assert ["affected-rows", "--impl", "agent_framework", "fix.patch", "--coverage",
            "reports/loop-coverage-agent_framework.json"] in examples
    for example in examples:
        _parser().parse_args(example)  # argparse exits 2 on an option that does not exist
