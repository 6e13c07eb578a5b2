"""The tutorials' commands, run as a reader would run them, against the reference loop and the toy loop.

Each page under docs/tutorials/ is played in document order in a fresh folder (holding links to this checkout's
`examples/` and `scenarios/`, as a reader's checkout has them): a fenced block with a `title="PATH"` is written to
PATH, and every line of a ```console block that starts with `$ ` is run with bash. A `<!-- tutorial: ... -->` line
right before a console block sets what to expect: `exit=N` for the block's last command (every other command must
exit 0), `check-output` to require each output line the block shows (the lines without `$ `, except `...`) in what
the commands printed. `loop-conformance` is this checkout's, whatever is installed.

When a change to the CLI's wording makes a page's shown output stale, refresh every `check-output` block from real
runs with `LC_REFRESH_TUTORIALS=1 python -m pytest tests/test_docs_tutorials.py`, and read the diff before
committing it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = sorted((ROOT / "docs" / "tutorials").glob("*.md"))
REFRESH = os.environ.get("LC_REFRESH_TUTORIALS", "0") not in ("", "0")
_FENCE = re.compile(r"^(?P<fence>```+)(?P<language>[\w-]*)(?P<attributes>.*)$")
_TITLE = re.compile(r'title="(?P<path>[^"]+)"')
_MARKER = re.compile(r"^<!-- tutorial: (?P<options>.*) -->$")
_NOISE = ("progress:",)  # the progress display's lines: their count depends on timing


@dataclass(frozen=True)
class FileStep:
    path: str
    content: str


@dataclass
class CommandStep:
    commands: list[str]
    shown: list[str]  # the output lines the page shows
    first_line: int  # 0-based index of the block's first line inside the page
    last_line: int  # 0-based index of its closing fence
    exit_status: int = 0
    check_output: bool = False
    printed: list[str] = field(default_factory=list[str])


def parse(page: Path) -> list[FileStep | CommandStep]:
    """The page's steps in document order."""
    lines = page.read_text(encoding="utf-8").splitlines()
    steps: list[FileStep | CommandStep] = []
    options = ""
    index = 0
    while index < len(lines):
        marker, fence = _MARKER.match(lines[index]), _FENCE.match(lines[index])
        if marker:
            options = marker["options"]
        if not fence:
            index += 1
            continue
        end = next(i for i in range(index + 1, len(lines)) if lines[i] == fence["fence"])
        body = lines[index + 1:end]
        title = _TITLE.search(fence["attributes"])
        if title:
            steps.append(FileStep(title["path"], "\n".join(body) + "\n"))
        elif fence["language"] == "console":
            steps.append(_command_step(body, index + 1, end, options))
        options = ""
        index = end + 1
    return steps


def _command_step(body: list[str], first: int, last: int, options: str) -> CommandStep:
    status = re.search(r"exit=(\d+)", options)
    return CommandStep(commands=[line[2:] for line in body if line.startswith("$ ")],
                       shown=[line for line in body if not line.startswith("$ ")], first_line=first, last_line=last,
                       exit_status=int(status[1]) if status else 0, check_output="check-output" in options)


def _workspace(tmp_path: Path) -> dict[str, str]:
    """A reader's folder: the checkout's examples and scenarios, and this checkout's `loop-conformance` first on
    PATH; returns the environment to run commands in."""
    for name in ("examples", "scenarios"):
        (tmp_path / name).symlink_to(ROOT / name, target_is_directory=True)
    bin_dir = tmp_path.parent / f"{tmp_path.name}-bin"
    bin_dir.mkdir()
    command = bin_dir / "loop-conformance"
    command.write_text(f'#!/bin/sh\nPYTHONPATH="{ROOT}${{PYTHONPATH:+:$PYTHONPATH}}" exec "{sys.executable}" '
                       '-m harness.cli "$@"\n', encoding="utf-8")
    command.chmod(0o755)
    dropped = ("PYTHONPATH", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "FORCE_COLOR")
    environment = {key: value for key, value in os.environ.items() if key not in dropped}
    return environment | {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1", "LC_ALL": "C",
                          "TERM": "dumb", "COLUMNS": "120"}


def _run(step: CommandStep, where: Path, environment: dict[str, str]) -> None:
    for number, command in enumerate(step.commands, start=1):
        # One stream for both, as a terminal shows them: errors in their place among the rest.
        finished = subprocess.run(["bash", "-c", command], cwd=where, env=environment, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, timeout=300, check=False)
        printed = [line.rstrip() for line in finished.stdout.splitlines() if not line.startswith(_NOISE)]
        expected = step.exit_status if number == len(step.commands) else 0
        assert finished.returncode == expected, (
            f"`{command}` exited {finished.returncode}, the page expects {expected}:\n"
            + "\n".join(printed[-40:]))
        step.printed += printed


def _assert_shown(step: CommandStep, page: Path) -> None:
    shown = [line.rstrip() for line in step.shown if line.strip() and line.strip() != "..."]
    missing = [line for line in shown if line not in step.printed]
    assert not missing, (f"{page.name} line {step.first_line}: the page shows output the commands did not print "
                         f"(refresh with LC_REFRESH_TUTORIALS=1):\n  " + "\n  ".join(missing)
                         + "\nprinted:\n  " + "\n  ".join(step.printed))


def _refresh(page: Path, steps: list[CommandStep]) -> None:
    """Replace the shown output of each check-output block with what its commands printed."""
    lines = page.read_text(encoding="utf-8").splitlines()
    for step in sorted(steps, key=lambda s: s.first_line, reverse=True):
        lines[step.first_line:step.last_line] = [f"$ {c}" for c in step.commands] + step.printed
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_every_tutorial_has_commands_to_run() -> None:
    assert TUTORIALS, "no tutorials under docs/tutorials"
    for page in TUTORIALS:
        if page.name != "index.md":
            assert any(isinstance(step, CommandStep) for step in parse(page)), f"{page.name} runs nothing"


@pytest.mark.parametrize("page", [p for p in TUTORIALS if p.name != "index.md"], ids=lambda p: p.stem)
def test_the_tutorial_runs_as_written(page: Path, tmp_path: Path) -> None:
    environment = _workspace(tmp_path)
    checked: list[CommandStep] = []
    for step in parse(page):
        if isinstance(step, FileStep):
            target = tmp_path / step.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(step.content, encoding="utf-8")
            continue
        _run(step, tmp_path, environment)
        if step.check_output:
            checked.append(step)
    if REFRESH:  # the page now shows what ran; the next run without the flag checks it
        _refresh(page, checked)
        return
    for step in checked:
        _assert_shown(step, page)


def _console_blocks(text: str) -> list[str]:
    return re.findall(r"^```console\n(.*?)^```", text, re.MULTILINE | re.DOTALL)


def test_the_readme_shows_the_tutorials_failing_run_and_a_baseline_entry_early() -> None:
    """The README's sample failing run is the first-scenario tutorial's, which the test above runs; a newcomer
    finds it and a baseline entry within the README's first 100 lines, and the README stays short."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = readme.splitlines()
    assert len(lines) <= 200
    sample = _console_blocks(readme)[0]
    tutorial = (ROOT / "docs" / "tutorials" / "first-scenario.md").read_text(encoding="utf-8")
    assert sample in _console_blocks(tutorial)
    assert readme.index(sample) < len("\n".join(lines[:100]))
    assert lines.index("known_failures:") < 100

