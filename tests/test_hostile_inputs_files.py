"""Results and baseline files are read bounded and located: every malformed file is one `path:line:col` error line
(exit 2 from the commands), never a traceback or a hang; the files the harness writes still load."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from tool_loader import load_tool

from harness import data_files
from harness.cli import main
from harness.fuzz.allowances import AllowancesError, load_allowances
from harness.power.equivalents import EquivalentsError, load_equivalents
from harness.reporting.baseline import BaselineError, load_baseline, release_key
from harness.reporting.documents import ResultsFileError, load_results_document
from harness.reporting.gate import load_gate_baseline

ROOT = Path(__file__).resolve().parent.parent
fuzz_tool = load_tool("fuzz_data_files")
REASON = "A known failure written for these tests, long enough to pass the length check."


def _run(**fields: object) -> dict[str, object]:
    return {"scenario": "normal.single-call", "title": "One call", "spec_rows": ["single-call"],
            "section": "normal", "implementation": "reference", "version": "0.1.0", "mode": "streaming",
            "verdict": "pass", "checks": [{"id": "no-orphans", "verdict": "pass", "message": "", "turn": 1}],
            "path": "scenarios/normal/single-call.yaml", "line": 1, "reason": "", "log": []} | fields


def _results(*runs: dict[str, object], **document: object) -> str:
    return json.dumps({"filtered": False, "results": list(runs or [_run()])} | document)


def _write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def test_a_valid_results_file_loads_with_every_field() -> None:
    document = load_results_document(fuzz_tool.committed_release("openai-agents/0.24.0.json"))
    assert len(document.results) > 100
    assert all(result.implementation == "openai_agents" for result in document.results)


@pytest.mark.parametrize(("text", "code", "where"), [
    ('{"results": [' + "[" * 100 + "]" * 100 + "]}", "too-deep", ":1:"),
    ('{"results": [],\n "x": 1e400}', "invalid-number", ":2:7"),
    ('{"results": [], "x": NaN}', "invalid-number", ":1:22"),
    ('{"results": [], "x": -Infinity}', "invalid-number", ":1:22"),
    ('{"results": [], "x": ' + "9" * 5000 + "}", "invalid-number", ":1:22"),
    ('{"results": [],\n "x": "a\\ud800b"}', "lone-surrogate", ":2:7"),
    ('{"results": [], "x": "\\\\ud800"}', None, None),  # an escaped backslash: plain text, accepted
    ('{"results": [], "x": "\\ud83d\\ude00"}', None, None),  # a surrogate pair: one character, accepted
    ('{"results": [}', "json-syntax", ":1:14"),
    ("", "json-syntax", ":1:1"),
])
def test_malformed_json_is_one_located_line(tmp_path: Path, text: str, code: str | None, where: str | None) -> None:
    path = _write(tmp_path, "results.json", text)
    if code is None:
        assert load_results_document(path).results == ()
        return
    with pytest.raises(ResultsFileError) as raised:
        load_results_document(path)
    message = str(raised.value)
    assert message.startswith(f"{path}{where}")
    assert f"error[{code}]" in message
    assert "\n" not in message


def test_invalid_utf8_is_located_at_its_byte(tmp_path: Path) -> None:
    path = _write(tmp_path, "results.json", b'{"results": [],\n "x": "caf\xe9"}')
    with pytest.raises(ResultsFileError, match=r"results.json:2:11: error\[not-utf8\]: byte 0xE9"):
        load_results_document(path)


def test_an_oversized_file_is_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(data_files, "MAX_JSON_BYTES", 100)
    path = _write(tmp_path, "results.json", _results(_run(), _run()))
    with pytest.raises(ResultsFileError, match=r"error\[too-large\]: the file is larger than 100 bytes"):
        load_results_document(path)


@pytest.mark.parametrize(("run", "message"), [
    (_run(verdict="bogus"), r"results\[0\]\.verdict: 'bogus' is not one of pass, fail"),
    (_run(mode=5), r"results\[0\]\.mode: expected text, got a number"),
    ({k: v for k, v in _run().items() if k != "scenario"}, r"results\[0\]: missing field 'scenario'"),
    (_run(checks={"id": "x"}), r"results\[0\]\.checks: expected a list, got an object"),
    (_run(checks=[{"id": "x", "verdict": "pass", "turn": "one"}]), r"results\[0\]\.checks\[0\]\.turn: expected a "
                                                                   "whole number"),
    (_run(checks=[{"id": "x", "verdict": "pass", "turn": 0}]), r"checks\[0\]\.turn: expected a whole number from 1"),
    (_run(checks=[{"id": "x", "verdict": "pass", "diff": [1]}]), r"checks\[0\]\.diff\[0\]: expected text"),
    (_run(line=True), r"results\[0\]\.line: expected a whole number"),
    (_run(spec_rows="single-call"), r"results\[0\]\.spec_rows: expected a list"),
    (_run(version="1.\u00b2"), r"results\[0\]\.version: the version '1\.\\xb2' is not a release number"),
    (_run(implementation=""), r"results\[0\]\.implementation: expected a name"),
    (_run(provider="a\nb"), r"results\[0\]\.provider: expected a name \(one line"),
    ("a run", r"results\[0\]: expected an object, got text"),
])
def test_missing_or_mistyped_fields_are_named_by_their_place(tmp_path: Path, run: object, message: str) -> None:
    path = _write(tmp_path, "results.json", json.dumps({"results": [run]}))
    with pytest.raises(ResultsFileError, match=message):
        load_results_document(path)


@pytest.mark.parametrize(("document", "message"), [
    ({"results": [], "filtered": "no"}, r"filtered: expected true or false"),
    ({"results": [], "release": "1.\u00b2"}, r"release: the version"),
    ({"results": {}}, r"results: expected a list"),
    ([], r"not a results document"),
])
def test_document_fields_are_checked_too(tmp_path: Path, document: object, message: str) -> None:
    with pytest.raises(ResultsFileError, match=message):
        load_results_document(_write(tmp_path, "results.json", json.dumps(document)))


def _command(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_each_command_refuses_a_bad_results_file_with_one_line(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    good = _write(tmp_path, "good.json", _results())
    bad = _write(tmp_path, "bad.json", '{"results": [' + "[" * 5000 + "]" * 5000 + "]}")
    baseline = _write(tmp_path, "baseline.yaml", "known_failures: []\n")
    for argv in (["report", str(bad), "--out", str(tmp_path / "out")],
                 ["gate", "--baseline", str(baseline), str(bad)],
                 ["diff", str(good), str(bad)],
                 ["version-matrix", str(bad), "--markdown", str(tmp_path / "m.md"), "--json", str(tmp_path / "m.j")]):
        code, _, err = _command(argv, capsys)
        assert code == 2, argv
        assert err.count("\n") == 1
        assert err.startswith(f"error: {bad}:1:")
        assert "error[too-deep]" in err


def test_version_matrix_reads_a_sweep_release_through_the_checked_document(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "1.2.0.json", _results(_run(version="0.9.0"), release="1.2.0"))
    code, out, _ = _command(["version-matrix", str(path), "--markdown", str(tmp_path / "m.md"), "--json",
                             str(tmp_path / "m.json")], capsys)
    assert code == 0
    assert "over 1 releases" in out
    assert "1.2.0" in (tmp_path / "m.md").read_text(encoding="utf-8")


# -------------------------------------------------------------------------------------------------- baselines

BOMB = "".join(f"l{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9) if n else 'lol'}]\n" for n in range(10))


@pytest.mark.parametrize(("content", "code", "where"), [
    (BOMB, "alias-expansion", ":"),
    ("known_failures: " + "[" * 500 + "]" * 500 + "\n", "too-deep", ":1:"),
    (b"known_failures: []\n# caf\xe9\n", "not-utf8", ":2:6"),
    ("known_failures: []\nknown_failures: []\n", "duplicate-key", ":2:1"),
    ("known_failures: [\n", "yaml-syntax", ":"),
    ("known_failures: !!python/object:os.system {}\n", "unsupported-tag", ":1:17"),
    ("known_failures: 5\n", "invalid-value", ":1:17"),
    ("check_failures:\n  - {scenario: a, check: b, implementation: c, mode: sideways, reason: '" + REASON + "'}\n",
     "invalid-value", ":2:"),
    ("known_failures:\n  - scenario: a\n    implementation: b\n    checks: [c]\n    reason: '" + REASON + "'\n",
     "invalid-value", ":2:5"),
    ("- 1\n", "wrong-type", ":1:1"),
    ('known_failures: []\ncheck_failures: [{note: "a\\ud800b"}]\n', "lone-surrogate", ":2:25"),
    ("\x00", "invalid-character", ":1:1"),
])
def test_malformed_baselines_are_one_located_line(tmp_path: Path, content: str | bytes, code: str,
                                                  where: str) -> None:
    path = _write(tmp_path, "baseline.yaml", content)
    # `run` reads only known_failures; per-check entries are the gate's.
    per_check = isinstance(content, str) and content.startswith("check_failures")
    for load in (load_gate_baseline,) if per_check else (load_baseline, load_gate_baseline):
        started = time.monotonic()
        with pytest.raises(BaselineError) as raised:
            load(path)
        assert time.monotonic() - started < 30  # a safety net against a hang, not a speed target
        message = str(raised.value)
        assert message.startswith(f"{path}{where}")
        assert f"error[{code}]" in message
        assert "\n" not in message


def test_a_missing_key_is_named(tmp_path: Path) -> None:
    path = _write(tmp_path, "baseline.yaml", "known_failures:\n  - scenario: a\n    implementation: b\n"
                                             f"    checks: [c]\n    reason: '{REASON}'\n")
    with pytest.raises(BaselineError, match=r"known_failures\[0\]: missing key 'reproduction'"):
        load_baseline(path)


def test_the_bundled_baselines_still_load() -> None:
    assert len(load_baseline(ROOT / "baselines" / "known-failures.yaml").known_failures) > 100
    assert load_allowances(ROOT / "baselines" / "fuzz-allowances.yaml")
    assert load_equivalents(ROOT / "baselines" / "equivalent-mutants.yaml")


def test_allowances_and_equivalents_are_bounded_too(tmp_path: Path) -> None:
    bomb = _write(tmp_path, "bomb.yaml", BOMB)
    with pytest.raises(AllowancesError, match="alias-expansion"):
        load_allowances(bomb)
    with pytest.raises(EquivalentsError, match="alias-expansion"):
        load_equivalents(bomb)


def test_gate_and_version_matrix_refuse_an_alias_bomb(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = _write(tmp_path, "results.json", _results())
    bomb = _write(tmp_path, "bomb.yaml", BOMB)
    for argv in (["gate", "--baseline", str(bomb), str(results)],
                 ["version-matrix", str(results), "--baseline", str(bomb), "--markdown", str(tmp_path / "m.md"),
                  "--json", str(tmp_path / "m.json")],
                 ["run", "--impl", "reference", "--baseline", str(bomb), "--no-reports"]):
        code, _, err = _command(argv, capsys)
        assert code == 2, argv
        assert err.count("\n") == 1, argv
        assert "error[alias-expansion]" in err, argv


def test_release_bounds_never_make_int_fail() -> None:
    assert release_key("9" * 5000) == (999_999_999_999_999_999, 0, 0)
    assert release_key("1.\u00b2") == (1, 0, 0, 0)
    assert release_key("1.\u0661") == (1, 0, 0, 0)  # an Arabic-Indic digit is no release digit


def test_a_loop_coverage_report_is_read_bounded_too(tmp_path: Path) -> None:
    from harness.errors import HarnessError
    from harness.power.commands import load_coverage_report

    with pytest.raises(HarnessError, match=r"coverage.json:1:\d+: error\[invalid-number\]"):
        load_coverage_report(_write(tmp_path, "coverage.json", '{"implementation": "reference", "raw": NaN}'),
                             "reference")
    with pytest.raises(HarnessError, match="not a loop-coverage report"):
        load_coverage_report(_write(tmp_path, "coverage.json", "[1, 2]"), "reference")
