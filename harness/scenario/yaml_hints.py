"""What to do about a YAML syntax error: a hint for each kind of problem PyYAML reports.

PyYAML says what it expected at the place it gave up; the hints say which mistakes of a hand-written file lead
there and how to fix them.
"""

from __future__ import annotations

_INDENT = ("check the indentation: keys of one mapping, and the '- ' items of one list, start in the same column "
           "(spaces only)")
_QUOTE = "quote the value (a plain value cannot start with this character)"

# (words the problem starts with, words the context holds or "", hint); the first match wins.
_HINTS: tuple[tuple[str, str, str], ...] = (
    ("found character '\\t'", "", "YAML indents with spaces only: replace the tab with spaces"),
    ("found a tab character", "", "YAML indents with spaces only: replace the tab with spaces"),
    ("found character '@'", "", "'@' and '`' are reserved in YAML: " + _QUOTE),
    ("found character '`'", "", "'@' and '`' are reserved in YAML: " + _QUOTE),
    ("found character", "", _QUOTE),
    ("found unknown escape character", "", "in double quotes a backslash starts an escape: write '\\\\' for a "
     "backslash, or use single quotes"),
    ("expected escape sequence", "", "in double quotes '\\x', '\\u' and '\\U' take 2, 4 and 8 hexadecimal digits: "
     "fix the escape, or use single quotes"),
    ("mapping values are not allowed here", "", "a plain value cannot contain ': ': quote the value, or check that "
     "this key is indented under its parent"),
    ("could not find expected ':'", "", "a key needs ': ' after it; if this line continues the text of the line "
     "before, quote that text or write it as a block ('>' or '|')"),
    ("expected <block end>", "", _INDENT),
    ("did not find expected", "", _INDENT),
    ("expected ',' or ']'", "", "close the list with ']', and quote any item that holds ':', ',', '[' or ']'"),
    ("expected ',' or '}'", "", "close the mapping with '}', and quote any value that holds ':', ',', '{' or '}'"),
    ("found undefined alias", "", "define the anchor with '&name' before using '*name'; to write a literal '*', "
     "quote the value"),
    ("found duplicate anchor", "", "each anchor ('&name') is defined once per file: rename one of them"),
    ("expected alphabetic or numeric character", "alias", "'*' starts an alias: " + _QUOTE),
    ("expected alphabetic or numeric character", "anchor", "'&' starts an anchor: " + _QUOTE),
    ("expected alphabetic or numeric character", "directive", "a line starting with '%' is a directive: "
     + _QUOTE),
    ("expected chomping or indentation indicators", "", "after '|' or '>' only '+', '-' or a digit may follow on "
     "that line: move the text to the next lines"),
    ("expected a comment or a line break", "", "a quoted value, or '|' or '>', ends the line: quote the whole value"),
    ("expected the node content", "", "a value is missing or starts with a reserved character: " + _QUOTE),
    ("expected a single document", "", "a scenario file holds one document: remove the '---' line, or split the "
     "file"),
    ("sequence entries are not allowed here", "", _INDENT),
    ("mapping keys are not allowed here", "", "'?' starts a complex key: " + _QUOTE),
    ("found undefined tag handle", "", "'!' starts a tag: " + _QUOTE),
    ("expected URI", "", "'!' starts a tag: " + _QUOTE),
    ("expected '!'", "", "'!' starts a tag: " + _QUOTE),
)

_FALLBACK = "check this line and the one before it: indentation (spaces only), quotes and brackets must match"


def syntax_hint(problem: str, context: str | None) -> str:
    """A hint for PyYAML's `problem`, given the `context` it names (e.g. "while scanning an alias")."""
    context = context or ""
    for start, within, hint in _HINTS:
        if problem.startswith(start) and within in context:
            return hint
    return _FALLBACK
