"""The lines of the installed loop modules a change touches, from a unified diff of any version of their source.

A historical fix was written against an older file, and the installed release may already contain it; line
numbers in the diff are therefore not trusted. Each hunk is located in the installed file by content, on whichever
side (before or after the change) matches it better, and its changed lines are mapped there: the added lines when
the installed file holds the fixed code, the removed lines when it holds the old code; a pure insertion or
deletion maps to the lines around it.
"""

from __future__ import annotations

import difflib
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness.errors import HarnessError

_FILE = re.compile(r"^\+\+\+ (?:b/)?(?P<path>\S+)")
_OLD_FILE = re.compile(r"^--- (?:a/)?(?P<path>\S+)")
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")


class DiffError(HarnessError):
    """The diff cannot be read: no such file, not a git repository or range, no hunks."""


@dataclass
class Hunk:
    path: str
    header: str
    lines: list[tuple[str, str]] = field(default_factory=lambda: [])  # (" ", "-" or "+", text)

    def side(self, new: bool) -> list[tuple[str, bool]]:
        """The hunk's text on one side, each line with whether the change touches it there."""
        mark = "+" if new else "-"
        return [(text, kind == mark) for kind, text in self.lines if kind in (" ", mark)]

    def around_other_side(self, new: bool) -> list[int]:
        """Indices, on one side, of the lines just before and after each change that exists only on the other."""
        mark, other = ("+", "-") if new else ("-", "+")
        index, around = 0, set[int]()
        for kind, _ in self.lines:
            if kind == other:
                around.update((index - 1, index))
            elif kind in (" ", mark):
                index += 1
        return sorted(around)


@dataclass(frozen=True)
class MappedHunk:
    hunk: Hunk
    module: str
    lines: tuple[int, ...]  # installed lines the change touches
    side: str  # "after" (the installed file holds the changed code) or "before"
    matched: float  # share of the chosen side's lines found in the installed file


def parse_diff(text: str) -> list[Hunk]:
    hunks: list[Hunk] = []
    path = old_path = ""
    current: Hunk | None = None
    for line in text.splitlines():
        if line.startswith("diff --git"):
            current = None
            continue
        if (found := _OLD_FILE.match(line)) and current is None:
            old_path = found.group("path")
            continue
        if (found := _FILE.match(line)) and current is None:
            path = found.group("path")
            if path == "/dev/null":
                path = old_path
            continue
        if _HUNK.match(line):
            current = Hunk(path, line)
            hunks.append(current)
            continue
        if current is not None and line[:1] in (" ", "-", "+"):
            current.lines.append((line[:1], line[1:]))
        elif current is not None and line == "":
            current.lines.append((" ", ""))
        elif current is not None and not line.startswith("\\"):
            current = None
    return hunks


def read_diff(diff: str, repo: Path | None) -> str:
    """The diff text: a patch file, or, with `repo`, a git range (``A..B``) or one commit in that repository."""
    if repo is None:
        path = Path(diff)
        if not path.is_file():
            raise DiffError(f"{diff}: no such patch file (give --repo to read a git range or commit)")
        return path.read_text(encoding="utf-8", errors="replace")
    command = (["git", "-C", str(repo), "diff", diff] if ".." in diff
               else ["git", "-C", str(repo), "show", "--format=", diff])
    done = subprocess.run(command, capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise DiffError(f"git could not give the diff of {diff!r} in {repo}: {done.stderr.strip()}")
    return done.stdout


def module_for(path: str, modules: Sequence[str]) -> str | None:
    """The loop module a diff path is the source of (`python/packages/core/agent_framework/_tools.py` is
    `agent_framework._tools`), matched by the module's path as a suffix."""
    for module in modules:
        suffix = module.replace(".", "/") + ".py"
        if path == suffix or path.endswith("/" + suffix):
            return module
    return None


_SLACK = 15  # lines the installed code may have grown or shrunk around a hunk


def _anchor(texts: list[str], installed: list[str]) -> int | None:
    """Where (0-based, in the installed file) the hunk's text would start, from its most distinctive line found
    exactly once in the installed file; None when no line of it is found exactly once."""
    counts: dict[str, list[int]] = {}
    for number, line in enumerate(installed):
        counts.setdefault(line, []).append(number)
    best: tuple[int, int] | None = None  # (length of the line, where the hunk would start)
    for index, text in enumerate(texts):
        found = counts.get(text, [])
        if len(found) == 1 and len(text.strip()) > 8 and (best is None or len(text) > best[0]):
            best = (len(text), found[0] - index)
    return None if best is None else max(0, best[1])


def _map_side(hunk: Hunk, new: bool, installed: list[str]) -> tuple[tuple[int, ...], float]:
    """Installed lines the side's changed lines (or, for none, the lines around the change) correspond to."""
    side = hunk.side(new)
    texts = [text.rstrip() for text, _ in side]
    where: dict[int, int] = {}
    start = _anchor(texts, installed)
    if start is not None:
        # Matched only within a window around the anchor: short, common lines (a closing bracket, a blank line)
        # would otherwise match anywhere in the file.
        low, high = max(0, start - _SLACK), min(len(installed), start + len(texts) + _SLACK)
        matcher = difflib.SequenceMatcher(None, installed[low:high], texts, autojunk=False)
        for block in matcher.get_matching_blocks():
            for offset in range(block.size):
                where[block.b + offset] = low + block.a + offset + 1
    matched = len(where) / len(texts) if texts else 0.0
    changed = [i for i, (_, touched) in enumerate(side) if touched]
    if not changed:
        # The change exists only on the other side (a pure insertion or deletion): take the lines around it.
        changed = [i for i in hunk.around_other_side(new) if 0 <= i < len(side)]
    return tuple(sorted({where[i] for i in changed if i in where})), matched


def map_hunks(hunks: Sequence[Hunk], sources: dict[str, str]) -> list[MappedHunk]:
    """Each hunk of a loop module, located in that module's installed source."""
    mapped: list[MappedHunk] = []
    lines = {module: [text.rstrip() for text in source.splitlines()] for module, source in sources.items()}
    for hunk in hunks:
        module = module_for(hunk.path, list(sources))
        if module is None:
            continue
        after, after_share = _map_side(hunk, True, lines[module])
        before, before_share = _map_side(hunk, False, lines[module])
        if after_share >= before_share:
            mapped.append(MappedHunk(hunk, module, after, "after", after_share))
        else:
            mapped.append(MappedHunk(hunk, module, before, "before", before_share))
    return mapped
