"""The loop modules an adapter names, located on disk without importing them."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from harness.contract import LoopAdapter, adapter_loop_modules
from harness.errors import HarnessError


class LoopModuleError(HarnessError):
    """An adapter names no loop modules, or one that cannot be found as a Python source file."""


@dataclass(frozen=True)
class LoopModule:
    name: str
    path: Path  # the installed source file: read, measured, never written

    def source(self) -> str:
        return self.path.read_text(encoding="utf-8")


def locate(name: str) -> LoopModule:
    """The source file of module `name` (its parent packages are imported to find it; the module itself may be)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError) as error:
        raise LoopModuleError(f"loop module {name!r} cannot be found: {error}") from None
    origin = None if spec is None else spec.origin
    if origin is None or not origin.endswith(".py") or not Path(origin).is_file():
        raise LoopModuleError(f"loop module {name!r} is not a Python source file (found {origin!r})")
    return LoopModule(name, Path(origin).resolve())


def loop_modules(adapter: LoopAdapter) -> tuple[LoopModule, ...]:
    names = adapter_loop_modules(adapter)
    if not names:
        raise LoopModuleError(f"the {adapter.name} adapter names no loop modules (its `loop_modules` attribute), so "
                              "there is nothing to measure or mutate")
    return tuple(locate(name) for name in names)
