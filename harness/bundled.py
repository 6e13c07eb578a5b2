"""Where the bundled suite lives: the scenarios and the default known-failure baseline shipped with the harness.

An installed wheel carries them inside the package as ``harness/_data/`` (the build copies the repository's
top-level ``scenarios/`` and ``baselines/known-failures.yaml`` there: see build_support/bundle_suite.py), found through
`importlib.resources`. An editable install has no such copy, so the checkout's own files are used and edits show
without reinstalling. Never the working directory: a run from any folder finds the same suite.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
# The checkout holding this package, in an editable install or a run from the source tree; None when installed.
_CHECKOUT = _PACKAGE.parent if (_PACKAGE.parent / "pyproject.toml").is_file() else None


def _bundled(*parts: str) -> Path:
    """The installed package's copy of a bundled file, else the checkout's.

    When neither exists, the installed location, so that an error names where the suite should have been. The
    suite runs in worker processes that read it by path, so it must be installed as files (pip always unpacks
    wheels); a package imported from a zip file finds no packaged copy.
    """
    packaged = files("harness").joinpath("_data", *parts)
    if isinstance(packaged, Path) and packaged.exists():
        return packaged
    if _CHECKOUT is not None and _CHECKOUT.joinpath(*parts).exists():
        return _CHECKOUT.joinpath(*parts)
    return _PACKAGE.joinpath("_data", *parts)


BUNDLED_SCENARIOS = _bundled("scenarios")
BUNDLED_BASELINE = _bundled("baselines", "known-failures.yaml")
# Behaviours a framework documents as its design where spec 004 asks otherwise (`harness.reporting.design`).
BUNDLED_DESIGN_DIFFERENCES = _bundled("baselines", "design-differences.yaml")
# Known defects as the fuzzer meets them on generated conversations (`harness.fuzz.allowances`).
BUNDLED_FUZZ_ALLOWANCES = _bundled("baselines", "fuzz-allowances.yaml")
