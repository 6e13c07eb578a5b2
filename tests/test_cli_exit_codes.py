"""The exit status of loop-conformance: the documented table, and each code where a user meets it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness import cli
from harness.cli import main
from harness.exit_codes import EXIT_CODES, ExitCode, exit_code_markdown, exit_code_table
from harness.reporting.colour import console
from harness.results import ScenarioResult
from harness.run import command
from harness.run.suite import IsolatedSuiteRun

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "normal" / "single-call.yaml"


def _folder(tmp_path: Path, text: str = "") -> Path:
    folder = tmp_path / "scenarios" / "normal"
    folder.mkdir(parents=True)
    (folder / "single-call.yaml").write_text(text or SCENARIO.read_text())
    return folder.parent


def _result(verdict: str) -> ScenarioResult:
    return ScenarioResult("normal.x", "t", (), "normal", "reference", "0.1.0", "streaming", verdict)  # type: ignore[arg-type]


def test_every_exit_code_is_documented_once_and_shown_by_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert [doc.code for doc in EXIT_CODES] == list(ExitCode)
    assert [int(c) for c in ExitCode] == [0, 1, 2, 5, 130, 141]
    assert all(doc.meaning.endswith(".") and doc.examples for doc in EXIT_CODES)
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    printed = capsys.readouterr().out
    assert exit_code_table() in printed
    assert "    5  Nothing ran: no scenario file was found" in printed
    markdown = exit_code_markdown().splitlines()
    assert markdown[0] == "| Code | Name | Meaning | For example |"
    assert len(markdown) == 2 + len(ExitCode)
    assert markdown[2 + 3].startswith("| 5 | `NOTHING_RAN` |")


@pytest.mark.parametrize(("verdicts", "expected"), [
    (["pass", "xfail", "differs", "n/a"], ExitCode.OK),
    (["pass", "fail"], ExitCode.FAILED),
    (["error", "n/a"], ExitCode.FAILED),
    ([], ExitCode.NOTHING_RAN),
])
def test_status_from_verdicts(verdicts: list[str], expected: ExitCode, tmp_path: Path) -> None:
    suite = IsolatedSuiteRun(results=[_result(v) for v in verdicts])
    assert command._exit_status(console(stderr=True), suite, [], [_folder(tmp_path)]) == expected


def test_a_failing_run_wins_over_a_missing_named_implementation(tmp_path: Path) -> None:
    suite = IsolatedSuiteRun(results=[_result("fail")], unavailable=["pydantic_ai: not available (no module)"])
    assert command._exit_status(console(stderr=True), suite, ["pydantic_ai"], [tmp_path]) == ExitCode.FAILED


def test_an_empty_scenario_folder_runs_nothing_and_exits_5(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["run", "--impl", "reference", "--scenarios", str(empty), "--no-reports"]) == 5
    assert f"error: nothing ran: no scenario files (*.yaml, *.yml) under {empty}" in capsys.readouterr().err


def test_a_named_implementation_that_is_not_installed_exits_5(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    # An adapter whose framework is missing, as pydantic_ai's is without pydantic-ai: its import fails.
    (tmp_path / "absent_framework_adapter.py").write_text(
        "def adapter():\n    raise ImportError(\"No module named 'absent_framework'\")\n")
    monkeypatch.syspath_prepend(str(tmp_path))  # the workers inherit sys.path
    args = ["run", "--impl", "absent_framework_adapter:adapter", "--scenarios", str(_folder(tmp_path)),
            "--no-reports"]
    assert main(args) == 5
    err = capsys.readouterr().err
    assert "error: 1 implementation(s) named with --impl cannot run, so their runs are missing: " in err
    assert "No module named 'absent_framework'" in err
    assert "hint: install what it needs, e.g. its extra: pip install 'loop-conformance[pydantic-ai]'" in err
    # beside one that runs and passes, the missing one still makes the run non-zero
    assert main([*args, "--impl", "reference"]) == 5


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--impl", "no_such_loop"]) == 2
    assert main(["gate", "--baseline", "missing.yaml", "missing.json"]) == 2
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "--no-such-option"])
    assert exit_info.value.code == 2
    assert "no implementation named 'no_such_loop'" in capsys.readouterr().err


def test_ctrl_c_exits_130_without_a_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted(*_: object, **__: object) -> IsolatedSuiteRun:
        raise KeyboardInterrupt

    monkeypatch.setattr(command, "run_isolated_suite", interrupted)
    assert main(["run", "--impl", "reference", "--scenarios", str(_folder(tmp_path)), "--no-reports"]) == 130
    captured = capsys.readouterr()
    assert captured.err == "\ninterrupted\n"
    assert "Traceback" not in captured.out + captured.err


def test_a_real_sigint_exits_130_without_a_traceback(tmp_path: Path) -> None:
    # The interpreter turns SIGINT into KeyboardInterrupt wherever it lands: here inside the run, as Ctrl-C would.
    program = ("import signal, sys\n"
               "from harness.run import command\n"
               "command.run_isolated_suite = lambda *a, **k: signal.raise_signal(signal.SIGINT)\n"
               "from harness.cli import main\n"
               f"sys.exit(main(['run', '--impl', 'reference', '--scenarios', {str(_folder(tmp_path))!r}, "
               "'--no-reports']))\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
    assert done.returncode == 130
    assert done.stderr.strip() == "interrupted"
    assert "Traceback" not in done.stdout


def test_a_closed_pipe_stops_quietly_with_141() -> None:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte, as `schema | head -0` leaves it
    try:
        done = subprocess.run([sys.executable, "-m", "harness.cli", "schema"], stdout=write, stderr=subprocess.PIPE,
                              text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
    finally:
        os.close(write)
    assert done.returncode == 141
    assert done.stderr == ""


def test_the_version_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"loop-conformance {cli.package_version()}\n"
    assert cli.package_version()[0].isdigit()
