"""What an implementation's name and version may look like, wherever they enter the harness.

Both reach every report: file names, table headings, Markdown, HTML, JUnit, sort keys that compare release
numbers. An adapter is code under test and a results file may come from anywhere, so neither is trusted to be
plain: adapters are refused at load (`harness.run.registry.load_adapter`) and results files at read
(`harness.reporting.documents`) when theirs are not. Part of the value model: imports nothing of the harness.
"""

from __future__ import annotations

import re

# Entry-point names and ``module:factory`` references (a test's or a development adapter's), and provider names.
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}")
# PEP 440 releases, pre-releases and local versions ("1.0.0rc7", "0.1.0+local"); ASCII only, so a release key never
# meets a digit `int` cannot read (U+00B2 "²" passes `str.isdigit`).
_VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+!_-]{0,63}")


def shown(value: object, width: int = 40) -> str:
    """`value` quoted for a message: ASCII only (escapes instead of control or bidirectional characters) and short."""
    text = value if isinstance(value, str) else repr(value)
    return ascii(text if len(text) <= width else text[:width] + "...")


def name_problem(name: object) -> str | None:
    """Why `name` cannot be an implementation (or provider) name, or None."""
    if not isinstance(name, str):
        return f"the name is a {type(name).__name__}, not text"
    if _NAME.fullmatch(name) is None:
        return (f"the name {shown(name)} is not 1-128 ASCII letters, digits and _ . : - (starting with a letter, "
                "a digit or _)")
    return None


def version_problem(version: object) -> str | None:
    """Why `version` cannot be a release number, or None; empty means unknown and is allowed."""
    if not isinstance(version, str):
        return f"the version is a {type(version).__name__}, not text"
    if version and _VERSION.fullmatch(version) is None:
        return (f"the version {shown(version)} is not a release number (1-64 ASCII letters, digits and . + ! _ -, "
                "as PEP 440 writes them)")
    return None
