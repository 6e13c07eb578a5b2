"""LangSmith's tracing bookkeeping run on the event loop, so the thread pool does not decide which of a parallel
batch's tool results finishes first.

`create_agent` wraps every middleware hook (the adapter's `ToolErrors.awrap_tool_call`, `CallerOptions.
awrap_model_call`) in LangSmith's `traceable`, which, traced or not, hands its bookkeeping before and after each
call to a worker thread (`run_in_executor`) and waits for it. With parallel calls every tool call makes those two
hops, so the order in which the calls finish, and so the order in which the agent's stream yields their
`ToolMessage`s (and, after an approval, the order the tools run in), is decided by which thread the OS schedules
first: on Python 3.11 it came out the same within one setup (though not the scripted one: c2, c1, c3 where the
delays make c3, c2, c1, in the snapshot tests' process), on 3.13 it varies from run to run, so verdicts and
reports did too. A scenario decides completion order itself, with scripted delays
(`normal.parallel-calls.finish-out-of-order`), so the harness takes the threads out of it: during a turn the
bookkeeping runs inline, through `langsmith.set_runtime_overrides`, the hook LangSmith offers for runtimes without
`run_in_executor`. What LangChain does with results that finish out of order is unchanged, and still observed.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Generator
from contextlib import contextmanager
from typing import Any


async def _inline(_default: Callable[..., Any], context: contextvars.Context, function: Callable[..., Any],
                  /, *args: Any, **kwargs: Any) -> Any:
    """LangSmith's `aio_to_thread`, without the thread: the function runs in the context LangSmith gives it, as
    its documentation asks of an override."""
    return context.run(function, *args, **kwargs)


@contextmanager
def bookkeeping_inline() -> Generator[None]:
    """While open, LangSmith runs its tracing bookkeeping on the event loop; the override found is put back after.

    A LangSmith without runtime overrides (older than the hook) is left as it is.
    """
    try:
        from langsmith import _runtime_overrides as overrides  # the getter is not re-exported at the top
    except ImportError:
        yield
        return
    before = overrides.get_runtime_overrides().aio_to_thread
    overrides.set_runtime_overrides(aio_to_thread=_inline)
    try:
        yield
    finally:
        overrides.set_runtime_overrides(aio_to_thread=before)
