"""Colour for the console output of a run, through rich, on a terminal only.

The text renderers (harness/reporting/text.py, run_listing.py) return plain lines; this module styles them by their
shape when they are printed. rich writes no escape codes when the output is not a terminal (a pipe, a file, a CI
log) and honours NO_COLOR and FORCE_COLOR, so logs and tests see the plain text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rich.console import Console
from rich.text import Text

VERDICT_STYLES = {"FAIL": "bold red", "ERROR": "bold magenta", "DIFFERS": "bold yellow", "N/A": "dim",
                  "XFAIL": "yellow", "PASS": "green"}
_VERDICT = re.compile(r"^(FAIL|ERROR|DIFFERS|N/A|XFAIL|PASS) ")
_DIFF_INDENT = "      "  # how text.py indents a check's diff under its bullet


def console(*, stderr: bool = False) -> Console:
    """A console writing to the current stdout (or stderr), styled only on a terminal, never wrapping lines."""
    return Console(stderr=stderr, highlight=False, markup=False, emoji=False, soft_wrap=True)


def styled(line: str) -> Text:
    """`line` with the style its shape calls for: a verdict word, a diff's added and removed lines."""
    text = Text(line)
    verdict = _VERDICT.match(line)
    if verdict:
        text.stylize(VERDICT_STYLES[verdict.group(1)], 0, len(verdict.group(1)))
    elif line.startswith(_DIFF_INDENT):
        body = line[len(_DIFF_INDENT):]
        if body.startswith("+") and not body.startswith("+++"):
            text.stylize("green")
        elif body.startswith("-") and not body.startswith("---"):
            text.stylize("red")
        elif body.startswith("@@"):
            text.stylize("cyan")
        elif body.startswith("... "):
            text.stylize("dim")
    return text


def echo(out: Console, lines: Iterable[str] | str) -> None:
    """Print `lines` (or one text of several lines) on `out`, each styled by its shape."""
    for line in (lines.split("\n") if isinstance(lines, str) else lines):
        out.print(styled(line))

