"""The default loop limits, for the checks and for any loop that wants them.

The spec names the settings but not their defaults; these are the defaults of the framework the spec describes
(`FunctionInvocationConfiguration`), so a loop with no limit configured is judged against the same bound.
Part of the value model: imports nothing of the harness.
"""

from __future__ import annotations

DEFAULT_MAX_ITERATIONS = 40
DEFAULT_MAX_CONSECUTIVE_ERRORS = 3
