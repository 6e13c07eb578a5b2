"""Serving a mutated copy of a module in place of the installed one, for this process only.

The mutated source is written to a file in a temporary folder and an import hook placed first on
`sys.meta_path` loads the module from that copy; the installed file and the repository are never touched. The hook
must be installed before anything imports the module (the mutation runner does so in a fresh child process).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType


class MutantFinder(importlib.abc.MetaPathFinder):
    """Finds module `name` at `copy` (a mutated copy), leaving every other import to the usual finders."""

    def __init__(self, name: str, copy: Path) -> None:
        self.name = name
        self.copy = copy

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        loader = importlib.machinery.SourceFileLoader(fullname, str(self.copy))
        return importlib.util.spec_from_file_location(fullname, self.copy, loader=loader)


def install_mutant(name: str, mutated: str, folder: Path) -> MutantFinder:
    """Write `mutated` as the copy of module `name` under `folder` and make imports of `name` load it."""
    if name in sys.modules:
        # Already imported: the copy would never be used and the mutant would survive for a wrong reason.
        raise RuntimeError(f"{name} is already imported in this process; a mutant must be installed first")
    copy = folder / (name.replace(".", "_") + "_mutant.py")
    copy.write_text(mutated, encoding="utf-8")
    finder = MutantFinder(name, copy)
    sys.meta_path.insert(0, finder)
    return finder
