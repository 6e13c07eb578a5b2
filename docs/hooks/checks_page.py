"""The checks and capabilities references, read off the code that defines them.

Checks come from the requirements table (`harness.requirements.REQUIREMENTS`): each check's id, the profile it
belongs to, whether it is the scenario's own or a universal invariant, the source it enforces and the sentence.
Capabilities come from the comments beside each value of `harness.contract.Capability`, the one place they are
explained.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Callable
from typing import Any

from markdown_text import cell, code, table

import harness.contract
from harness.requirements import REQUIREMENTS


def _profile_lookup() -> Callable[[str], str]:
    """How to find a check's profile: on its requirement, or from a profiles module when there is one (whichever
    of the names below it offers and that answers for a known check)."""
    try:
        profiles: Any = importlib.import_module("harness.profiles")
    except ImportError:
        profiles = None

    def on_requirement(check: str) -> str:
        return str(getattr(REQUIREMENTS[check], "profile", "") or "")

    candidates: list[Callable[[str], str]] = [on_requirement]
    for name in ("profile_of", "check_profile", "profile"):
        function = getattr(profiles, name, None)
        if callable(function):
            candidates.append(lambda check, function=function: str(function(check) or ""))
    for name in ("CHECK_PROFILES", "PROFILES_BY_CHECK"):
        mapping = getattr(profiles, name, None)
        if isinstance(mapping, dict):
            candidates.append(lambda check, mapping=mapping: str(mapping.get(check, "")))  # pyright: ignore
    for candidate in candidates:
        try:
            if candidate("exactly-once"):
                return candidate
        except Exception:  # a function of another signature: not the lookup this page needs
            continue
    return on_requirement


def checks_reference() -> str:
    """The generated table of every check the requirements table describes."""
    profile = _profile_lookup()
    rows: list[list[str]] = []
    for check, requirement in sorted(REQUIREMENTS.items(), key=lambda item: (item[1].scope, item[0])):
        owned = ", ".join(requirement.rows)
        scope = "universal invariant" if requirement.scope == "general" else "the scenario's own"
        text = requirement.text + (f" Also the own requirement of: {owned}." if owned else "")
        cites = ", ".join(code(cite) for cite in getattr(requirement, "cites", ()))
        source = cell(requirement.source) + (f"<br>cites {cites}" if cites else "")
        rows.append([code(check), cell(profile(check)) or "—", scope, source, cell(text)])
    return table(["check", "profile", "kind", "source", "what it enforces"], rows)


_CAPABILITY_LINE = re.compile(r'^\s*"(?P<name>[a-z0-9-]+)",\s*#\s*(?P<text>.*)$')


def capabilities() -> list[tuple[str, str]]:
    """(capability, what it means) in the order the contract declares them, from the comment beside each."""
    source = inspect.getsource(harness.contract)
    block = source.split("Capability = Literal[", 1)[1].split("]\n", 1)[0]
    found = [(match["name"], match["text"]) for line in block.splitlines() if (match := _CAPABILITY_LINE.match(line))]
    if not found:
        raise RuntimeError("no capabilities found beside harness.contract.Capability")
    return found


def capabilities_reference() -> str:
    return table(["capability", "what the implementation does"],
                 ([code(name), cell(text)] for name, text in capabilities()))
