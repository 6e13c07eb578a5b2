"""No committed report or results file holds a machine's absolute path (a checkout, a home folder, a virtual
environment): they say nothing to a reader, differ between machines, and leak where the files were made."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The committed output: the snapshot, the version sweep's compact files and matrix, and the fixtures made from them.
COMMITTED = ("results", "tests/data")
# What only a machine's own path holds (a scenario's `/tmp/a.txt` is data, not one): a home folder, a Python
# installation or environment, a temporary folder's random name, or a project folder below an absolute root (a
# checkout), POSIX or Windows.
ABSOLUTE = re.compile(
    r"(?<![\w.:/-])(?:"
    r"/(?:home|Users)/[\w.-]+/|/root/"
    r"|/(?:[\w.@+-]+/)*(?:site-packages|dist-packages|\.venv|\.pyenv|\.nox|\.tox)/"
    r"|/tmp/[\w.-]*?[a-z0-9_]{8}/"
    r"|/(?:[\w.@+-]+/)+(?:scenarios|harness|tests|tools|baselines|repro|results|reports|fakes)/[\w.-]+"
    r"|[A-Za-z]:\\\\?[\w.-]+\\)")


def committed_files() -> list[Path]:
    """The files git tracks under `COMMITTED` (every file there when this is not a git checkout)."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--", *COMMITTED], cwd=ROOT, capture_output=True,
                                check=True).stdout.decode().split("\0")
        return [ROOT / name for name in listed if name]
    except (OSError, subprocess.CalledProcessError):
        return [p for folder in COMMITTED for p in (ROOT / folder).rglob("*") if p.is_file()]


def absolute_paths(text: str) -> list[str]:
    return sorted({found.group(0) for found in ABSOLUTE.finditer(text)})


@pytest.mark.parametrize("text", ['"path": "/work/main/scenarios/normal/x.yaml"', "file=/home/ci/repo/a.py",
                                  "at C:\\\\Users\\\\ci\\\\a.yaml", "/Users/me/loop/x.json",
                                  "(/tmp/loop-mutant-bu68e6dj/m.py)", "/root/.pyenv/versions/3.11.7/typing.py",
                                  "/opt/venv/lib/python3.11/site-packages/agent_framework/_tools.py"])
def test_the_pattern_finds_machine_paths(text: str) -> None:
    assert absolute_paths(text)


@pytest.mark.parametrize("text", ['"path": "scenarios/normal/x.yaml"', "https://github.com/o/r/actions/runs/1",
                                  "agent_framework/_tools.py", "a / b", "results/versions/1.23.0.json",
                                  "the tool deletes /tmp/a.txt twice", "/v1/responses"])
def test_the_pattern_leaves_relative_paths_and_urls_alone(text: str) -> None:
    assert not absolute_paths(text)


def test_no_committed_report_or_results_file_holds_an_absolute_path() -> None:
    files = committed_files()
    assert any(path.match("results/versions/*.json") for path in files), "the committed release files are missing"
    found = {str(path.relative_to(ROOT)): hits[:3] for path in files
             if (hits := absolute_paths(path.read_text(encoding="utf-8", errors="replace")))}
    assert found == {}, f"machine paths in committed files: {found}"
