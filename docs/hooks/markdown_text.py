"""Small Markdown builders shared by the reference-page generators: tables and inline-safe cell text."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def cell(text: object) -> str:
    """`text` made safe inside a table cell: pipes escaped, line breaks folded into spaces."""
    return " ".join(str(text).split()).replace("|", "\\|")


def code(text: object) -> str:
    """`text` as inline code; an empty value stays empty rather than becoming an empty code span."""
    value = str(text)
    if not value:
        return ""
    fence = "``" if "`" in value else "`"
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}".replace("|", "\\|")


def table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A Markdown table; cells are taken as Markdown already (pass them through `cell` or `code`)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(value) for value in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def fenced(text: str, language: str = "text") -> str:
    """`text` in a fenced code block long enough not to be closed by a fence inside it."""
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}{language}\n{text.rstrip()}\n{fence}\n"
