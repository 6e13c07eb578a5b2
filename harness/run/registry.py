"""Finding implementations under test: the ``loop_conformance.adapters`` entry-point group, or a
``module:factory`` reference to an adapter that is not installed (one under development, a test's)."""

from __future__ import annotations

import importlib
import importlib.metadata
from collections.abc import Callable
from typing import cast

from harness.contract import ENTRY_POINT_GROUP, LoopAdapter
from harness.errors import HarnessError, UnknownImplementationError
from harness.identity import name_problem, shown, version_problem


def implementation_names() -> list[str]:
    """Names of every registered implementation, without importing any of them."""
    return sorted({ep.name for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)})


def is_reference(name: str) -> bool:
    """`name` is a ``module:factory`` reference rather than a registered name."""
    return ":" in name


def check_known(name: str) -> None:
    """Raise `UnknownImplementationError` unless `name` is registered or a ``module:factory`` reference."""
    if not is_reference(name) and name not in implementation_names():
        known = ", ".join(implementation_names()) or "none"
        raise UnknownImplementationError(f"no implementation named '{name}' is installed (installed: {known})")


def load_adapter(name: str) -> LoopAdapter:
    """Import and build the adapter registered as `name` (or referenced as ``module:factory``).

    Raises `UnknownImplementationError` if absent, `ImportError` when its extra is missing, and whatever else
    the factory raises; callers that must survive a broken adapter catch those.
    """
    check_known(name)
    if is_reference(name):
        module, _, attribute = name.partition(":")
        factory = cast(Callable[[], LoopAdapter], getattr(importlib.import_module(module), attribute))
    else:
        entry_point = next(ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP) if ep.name == name)
        factory = cast(Callable[[], LoopAdapter], entry_point.load())
    adapter: object = cast(object, factory())
    if not isinstance(adapter, LoopAdapter):
        raise TypeError(f"the factory of '{name}' returned {type(adapter).__name__}, not a LoopAdapter")
    check_identity(adapter, name)
    return adapter


class AdapterIdentityError(HarnessError):
    """An adapter whose `name` or `version` could not be shown in a report or compared as a release."""


def check_identity(adapter: LoopAdapter, reference: str) -> None:
    """Raise `AdapterIdentityError` unless the adapter's name and version are plain (`harness.identity`): they go
    into every report, heading and sort key, so an adapter cannot smuggle markup or an unreadable release there."""
    name, version = cast(object, adapter.name), cast(object, adapter.version)
    problem = name_problem(name) or version_problem(version)
    if problem is not None:
        raise AdapterIdentityError(f"the adapter of {shown(reference)} is refused: {problem}")


def installed_adapters() -> tuple[list[LoopAdapter], list[str]]:
    """Every implementation that loads, and a note for each one that does not (a missing extra, a broken
    factory)."""
    adapters: list[LoopAdapter] = []
    problems: list[str] = []
    for name in implementation_names():
        try:
            adapters.append(load_adapter(name))
        except ImportError as error:
            problems.append(f"{name}: not available ({error})")
        except Exception as error:  # noqa: BLE001 - one broken adapter must not hide the others
            problems.append(f"{name}: its factory raised {type(error).__name__}: {error}")
    return adapters, problems

