"""The bounded diff long-text comparisons fail with: the start of the changes, where they end, never megabytes."""

from __future__ import annotations

import pytest
from text_diff import MAX_BLOCK_LINES, MAX_DIFF_LINES, MAX_LINE_CHARS, assert_same_text, bounded_diff

ROWS = 50_000
BIG = "".join(f"row {n}: {'x' * 40}\n" for n in range(ROWS))  # 2.4 MB, the size of the largest committed report


def test_equal_texts_give_no_diff_and_pass() -> None:
    assert bounded_diff(BIG, BIG, label="coverage.md") == ""
    assert_same_text(BIG, BIG, label="coverage.md")


def test_a_rewritten_text_shows_both_sides_of_its_first_lines_and_where_the_changes_end() -> None:
    lines = bounded_diff(BIG, BIG.replace("x", "y"), label="coverage.md").splitlines()
    assert lines[:3] == ["--- coverage.md (expected)", "+++ coverage.md (actual)", "@@ -1,400 +1,400 @@"]
    assert lines[3:] == ([f"-row {n}: {'x' * 40}" for n in range(MAX_BLOCK_LINES)]
                         + [f"+row {n}: {'y' * 40}" for n in range(MAX_BLOCK_LINES)]
                         + [f"... only the start is shown of the changed region: expected lines 1-{ROWS}, actual lines "
                            f"1-{ROWS}"])


def test_one_changed_line_is_shown_with_its_neighbours_and_nothing_else() -> None:
    lines = bounded_diff(BIG, BIG.replace("row 25000: ", "row 25000 changed: "), label="f").splitlines()
    assert lines[2:] == ["@@ -25000,3 +25000,3 @@", f" row 24999: {'x' * 40}", f"-row 25000: {'x' * 40}",
                         f"+row 25000 changed: {'x' * 40}", f" row 25001: {'x' * 40}"]


def test_an_added_line_at_the_end_is_shown() -> None:
    lines = bounded_diff(BIG, BIG + "row new\n", label="f").splitlines()
    assert lines[2:] == [f"@@ -{ROWS},1 +{ROWS},2 @@", f" row {ROWS - 1}: {'x' * 40}", "+row new"]


def test_many_scattered_changes_stop_at_the_line_cap() -> None:
    lines = bounded_diff(BIG, BIG.replace("0: ", "0! "), label="f").splitlines()  # every tenth row
    assert len(lines) == MAX_DIFF_LINES + 1
    assert lines[-1] == ("... only the start is shown of the changed region: expected lines 1-49991, actual lines "
                         "1-49991")


def test_long_lines_are_cut() -> None:
    diff = bounded_diff("a" * 10_000, "b" * 10_000, label="f")
    assert f"-{'a' * MAX_LINE_CHARS}... (10000 characters)" in diff.splitlines()


def test_a_difference_in_line_endings_alone_is_named() -> None:
    assert bounded_diff("a\nb\n", "a\nb", label="f") == "f: the texts differ only in line endings or a trailing newline"


def test_a_mismatch_fails_with_the_hint_and_a_short_diff() -> None:
    with pytest.raises(pytest.fail.Exception) as failure:
        assert_same_text(BIG.replace("row 7:", "row 7!"), BIG, label="coverage.md",
                         hint="coverage.md is stale: regenerate it")
    message = str(failure.value)
    assert message.startswith("coverage.md is stale: regenerate it\n--- coverage.md (expected)")
    assert f"+row 7! {'x' * 40}" in message.splitlines()
    assert len(message) < 1_000
