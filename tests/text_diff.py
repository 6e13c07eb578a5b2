"""Comparing long texts in tests (generated reports, documentation pages) with a failure message of bounded size.

A plain `assert fresh == committed` on two strings of a megabyte hands both to pytest's assertion rewriting, which
builds a full diff of them before it prints anything: minutes of CPU for a message nobody reads to the end. Here
the comparison is a plain equality; only when it fails is a unified diff made, and it stops after a few hunks.
"""

from __future__ import annotations

import difflib
import itertools

import pytest

MAX_DIFF_LINES = 60  # of the unified diff shown, headers included
MAX_LINE_CHARS = 300  # a longer line is cut in the message: report rows can be thousands of characters


def bounded_diff(expected: str, actual: str, *, label: str, max_lines: int = MAX_DIFF_LINES) -> str:
    """The first `max_lines` lines of the unified diff from `expected` to `actual` (each line cut at
    MAX_LINE_CHARS), then how many differing lines were left out. Empty when the texts are equal."""
    if expected == actual:
        return ""
    diff = difflib.unified_diff(expected.splitlines(), actual.splitlines(), f"{label} (expected)",
                                f"{label} (actual)", n=1, lineterm="")
    shown = [_cut(line) for line in itertools.islice(diff, max_lines)]
    left = sum(1 for line in diff if line.startswith(("-", "+")))  # the rest of the same generator
    if left:
        shown.append(f"... {left} more differing lines not shown")
    if not shown:  # equal lines, different line endings or a final newline
        shown.append(f"{label}: the texts differ only in line endings or a trailing newline")
    return "\n".join(shown)


def assert_same_text(actual: str, expected: str, *, label: str, hint: str = "") -> None:
    """Fail with a bounded diff (and `hint`, e.g. how to regenerate `label`) unless the texts are equal."""
    __tracebackhide__ = True
    if actual == expected:
        return
    message = bounded_diff(expected, actual, label=label)
    pytest.fail(f"{hint}\n{message}" if hint else message, pytrace=False)


def _cut(line: str) -> str:
    return line if len(line) <= MAX_LINE_CHARS else f"{line[:MAX_LINE_CHARS]}... ({len(line)} characters)"
