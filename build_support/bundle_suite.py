"""Build hook (named in pyproject.toml, `[tool.setuptools.cmdclass]`): the wheel carries the bundled suite
inside the `harness` package, as `harness/_data/`.

People edit `scenarios/` and `baselines/known-failures.yaml` at the top of the repository; `build_py` copies them
into the built package, where `harness.bundled` finds them through `importlib.resources` from any working
directory. Everything else about the package is declared in pyproject.toml.

Why a build step rather than a declaration: `package-data` only takes files inside a package folder, and
`data-files` installs under the environment's prefix (`share/...`), where `importlib.resources` cannot see them;
mapping `scenarios/` in as a package through `package-dir` would replace `packages.find` with a hand-kept list of
every subpackage; a symlink breaks on Windows checkouts and in the sdist. Copying two paths in `build_py` is short,
works the same for a wheel built from the checkout and one built from the sdist (MANIFEST.in ships both paths), and
is skipped for editable installs, which read the checkout's own files so edits show without reinstalling.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent.parent
# Repository path -> path inside the built `harness` package. Keep in step with harness/bundled.py.
BUNDLED = {"scenarios": "_data/scenarios", "baselines/known-failures.yaml": "_data/baselines/known-failures.yaml",
           "baselines/fuzz-allowances.yaml": "_data/baselines/fuzz-allowances.yaml",
           "baselines/design-differences.yaml": "_data/baselines/design-differences.yaml"}


class BuildWithBundledSuite(build_py):
    """`build_py` that also copies the bundled scenarios and the default baseline into the built package."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads the checkout's files in place
            return
        target = Path(self.build_lib, "harness", "_data")
        shutil.rmtree(target, ignore_errors=True)  # no stale scenario from an earlier build survives in build/
        for source, destination in BUNDLED.items():
            origin, copy = ROOT / source, Path(self.build_lib, "harness", destination)
            if not origin.exists():
                raise FileNotFoundError(f"{origin}: the bundled suite is missing from the source tree")
            copy.parent.mkdir(parents=True, exist_ok=True)
            if origin.is_dir():
                shutil.copytree(origin, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            else:
                shutil.copy2(origin, copy)

