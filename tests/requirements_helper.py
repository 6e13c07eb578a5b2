"""Tests that need something from outside the checkout skip without it, saying what is missing and how to get it.

CI provides all of it, so there a skip would be a broken setup rather than a test that does not apply: with
`LC_REQUIRE_ALL=1` in the environment (`.ci/run` sets it) a missing requirement fails the test instead. Skips that
are results, such as n/a scenario items, do not come through here and stay skips.
"""

from __future__ import annotations

import os

import pytest

REQUIRE_ALL = "LC_REQUIRE_ALL"

SPEC_MISSING = ("the spec file is missing: put spec 004 at ../shared/spec/004-python-function-calling-loop.md beside "
                "the checkout, where CI checks it out")
INSTALL_PINNED = "pip install -e '.[agent-framework]' -c constraints/latest.txt"


def require(condition: bool, reason: str) -> None:
    """Skip the calling test (or, called at import, its module) with `reason` unless `condition` holds.

    With `LC_REQUIRE_ALL` set (to anything but 0) it fails with the same reason instead.
    """
    __tracebackhide__ = True  # the skip or failure is reported at the caller's line
    if condition:
        return
    if os.environ.get(REQUIRE_ALL, "0") not in ("", "0"):
        pytest.fail(f"{reason} ({REQUIRE_ALL} is set: a missing requirement fails instead of skipping)", pytrace=False)
    pytest.skip(reason, allow_module_level=True)
