"""Finding implementations under test through the ``loop_conformance.adapters`` entry-point group."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable
from typing import cast

from harness.contract import ENTRY_POINT_GROUP, LoopAdapter
from harness.errors import UnknownImplementationError


def implementation_names() -> list[str]:
    """Names of every registered implementation, without importing any of them."""
    return sorted({ep.name for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)})


def load_adapter(name: str) -> LoopAdapter:
    """Import and build the adapter registered as `name`; raises `UnknownImplementationError` if absent."""
    for entry_point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry_point.name == name:
            factory = cast(Callable[[], LoopAdapter], entry_point.load())
            return factory()
    known = ", ".join(implementation_names()) or "none"
    raise UnknownImplementationError(f"no implementation named '{name}' is installed (installed: {known})")


def installed_adapters() -> tuple[list[LoopAdapter], list[str]]:
    """Every implementation that loads, and a note for each one that does not (e.g. a missing extra)."""
    adapters: list[LoopAdapter] = []
    problems: list[str] = []
    for name in implementation_names():
        try:
            adapters.append(load_adapter(name))
        except ImportError as error:
            problems.append(f"{name}: not available ({error})")
    return adapters, problems
