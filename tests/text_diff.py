"""Comparing long texts in tests (generated reports, documentation pages) with a failure message of bounded size,
made in bounded time.

A plain `assert fresh == committed` on two strings of a megabyte hands both to pytest's assertion rewriting, which
builds a full diff of them before it prints anything: minutes of CPU for a message nobody reads to the end. Here
the comparison is a plain equality; only when it fails is a diff made, in unified-diff form, of the start of the
changed region alone: the lines both texts share at the start and at the end are set aside first (linear time),
then at most WINDOW lines of each side are diffed. The diff shows at most MAX_BLOCK_LINES removed and as many added
lines of each changed block (so a rewritten block shows both sides) and MAX_DIFF_LINES lines in all, then says
where the changed region ends when it showed only its start.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

import pytest

MAX_DIFF_LINES = 60  # of the diff shown, headers included
MAX_BLOCK_LINES = 8  # removed lines, and added lines, shown of one changed block
MAX_LINE_CHARS = 300  # a longer line is cut in the message: report rows can be thousands of characters
WINDOW = 400  # lines of each side of the changed region that are diffed; difflib is quadratic at worst


def bounded_diff(expected: str, actual: str, *, label: str) -> str:
    """The start of the unified diff from `expected` to `actual` (bounded as the module says). Empty when the
    texts are equal."""
    if expected == actual:
        return ""
    old, new = expected.splitlines(), actual.splitlines()
    if old == new:
        return f"{label}: the texts differ only in line endings or a trailing newline"
    prefix = _common_prefix(old, new)
    suffix = _common_prefix(old[prefix:][::-1], new[prefix:][::-1])  # of what follows the prefix, from the end
    start, end = max(prefix - 1, 0), max(suffix - 1, 0)  # one line of context either side
    old_region, new_region = old[start:len(old) - end], new[start:len(new) - end]
    shown = [f"--- {label} (expected)", f"+++ {label} (actual)"]
    matcher = difflib.SequenceMatcher(None, old_region[:WINDOW], new_region[:WINDOW], autojunk=False)
    complete = len(old_region) <= WINDOW and len(new_region) <= WINDOW
    for group in matcher.get_grouped_opcodes(1):
        if len(shown) >= MAX_DIFF_LINES:
            complete = False
            break
        complete = _add_hunk(shown, group, old_region, new_region, start) and complete
    if not complete:
        shown.append(f"... only the start is shown of the changed region: expected lines {prefix + 1}-"
                     f"{len(old) - suffix}, actual lines {prefix + 1}-{len(new) - suffix}")
    return "\n".join(shown)


def _common_prefix(old: Sequence[str], new: Sequence[str]) -> int:
    count = 0
    for left, right in zip(old, new, strict=False):
        if left != right:
            break
        count += 1
    return count


def _add_hunk(shown: list[str], group: Sequence[tuple[str, int, int, int, int]], old: Sequence[str],
              new: Sequence[str], offset: int) -> bool:
    """Append one hunk (its header, context lines, the first lines of each side of a change) to `shown`, its line
    numbers moved by `offset`; return whether every line of it fitted."""
    first, last = group[0], group[-1]
    shown.append(f"@@ -{_range(offset + first[1], offset + last[2])} +{_range(offset + first[3], offset + last[4])} @@")
    complete = True
    for tag, i1, i2, j1, j2 in group:
        sides = [(" ", old[i1:i2])] if tag == "equal" else [("-", old[i1:i2]), ("+", new[j1:j2])]
        for sign, lines in sides:
            room = max(0, MAX_DIFF_LINES - len(shown))
            if sign != " ":
                room = min(room, MAX_BLOCK_LINES)
            shown.extend(f"{sign}{_cut(line)}" for line in lines[:room])
            complete = complete and len(lines) <= room
    return complete


def _range(start: int, stop: int) -> str:
    """A hunk header's range, as unified diffs write it (an empty range names the line before it)."""
    return f"{start + 1},{stop - start}" if stop > start else f"{start},0"


def assert_same_text(actual: str, expected: str, *, label: str, hint: str = "") -> None:
    """Fail with a bounded diff (after `hint`, e.g. how to regenerate `label`) unless the texts are equal."""
    __tracebackhide__ = True
    if actual == expected:
        return
    message = bounded_diff(expected, actual, label=label)
    pytest.fail(f"{hint}\n{message}" if hint else message, pytrace=False)


def _cut(line: str) -> str:
    return line if len(line) <= MAX_LINE_CHARS else f"{line[:MAX_LINE_CHARS]}... ({len(line)} characters)"
